//! Keeping secrets out of what clients see: an MCP server's `_meta`
//! summary shows env and header values, arguments and URLs as written,
//! except values that look like secrets, shown as `•••`. A value is
//! secret when its name says so (contains KEY, TOKEN, SECRET, PASSWORD,
//! PASSWD, CREDENTIAL or AUTH) or it looks like a token (a known token
//! prefix, or a long unbroken mix of letters and digits). A value made
//! only of `${VAR}` references is shown: it names where the secret lives,
//! not the secret.

/// What a hidden value is shown as.
pub const MASK: &str = "•••";

const SECRET_NAMES: &[&str] = &["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"];
const TOKEN_PREFIXES: &[&str] =
    &["sk-", "ghp_", "gho_", "ghu_", "ghs_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "AKIA", "AIza", "npm_"];

/// `value` as shown for the entry called `name`.
pub fn shown(name: &str, value: &str) -> String {
    if is_reference(value) {
        return value.to_owned();
    }
    let upper = name.to_ascii_uppercase();
    if SECRET_NAMES.iter().any(|word| upper.contains(word)) || looks_like_token(value) {
        MASK.to_owned()
    } else {
        value.to_owned()
    }
}

/// A command-line argument as shown: a token, or the value of a
/// `--api-key=…` style argument, is hidden.
pub fn shown_arg(arg: &str) -> String {
    if arg.contains("://") {
        return shown_url(arg);
    }
    match arg.split_once('=') {
        Some((name, value)) => format!("{name}={}", shown(name, value)),
        None if looks_like_token(arg) => MASK.to_owned(),
        None => arg.to_owned(),
    }
}

/// A URL as shown: a password in it and secret-looking query values are
/// hidden.
pub fn shown_url(url: &str) -> String {
    let url = hide_password(url);
    let Some((base, query)) = url.split_once('?') else {
        return url;
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => format!("{name}={}", shown(name, value)),
            None => pair.to_owned(),
        })
        .collect();
    format!("{base}?{}", query.join("&"))
}

/// `scheme://user:•••@host…` for `scheme://user:password@host…`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_owned();
    };
    match rest[..at].split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:{MASK}{}", &rest[at..]),
        None => url.to_owned(),
    }
}

/// Whether `value` is only `${VAR}` references (no literal defaults).
fn is_reference(value: &str) -> bool {
    let mut rest = value.trim();
    let bearer = rest.strip_prefix("Bearer ");
    rest = bearer.unwrap_or(rest);
    if rest.is_empty() {
        return false;
    }
    while let Some(after) = rest.strip_prefix("${") {
        let Some(end) = after.find('}') else {
            return false;
        };
        let name = after[..end].strip_prefix("env:").unwrap_or(&after[..end]);
        if !super::expand::is_name(name) {
            return false;
        }
        rest = &after[end + 1..];
    }
    rest.is_empty()
}

/// A known token prefix, or 20+ characters without spaces mixing letters
/// and digits (a `Bearer ` prefix ignored).
fn looks_like_token(value: &str) -> bool {
    let value = value.trim();
    let value = value.strip_prefix("Bearer ").unwrap_or(value);
    if TOKEN_PREFIXES.iter().any(|prefix| value.starts_with(prefix) && value.len() > prefix.len() + 8) {
        return true;
    }
    value.len() >= 20
        && !value.contains(char::is_whitespace)
        && !value.contains('/')
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_and_references_and_plain_values_are_not() {
        assert_eq!(shown("API_KEY", "abc"), MASK);
        assert_eq!(shown("Authorization", "Bearer xyz"), MASK);
        assert_eq!(shown("GITHUB_TOKEN", "${GITHUB_TOKEN}"), "${GITHUB_TOKEN}");
        assert_eq!(shown("Authorization", "Bearer ${TOKEN}"), "Bearer ${TOKEN}");
        assert_eq!(shown("TOKEN", "${TOKEN:-sk-live-1234567890}"), MASK);
        assert_eq!(shown("LOG_LEVEL", "debug"), "debug");
        assert_eq!(shown("X", "a1b2c3d4e5f6g7h8i9j0k1"), MASK);
        assert_eq!(shown("X", "ghp_abcdefghijklmnop"), MASK);
        assert_eq!(shown_arg("--api-key=abc"), format!("--api-key={MASK}"));
        assert_eq!(shown_arg("-y"), "-y");
        assert_eq!(shown_arg("@modelcontextprotocol/server-filesystem"), "@modelcontextprotocol/server-filesystem");
        assert_eq!(shown_url("https://h/mcp?token=abc&v=1"), format!("https://h/mcp?token={MASK}&v=1"));
        assert_eq!(shown_arg("postgres://me:pw@db/x"), format!("postgres://me:{MASK}@db/x"));
    }
}
