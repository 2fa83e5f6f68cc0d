//! Queued messages: the next one starts as a turn as soon as the chat is
//! idle and its session ready (a message queued while the agent starts
//! waits for `session/ready`, as a client's `chat/turnStarted` would be
//! refused until then).

use ahp_types::actions::{ChatPendingMessageRemovedAction, ChatTurnStartedAction};
use ahp_types::state::{PendingMessageKind, SessionLifecycle};
use ahp_types::StateAction;

use super::clock::{new_id, now};
use super::Engine;

impl Engine {
    /// If `chat` is idle, its session ready, and it has queued messages,
    /// start the first one: `chat/pendingMessageRemoved` then
    /// `chat/turnStarted{queuedMessageId}`.
    pub(super) fn start_next_queued(&mut self, chat: &str) {
        let Some(entry) = self.chats.get(chat) else {
            return;
        };
        let ready = self.sessions.get(&entry.session).is_some_and(|s| s.state.lifecycle == SessionLifecycle::Ready);
        if !ready || entry.state.active_turn.is_some() {
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

    /// A session became ready: start what its chats queued meanwhile.
    pub(super) fn start_queued_of_session(&mut self, session: &str) {
        let chats: Vec<String> = self
            .sessions
            .get(session)
            .map(|s| s.state.chats.iter().map(|c| c.resource.clone()).collect())
            .unwrap_or_default();
        for chat in chats {
            self.start_next_queued(&chat);
        }
    }
}
