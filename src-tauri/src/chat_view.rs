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

use ahp_types::state::{ActiveTurn, ChatState, MessageAttachment, ResponsePart, Turn};
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

/// A user message: text, model, and what is attached (label and URI only,
/// shown as text).
fn message_view(message: &ahp_types::state::Message) -> Value {
    let attachments: Vec<Value> = message.attachments.iter().flatten().map(attachment_view).collect();
    json!({ "text": message.text, "model": message.model.as_ref().map(|m| m.id.clone()), "attachments": attachments })
}

/// An attachment's label and, for a resource, its URI; read from the typed
/// variant so an embedded attachment's data is never copied (this runs for
/// every projection of the active turn).
fn attachment_view(a: &MessageAttachment) -> Value {
    let (label, uri) = match a {
        MessageAttachment::Simple(x) => (Value::from(x.label.as_str()), Value::Null),
        MessageAttachment::EmbeddedResource(x) => (Value::from(x.label.as_str()), Value::Null),
        MessageAttachment::Resource(x) => (Value::from(x.label.as_str()), Value::from(x.uri.as_str())),
        MessageAttachment::Annotations(x) => (Value::from(x.label.as_str()), Value::Null),
        MessageAttachment::Chat(x) => (Value::from(x.label.as_str()), Value::Null),
        MessageAttachment::Unknown(v) => (v["label"].clone(), v["uri"].clone()),
    };
    json!({ "label": label, "uri": uri })
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

/// Completed turns sent with a snapshot or one `older` page.
pub const TURN_PAGE: usize = 50;

/// What the UI has been sent for one chat.
///
/// The UI holds a contiguous window of completed turns, `first_turn ..=
/// last_turn` (`turn_count` of them), ending at the newest. The mirror may
/// hold more (a long live session, or pages loaded with `fetchTurns`); those
/// are sent only when asked for, [`TURN_PAGE`] at a time.
#[derive(Debug, Default)]
pub struct ChatProjection {
    meta: u64,
    active_id: Option<String>,
    active_parts: Vec<u64>,
    active_usage: u64,
    first_turn: Option<String>,
    last_turn: Option<String>,
    turn_count: usize,
    /// An older page was asked for and is being fetched from the host.
    want_older: bool,
}

impl ChatProjection {
    /// A full snapshot op (the newest [`TURN_PAGE`] turns), remembering it as sent.
    pub fn snapshot(&mut self, chat: &ChatState) -> Value {
        *self = Self::default();
        let start = chat.turns.len().saturating_sub(TURN_PAGE);
        let sent = &chat.turns[start..];
        self.meta = hash_of(&meta_view(chat));
        self.first_turn = sent.first().map(|t| t.id.clone());
        self.last_turn = sent.last().map(|t| t.id.clone());
        self.turn_count = sent.len();
        if let Some(active) = &chat.active_turn {
            self.active_id = Some(active.id.clone());
            self.active_parts = active.response_parts.iter().map(hash_of).collect();
            self.active_usage = hash_of(&active.usage);
        }
        json!({
            "op": "snapshot",
            "meta": meta_view(chat),
            "turns": sent.iter().map(turn_view).collect::<Vec<_>>(),
            "active": chat.active_turn.as_ref().map(active_view),
        })
    }

    /// Index in `chat.turns` of the first turn the UI has.
    fn sent_start(&self, chat: &ChatState) -> usize {
        match &self.first_turn {
            Some(id) => chat.turns.iter().position(|t| &t.id == id).unwrap_or(0),
            None => chat.turns.len(),
        }
    }

    /// Whether turns older than the UI's window are already in the mirror.
    pub fn has_local_older(&self, chat: &ChatState) -> bool {
        self.sent_start(chat) > 0
    }

    /// The next older page from the mirror as an `older` op, if any.
    pub fn older(&mut self, chat: &ChatState) -> Option<Value> {
        let end = self.sent_start(chat);
        if end == 0 {
            return None;
        }
        let start = end.saturating_sub(TURN_PAGE);
        let page = &chat.turns[start..end];
        self.first_turn = page.first().map(|t| t.id.clone());
        self.turn_count += page.len();
        if self.last_turn.is_none() {
            self.last_turn = page.last().map(|t| t.id.clone());
        }
        Some(
            json!({ "op": "older", "turns": page.iter().map(turn_view).collect::<Vec<_>>(), "more": start > 0 || chat.turns_next_cursor.is_some() }),
        )
    }

    /// Send the next older page once the host has loaded it.
    pub fn want_older(&mut self) {
        self.want_older = true;
    }

    /// The ops that take the UI from what it was sent to `chat`.
    pub fn update(&mut self, chat: &ChatState) -> Vec<Value> {
        let mut ops = Vec::new();
        // Completed turns: appended at the end (sent), loaded before the
        // window (sent only when asked), anything else (truncation) is a
        // fresh snapshot.
        let end = match (self.first_turn.as_deref(), self.last_turn.as_deref()) {
            // Nothing sent yet: the newest page is new.
            (None, None) => chat.turns.len().saturating_sub(TURN_PAGE),
            (Some(f), Some(l)) => {
                let fi = chat.turns.iter().position(|t| t.id == f);
                let li = chat.turns.iter().position(|t| t.id == l);
                match (fi, li) {
                    (Some(fi), Some(li)) if li + 1 == fi + self.turn_count => li + 1,
                    _ => return vec![self.snapshot(chat)],
                }
            }
            _ => return vec![self.snapshot(chat)],
        };
        if end < chat.turns.len() {
            for turn in &chat.turns[end..] {
                ops.push(json!({ "op": "turnDone", "turn": turn_view(turn) }));
                self.turn_count += 1;
            }
            if self.first_turn.is_none() {
                self.first_turn = chat.turns.get(end).map(|t| t.id.clone());
            }
            self.last_turn = chat.turns.last().map(|t| t.id.clone());
        }
        if self.want_older && self.has_local_older(chat) {
            self.want_older = false;
            ops.extend(self.older(chat));
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

/// What waits for the user in a chat's active turn, for the approval inbox:
/// tool calls pending confirmation and unanswered input requests, as
/// `(turnId, toolCallId or input request id, title)`.
pub fn pending_confirmations(chat: &ChatState) -> Vec<(String, String, String)> {
    let Some(active) = &chat.active_turn else { return Vec::new() };
    active
        .response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::InputRequest(i) if i.response.is_none() => {
                let title = i.request.message.clone().unwrap_or_else(|| "The agent asks for input".to_owned());
                Some((active.id.clone(), i.request.id.clone(), title))
            }
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

    #[test]
    fn a_message_shows_its_attachments_as_label_and_uri() {
        let message: ahp_types::state::Message = serde_json::from_value(json!({"text": "read @notes.md", "origin": {"kind": "user"},
            "attachments": [{"type": "resource", "label": "notes.md", "uri": "file:///w/notes.md", "displayKind": "document"}]}))
        .unwrap();
        let view = message_view(&message);
        assert_eq!(view["attachments"], json!([{"label": "notes.md", "uri": "file:///w/notes.md"}]));
    }

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
    fn snapshots_carry_only_the_newest_page() {
        let mut p = ChatProjection::default();
        let turns: Vec<Value> = (0..120).map(|i| turn(&format!("t{i}"))).collect();
        let c = chat(json!({"turns": turns}));
        let snap = p.snapshot(&c);
        assert_eq!(snap["turns"].as_array().unwrap().len(), TURN_PAGE);
        assert_eq!(snap["turns"][0]["id"], "t70");
        assert_eq!(p.older(&c).unwrap()["turns"][0]["id"], "t20");
        let last = p.older(&c).unwrap();
        assert_eq!(last["turns"].as_array().unwrap().len(), 20);
        assert_eq!(last["more"], false);
        let mut more = turns.clone();
        more.push(turn("t120"));
        let ops = p.update(&chat(json!({"turns": more})));
        assert_eq!(ops[0]["op"], "turnDone");
        assert_eq!(ops[0]["turn"]["id"], "t120");
    }

    #[test]
    fn completion_older_pages_and_truncation() {
        let mut p = ChatProjection::default();
        p.snapshot(&chat(json!({"turns": [turn("t2")], "activeTurn": active("x")})));
        let ops = p.update(&chat(json!({"turns": [turn("t2"), turn("a")]})));
        let kinds: Vec<&str> = ops.iter().map(|o| o["op"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["turnDone", "active", "meta"]);
        let loaded = chat(json!({"turns": [turn("t0"), turn("t1"), turn("t2"), turn("a")]}));
        assert!(p.update(&loaded).is_empty(), "older turns wait until asked for");
        let older = p.older(&loaded).unwrap();
        assert_eq!(older["turns"].as_array().unwrap().len(), 2);
        assert!(p.older(&loaded).is_none());
        let ops = p.update(&chat(json!({"turns": [turn("t0")]})));
        assert_eq!(ops[0]["op"], "snapshot", "truncation re-sends everything");
    }

    #[test]
    fn pending_confirmations_are_listed() {
        let c = chat(
            json!({"activeTurn": {"id": "a", "startedAt": "x", "message": {"text": "q", "origin": {"kind": "user"}},
            "responseParts": [{"kind": "toolCall", "toolCall": {"status": "pending-confirmation", "toolCallId": "tc", "toolName": "edit",
                "displayName": "Edit", "invocationMessage": "Edit a file", "confirmationTitle": "Edit hello.txt"}}]}}),
        );
        assert_eq!(pending_confirmations(&c), vec![("a".to_owned(), "tc".to_owned(), "Edit hello.txt".to_owned())]);
        let view = part_view(&c.active_turn.unwrap().response_parts[0]);
        assert_eq!(view["kind"], "toolCall");
        assert!(view["diffs"].as_array().unwrap().is_empty());
    }

    #[test]
    fn open_input_requests_are_listed_until_answered() {
        let part = |response: Value| json!({"kind": "inputRequest", "request": {"id": "in-1", "message": "Which license?", "questions": []}, "response": response});
        let with = |p: Value| {
            chat(
                json!({"activeTurn": {"id": "a", "startedAt": "x", "message": {"text": "q", "origin": {"kind": "user"}},
            "responseParts": [p]}}),
            )
        };
        assert_eq!(
            pending_confirmations(&with(part(Value::Null))),
            vec![("a".to_owned(), "in-1".to_owned(), "Which license?".to_owned())]
        );
        assert!(pending_confirmations(&with(part(json!("accept")))).is_empty());
    }
}
