//! The chat as the UI sees it, and the incremental updates that keep it
//! current.
//!
//! State is reduced elsewhere (the official reducers in
//! `MultiHostStateMirror`); this module only *projects* a reduced
//! [`ChatState`] into view JSON and diffs successive projections:
//!
//! - [`turn_view`] / [`part_view`]: a turn or response part as plain JSON
//!   with markdown pre-rendered to sanitized HTML (`html`) and file edits
//!   pre-diffed (`diffs`). Everything else is data the UI shows as text.
//! - [`ChatProjection`]: remembers what the UI was sent and turns the next
//!   state into ops: `meta`, `active`, `part`, `turnMeta`, `turnDone`,
//!   `older`, or a fresh `snapshot`. Per streamed token it re-serializes
//!   only the active turn's parts and re-renders only the part that changed,
//!   so the cost does not grow with the transcript.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use ahp_types::state::{ActiveTurn, ChatState, ResponsePart, Turn};
use serde_json::{json, Value};

use crate::file_diff::file_edit_view;
use crate::markdown;

/// A response part as view JSON.
pub fn part_view(part: &ResponsePart) -> Value {
    match part {
        ResponsePart::Markdown(p) => json!({ "kind": "markdown", "id": p.id, "html": markdown::render(&p.content) }),
        ResponsePart::Reasoning(p) => json!({ "kind": "reasoning", "id": p.id, "html": markdown::render(&p.content) }),
        ResponsePart::ToolCall(_) => {
            let mut v = serde_json::to_value(part).unwrap_or(Value::Null);
            let tc = &mut v["toolCall"];
            let mut diffs = Vec::new();
            if let Some(items) = tc["edits"]["items"].as_array() {
                diffs.extend(items.iter().map(file_edit_view));
            }
            if diffs.is_empty() {
                if let Some(content) = tc["content"].as_array() {
                    diffs.extend(content.iter().filter(|c| c["type"] == "fileEdit").map(file_edit_view));
                }
            }
            if let Some(obj) = v.as_object_mut() {
                obj.insert("diffs".into(), Value::Array(diffs));
            }
            v
        }
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}

/// A completed turn as view JSON.
pub fn turn_view(turn: &Turn) -> Value {
    json!({
        "id": turn.id,
        "active": false,
        "startedAt": turn.started_at,
        "duration": turn.duration,
        "message": message_view(&turn.message),
        "parts": turn.response_parts.iter().map(part_view).collect::<Vec<_>>(),
        "usage": turn.usage,
        "state": turn.state,
    })
}

/// The active turn as view JSON.
pub fn active_view(turn: &ActiveTurn) -> Value {
    json!({
        "id": turn.id,
        "active": true,
        "startedAt": turn.started_at,
        "message": message_view(&turn.message),
        "parts": turn.response_parts.iter().map(part_view).collect::<Vec<_>>(),
        "usage": turn.usage,
        "state": Value::Null,
    })
}

fn message_view(message: &ahp_types::state::Message) -> Value {
    json!({ "text": message.text, "model": message.model.as_ref().map(|m| m.id.clone()) })
}

/// The chat fields outside the transcript.
pub fn meta_view(chat: &ChatState) -> Value {
    json!({
        "resource": chat.resource,
        "title": chat.title,
        "status": chat.status,
        "activity": chat.activity,
        "queued": chat.queued_messages.as_ref().map(|q| q.iter().map(|m| json!({"id": m.id, "text": m.message.text})).collect::<Vec<_>>()).unwrap_or_default(),
        "steering": chat.steering_message.as_ref().map(|m| json!({"id": m.id, "text": m.message.text})),
        "draft": chat.draft.as_ref().map(|d| d.text.clone()),
        "olderCursor": chat.turns_next_cursor,
        "activeTurnId": chat.active_turn.as_ref().map(|t| t.id.clone()),
    })
}

fn hash_of<T: serde::Serialize>(value: &T) -> u64 {
    let mut h = DefaultHasher::new();
    serde_json::to_string(value).unwrap_or_default().hash(&mut h);
    h.finish()
}

/// What the UI has been sent for one chat.
#[derive(Debug, Default)]
pub struct ChatProjection {
    meta: u64,
    active_id: Option<String>,
    active_parts: Vec<u64>,
    active_usage: u64,
    first_turn: Option<String>,
    last_turn: Option<String>,
    turn_count: usize,
}

impl ChatProjection {
    /// A full snapshot op, remembering it as sent.
    pub fn snapshot(&mut self, chat: &ChatState) -> Value {
        *self = Self::default();
        self.meta = hash_of(&meta_view(chat));
        self.first_turn = chat.turns.first().map(|t| t.id.clone());
        self.last_turn = chat.turns.last().map(|t| t.id.clone());
        self.turn_count = chat.turns.len();
        if let Some(active) = &chat.active_turn {
            self.active_id = Some(active.id.clone());
            self.active_parts = active.response_parts.iter().map(hash_of).collect();
            self.active_usage = hash_of(&active.usage);
        }
        json!({
            "op": "snapshot",
            "meta": meta_view(chat),
            "turns": chat.turns.iter().map(turn_view).collect::<Vec<_>>(),
            "active": chat.active_turn.as_ref().map(active_view),
        })
    }

    /// The ops that take the UI from what it was sent to `chat`.
    pub fn update(&mut self, chat: &ChatState) -> Vec<Value> {
        let mut ops = Vec::new();
        // Completed turns: appended at the end, prepended by fetchTurns,
        // anything else (truncation) is a fresh snapshot.
        let first = chat.turns.first().map(|t| t.id.clone());
        let last = chat.turns.last().map(|t| t.id.clone());
        if first != self.first_turn || last != self.last_turn || chat.turns.len() != self.turn_count {
            let old_first = self.first_turn.as_deref().and_then(|id| chat.turns.iter().position(|t| t.id == id));
            let old_last = self.last_turn.as_deref().and_then(|id| chat.turns.iter().position(|t| t.id == id));
            let consistent = match (old_first, old_last) {
                (Some(f), Some(l)) => l + 1 - f == self.turn_count,
                _ => self.turn_count == 0,
            };
            if !consistent {
                return vec![self.snapshot(chat)];
            }
            let (start, end) = match (old_first, old_last) {
                (Some(f), Some(l)) => (f, l + 1),
                _ => (chat.turns.len(), chat.turns.len()),
            };
            if start > 0 {
                ops.push(json!({
                    "op": "older",
                    "turns": chat.turns[..start].iter().map(turn_view).collect::<Vec<_>>(),
                }));
            }
            let fresh = if self.turn_count == 0 { &chat.turns[..] } else { &chat.turns[end..] };
            for turn in fresh {
                ops.push(json!({ "op": "turnDone", "turn": turn_view(turn) }));
            }
            self.first_turn = first;
            self.last_turn = last;
            self.turn_count = chat.turns.len();
        }
        let active_id = chat.active_turn.as_ref().map(|t| t.id.clone());
        if active_id != self.active_id {
            self.active_id = active_id;
            self.active_parts.clear();
            self.active_usage = 0;
            match &chat.active_turn {
                Some(active) => {
                    self.active_parts = active.response_parts.iter().map(hash_of).collect();
                    self.active_usage = hash_of(&active.usage);
                    ops.push(json!({ "op": "active", "turn": active_view(active) }));
                }
                None => ops.push(json!({ "op": "active", "turn": Value::Null })),
            }
        } else if let Some(active) = &chat.active_turn {
            for (index, part) in active.response_parts.iter().enumerate() {
                let h = hash_of(part);
                if self.active_parts.get(index) != Some(&h) {
                    if index < self.active_parts.len() {
                        self.active_parts[index] = h;
                    } else {
                        self.active_parts.push(h);
                    }
                    ops.push(json!({ "op": "part", "turnId": active.id, "index": index, "part": part_view(part) }));
                }
            }
            let usage = hash_of(&active.usage);
            if usage != self.active_usage {
                self.active_usage = usage;
                ops.push(json!({ "op": "turnMeta", "turnId": active.id, "usage": active.usage }));
            }
        }
        let meta = meta_view(chat);
        let h = hash_of(&meta);
        if h != self.meta {
            self.meta = h;
            ops.push(json!({ "op": "meta", "meta": meta }));
        }
        ops
    }
}

/// Pending confirmations in a chat's active turn, for the approval inbox:
/// `(turnId, toolCallId, title)`.
pub fn pending_confirmations(chat: &ChatState) -> Vec<(String, String, String)> {
    let Some(active) = &chat.active_turn else { return Vec::new() };
    active
        .response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::ToolCall(tc) => match &tc.tool_call {
                ahp_types::state::ToolCallState::PendingConfirmation(s) => {
                    let title = match &s.confirmation_title {
                        Some(t) => string_or_markdown(t),
                        None => s.display_name.clone(),
                    };
                    Some((active.id.clone(), s.tool_call_id.clone(), title))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Plain text of a `StringOrMarkdown`.
pub fn string_or_markdown(v: &ahp_types::common::StringOrMarkdown) -> String {
    match v {
        ahp_types::common::StringOrMarkdown::Plain(s) => s.clone(),
        ahp_types::common::StringOrMarkdown::Markdown { markdown } => markdown.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(v: Value) -> ChatState {
        let mut base = json!({"resource": "ahp-chat:/c", "title": "", "status": 1, "modifiedAt": "2026-01-01T00:00:00Z", "turns": []});
        if let (Some(b), Some(o)) = (base.as_object_mut(), v.as_object()) {
            for (k, val) in o {
                b.insert(k.clone(), val.clone());
            }
        }
        serde_json::from_value(base).unwrap()
    }

    fn turn(id: &str) -> Value {
        json!({"id": id, "message": {"text": id, "origin": {"kind": "user"}}, "responseParts": [], "state": "complete"})
    }

    fn active(text: &str) -> Value {
        json!({"id": "a", "startedAt": "2026-01-01T00:00:00Z", "message": {"text": "q", "origin": {"kind": "user"}},
            "responseParts": [{"kind": "markdown", "id": "m", "content": text}]})
    }

    #[test]
    fn a_token_sends_one_part_op_only() {
        let mut p = ChatProjection::default();
        let turns: Vec<Value> = (0..50).map(|i| turn(&format!("t{i}"))).collect();
        p.snapshot(&chat(json!({"turns": turns, "activeTurn": active("Hel")})));
        let ops = p.update(&chat(json!({"turns": turns, "activeTurn": active("Hello *w*")})));
        assert_eq!(ops.len(), 1, "{ops:?}");
        assert_eq!(ops[0]["op"], "part");
        assert_eq!(ops[0]["part"]["html"], "<p>Hello <em>w</em></p>\n");
        assert!(p.update(&chat(json!({"turns": turns, "activeTurn": active("Hello *w*")}))).is_empty());
    }

    #[test]
    fn completion_older_pages_and_truncation() {
        let mut p = ChatProjection::default();
        p.snapshot(&chat(json!({"turns": [turn("t2")], "activeTurn": active("x")})));
        let ops = p.update(&chat(json!({"turns": [turn("t2"), turn("a")]})));
        let kinds: Vec<&str> = ops.iter().map(|o| o["op"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["turnDone", "active", "meta"]);
        let ops = p.update(&chat(json!({"turns": [turn("t0"), turn("t1"), turn("t2"), turn("a")]})));
        assert_eq!(ops[0]["op"], "older");
        assert_eq!(ops[0]["turns"].as_array().unwrap().len(), 2);
        let ops = p.update(&chat(json!({"turns": [turn("t0")]})));
        assert_eq!(ops[0]["op"], "snapshot", "truncation re-sends everything");
    }

    #[test]
    fn pending_confirmations_are_listed() {
        let c = chat(json!({"activeTurn": {"id": "a", "startedAt": "x", "message": {"text": "q", "origin": {"kind": "user"}},
            "responseParts": [{"kind": "toolCall", "toolCall": {"status": "pending-confirmation", "toolCallId": "tc", "toolName": "edit",
                "displayName": "Edit", "invocationMessage": "Edit a file", "confirmationTitle": "Edit hello.txt"}}]}}));
        assert_eq!(pending_confirmations(&c), vec![("a".to_owned(), "tc".to_owned(), "Edit hello.txt".to_owned())]);
        let view = part_view(&c.active_turn.unwrap().response_parts[0]);
        assert_eq!(view["kind"], "toolCall");
        assert!(view["diffs"].as_array().unwrap().is_empty());
    }
}
