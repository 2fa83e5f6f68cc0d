//! [`Core`]: the desktop's protocol state and its event pump.
//!
//! Every host (the embedded one included) is reached through one
//! `ahp::hosts::MultiHostClient`. Inbound envelopes are reduced by the
//! official reducers inside `MultiHostStateMirror`; this module decides
//! which channels to subscribe, buffers envelopes that race a subscribe
//! snapshot, drops rejected echoes (the mirror would apply them), and
//! pushes view updates to the UI's streams:
//!
//! - the app stream: hosts, session rows, the approval inbox, rejections;
//! - one stream per open chat: a snapshot, then [`ChatProjection`] ops.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use ahp::hosts::{HostConfig, HostId, HostSubscriptionEvent, MultiHostClient};
use ahp::multi_host_state_mirror::{HostedResourceKey, MultiHostStateMirror};
use ahp::transport::BoxedTransport;
use ahp::{ClientConfig, SubscriptionEvent, TransportError};
use ahp_types::state::{ChatState, SnapshotState};
use ahp_types::{ActionEnvelope, StateAction, ROOT_RESOURCE_URI};
use futures_util::FutureExt;
use serde_json::{json, Value};

use crate::chat_view::{pending_confirmations, ChatProjection};
use crate::error::CoreError;
use crate::session_rows::{host_view, needs_input, row};

/// Where the UI receives a stream's events; returns `false` once the
/// receiver is gone.
pub type Sink = Arc<dyn Fn(Value) -> bool + Send + Sync>;

/// Shows a desktop notification when a session needs the user.
pub trait Notifier: Send + Sync {
    /// A session started waiting for input.
    fn needs_input(&self, session_title: &str, host_label: &str);
}

struct ChatWatch {
    projection: ChatProjection,
    sinks: HashMap<u64, Sink>,
    session: String,
}

#[derive(Default)]
struct CoreState {
    mirror: MultiHostStateMirror,
    app_sinks: HashMap<u64, Sink>,
    chats: HashMap<HostedResourceKey, ChatWatch>,
    /// Envelopes that arrived while a subscribe for the key was in flight.
    pending: HashMap<HostedResourceKey, Vec<ActionEnvelope>>,
    streams: HashMap<u64, HostedResourceKey>,
    inbox: BTreeMap<(String, String, String), Value>,
    waiting: HashSet<(String, String)>,
    next_id: u64,
}

/// The desktop core.
pub struct Core {
    multi: MultiHostClient,
    state: Mutex<CoreState>,
    notifier: Mutex<Option<Arc<dyn Notifier>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn send_all(sinks: &mut HashMap<u64, Sink>, value: &Value) {
    sinks.retain(|_, sink| sink(value.clone()));
}

impl Core {
    /// A core with no hosts; starts the event pump on the current runtime.
    pub fn start() -> Arc<Self> {
        let core = Arc::new(Self { multi: MultiHostClient::new(), state: Mutex::new(CoreState::default()), notifier: Mutex::new(None) });
        let pump = core.clone();
        let events = core.multi.events();
        tokio::spawn(async move { pump.pump(events).await });
        let watcher = core.clone();
        let mut host_events = core.multi.host_events();
        tokio::spawn(async move {
            while host_events.recv().await.is_some() {
                watcher.push_hosts().await;
                watcher.refresh_rows().await;
            }
        });
        core
    }

    /// The multi-host client (for commands).
    pub fn multi(&self) -> &MultiHostClient {
        &self.multi
    }

    /// Install the desktop notifier.
    pub fn set_notifier(&self, notifier: Arc<dyn Notifier>) {
        *lock(&self.notifier) = Some(notifier);
    }

    /// Register a host reachable at `url` (a `ws://` URL carrying its token).
    pub async fn add_host(&self, id: &str, label: &str, url: String) -> Result<(), CoreError> {
        let factory = move |_id: HostId| {
            let url = url.clone();
            async move {
                let transport = ahp_ws::WebSocketTransport::connect(&url).await.map_err(|e| TransportError::Io(e.to_string()))?;
                Ok::<_, TransportError>(BoxedTransport::new(transport))
            }
        };
        let config = HostConfig::new(id, label, factory)
            .with_initial_subscriptions(vec![ROOT_RESOURCE_URI.to_owned()])
            .with_client_config(ClientConfig { subscription_buffer: 1 << 16, ..ClientConfig::default() });
        self.multi.add_host(config).await?;
        self.push_hosts().await;
        self.refresh_rows().await;
        Ok(())
    }

