//! Validating a client's `dispatchAction` before it reaches the reducers.
//!
//! Order: unknown channel → ignored (no echo); not client-dispatchable or
//! unknown type → rejected; ownership and state preconditions → rejected;
//! otherwise applied through [`Engine::emit`] with the client's origin, and a
//! reducer `NoOp` is a rejection too. A rejection is echoed to the sender
//! only, with `rejectionReason`, and changes nothing. The preconditions
//! alone are [`check_client_action`], over the states they read, so the
//! agent layer's test double refuses what the engine refuses.

use ahp_types::state::{ChatState, SessionLifecycle, SessionState, ToolCallState};
use ahp_types::{ActionEnvelope, ActionOrigin, StateAction};

use super::{EmitError, Engine};
use crate::engine::action_type::action_type;
use crate::engine::dispatchable::is_client_dispatchable;

/// A rejected client action: the echo frame for the sender.
#[derive(Debug)]
pub struct Rejection {
    /// The `action` notification carrying `rejectionReason`.
    pub frame: String,
    /// The reason.
    pub reason: String,
}

impl Engine {
    /// Validate and apply a client's action. `Ok(None)` means ignored
    /// (unknown channel), `Ok(Some(seq))` applied.
    pub fn dispatch_client(
        &mut self,
        client_id: &str,
        channel: &str,
        client_seq: i64,
        action: StateAction,
    ) -> Result<Option<u64>, Rejection> {
        if self.channel(channel).is_none() {
            return Ok(None);
        }
        let origin = ActionOrigin { client_id: client_id.to_owned(), client_seq };
        if let Err(reason) =
            self.refuse_while_unsaved().and_then(|()| self.check_client_action(client_id, channel, &action))
        {
            return Err(self.rejection(channel, action, origin, reason));
        }
        match self.emit(channel, action.clone(), Some(origin.clone())) {
            Ok(seq) => Ok(Some(seq)),
            Err(EmitError::UnknownChannel) => Ok(None),
            Err(EmitError::NotApplied(reason)) => Err(self.rejection(channel, action, origin, reason)),
        }
    }

    /// Refuse a client's action before it is checked (the connection's
    /// protocol does not define it): the echo, as for any rejection.
    pub fn refuse_client(
        &self,
        client_id: &str,
        channel: &str,
        client_seq: i64,
        action: StateAction,
        reason: String,
    ) -> Rejection {
        let origin = ActionOrigin { client_id: client_id.to_owned(), client_seq };
        self.rejection(channel, action, origin, reason)
    }

    fn rejection(&self, channel: &str, action: StateAction, origin: ActionOrigin, reason: String) -> Rejection {
        let envelope = ActionEnvelope {
            channel: channel.to_owned(),
            action,
            server_seq: self.seq,
            origin: Some(origin),
            rejection_reason: Some(reason.clone()),
        };
        let frame = serde_json::json!({ "jsonrpc": "2.0", "method": "action", "params": envelope }).to_string();
        Rejection { frame, reason }
    }

    fn check_client_action(&self, client_id: &str, channel: &str, action: &StateAction) -> Result<(), String> {
        self.check_terminal_action(client_id, channel, action)?;
        let chat_session = self.chats.get(channel).and_then(|c| self.sessions.get(&c.session));
        let on = Subject {
            chat: self.chat_state(channel),
            session: self.session_state(channel),
            chat_session: chat_session.map(|s| &s.state),
        };
        check_client_action(client_id, &on, action)
    }
}

/// The state a client's action is checked against.
pub(crate) struct Subject<'a> {
    /// The channel's state, when the channel is a chat.
    pub chat: Option<&'a ChatState>,
    /// The channel's state, when the channel is a session.
    pub session: Option<&'a SessionState>,
    /// When the channel is a chat: its session's state.
    pub chat_session: Option<&'a SessionState>,
}

