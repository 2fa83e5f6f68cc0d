//! `${VAR}` and `${VAR:-default}` in MCP launch values, as Claude Code,
//! Gemini and Codex expand them, plus VS Code's `${env:VAR}`. Values come
//! from a few named extras (`workspaceFolder`, `CLAUDE_PLUGIN_ROOT`) and
//! then the process environment; an unset variable without a default
//! becomes empty. Anything else in `${…}` (VS Code's `${input:id}`) stays.

/// `text` with its variables expanded.
pub fn expand(text: &str, extra: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = &after[..end];
        match lookup(inner, extra) {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The value of one `${inner}`, or `None` to leave it as written.
fn lookup(inner: &str, extra: &[(&str, String)]) -> Option<String> {
    let inner = inner.strip_prefix("env:").unwrap_or(inner);
    let (name, default) = match inner.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (inner, None),
    };
    if !is_name(name) {
        return None;
    }
    let value = extra
        .iter()
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var(name).ok())
        .filter(|value| !value.is_empty());
    Some(value.or(default.map(str::to_owned)).unwrap_or_default())
}

/// Whether `name` is a variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_defaults_and_the_rest() {
        let extra = [("workspaceFolder", "/w".to_owned())];
        assert_eq!(expand("${workspaceFolder}/x", &extra), "/w/x");
        assert_eq!(expand("a${HANGAR_SURELY_UNSET_1:-dflt}b", &extra), "adfltb");
        assert_eq!(expand("<${HANGAR_SURELY_UNSET_1}>", &extra), "<>");
        assert_eq!(expand("${input:token} ${ unclosed", &extra), "${input:token} ${ unclosed");
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand("${PATH}|${env:PATH}", &extra), format!("{path}|{path}"));
    }
}
