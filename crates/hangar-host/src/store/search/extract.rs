//! The searchable text of a stored turn, read from its JSON generically (so a
//! part kind this host does not know costs nothing and breaks nothing): the
//! person's message, the agent's markdown, each tool call's titles, and the
//! paths of the files its edits touched. Reasoning is left out.

use serde_json::Value;

use crate::resources::uri::file_uri_to_path;

/// The text of a turn (`Turn` as JSON), one item per line.
pub fn turn_text(turn: &Value) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    push(&mut lines, turn.pointer("/message/text"));
    for part in turn.get("responseParts").and_then(Value::as_array).into_iter().flatten() {
        match part.get("kind").and_then(Value::as_str) {
            Some("markdown") => push(&mut lines, part.get("content")),
            Some("toolCall") => {
                let Some(call) = part.get("toolCall") else { continue };
                push(&mut lines, call.get("displayName"));
                for key in ["invocationMessage", "pastTenseMessage"] {
                    push(&mut lines, call.get(key).map(|m| m.get("markdown").unwrap_or(m)));
                }
                for content in call.get("content").and_then(Value::as_array).into_iter().flatten() {
                    if content.get("type").and_then(Value::as_str) == Some("fileEdit") {
                        for side in ["before", "after"] {
                            if let Some(uri) = content.pointer(&format!("/{side}/uri")).and_then(Value::as_str) {
                                let path =
                                    file_uri_to_path(uri).map_or_else(|_| uri.to_owned(), |p| p.display().to_string());
                                if !paths.contains(&path) {
                                    paths.push(path);
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut text = lines.join("\n");
    for path in paths {
        text.push('\n');
        text.push_str(&path);
    }
    text
}

fn push<'a>(lines: &mut Vec<&'a str>, value: Option<&'a Value>) {
    if let Some(s) = value.and_then(Value::as_str) {
        if !s.trim().is_empty() {
            lines.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_message_markdown_tool_titles_and_edited_paths_not_reasoning() {
        let turn = serde_json::json!({
            "id": "t1",
            "message": { "text": "fix the quokka parser", "origin": "user" },
            "responseParts": [
                { "kind": "reasoning", "id": "r", "content": "secret thoughts" },
                { "kind": "markdown", "id": "m", "content": "Done: **parser** fixed" },
                { "kind": "toolCall", "toolCall": {
                    "status": "completed", "toolCallId": "c", "toolName": "edit", "displayName": "Edit file",
                    "invocationMessage": { "markdown": "Editing `src/lib.rs`" }, "pastTenseMessage": "Edited lib",
                    "content": [{ "type": "fileEdit", "after": { "uri": "file:///w/src/lib.rs",
                        "content": { "uri": "x:/1" } } }] } }
            ],
            "state": "complete"
        });
        let text = turn_text(&turn);
        for expected in [
            "fix the quokka parser",
            "Done: **parser** fixed",
            "Edit file",
            "Editing `src/lib.rs`",
            "Edited lib",
            "/w/src/lib.rs",
        ] {
            assert!(text.contains(expected), "{expected:?} missing from {text:?}");
        }
        assert!(!text.contains("secret"));
    }
}
