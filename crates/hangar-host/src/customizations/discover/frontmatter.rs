//! YAML frontmatter of Markdown customizations (`---` … `---` at the top),
//! parsed by `serde-saphyr`.
//!
//! Why `serde-saphyr`: `serde_yaml` is deprecated and `serde_yaml_ng` keeps
//! its `unsafe-libyaml` core; `serde-saphyr` is pure Rust on the maintained
//! `saphyr` parser family, advertises panic-free parsing with budgets
//! against alias bombs (a user's file must never take the host down), and
//! reports errors with line and column. Only its `deserialize` feature is
//! built.

use serde_json::{Map, Value};

/// The frontmatter fields of `text` (empty when there is none), or an
/// error naming the line in the file. CRLF line endings are accepted.
pub fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line));
    if lines.next().map(str::trim_end) != Some("---") {
        return Ok(Map::new());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if matches!(line.trim_end(), "---" | "...") {
            closed = true;
            break;
        }
        yaml.push_str(line);
        yaml.push('\n');
    }
    if !closed {
        return Err("line 1: the frontmatter opened by --- is never closed".to_owned());
    }
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_saphyr::from_str::<Value>(&yaml) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(_) => Err("line 2: the frontmatter is not a mapping of keys to values".to_owned()),
        Err(e) => Err(describe(&e)),
    }
}

/// `"line N: what"` with N counted in the file (the YAML starts on line 2).
fn describe(error: &serde_saphyr::Error) -> String {
    let full = error.to_string();
    let first = full.lines().next().unwrap_or("invalid YAML").trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // The YAML's own "line L column C: " counts from the frontmatter's start.
    let what = match first.split_once(": ") {
        Some((at, rest)) if at.starts_with("line ") && at.contains(" column ") => rest,
        _ => first,
    };
    match error.location() {
        Some(at) => format!("line {}: {what}", at.line() + 1),
        None => what.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_but_valid_frontmatter_loads() {
        let text =
            "\u{feff}---\r\n# a comment\r\n\"name\": 'x'\r\ntools: [Read, \"Grep\"]\r\nempty:\r\n---\r\nbody\r\n";
        let map = parse(text).unwrap();
        assert_eq!(map["name"], "x");
        assert_eq!(map["tools"][1], "Grep");
        assert_eq!(map["empty"], Value::Null);
        assert!(parse("---\n---\nbody").unwrap().is_empty());
        assert!(parse("no frontmatter\n---\n").unwrap().is_empty());
    }

    #[test]
    fn errors_name_the_line_in_the_file() {
        let err = parse("---\nname: a\ndescription: [unclosed\n---\n").unwrap_err();
        assert_eq!(err, "line 3: unclosed bracket '['");
        assert!(parse("---\nname: a\n").unwrap_err().contains("never closed"));
    }
}
