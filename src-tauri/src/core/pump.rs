//! The event pump: the checked event feed → the mirror → the UI.
//!
//! Map: [`Core::pump`] takes whatever is queued as one batch; `apply_batch`
//! reduces it into the mirror (buffering envelopes for channels whose
//! subscribe is in flight, turning rejected echoes into notices), projects
//! each changed chat once, updates the inbox and collects held messages
//! whose session became ready and the rows whose session's lifecycle
//! changed (a row says starting / failed), and re-projects the
//! customizations of chats whose session channel changed; then rows are pushed, held
//! messages sent, and hosts that lost events are re-snapshotted
//! ([`super::resync`]) before the next batch; a root action (agents and
//! their models) re-sends the host views. Envelopes at or below a
//! channel's snapshot `fromSeq` (still queued from before a re-subscribe)
//! are skipped.

use std::collections::HashSet;
use std::sync::Arc;

use ahp::hosts::{HostHandle, HostId, HostSubscriptionEvent};
use ahp::multi_host_state_mirror::HostedResourceKey;
use ahp::SubscriptionEvent;
use ahp_types::state::SessionSummary;
use ahp_types::ROOT_RESOURCE_URI;

use hangar_host::locks::lock;

use super::{action_type, send_app, send_chat, update_inbox, Core, CoreState, Release};
use crate::event_feed::{EventFeed, Fed};
use crate::session_start::Lifecycle;
use hangar_desktop_protocol::{AppOp, ChatOp};

/// What a batch leaves to do once the state lock is released.
#[derive(Default)]
struct AfterBatch {
    /// Session rows to push: `(host, session, removed)`.
    summaries: Vec<(HostId, String, bool)>,
    released: Vec<Release>,
    /// Hosts that lost events before this batch.
    lagged: HashSet<HostId>,
    /// A root action arrived (e.g. an agent's models): the host views change.
    root_changed: bool,
    /// Chats no stream shows whose mirror outgrew [`MIRROR_TURNS`]: each
    /// is re-subscribed (already in `pending`), so the mirror holds the
    /// host's tail again.
    trim: Vec<HostedResourceKey>,
}

/// Completed turns the mirror holds of a chat no stream shows before it is
/// brought back to the host's tail (a fresh snapshot, about 50 turns, with
/// the host's cursor for the rest). Twice a page, so a long-running
/// session re-subscribes once every page of turns, not after each one.
pub const MIRROR_TURNS: usize = 2 * crate::chat_view::TURN_PAGE;

impl Core {
    pub(super) async fn pump(self: Arc<Self>, mut feed: EventFeed) {
        while let Some(first) = feed.next().await {
            // Batch whatever is already queued: one projection per chat per batch.
            let mut batch = vec![first];
            while batch.len() < 512 {
                match feed.next_ready() {
                    Some(fed) => batch.push(fed),
                    None => break,
                }
            }
            let after = self.apply_batch(batch);
            if after.root_changed {
                self.push_hosts().await;
            }
            for (host_id, session, removed) in after.summaries {
                self.push_row(&host_id, &session, removed).await;
            }
            for release in after.released {
                self.send_released(release).await;
            }
            for key in after.trim {
                if let Err(e) = self.seed(&key).await {
                    tracing::warn!("re-subscribing {} to trim it: {e}", key.uri);
                }
            }
            for host in after.lagged {
                tracing::warn!("events from host {host} were lost; re-snapshotting its channels");
                self.resync(&host).await;
            }
        }
    }

