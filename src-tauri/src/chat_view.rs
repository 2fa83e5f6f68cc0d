//! The chat as the UI sees it, and the incremental updates that keep it
//! current.
//!
//! State is reduced elsewhere (the official reducers in
//! `MultiHostStateMirror`); this module only *projects* a reduced
//! [`ChatState`] into views ([`hangar_desktop_protocol::chat`]) and diffs
//! successive projections:
//!
//! - [`turn_view`] / [`active_view`]: a turn with its response parts as
//!   [`crate::part_view`] shows them.
//! - [`ChatProjection`]: remembers what the UI was sent and turns the next
//!   state into [`ChatOp`]s: `meta`, `active`, `part`, `turnMeta`,
//!   `turnDone`, `older`, or a fresh `snapshot`. Per streamed token it
//!   re-serializes only the active turn's parts and re-renders only the part
//!   that changed, so the cost does not grow with the transcript.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use ahp_types::state::{ActiveTurn, ChatState, MessageAttachment, ResponsePart, TurnState, UsageInfo};

use crate::part_append::{append, SentBlocks};
use crate::part_view::{part_view, string_or_markdown};
use hangar_desktop_protocol::chat::{
    AttachmentView, ChatMeta, ChatOp, ChatSnapshot, CostView, ForkOrigin, MessageView, PendingView, TurnOutcome,
    TurnView, UsageView,
};

/// A completed turn as a view.
pub fn turn_view(turn: &ahp_types::state::Turn) -> TurnView {
    TurnView {
        id: turn.id.clone(),
        active: false,
        started_at: turn.started_at.clone(),
        duration: turn.duration,
        message: message_view(&turn.message),
        parts: turn.response_parts.iter().map(part_view).collect(),
        usage: turn.usage.as_ref().map(usage_view),
        state: Some(match turn.state {
            TurnState::Complete => TurnOutcome::Complete,
            TurnState::Cancelled => TurnOutcome::Cancelled,
            TurnState::Error => TurnOutcome::Error,
        }),
    }
}

/// The active turn as a view.
pub fn active_view(turn: &ActiveTurn) -> TurnView {
    TurnView {
        id: turn.id.clone(),
        active: true,
        started_at: Some(turn.started_at.clone()),
        duration: None,
        message: message_view(&turn.message),
        parts: turn.response_parts.iter().map(part_view).collect(),
        usage: turn.usage.as_ref().map(usage_view),
        state: None,
    }
}

/// A turn's usage; the context and cost come from the host's
/// `_meta["hangar/usage"]` report (docs/host.md), absent when the agent
/// sent none.
fn usage_view(u: &UsageInfo) -> UsageView {
    let report = u.meta.as_ref().and_then(|m| m.get("hangar/usage"));
    let number = |key: &str| report.and_then(|r| r.get(key)).and_then(serde_json::Value::as_i64);
    let cost = report.and_then(|r| r.get("cost")).and_then(|c| {
        Some(CostView { amount: c.get("amount")?.as_f64()?, currency: c.get("currency")?.as_str()?.to_owned() })
    });
    UsageView {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_tokens,
        model: u.model.clone(),
        context_used: number("used"),
        context_size: number("size"),
        cost,
    }
}

/// A user message: text, model, and what is attached (label and URI only,
/// shown as text).
fn message_view(message: &ahp_types::state::Message) -> MessageView {
    MessageView {
        text: message.text.clone(),
        model: message.model.as_ref().map(|m| m.id.clone()),
        agent: message.agent.as_ref().map(|a| a.uri.clone()),
        attachments: message.attachments.iter().flatten().map(attachment_view).collect(),
        review: crate::review_message::review_of(message),
    }
}

/// An attachment's label and, for a resource, its URI; read from the typed
/// variant so an embedded attachment's data is never copied (this runs for
/// every projection of the active turn).
fn attachment_view(a: &MessageAttachment) -> AttachmentView {
    let label = |l: &str| Some(l.to_owned());
    let (label, uri) = match a {
        MessageAttachment::Simple(x) => (label(&x.label), None),
        MessageAttachment::EmbeddedResource(x) => (label(&x.label), None),
        MessageAttachment::Resource(x) => (label(&x.label), Some(x.uri.clone())),
        MessageAttachment::Annotations(x) => (label(&x.label), None),
        MessageAttachment::Chat(x) => (label(&x.label), None),
        MessageAttachment::Unknown(v) => {
            let text = |k: &str| v[k].as_str().map(str::to_owned);
            (text("label"), text("uri"))
        }
    };
    AttachmentView { label, uri }
}

