//! TOML with spans, parsed by `toml_edit`'s span-keeping `Document` (Codex's
//! `config.toml`, Codex agent roles, Gemini/Qwen commands). A table's span
//! runs from its header (or first key) to the end of its last value, so a
//! `[mcp_servers.docs]` entry's range covers the whole section.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::{Map, Value};
use toml_edit::{Item, Table};

use super::spans::{pointer, SpannedDoc, Syntax};
use super::text::line_label;

type Spans = HashMap<String, Range<usize>>;

/// Parse `text`; an error says its line.
pub fn parse(text: &str) -> Result<SpannedDoc, String> {
    let doc = toml_edit::Document::parse(text).map_err(|e| {
        let at = e.span().map_or(0, |span| span.start);
        format!("{}: {}", line_label(text, at), e.message().trim())
    })?;
    let mut spans = Spans::new();
    let (value, _) = table(doc.as_table(), &mut Vec::new(), &mut spans);
    Ok(SpannedDoc::new(value, Syntax::Toml, text.to_owned(), spans))
}

/// The smallest span holding both (either may be unknown).
fn union(a: Option<Range<usize>>, b: Option<Range<usize>>) -> Option<Range<usize>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
        (a, b) => a.or(b),
    }
}

fn record(path: &[String], span: Option<Range<usize>>, spans: &mut Spans) {
    if let Some(span) = span {
        spans.insert(pointer(path), span);
    }
}

fn table(table: &Table, path: &mut Vec<String>, spans: &mut Spans) -> (Value, Option<Range<usize>>) {
    let mut map = Map::new();
    let mut extent = table.span();
    for (key, item) in table.iter() {
        path.push(key.to_owned());
        let (value, span) = self::item(item, path, spans);
        let span = union(table.key(key).and_then(toml_edit::Key::span), span);
        record(path, span.clone(), spans);
        extent = union(extent, span);
        path.pop();
        map.insert(key.to_owned(), value);
    }
    (Value::Object(map), extent)
}

fn item(item: &Item, path: &mut Vec<String>, spans: &mut Spans) -> (Value, Option<Range<usize>>) {
    match item {
        Item::None => (Value::Null, None),
        Item::Value(value) => (self::value(value, path, spans), value.span()),
        Item::Table(t) => table(t, path, spans),
        Item::ArrayOfTables(tables) => {
            let mut items = Vec::new();
            let mut extent = tables.span();
            for (i, t) in tables.iter().enumerate() {
                path.push(i.to_string());
                let (value, span) = table(t, path, spans);
                record(path, span.clone(), spans);
                extent = union(extent, span);
                path.pop();
                items.push(value);
            }
            (Value::Array(items), extent)
        }
    }
}

fn value(value: &toml_edit::Value, path: &mut Vec<String>, spans: &mut Spans) -> Value {
    use toml_edit::Value as V;
    match value {
        V::String(s) => Value::String(s.value().clone()),
        V::Integer(i) => Value::from(*i.value()),
        V::Float(f) => serde_json::Number::from_f64(*f.value()).map_or(Value::Null, Value::Number),
        V::Boolean(b) => Value::Bool(*b.value()),
        V::Datetime(d) => Value::String(d.value().to_string()),
        V::Array(array) => Value::Array(
            array
                .iter()
                .enumerate()
                .map(|(i, element)| {
                    path.push(i.to_string());
                    record(path, element.span(), spans);
                    let v = self::value(element, path, spans);
                    path.pop();
                    v
                })
                .collect(),
        ),
        V::InlineTable(inline) => {
            let mut map = Map::new();
            for (key, element) in inline.iter() {
                path.push(key.to_owned());
                let span = union(inline.key(key).and_then(toml_edit::Key::span), element.span());
                record(path, span, spans);
                map.insert(key.to_owned(), self::value(element, path, spans));
                path.pop();
            }
            Value::Object(map)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_spans_header_to_last_value() {
        let text = "model = \"x\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"srv\"]\n\n[mcp_servers.web]\nurl = \"https://h/mcp\"\nenv = { K = \"v\" }\n";
        let doc = parse(text).unwrap();
        assert_eq!(doc.value["mcp_servers"]["docs"]["args"][1], "srv");
        let docs = doc.range(&["mcp_servers", "docs"]).unwrap();
        assert_eq!((docs.start.line, docs.start.character, docs.end.line), (2, 0, 4));
        let web = doc.range(&["mcp_servers", "web"]).unwrap();
        assert_eq!((web.start.line, web.end.line), (6, 8));
        assert_eq!(doc.range(&["mcp_servers", "web", "env", "K"]).unwrap().start.line, 8);
        assert_eq!(doc.id_pointer(&["mcp_servers", "docs"]), "mcp_servers.docs");
        assert!(parse("a = \n").unwrap_err().starts_with("line 1"));
    }
}
