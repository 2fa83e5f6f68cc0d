//! What a chat is doing, in words: the host-managed `activity` of a chat
//! (`chat/activityChanged`) and of its session (`session/activityChanged`,
//! from the session's default chat), derived from the chat's active turn so
//! a client that follows only the session list can say "Waiting for
//! approval: Edit hello.txt" without reading the chat.
//!
//! Map:
//! - [`describe`] — the words for a chat's state (none when idle).
//! - [`Engine::sync_activity`] — emits the two actions when the words change.

use ahp_types::actions::{ChatActivityChangedAction, SessionActivityChangedAction};
use ahp_types::state::{ChatState, ResponsePart, ToolCallState};
use ahp_types::StateAction;

use super::Engine;

/// What the chat's active turn is doing, in words; `None` when no turn runs.
/// A wait on the person comes first (they are the one who can move it on),
/// then the latest tool call that runs, else the agent is working.
pub(super) fn describe(chat: &ChatState) -> Option<String> {
    let turn = chat.active_turn.as_ref()?;
    let mut running = None;
    let mut waiting = None;
    for part in &turn.response_parts {
        match part {
            ResponsePart::InputRequest(i) if i.response.is_none() => {
                waiting.get_or_insert_with(|| "Waiting for your answer".to_owned());
            }
            ResponsePart::ToolCall(t) => match &t.tool_call {
                ToolCallState::PendingConfirmation(c) => {
                    waiting.get_or_insert_with(|| format!("Waiting for approval: {}", c.display_name));
                }
                ToolCallState::PendingResultConfirmation(c) => {
                    waiting.get_or_insert_with(|| format!("Waiting for approval of the result: {}", c.display_name));
                }
                ToolCallState::AuthRequired(c) => {
                    waiting.get_or_insert_with(|| format!("Waiting for sign-in: {}", c.display_name));
                }
                ToolCallState::Streaming(c) => running = Some(format!("Preparing {}", c.display_name)),
                ToolCallState::Running(c) => running = Some(format!("Running {}", c.display_name)),
                _ => {}
            },
            _ => {}
        }
    }
    Some(waiting.or(running).unwrap_or_else(|| "Working".to_owned()))
}

impl Engine {
    /// Bring the chat's `activity`, and its session's when it is the
    /// session's default chat, in line with [`describe`].
    pub(super) fn sync_activity(&mut self, session: &str, chat: &str) {
        let Some(entry) = self.chats.get(chat) else { return };
        let words = describe(&entry.state);
        if entry.state.activity != words {
            let action = StateAction::ChatActivityChanged(ChatActivityChangedAction { activity: words.clone() });
            let _ = self.emit_server(chat, action);
        }
        let Some(session_entry) = self.sessions.get(session) else { return };
        if session_entry.state.default_chat.as_deref() == Some(chat) && session_entry.state.activity != words {
            let action = StateAction::SessionActivityChanged(SessionActivityChangedAction { activity: words });
            let _ = self.emit_server(session, action);
        }
    }
}