/// The chat fields outside the transcript.
pub fn meta_view(chat: &ChatState) -> ChatMeta {
    let pending = |id: &str, m: &ahp_types::state::Message| PendingView { id: id.to_owned(), text: m.text.clone() };
    ChatMeta {
        resource: chat.resource.clone(),
        title: chat.title.clone(),
        status: chat.status,
        activity: chat.activity.clone(),
        queued: chat.queued_messages.iter().flatten().map(|m| pending(&m.id, &m.message)).collect(),
        steering: chat.steering_message.as_ref().map(|m| pending(&m.id, &m.message)),
        draft: chat.draft.as_ref().map(|d| d.text.clone()),
        older_cursor: chat.turns_next_cursor.clone(),
        active_turn_id: chat.active_turn.as_ref().map(|t| t.id.clone()),
        forked_from: match &chat.origin {
            Some(ahp_types::state::ChatOrigin::Fork { chat, turn_id }) => {
                Some(ForkOrigin { chat: chat.clone(), turn_id: turn_id.clone() })
            }
            _ => None,
        },
    }
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
    /// What the UI holds of each markdown part of the running turn.
    active_blocks: Vec<Option<SentBlocks>>,
    active_usage: u64,
    first_turn: Option<String>,
    last_turn: Option<String>,
    turn_count: usize,
    /// An older page was asked for and is being fetched from the host.
    want_older: bool,
}

impl ChatProjection {
    /// A full snapshot op (the newest [`TURN_PAGE`] turns), remembering it as sent.
    pub fn snapshot(&mut self, chat: &ChatState) -> ChatSnapshot {
        *self = Self::default();
        let start = chat.turns.len().saturating_sub(TURN_PAGE);
        let sent = &chat.turns[start..];
        self.meta = hash_of(&meta_view(chat));
        self.first_turn = sent.first().map(|t| t.id.clone());
        self.last_turn = sent.last().map(|t| t.id.clone());
        self.turn_count = sent.len();
        let active = chat.active_turn.as_ref().map(|a| self.sent_active(a));
        ChatSnapshot {
            meta: meta_view(chat),
            turns: sent.iter().map(turn_view).collect(),
            active,
            start: None,
            customizations: None,
        }
    }

    /// The running turn's view, remembered as sent.
    fn sent_active(&mut self, active: &ActiveTurn) -> TurnView {
        let view = active_view(active);
        self.active_id = Some(active.id.clone());
        self.active_parts = active.response_parts.iter().map(hash_of).collect();
        self.active_blocks = view.parts.iter().map(SentBlocks::of).collect();
        self.active_usage = hash_of(&active.usage);
        view
    }

    /// The op for a changed part of the running turn (`partAppend` when the
    /// UI can keep the part's first blocks), remembered as sent.
    fn part_op(&mut self, turn_id: &str, index: usize, hash: u64, part: &ResponsePart) -> ChatOp {
        let view = part_view(part);
        let sent = SentBlocks::of(&view);
        let op = match append(self.active_blocks.get(index).and_then(Option::as_ref), &view) {
            Some((keep, blocks)) => ChatOp::PartAppend { turn_id: turn_id.to_owned(), index, keep, blocks },
            None => ChatOp::Part { turn_id: turn_id.to_owned(), index, part: view },
        };
        if index < self.active_parts.len() {
            self.active_parts[index] = hash;
            self.active_blocks[index] = sent;
        } else {
            self.active_parts.push(hash);
            self.active_blocks.push(sent);
        }
        op
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
    pub fn older(&mut self, chat: &ChatState) -> Option<ChatOp> {
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
        Some(ChatOp::Older {
            turns: page.iter().map(turn_view).collect(),
            more: start > 0 || chat.turns_next_cursor.is_some(),
        })
    }

    /// Send the next older page once the host has loaded it.
    pub fn want_older(&mut self) {
        self.want_older = true;
    }

    /// The ops that take the UI from what it was sent to `chat`.
    pub fn update(&mut self, chat: &ChatState) -> Vec<ChatOp> {
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
                    _ => return vec![ChatOp::Snapshot(Box::new(self.snapshot(chat)))],
                }
            }
            _ => return vec![ChatOp::Snapshot(Box::new(self.snapshot(chat)))],
        };
        if end < chat.turns.len() {
            for turn in &chat.turns[end..] {
                ops.push(ChatOp::TurnDone { turn: turn_view(turn) });
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
            self.active_blocks.clear();
            self.active_usage = 0;
            match &chat.active_turn {
                Some(active) => {
                    let turn = self.sent_active(active);
                    ops.push(ChatOp::Active { turn: Some(turn) });
                }
                None => ops.push(ChatOp::Active { turn: None }),
            }
        } else if let Some(active) = &chat.active_turn {
            for (index, part) in active.response_parts.iter().enumerate() {
                let h = hash_of(part);
                if self.active_parts.get(index) != Some(&h) {
                    ops.push(self.part_op(&active.id, index, h, part));
                }
            }
            let usage = hash_of(&active.usage);
            if usage != self.active_usage {
                self.active_usage = usage;
                ops.push(ChatOp::TurnMeta { turn_id: active.id.clone(), usage: active.usage.as_ref().map(usage_view) });
            }
        }
        let meta = meta_view(chat);
        let h = hash_of(&meta);
        if h != self.meta {
            self.meta = h;
            ops.push(ChatOp::Meta { meta });
        }
        ops
    }
}