/// The preconditions a client's `action` on `on` must meet before the
/// reducers see it (the engine's, also applied by the agent layer's test
/// double): `Err` carries the rejection reason.
pub(crate) fn check_client_action(client_id: &str, on: &Subject<'_>, action: &StateAction) -> Result<(), String> {
    let Some(kind) = action_type(action).filter(|_| !matches!(action, StateAction::Unknown(_))) else {
        return Err("unknown action type".to_owned());
    };
    if !is_client_dispatchable(&kind) {
        return Err(format!("{kind} may only be sent by the host"));
    }
    let chat = on.chat;
    match action {
        StateAction::ChatTurnStarted(a) => {
            let chat = chat.ok_or("chat/turnStarted belongs on a chat channel")?;
            if chat.active_turn.is_some() {
                return Err("a turn is already in progress; queue or steer instead".to_owned());
            }
            if a.turn_id.is_empty() {
                return Err("turnId must not be empty".to_owned());
            }
            if a.started_at.parse::<jiff::Timestamp>().is_err() {
                return Err("startedAt must be an RFC 3339 timestamp".to_owned());
            }
            if chat.turns.iter().any(|t| t.id == a.turn_id) {
                return Err("turnId is already used in this chat".to_owned());
            }
            if on.chat_session.is_some_and(|s| s.lifecycle != SessionLifecycle::Ready) {
                return Err("the session is not ready".to_owned());
            }
        }
        StateAction::ChatTurnCancelled(a) => {
            let active = chat.and_then(|c| c.active_turn.as_ref()).ok_or("no turn is in progress")?;
            if active.id != a.turn_id {
                return Err("turnId is not the active turn".to_owned());
            }
        }
        StateAction::ChatToolCallConfirmed(a) => {
            if a.approved && a.confirmed.is_none() {
                return Err("an approval needs `confirmed`".to_owned());
            }
            if !a.approved && a.reason.is_none() {
                return Err("a denial needs `reason`".to_owned());
            }
            let pending = chat
                .and_then(|c| c.active_turn.as_ref())
                .filter(|t| t.id == a.turn_id)
                .map(|t| {
                    t.response_parts.iter().any(|p| match p {
                        ahp_types::state::ResponsePart::ToolCall(tc) => matches!(
                            &tc.tool_call,
                            ToolCallState::PendingConfirmation(s) if s.tool_call_id == a.tool_call_id
                        ),
                        _ => false,
                    })
                })
                .unwrap_or(false);
            if !pending {
                return Err("the tool call is not waiting for confirmation".to_owned());
            }
        }
        StateAction::ChatInputAnswerChanged(_) | StateAction::ChatInputCompleted(_) => {
            super::input_requests::check_input_action(chat, action)?;
        }
        StateAction::ChatTruncated(_) | StateAction::ChatTurnResume(_)
            if chat.is_some_and(|c| c.active_turn.is_some()) =>
        {
            return Err("a turn is in progress".to_owned());
        }
        // The host holds only the newest turns live (`Engine::turn_tail`);
        // the reducer would ignore a turn it does not hold, so say why.
        StateAction::ChatTruncated(a)
            if a.turn_id.as_ref().is_some_and(|id| chat.is_some_and(|c| !c.turns.iter().any(|t| &t.id == id))) =>
        {
            return Err("the turn is not among the chat's newest turns held live; truncate from a newer one".to_owned());
        }
        StateAction::SessionActiveClientSet(a) if a.active_client.client_id != client_id => {
            return Err("a client can only set itself as active".to_owned());
        }
        StateAction::SessionActiveClientRemoved(a) if a.client_id != client_id => {
            return Err("a client can only remove itself".to_owned());
        }
        StateAction::SessionConfigChanged(a) => {
            let config = on.session.and_then(|s| s.config.as_ref()).ok_or("this session has no configuration")?;
            for (key, value) in &a.config {
                let allowed = config.schema.properties.get(key).and_then(|p| p.r#enum.as_ref());
                if allowed.is_some_and(|values| !values.contains(value)) {
                    return Err(format!("{value} is not a valid {key}"));
                }
            }
        }
        StateAction::ChatToolCallComplete(_)
        | StateAction::ChatToolCallContentChanged(_)
        | StateAction::ChatToolCallResultConfirmed(_) => {
            return Err("this host runs no client-contributed tools".to_owned());
        }
        StateAction::SessionWorkingDirectorySet(_)
        | StateAction::SessionWorkingDirectoryRemoved(_)
        | StateAction::SessionWorkingDirectoryReplaced(_)
        | StateAction::ChatWorkingDirectorySet(_)
        | StateAction::ChatWorkingDirectoryRemoved(_) => {
            return Err("no agent on this host advertises multipleWorkingDirectories".to_owned());
        }
        _ => {}
    }
    Ok(())
}
