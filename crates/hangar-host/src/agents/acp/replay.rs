//! One of the agent's own earlier sessions opened here (`session/list`,
//! then `session/load`): the history the agent replays as `session/update`s
//! made into completed turns of the session's default chat, so it reads as
//! the person left it, and is found by search like any turn.
//!
//! A `user_message_chunk` (or a run of them) opens a turn with that text as
//! its message; the updates after it (answer and reasoning chunks, tool
//! calls, plans) fill it through the same mapping a live prompt uses
//! ([`Turn`]); the next user message completes it. Each turn starts with
//! `_meta[REPLAYED_META_KEY]`, so the engine does not send it to the agent
//! as a new prompt. Context the agent injected (Gemini's
//! `<session_context>`) is not a message.

use std::path::Path;

use ahp_types::actions::ChatTurnStartedAction;
use ahp_types::StateAction;
use serde_json::{json, Value};

use super::turn::{Ending, Turn};
use super::update::SessionUpdate;
use super::AgentHost;
use crate::engine::clock::{new_id, now};
use crate::engine::REPLAYED_META_KEY;

/// Make `updates` (each a `session/update`'s `update`) into completed turns
/// of `chat`; how many.
pub fn replay_history(host: &dyn AgentHost, chat: &str, cwd: &Path, updates: &[Value]) -> usize {
    let mut message = String::new();
    let mut turn: Option<Turn> = None;
    let mut turns = 0;
    for raw in updates {
        if raw.get("sessionUpdate").and_then(Value::as_str) == Some("user_message_chunk") {
            if let Some(mut done) = turn.take() {
                done.finish(host, Ending::Complete, None);
                turns += 1;
            }
            if let Some(text) = raw.pointer("/content/text").and_then(Value::as_str).filter(|t| !injected(t)) {
                message.push_str(text);
            }
            continue;
        }
        let update = SessionUpdate::decode(raw);
        let content = matches!(
            update,
            SessionUpdate::MessageChunk(_)
                | SessionUpdate::ThoughtChunk(_)
                | SessionUpdate::ToolCall(_)
                | SessionUpdate::ToolCallUpdate(_)
                | SessionUpdate::Plan(_)
        );
        if !content {
            continue;
        }
        let current = match &mut turn {
            Some(t) => t,
            None => turn.insert(start(host, chat, cwd, std::mem::take(&mut message))),
        };
        current.on_update(host, update);
    }
    if turn.is_none() && !message.is_empty() {
        turn = Some(start(host, chat, cwd, message));
    }
    if let Some(mut done) = turn {
        done.finish(host, Ending::Complete, None);
        turns += 1;
    }
    turns
}

/// Context the agent put in the conversation itself, replayed as a user
/// message: Gemini CLI's `<session_context>` (the date, the folder tree)
/// and `<hook_context>`, which Gemini itself does not count as the
/// person's words.
fn injected(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("<session_context>") || text.starts_with("<hook_context>")
}

/// A replayed turn begun with `text` as the person's message.
fn start(host: &dyn AgentHost, chat: &str, cwd: &Path, text: String) -> Turn {
    let turn_id = new_id();
    match serde_json::from_value(json!({ "text": text, "origin": { "kind": "user" } })) {
        Ok(message) => {
            host.emit(
                chat,
                StateAction::ChatTurnStarted(ChatTurnStartedAction {
                    turn_id: turn_id.clone(),
                    started_at: now(),
                    message,
                    queued_message_id: None,
                    meta: Some([(REPLAYED_META_KEY.to_owned(), json!(true))].into_iter().collect()),
                }),
            );
        }
        Err(e) => tracing::warn!("a replayed message did not map: {e}"),
    }
    Turn::new(chat.to_owned(), turn_id, cwd.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{RecordingHost, CHAT};
    use super::*;

    fn user(text: &str) -> Value {
        json!({ "sessionUpdate": "user_message_chunk", "content": { "type": "text", "text": text } })
    }

    fn answer(text: &str) -> Value {
        json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": text } })
    }

    /// Gemini CLI's replay: its injected context first, as a user message.
    #[test]
    fn injected_context_is_not_the_persons_message() {
        let host = RecordingHost::new();
        let updates = [
            user("<session_context>\nThis is the Gemini CLI. Today's date is ...\n</session_context>"),
            user("Remember the quokka."),
            answer("Noted."),
            user("And now?"),
            answer("Still the quokka."),
        ];
        assert_eq!(replay_history(&host, CHAT, Path::new("/w"), &updates), 2);
        let chat = host.chat_state();
        let messages: Vec<&str> = chat.turns.iter().map(|t| t.message.text.as_str()).collect();
        assert_eq!(messages, ["Remember the quokka.", "And now?"]);
    }
}