    fn apply_batch(&self, batch: Vec<Fed>) -> AfterBatch {
        let mut after = AfterBatch::default();
        let mut st = lock(&self.state);
        let mut dirty: HashSet<HostedResourceKey> = HashSet::new();
        // Chats whose session changed: only these re-project customizations.
        let mut session_changed: HashSet<HostedResourceKey> = HashSet::new();
        let mut rejections = Vec::new();
        for Fed { event, missed } in batch {
            let HostSubscriptionEvent { host_id, channel, event } = event;
            if missed > 0 {
                after.lagged.insert(host_id.clone());
            }
            match event {
                SubscriptionEvent::Action(env) => {
                    after.root_changed |= env.channel == ROOT_RESOURCE_URI && env.rejection_reason.is_none();
                    let key = HostedResourceKey::new(host_id.clone(), env.channel.clone());
                    if let Some(reason) = &env.rejection_reason {
                        rejections.push(AppOp::Rejected {
                            host: host_id.as_str().to_owned(),
                            channel: env.channel.clone(),
                            reason: reason.clone(),
                            action: action_type(&env.action),
                        });
                        continue;
                    }
                    if let Some(buf) = st.pending.get_mut(&key) {
                        buf.push(env);
                        continue;
                    }
                    if st.floors.get(&key).is_some_and(|floor| env.server_seq as i64 <= *floor) {
                        continue;
                    }
                    let lifecycle = st.sessions.contains(&key).then(|| Lifecycle::of(st.mirror.sessions().get(&key)));
                    st.mirror.apply_envelope(&host_id, &env);
                    if st.chats.contains_key(&key) {
                        dirty.insert(key);
                    } else if st.sessions.contains(&key) {
                        // The row's status follows the agent's start.
                        if Some(Lifecycle::of(st.mirror.sessions().get(&key))) != lifecycle {
                            after.summaries.push((host_id.clone(), key.uri.clone(), false));
                        }
                        let chats = st.chats.iter().filter(|(_, w)| w.session_key == key).map(|(k, _)| k.clone());
                        session_changed.extend(chats);
                    }
                }
                SubscriptionEvent::SessionAdded(p) => {
                    st.note_git(&host_id, &p.summary.resource, p.summary.meta.as_ref());
                    after.summaries.push((host_id, p.summary.resource, false))
                }
                SubscriptionEvent::SessionSummaryChanged(p) => {
                    st.note_git(&host_id, &p.session, p.changes.meta.as_ref());
                    after.summaries.push((host_id, p.session, false))
                }
                SubscriptionEvent::SessionRemoved(p) => after.summaries.push((host_id, p.session, true)),
                _ => tracing::debug!("ignored event on {channel}"),
            }
        }
        let CoreState { mirror, chats, inbox, app_sinks, outbox, pending, .. } = &mut *st;
        super::unsent::drop_delivered(outbox, mirror);
        let mut inbox_changed = false;
        dirty.extend(session_changed.iter().cloned());
        for key in dirty {
            let (Some(chat), Some(watch)) = (mirror.chats().get(&key), chats.get_mut(&key)) else { continue };
            let session = mirror.sessions().get(&watch.session_key);
            after.released.extend(watch.release(&key, chat, session));
            let mut ops = watch.projection.update(chat);
            ops.extend(watch.start.update(session, outbox.views(key.host_id.as_str(), &key.uri)));
            if session_changed.contains(&key) {
                ops.extend(watch.customizations.update(session));
            }
            if !ops.is_empty() {
                send_chat(&mut watch.sinks, ChatOp::Batch { ops });
            }
            inbox_changed |= update_inbox(inbox, &key, &watch.session, chat);
            if watch.sinks.is_empty() && chat.turns.len() > MIRROR_TURNS {
                after.trim.push(key);
            }
        }
        for key in &after.trim {
            pending.insert(key.clone(), Vec::new());
        }
        for r in rejections {
            send_app(app_sinks, r);
        }
        if inbox_changed {
            let items = inbox.values().cloned().collect();
            send_app(app_sinks, AppOp::Inbox { items });
        }
        after
    }

    /// Send a session's row (or its removal), then note whether it waits.
    async fn push_row(&self, host_id: &HostId, session: &str, removed: bool) {
        if let Some((handle, s)) = self.send_row(host_id, session, removed).await {
            self.note_already_waiting(&handle);
            self.note_status(host_id, &handle.label, &s).await;
        }
    }

    /// Send a session's row to the app streams, or `sessionRemoved`;
    /// returns the host and the summary the row was built from.
    pub(super) async fn send_row(
        &self,
        host_id: &HostId,
        session: &str,
        removed: bool,
    ) -> Option<(HostHandle, SessionSummary)> {
        let (_, handle) = self.relabel(self.multi.host(host_id).await?);
        let summary = handle.session_summaries.iter().find(|s| s.resource == session).cloned();
        let mut st = lock(&self.state);
        let op = match (&summary, removed) {
            (Some(s), false) => AppOp::Session { row: st.row(&handle, s) },
            _ => AppOp::SessionRemoved { host: host_id.as_str().to_owned(), uri: session.to_owned() },
        };
        send_app(&mut st.app_sinks, op);
        drop(st);
        summary.map(|s| (handle, s))
    }
}
