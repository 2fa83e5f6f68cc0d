//! JSON and JSONC (comments, trailing commas) with spans, parsed by dprint's
//! `jsonc-parser`: settings files are often JSONC (`.vscode/mcp.json`,
//! `opencode.jsonc`, hand-edited `settings.json`).

use std::collections::HashMap;
use std::ops::Range;

use jsonc_parser::ast;
use jsonc_parser::common::Ranged as _;
use serde_json::{Map, Value};

use super::spans::{pointer, SpannedDoc, Syntax};

/// Parse `text`; an error says its line.
pub fn parse(text: &str) -> Result<SpannedDoc, String> {
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default())
        .map_err(|e| format!("line {}: {}", e.line_display(), e.kind()))?;
    let mut spans = HashMap::new();
    let value = match parsed.value {
        Some(root) => convert(&root, &mut Vec::new(), &mut spans),
        None => Value::Null,
    };
    Ok(SpannedDoc::new(value, Syntax::Json, text.to_owned(), spans))
}

fn convert(node: &ast::Value<'_>, path: &mut Vec<String>, spans: &mut HashMap<String, Range<usize>>) -> Value {
    match node {
        ast::Value::Object(object) => {
            let mut map = Map::new();
            for prop in &object.properties {
                let name = prop.name.as_str().to_owned();
                path.push(name.clone());
                spans.insert(pointer(path), prop.range.start..prop.range.end);
                let value = convert(&prop.value, path, spans);
                path.pop();
                map.insert(name, value);
            }
            Value::Object(map)
        }
        ast::Value::Array(array) => {
            let mut items = Vec::with_capacity(array.elements.len());
            for (i, element) in array.elements.iter().enumerate() {
                path.push(i.to_string());
                let range = element.range();
                spans.insert(pointer(path), range.start..range.end);
                items.push(convert(element, path, spans));
                path.pop();
            }
            Value::Array(items)
        }
        leaf => Value::from(leaf.clone()),
    }
}

#[cfg(test)]
mod tests {
    use ahp_types::state::TextPosition;

    use super::*;

    #[test]
    fn members_and_elements_have_ranges_and_comments_are_allowed() {
        let text = "{\r\n  // servers\r\n  \"a\": {\"x\": [1, 2],},\r\n  \"b\": true\r\n}";
        let doc = parse(text).unwrap();
        assert_eq!(doc.value["a"]["x"][1], 2);
        let a = doc.range(&["a"]).unwrap();
        assert_eq!((a.start.line, a.start.character, a.end.line), (2, 2, 2));
        assert_eq!(doc.range(&["b"]).unwrap().start, TextPosition { line: 3, character: 2 });
        assert_eq!(doc.range(&["a", "x", "1"]).unwrap().start.character, 17);
        assert!(parse("{\n\"a\": }").unwrap_err().starts_with("line 2"));
    }
}