    /// Current app view: hosts, session rows, inbox.
    pub async fn app_snapshot(&self) -> Value {
        let hosts = self.multi.hosts().await;
        let rows: Vec<Value> = hosts.iter().flat_map(|h| h.session_summaries.iter().map(|s| row(h, s)).collect::<Vec<_>>()).collect();
        let inbox: Vec<Value> = lock(&self.state).inbox.values().cloned().collect();
        json!({ "op": "snapshot", "hosts": hosts.iter().map(host_view).collect::<Vec<_>>(), "sessions": rows, "inbox": inbox })
    }

    /// Register an app-stream sink; it first receives a snapshot.
    pub async fn watch_app(&self, sink: Sink) -> u64 {
        let snapshot = self.app_snapshot().await;
        let mut st = lock(&self.state);
        st.next_id += 1;
        let id = st.next_id;
        if sink(snapshot) {
            st.app_sinks.insert(id, sink);
        }
        id
    }

    /// Open a chat for a stream: subscribe if needed, send the snapshot,
    /// then every update. Returns the stream id.
    pub async fn open_chat(&self, host: &HostId, session: &str, chat: &str, sink: Sink) -> Result<u64, CoreError> {
        let key = HostedResourceKey::new(host.clone(), chat);
        self.ensure_chat(&key, session).await?;
        let mut st = lock(&self.state);
        st.next_id += 1;
        let id = st.next_id;
        let CoreState { mirror, chats, streams, .. } = &mut *st;
        let chat_state = mirror.chats().get(&key).ok_or_else(|| CoreError::NotFound(chat.to_owned()))?;
        let watch = chats.get_mut(&key).ok_or_else(|| CoreError::NotFound(chat.to_owned()))?;
        // A fresh projection per stream would be wasteful; re-snapshot the
        // shared one so every sink of this chat is in step.
        let snapshot = watch.projection.snapshot(chat_state);
        for other in watch.sinks.values() {
            other(snapshot.clone());
        }
        if sink(snapshot) {
            watch.sinks.insert(id, sink);
            streams.insert(id, key);
        }
        Ok(id)
    }

    /// Stop sending a stream's events.
    pub fn close_stream(&self, id: u64) {
        let mut st = lock(&self.state);
        st.app_sinks.remove(&id);
        if let Some(key) = st.streams.remove(&id) {
            if let Some(w) = st.chats.get_mut(&key) {
                w.sinks.remove(&id);
            }
        }
    }

    /// Send the open chat's streams the next older page: from the mirror
    /// when it holds one, else ask the host (`fetchTurns`); the page goes
    /// out when `chat/turnsLoaded` arrives. Returns whether more may exist.
    pub async fn older_turns(&self, host: &HostId, chat: &str) -> Result<bool, CoreError> {
        let key = HostedResourceKey::new(host.clone(), chat);
        let cursor = {
            let mut st = lock(&self.state);
            let CoreState { mirror, chats, .. } = &mut *st;
            let state = mirror.chats().get(&key).ok_or_else(|| CoreError::NotFound(chat.to_owned()))?;
            let watch = chats.get_mut(&key).ok_or_else(|| CoreError::NotFound(chat.to_owned()))?;
            if let Some(op) = watch.projection.older(state) {
                let more = op["more"].as_bool().unwrap_or(false);
                let batch = json!({ "op": "batch", "ops": [op] });
                watch.sinks.retain(|_, sink| sink(batch.clone()));
                return Ok(more);
            }
            match state.turns_next_cursor.clone() {
                Some(c) => {
                    watch.projection.want_older();
                    c
                }
                None => return Ok(false),
            }
        };
        let params = ahp_types::commands::FetchTurnsParams { channel: chat.to_owned(), meta: None, cursor: Some(cursor) };
        let client = self.multi.client(host).await.ok_or_else(|| CoreError::NotFound(format!("host {host} is not connected")))?;
        let _: Value = client.request("fetchTurns", params).await?;
        Ok(true)
    }

    /// A copy of a chat's reduced state, if subscribed.
    pub fn chat_state(&self, host: &HostId, chat: &str) -> Option<ChatState> {
        lock(&self.state).mirror.chats().get(&HostedResourceKey::new(host.clone(), chat)).cloned()
    }

