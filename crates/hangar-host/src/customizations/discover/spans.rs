//! A parsed JSON or TOML file that remembers where each entry is: the value
//! as a `serde_json::Value`, and the byte span of every object member and
//! array element by JSON pointer, for `range` and for stable ids.

use std::collections::HashMap;
use std::ops::Range;

use ahp_types::state::TextRange;
use serde_json::Value;

use super::text::LineIndex;

/// Which syntax a [`SpannedDoc`] came from (ids use its own path syntax).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// JSON / JSONC: ids use JSON pointers (`/mcpServers/docs`).
    Json,
    /// TOML: ids use dotted paths (`mcp_servers.docs`).
    Toml,
}

/// A parsed file with its spans.
#[derive(Debug, Clone)]
pub struct SpannedDoc {
    /// The whole value.
    pub value: Value,
    syntax: Syntax,
    text: String,
    index: LineIndex,
    spans: HashMap<String, Range<usize>>,
}

impl SpannedDoc {
    /// A document from its parts (the parsers' job).
    pub fn new(value: Value, syntax: Syntax, text: String, spans: HashMap<String, Range<usize>>) -> Self {
        let index = LineIndex::new(&text);
        Self { value, syntax, text, index, spans }
    }

    /// The range of the member or element at `segments`.
    pub fn range(&self, segments: &[&str]) -> Option<TextRange> {
        let span = self.spans.get(&pointer(segments))?;
        Some(self.index.range(&self.text, span.clone()))
    }

    /// The id pointer of the entry at `segments`: a JSON pointer, or a
    /// dotted TOML path (keys quoted when they are not bare).
    pub fn id_pointer(&self, segments: &[&str]) -> String {
        match self.syntax {
            Syntax::Json => pointer(segments),
            Syntax::Toml => segments.iter().map(|s| toml_key(s)).collect::<Vec<_>>().join("."),
        }
    }
}

/// The JSON pointer (RFC 6901) of `segments`.
pub fn pointer<S: AsRef<str>>(segments: &[S]) -> String {
    segments.iter().map(|s| format!("/{}", s.as_ref().replace('~', "~0").replace('/', "~1"))).collect()
}

fn toml_key(key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_owned()
    } else {
        format!("{key:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_and_toml_paths_quote() {
        assert_eq!(pointer(&["hooks", "a/b~c", "0"]), "/hooks/a~1b~0c/0");
        let doc = SpannedDoc::new(Value::Null, Syntax::Toml, String::new(), HashMap::new());
        assert_eq!(doc.id_pointer(&["mcp_servers", "my.srv"]), "mcp_servers.\"my.srv\"");
    }
}
