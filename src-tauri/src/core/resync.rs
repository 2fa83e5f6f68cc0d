//! Re-synchronising after lost events (or a reconnect).
//!
//! Map: [`Core::resync`] re-subscribes every session and chat channel the
//! core holds on one host (a fresh snapshot each, seeded like the first
//! one: racing envelopes buffered, older queued ones skipped by the
//! channel's floor), then re-sends a `snapshot` op to every open chat on
//! that host, the inbox and the session rows, and sends messages held for
//! a session the snapshot shows ready.

use hangar_host::locks::lock;

use super::{send_app, send_chat, update_inbox, Core, CoreState};
use ahp::hosts::HostId;
use ahp::multi_host_state_mirror::HostedResourceKey;
use hangar_desktop_protocol::AppOp;

impl Core {
    /// Re-snapshot what the core holds on `host` and re-send the views.
    pub(super) async fn resync(&self, host: &HostId) {
        let keys: Vec<HostedResourceKey> = {
            let mut st = lock(&self.state);
            let held: Vec<HostedResourceKey> = st
                .sessions
                .iter()
                .chain(st.chats.keys())
                .filter(|k| &k.host_id == host && !st.pending.contains_key(*k))
                .cloned()
                .collect();
            for key in &held {
                st.pending.insert(key.clone(), Vec::new());
            }
            held
        };
        for key in &keys {
            if let Err(e) = self.seed(key).await {
                tracing::warn!("re-subscribing {}: {e}", key.uri);
            }
        }
        let mut released = Vec::new();
        {
            let mut st = lock(&self.state);
            let CoreState { mirror, chats, inbox, app_sinks, outbox, .. } = &mut *st;
            for (key, watch) in chats.iter_mut().filter(|(k, _)| &k.host_id == host) {
                let Some(chat) = mirror.chats().get(key) else { continue };
                let session = mirror.sessions().get(&watch.session_key);
                released.extend(watch.release(key, chat, session));
                let snapshot = watch.snapshot(chat, session, outbox.views(host.as_str(), &key.uri));
                send_chat(&mut watch.sinks, snapshot);
                update_inbox(inbox, key, &watch.session, chat);
            }
            let items = inbox.values().cloned().collect();
            send_app(app_sinks, AppOp::Inbox { items });
        }
        self.resyncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.refresh_rows().await;
        for release in released {
            self.send_released(release).await;
        }
    }
}