    /// Subscribe to a chat (once) and seed the mirror from its snapshot,
    /// replaying envelopes that raced the snapshot.
    async fn ensure_chat(&self, key: &HostedResourceKey, session: &str) -> Result<(), CoreError> {
        let already = {
            let mut st = lock(&self.state);
            let already = st.chats.contains_key(key) || st.pending.contains_key(key);
            if !already {
                st.pending.insert(key.clone(), Vec::new());
            }
            already
        };
        if already {
            return self.wait_subscribed(key).await;
        }
        let result = self.multi.subscribe(&key.host_id, key.uri.clone()).await;
        let mut st = lock(&self.state);
        let buffered = st.pending.remove(key).unwrap_or_default();
        let snapshot = match result {
            Ok(r) => r.snapshot.ok_or_else(|| CoreError::Unexpected(format!("no snapshot for {}", key.uri)))?,
            Err(e) => return Err(e.into()),
        };
        if !matches!(snapshot.state, SnapshotState::Chat(_)) {
            return Err(CoreError::Unexpected(format!("{} is not a chat", key.uri)));
        }
        st.mirror.apply_snapshot(&key.host_id, &snapshot);
        for env in buffered {
            if env.server_seq as i64 > snapshot.from_seq && env.rejection_reason.is_none() {
                st.mirror.apply_envelope(&key.host_id, &env);
            }
        }
        st.chats.insert(key.clone(), ChatWatch { projection: ChatProjection::default(), sinks: HashMap::new(), session: session.to_owned() });
        let CoreState { mirror, chats, inbox, .. } = &mut *st;
        if let (Some(chat), Some(watch)) = (mirror.chats().get(key), chats.get_mut(key)) {
            watch.projection.snapshot(chat);
            update_inbox(inbox, key, &watch.session, chat);
        }
        let items: Vec<Value> = st.inbox.values().cloned().collect();
        send_all(&mut st.app_sinks, &json!({ "op": "inbox", "items": items }));
        Ok(())
    }