/// What waits for the user in a chat's active turn, for the approval inbox:
/// tool calls pending confirmation and unanswered input requests, as
/// `(turnId, toolCallId or input request id, title, is a tool confirmation)`.
pub fn pending_confirmations(chat: &ChatState) -> Vec<(String, String, String, bool)> {
    let Some(active) = &chat.active_turn else { return Vec::new() };
    active
        .response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::InputRequest(i) if i.response.is_none() => {
                let title = i.request.message.clone().unwrap_or_else(|| "The agent asks for input".to_owned());
                Some((active.id.clone(), i.request.id.clone(), title, false))
            }
            ResponsePart::ToolCall(tc) => match &tc.tool_call {
                ahp_types::state::ToolCallState::PendingConfirmation(s) => {
                    let title = match &s.confirmation_title {
                        Some(t) => string_or_markdown(t),
                        None => s.display_name.clone(),
                    };
                    Some((active.id.clone(), s.tool_call_id.clone(), title, true))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn wire<T: serde::Serialize>(v: T) -> Value {
        serde_json::to_value(v).unwrap()
    }

    #[test]
    fn a_message_shows_its_attachments_as_label_and_uri() {
        let message: ahp_types::state::Message = serde_json::from_value(json!({"text": "read @notes.md", "origin": {"kind": "user"},
            "attachments": [{"type": "resource", "label": "notes.md", "uri": "file:///w/notes.md", "displayKind": "document"}]}))
        .unwrap();
        let view = wire(message_view(&message));
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
        let ops = wire(p.update(&chat(json!({"turns": turns, "activeTurn": active("Hello *w*")}))));
        assert_eq!(ops.as_array().unwrap().len(), 1, "{ops:?}");
        assert_eq!(ops[0]["op"], "part");
        assert_eq!(ops[0]["part"]["blocks"], json!(["<p>Hello <em>w</em></p>\n"]), "a single block is sent whole");
        assert!(p.update(&chat(json!({"turns": turns, "activeTurn": active("Hello *w*")}))).is_empty());
    }

    #[test]
    fn a_growing_last_block_is_appended_and_the_rest_kept() {
        let mut p = ChatProjection::default();
        p.snapshot(&chat(json!({"activeTurn": active("# Plan\n\nFirst")})));
        let ops = wire(p.update(&chat(json!({"activeTurn": active("# Plan\n\nFirst step")}))));
        assert_eq!(
            ops,
            json!([{"op": "partAppend", "turnId": "a", "index": 0, "keep": 1, "blocks": ["<p>First step</p>\n"]}])
        );
        let ops = wire(p.update(&chat(json!({"activeTurn": active("# Plan\n\nFirst step\n\nSecond")}))));
        assert_eq!(ops[0]["keep"], 2, "a new paragraph keeps the finished one: {ops}");
        let ops = wire(p.update(&chat(json!({"activeTurn": active("# Plan B\n\nFirst step\n\nSecond")}))));
        assert_eq!(ops[0]["op"], "part", "a change in the first block sends the part whole: {ops}");
        let ops = wire(p.update(&chat(json!({"activeTurn": active("# Plan B\n\nFirst step")}))));
        assert_eq!(ops[0]["op"], "part", "a part that shrank is sent whole: {ops}");
    }

    /// Figure, not a check: bytes of chat ops per streamed chunk, with the
    /// chunks of `ui/tests/ui/bench.mjs` (1,000 deltas, a paragraph every 40
    /// words, a fence every 200) and one projection per chunk (the worst
    /// case: no batching), against what a full `part` op (the part's whole
    /// HTML, as sent before `partAppend`) would have carried.
    /// Run: `cargo test -p hangar-desktop --lib bytes_per_streamed_chunk -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn bytes_per_streamed_chunk() {
        let mut p = ChatProjection::default();
        let mut text = String::new();
        p.snapshot(&chat(json!({"activeTurn": active("")})));
        let (mut sent, mut whole, mut most, mut appends) = (0usize, 0usize, 0usize, 0usize);
        for i in 0..1000 {
            text.push_str(&match i {
                _ if i % 40 == 39 => format!("word{i}\n\n"),
                _ if i % 200 == 100 => "\n```rust\nfn f() {}\n```\n".to_owned(),
                _ => format!("word{i} "),
            });
            let ops = p.update(&chat(json!({"activeTurn": active(&text)})));
            appends += ops.iter().filter(|o| matches!(o, ChatOp::PartAppend { .. })).count();
            let bytes = serde_json::to_string(&ops).unwrap().len();
            let html = crate::markdown::render(&text);
            let full = json!([{"op": "part", "turnId": "a", "index": 0, "part": {"kind": "markdown", "id": "m", "html": html}}]);
            (sent, whole, most) = (sent + bytes, whole + full.to_string().len(), most.max(bytes));
        }
        println!(
            "1000 chunks, final part {} chars of markdown: partAppend ops {appends}; bytes per chunk {:.0} (max {most}), a full part op per chunk would be {:.0}",
            text.len(),
            sent as f64 / 1000.0,
            whole as f64 / 1000.0,
        );
    }

    #[test]
    fn snapshots_carry_only_the_newest_page() {
        let mut p = ChatProjection::default();
        let turns: Vec<Value> = (0..120).map(|i| turn(&format!("t{i}"))).collect();
        let c = chat(json!({"turns": turns}));
        let snap = wire(p.snapshot(&c));
        assert_eq!(snap["turns"].as_array().unwrap().len(), TURN_PAGE);
        assert_eq!(snap["turns"][0]["id"], "t70");
        assert_eq!(wire(p.older(&c).unwrap())["turns"][0]["id"], "t20");
        let last = wire(p.older(&c).unwrap());
        assert_eq!(last["turns"].as_array().unwrap().len(), 20);
        assert_eq!(last["more"], false);
        let mut more = turns;
        more.push(turn("t120"));
        let ops = wire(p.update(&chat(json!({"turns": more}))));
        assert_eq!(ops[0]["op"], "turnDone");
        assert_eq!(ops[0]["turn"]["id"], "t120");
    }

    #[test]
    fn completion_older_pages_and_truncation() {
        let mut p = ChatProjection::default();
        p.snapshot(&chat(json!({"turns": [turn("t2")], "activeTurn": active("x")})));
        let ops = wire(p.update(&chat(json!({"turns": [turn("t2"), turn("a")]}))));
        let kinds: Vec<&str> = ops.as_array().unwrap().iter().map(|o| o["op"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["turnDone", "active", "meta"]);
        let loaded = chat(json!({"turns": [turn("t0"), turn("t1"), turn("t2"), turn("a")]}));
        assert!(p.update(&loaded).is_empty(), "older turns wait until asked for");
        let older = wire(p.older(&loaded).unwrap());
        assert_eq!(older["turns"].as_array().unwrap().len(), 2);
        assert!(p.older(&loaded).is_none());
        let ops = wire(p.update(&chat(json!({"turns": [turn("t0")]}))));
        assert_eq!(ops[0]["op"], "snapshot", "truncation re-sends everything");
    }

    #[test]
    fn pending_confirmations_are_listed() {
        let c = chat(
            json!({"activeTurn": {"id": "a", "startedAt": "x", "message": {"text": "q", "origin": {"kind": "user"}},
            "responseParts": [{"kind": "toolCall", "toolCall": {"status": "pending-confirmation", "toolCallId": "tc", "toolName": "edit",
                "displayName": "Edit", "invocationMessage": "Edit a file", "confirmationTitle": "Edit hello.txt"}}]}}),
        );
        assert_eq!(
            pending_confirmations(&c),
            vec![("a".to_owned(), "tc".to_owned(), "Edit hello.txt".to_owned(), true)]
        );
        let view = wire(part_view(&c.active_turn.unwrap().response_parts[0]));
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
            vec![("a".to_owned(), "in-1".to_owned(), "Which license?".to_owned(), false)]
        );
        assert!(pending_confirmations(&with(part(json!("accept")))).is_empty());
    }
}
