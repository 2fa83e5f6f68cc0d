//! Reading loosely typed fields (frontmatter, JSON, TOML — all as
//! `serde_json` maps): a string, a list given as a list or as one
//! comma-separated string, a flag.

use serde_json::{Map, Value};

/// The first of `keys` that holds a non-empty scalar, as text.
pub fn text(map: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| match map.get(*key)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        // A fallback list (Copilot's `model`): its first entry.
        Value::Array(items) => items.first().and_then(Value::as_str).map(str::to_owned),
        _ => None,
    })
}

/// The first of `keys` that holds a list: a list of strings, a
/// comma-separated string, or a map of names to booleans (the names set to
/// `true`, as OpenCode writes `tools`).
pub fn list(map: &Map<String, Value>, keys: &[&str]) -> Option<Vec<String>> {
    keys.iter().find_map(|key| {
        let items: Vec<String> = match map.get(*key)? {
            Value::String(s) => s.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect(),
            Value::Array(items) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            Value::Object(names) => {
                names.iter().filter(|(_, on)| on.as_bool() == Some(true)).map(|(name, _)| name.clone()).collect()
            }
            _ => return None,
        };
        Some(items)
    })
}

/// The first of `keys` that holds a boolean (or `"true"`/`"false"`).
pub fn flag(map: &Map<String, Value>, keys: &[&str]) -> Option<bool> {
    keys.iter().find_map(|key| match map.get(*key)? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_come_in_three_shapes() {
        let map = json!({"a": "Read, Grep ,", "b": ["x", 1, "y"], "c": {"bash": true, "edit": false}, "d": 3});
        let map = map.as_object().unwrap();
        assert_eq!(list(map, &["a"]).unwrap(), ["Read", "Grep"]);
        assert_eq!(list(map, &["zz", "b"]).unwrap(), ["x", "y"]);
        assert_eq!(list(map, &["c"]).unwrap(), ["bash"]);
        assert_eq!(list(map, &["d"]), None);
        assert_eq!(text(map, &["d"]).as_deref(), Some("3"));
        assert_eq!(text(map, &["b"]).as_deref(), Some("x"));
    }
}
