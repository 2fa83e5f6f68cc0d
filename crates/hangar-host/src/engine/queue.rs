//! Queued messages: the next one starts as a turn as soon as the chat is
//! idle and its session ready (a message queued while the agent starts
//! waits for `session/ready`, as a client's `chat/turnStarted` would be
//! refused until then). When the agent failed to start
//! (`session/creationFailed`), each queued message still becomes a turn,
//! which ends at once with the start error (`chat/error`): the message
//! stays in the history with the reason, as a turn whose agent cannot
//! start ends, instead of waiting in the queue for ever.

use ahp_types::actions::{ChatErrorAction, ChatPendingMessageRemovedAction, ChatTurnStartedAction};
use ahp_types::state::{ErrorInfo, ErrorResponsePart, PendingMessageKind, SessionLifecycle};
use ahp_types::StateAction;

use super::clock::{new_id, now};
use super::{Engine, SideEffect};

impl Engine {
    /// If `chat` is idle, its session ready (or failed), and it has queued
    /// messages, start the first one: `chat/pendingMessageRemoved` then
    /// `chat/turnStarted{queuedMessageId}` (then, on a failed session,
    /// `chat/error` with the start error; ending that turn starts the next).
    pub(super) fn start_next_queued(&mut self, chat: &str) {
        let Some(entry) = self.chats.get(chat) else {
            return;
        };
        let Some(session) = self.sessions.get(&entry.session) else {
            return;
        };
        let start_error = match &session.state.lifecycle {
            SessionLifecycle::Ready => None,
            SessionLifecycle::Failed => Some(session.state.creation_error.clone().unwrap_or_else(|| ErrorInfo {
                error_type: "agentStartFailed".to_owned(),
                message: "The agent could not be started.".to_owned(),
                stack: None,
                meta: None,
            })),
            _ => return,
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
        let turn_id = new_id();
        let _ = self.emit_server(
            chat,
            StateAction::ChatTurnStarted(ChatTurnStartedAction {
                turn_id: turn_id.clone(),
                started_at: now(),
                message: next.message,
                queued_message_id: Some(next.id),
                meta: None,
            }),
        );
        if let Some(error) = start_error {
            // No agent runs it.
            self.effects.retain(|e| !matches!(e, SideEffect::TurnStarted { turn_id: t, .. } if *t == turn_id));
            let _ = self.emit_server(
                chat,
                StateAction::ChatError(ChatErrorAction {
                    turn_id,
                    duration: 0,
                    part: ErrorResponsePart { error, resumable: None },
                    meta: None,
                }),
            );
        }
    }

    /// A session became ready, or its agent failed to start: start what its
    /// chats queued meanwhile.
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
