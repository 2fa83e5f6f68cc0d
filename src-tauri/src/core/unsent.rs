//! Messages typed while their host is unreachable.
//!
//! Map: [`Core::keep_unsent`] — `chat.send` while the host is not
//! connected: the message goes into the outbox (on disk before the command
//! answers) with the ids it will be sent under, and the open chat lists it as
//! *unsent*; [`Core::send_unsent`] — each time a host is connected (at
//! launch, after a restart of the host or the app), the chat of every entry
//! is subscribed if it is not yet, an entry the chat already holds is
//! dropped, the others are sent: a turn, or queued behind a running one;
//! [`drop_delivered`] — the pump drops an entry once its chat holds it. An
//! entry leaves the outbox only when the host's own state shows it, so a
//! connection lost mid-send or the app killed leaves it to the next
//! connection, which does not send it twice.

use ahp::hosts::HostId;
use ahp::multi_host_state_mirror::{HostedResourceKey, MultiHostStateMirror};
use ahp_types::actions::{ChatPendingMessageSetAction, ChatTurnStartedAction};
use ahp_types::state::PendingMessageKind;
use ahp_types::StateAction;

use hangar_host::locks::lock;

use super::{send_chat, Core, CoreState};
use crate::error::CoreError;
use crate::outbox::{delivered, Outbox, OutboxEntry};
use crate::outgoing::{fresh_id, now, Composed};
use hangar_desktop_protocol::ChatOp;

impl Core {
    /// Whether `host`, one the app knows, is not connected now (then a
    /// message for it is kept); an unknown host is an error, not a wait.
    pub async fn unreachable(&self, host: &HostId) -> Result<bool, CoreError> {
        if self.multi.host(host).await.is_none() {
            return Err(CoreError::NotFound(format!("host {host}")));
        }
        Ok(self.multi.client(host).await.is_none())
    }

    /// Keep `message` for `key`'s chat until its host is back; returns the
    /// entry's id once it is on disk.
    pub fn keep_unsent(&self, key: &HostedResourceKey, message: &Composed) -> Result<String, CoreError> {
        let entry = OutboxEntry {
            id: fresh_id(),
            turn_id: fresh_id(),
            host: key.host_id.as_str().to_owned(),
            chat: key.uri.clone(),
            message: message.message(),
        };
        let id = entry.id.clone();
        let mut st = lock(&self.state);
        st.outbox.add(entry).map_err(|e| {
            CoreError::Unexpected(format!("the host is unreachable and the message could not be kept: {e}"))
        })?;
        refresh_start(&mut st, key);
        Ok(id)
    }

    /// Send what waits for `host` now that it is connected.
    pub(super) async fn send_unsent(&self, host: &HostId) {
        let entries = lock(&self.state).outbox.for_host(host.as_str());
        // Chats this pass started a turn on: the next message queues behind it
        // (the mirror learns of the turn only when its echo arrives).
        let mut started = std::collections::HashSet::new();
        for entry in entries {
            let key = HostedResourceKey::new(host.clone(), entry.chat.clone());
            let known = lock(&self.state).mirror.chats().contains_key(&key);
            if !known {
                lock(&self.state).pending.entry(key.clone()).or_default();
                if let Err(e) = self.seed(&key).await {
                    tracing::warn!("an unsent message's chat {} is not reachable: {e}", entry.chat);
                    continue;
                }
            }
            let running = {
                let mut st = lock(&self.state);
                let Some(chat) = st.mirror.chats().get(&key).cloned() else { continue };
                if delivered(&chat, &entry) {
                    st.outbox.remove_where(|e| e.id == entry.id);
                    refresh_start(&mut st, &key);
                    continue;
                }
                chat.active_turn.is_some() || started.contains(&entry.chat)
            };
            let action = if running {
                StateAction::ChatPendingMessageSet(ChatPendingMessageSetAction {
                    kind: PendingMessageKind::Queued,
                    id: entry.id.clone(),
                    message: entry.message.clone(),
                })
            } else {
                started.insert(entry.chat.clone());
                StateAction::ChatTurnStarted(ChatTurnStartedAction {
                    turn_id: entry.turn_id.clone(),
                    started_at: now(),
                    message: entry.message.clone(),
                    queued_message_id: None,
                    meta: None,
                })
            };
            // It leaves the outbox when the chat shows it (`drop_delivered`).
            if let Err(e) = self.multi.dispatch(host, entry.chat.clone(), action).await {
                tracing::warn!("sending an unsent message on {}: {e}", entry.chat);
            }
        }
    }
}

/// Drop the outbox entries whose chats now hold them (the pump calls this
/// after each batch).
pub(super) fn drop_delivered(outbox: &mut Outbox, mirror: &MultiHostStateMirror) {
    outbox.remove_where(|e| {
        let key = HostedResourceKey::new(HostId::new(e.host.as_str()), e.chat.clone());
        mirror.chats().get(&key).is_some_and(|chat| delivered(chat, e))
    });
}

/// Send the open chat `key` its `start` view if the outbox changed it.
fn refresh_start(st: &mut CoreState, key: &HostedResourceKey) {
    let CoreState { mirror, chats, outbox, .. } = st;
    if let Some(watch) = chats.get_mut(key) {
        let session = mirror.sessions().get(&watch.session_key);
        if let Some(op) = watch.start.update(session, outbox.views(key.host_id.as_str(), &key.uri)) {
            send_chat(&mut watch.sinks, ChatOp::Batch { ops: vec![op] });
        }
    }
}