    async fn wait_subscribed(&self, key: &HostedResourceKey) -> Result<(), CoreError> {
        for _ in 0..400 {
            if lock(&self.state).chats.contains_key(key) {
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        Err(CoreError::Unexpected(format!("subscribing to {} did not finish", key.uri)))
    }

    async fn push_hosts(&self) {
        let hosts: Vec<Value> = self.multi.hosts().await.iter().map(host_view).collect();
        send_all(&mut lock(&self.state).app_sinks, &json!({ "op": "hosts", "hosts": hosts }));
    }

    async fn refresh_rows(&self) {
        let snapshot = self.app_snapshot().await;
        let hosts = self.multi.hosts().await;
        send_all(&mut lock(&self.state).app_sinks, &json!({ "op": "sessions", "sessions": snapshot["sessions"] }));
        for h in hosts {
            for s in &h.session_summaries {
                self.note_status(&h.id, &h.label, s).await;
            }
        }
    }

    /// Track sessions that need input: subscribe their chat (for the
    /// inbox) and notify when one starts waiting.
    async fn note_status(&self, host: &HostId, host_label: &str, s: &ahp_types::state::SessionSummary) {
        let key = (host.as_str().to_owned(), s.resource.clone());
        let waiting = needs_input(s.status);
        let started = {
            let mut st = lock(&self.state);
            if waiting {
                st.waiting.insert(key)
            } else {
                st.waiting.remove(&key);
                false
            }
        };
        if !waiting {
            return;
        }
        if started {
            let notifier = lock(&self.notifier).clone();
            if let Some(n) = notifier {
                n.needs_input(&s.title, host_label);
            }
        }
        if let Some(chat) = &s.default_chat {
            let chat_key = HostedResourceKey::new(host.clone(), chat.clone());
            let known = { let st = lock(&self.state); st.chats.contains_key(&chat_key) || st.pending.contains_key(&chat_key) };
            if !known {
                if let Err(e) = self.ensure_chat(&chat_key, &s.resource).await {
                    tracing::warn!("subscribing {} for the inbox: {e}", chat);
                }
            }
        }
    }

    async fn pump(self: Arc<Self>, mut events: ahp::hosts::HostSubscriptionStream) {
        while let Some(first) = events.recv().await {
            // Batch whatever is already queued: one projection per chat per batch.
            let mut batch = vec![first];
            while batch.len() < 512 {
                match events.recv().now_or_never() {
                    Some(Some(e)) => batch.push(e),
                    _ => break,
                }
            }
            let mut summaries: Vec<(HostId, String, bool)> = Vec::new();
            {
                let mut st = lock(&self.state);
                let mut dirty: HashSet<HostedResourceKey> = HashSet::new();
                let mut rejections = Vec::new();
                for event in batch {
                    let HostSubscriptionEvent { host_id, channel, event } = event;
                    match event {
                        SubscriptionEvent::Action(env) => {
                            let key = HostedResourceKey::new(host_id.clone(), env.channel.clone());
                            if let Some(reason) = &env.rejection_reason {
                                rejections.push(json!({ "op": "rejected", "host": host_id.as_str(), "channel": env.channel, "reason": reason, "action": action_type(&env.action) }));
                                continue;
                            }
                            if let Some(buf) = st.pending.get_mut(&key) {
                                buf.push(env);
                                continue;
                            }
                            st.mirror.apply_envelope(&host_id, &env);
                            if st.chats.contains_key(&key) {
                                dirty.insert(key);
                            }
                        }
                        SubscriptionEvent::SessionAdded(p) => summaries.push((host_id, p.summary.resource, false)),
                        SubscriptionEvent::SessionSummaryChanged(p) => summaries.push((host_id, p.session, false)),
                        SubscriptionEvent::SessionRemoved(p) => summaries.push((host_id, p.session, true)),
                        _ => tracing::debug!("ignored event on {channel}"),
                    }
                }
                let CoreState { mirror, chats, inbox, app_sinks, .. } = &mut *st;
                let mut inbox_changed = false;
                for key in dirty {
                    let (Some(chat), Some(watch)) = (mirror.chats().get(&key), chats.get_mut(&key)) else { continue };
                    let ops = watch.projection.update(chat);
                    if !ops.is_empty() {
                        let batch = Value::Array(ops);
                        watch.sinks.retain(|_, sink| sink(json!({ "op": "batch", "ops": batch })));
                    }
                    inbox_changed |= update_inbox(inbox, &key, &watch.session, chat);
                }
                for r in rejections {
                    send_all(app_sinks, &r);
                }
                if inbox_changed {
                    let items: Vec<Value> = inbox.values().cloned().collect();
                    send_all(app_sinks, &json!({ "op": "inbox", "items": items }));
                }
            }
            for (host_id, session, removed) in summaries {
                self.push_row(&host_id, &session, removed).await;
            }
        }
    }

    async fn push_row(&self, host_id: &HostId, session: &str, removed: bool) {
        let Some(handle) = self.multi.host(host_id).await else { return };
        let summary = handle.session_summaries.iter().find(|s| s.resource == session).cloned();
        let op = match (&summary, removed) {
            (Some(s), false) => json!({ "op": "session", "row": row(&handle, s) }),
            _ => json!({ "op": "sessionRemoved", "host": host_id.as_str(), "uri": session }),
        };
        send_all(&mut lock(&self.state).app_sinks, &op);
        if let Some(s) = summary {
            self.note_status(host_id, &handle.label, &s).await;
        }
    }
}

/// Replace one chat's inbox entries; `true` if they changed.
fn update_inbox(inbox: &mut BTreeMap<(String, String, String), Value>, key: &HostedResourceKey, session: &str, chat: &ChatState) -> bool {
    let host = key.host_id.as_str().to_owned();
    let before: Vec<Value> = inbox.iter().filter(|((h, c, _), _)| *h == host && *c == key.uri).map(|(_, v)| v.clone()).collect();
    inbox.retain(|(h, c, _), _| !(*h == host && *c == key.uri));
    let mut after = Vec::new();
    for (turn_id, tool_call_id, title) in pending_confirmations(chat) {
        let item = json!({
            "host": host, "session": session, "chat": key.uri, "chatTitle": chat.title,
            "turnId": turn_id, "toolCallId": tool_call_id, "title": title,
        });
        after.push(item.clone());
        inbox.insert((host.clone(), key.uri.clone(), tool_call_id), item);
    }
    before != after
}

/// The wire `type` of an action.
pub fn action_type(action: &StateAction) -> String {
    serde_json::to_value(action).ok().and_then(|v| v["type"].as_str().map(str::to_owned)).unwrap_or_default()
}
