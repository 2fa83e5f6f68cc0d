//! Queued messages: the next one starts as a turn as soon as the chat is idle.

use ahp_types::actions::{ChatPendingMessageRemovedAction, ChatTurnStartedAction};
use ahp_types::state::PendingMessageKind;
use ahp_types::StateAction;

use super::clock::{new_id, now};
use super::Engine;

impl Engine {
    /// If `chat` is idle and has queued messages, start the first one:
    /// `chat/pendingMessageRemoved` then `chat/turnStarted{queuedMessageId}`.
    pub(super) fn start_next_queued(&mut self, chat: &str) {
        let Some(entry) = self.chats.get(chat) else {
            return;
        };
        if entry.state.active_turn.is_some() {
            return;
        }
        let Some(next) = entry.state.queued_messages.as_ref().and_then(|q| q.first()).cloned() else {
            return;
        };
        let _ = self.emit_server(
            chat,
            StateAction::ChatPendingMessageRemoved(ChatPendingMessageRemovedAction {
                kind: PendingMessageKind::Queued,
                id: next.id.clone(),
            }),
        );
        let _ = self.emit_server(
            chat,
            StateAction::ChatTurnStarted(ChatTurnStartedAction {
                turn_id: new_id(),
                started_at: now(),
                message: next.message,
                queued_message_id: Some(next.id),
                meta: None,
            }),
        );
    }
}
