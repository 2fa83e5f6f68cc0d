//! [`Core`]: the desktop's protocol state and its event pump.
//!
//! Every host (the embedded one included) is reached through one
//! `ahp::hosts::MultiHostClient`. Inbound envelopes are reduced by the
//! official reducers inside `MultiHostStateMirror`; the core decides which
//! channels to subscribe, buffers envelopes that race a subscribe snapshot,
//! drops rejected echoes (the mirror would apply them), and pushes view
//! updates to the UI's streams:
//!
//! - the app stream: hosts, session rows, the approval inbox, rejections;
//! - one stream per open chat: a snapshot, then [`ChatProjection`] ops,
//!   `start` ops (the session's lifecycle, messages held until it is ready)
//!   and `customizations` ops (the session's customizations).
//!
//! Map:
//! - `mod.rs` (this file) — [`Core`], its state, the commands' entry points
//!   (hosts, streams, open chat, send, older turns) and subscribing a
//!   channel into the mirror;
//! - [`hosts`] — registering hosts (the embedded one, saved remote ones),
//!   the reconnect schedule and honest connection state, the host commands;
//! - [`pump`] — applies the event feed to the mirror in batches, projects
//!   the changed chats, sends held messages once their session is ready;
//! - [`resync`] — after lost events (or a reconnect), re-snapshots every
//!   channel the core holds on that host and re-sends the UI's views;
//! - `usage` — the `usage.get` command: `x-hangar/usage` on one host or
//!   every host, merged, each host's part in words;
//! - [`search`] — the `search` command: `x-hangar/search` on every host at
//!   once, each within a timeout, merged, with each host's part in words;
//! - [`host_request`] — one request to one named host, refusals in words;
//! - [`past_sessions`] — `agents.pastSessions`: an agent's own earlier
//!   sessions in a folder, to continue one;
//! - [`rules`] — the `rules.*` commands: a host's approval rules, asked of
//!   that host, its refusals in words;
//! - [`unsent`] — messages typed while their host is unreachable: kept in
//!   the outbox on disk, sent once when the host is connected again.

mod host_request;
mod hosts;
mod past_sessions;
mod pump;
pub use pump::MIRROR_TURNS;
mod resync;
mod rules;
mod search;
pub use search::SEARCH_TIMEOUT;
mod unsent;
mod usage;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ahp::hosts::{HostEvent, HostId, MultiHostClient};
use ahp::multi_host_state_mirror::{HostedResourceKey, MultiHostStateMirror};
use ahp_types::state::PendingMessageKind;
use ahp_types::state::{ChatState, SessionState};
use ahp_types::{ActionEnvelope, StateAction};
use hangar_host::locks::lock;
use hangar_remote::Remotes;

use crate::chat_view::{pending_confirmations, ChatProjection};
use crate::customizations::view::CustomizationsFollow;
use crate::error::CoreError;
use crate::event_feed::{EventFeed, SeqTap};
use crate::host_book::HostBook;
use crate::host_software::HostSoftware;
use crate::notifications;
use crate::outbox::Outbox;
use crate::outgoing::{self, Composed};
use crate::session_rows::{git_meta, needs_input, row};
use crate::session_start::{HeldMessage, Lifecycle, SessionStart};
use crate::settings_file::SettingsFile;
use hangar_desktop_protocol::app::{InboxItem, SessionRow};
use hangar_desktop_protocol::chat::PendingView;
use hangar_desktop_protocol::command::Sent;
use hangar_desktop_protocol::{AppOp, ChatOp, StreamEvent};

/// Slots of the `ahp::Client`'s event broadcasts. It sizes the all-events
/// channel the pump reads *and* every subscribed channel's own broadcast,
/// each allocated in full when created (about 640 bytes a slot): 65,536
/// cost ~40 MiB per channel, ~80 MiB per open chat (chat + session). Lost
/// events are found and repaired anyway (`event_feed`, `resync`), and
/// `MultiHostClient`'s fan-in behind this channel holds only 1,024.
pub const EVENT_BUFFER: usize = 4_096;

/// Where the UI receives a stream's events; returns `false` once the
/// receiver is gone.
pub type Sink = Arc<dyn Fn(StreamEvent) -> bool + Send + Sync>;

/// Shows a desktop notification when a session needs the user, finished
/// or failed (as far as Settings allows).
pub trait Notifier: Send + Sync {
    /// Whether the app's window has the focus (then nothing is shown).
    fn window_focused(&self) -> bool;
    /// Show a notification (the window is not focused).
    fn notify(&self, kind: notifications::Kind, title: &str, body: &str);
}

struct ChatWatch {
    projection: ChatProjection,
    sinks: HashMap<u64, Sink>,
    session: String,
    /// The session channel (subscribed alongside the chat).
    session_key: HostedResourceKey,
    start: SessionStart,
    /// What the streams were sent of the session's customizations.
    customizations: CustomizationsFollow,
}

impl ChatWatch {
    /// A full `snapshot` op (transcript and start view, with the `unsent`
    /// messages waiting for the host), remembered as sent.
    fn snapshot(&mut self, chat: &ChatState, session: Option<&SessionState>, unsent: Vec<PendingView>) -> ChatOp {
        let mut snapshot = self.projection.snapshot(chat);
        snapshot.start = Some(self.start.snapshot(session, unsent));
        snapshot.customizations = Some(self.customizations.snapshot(session));
        ChatOp::Snapshot(Box::new(snapshot))
    }

    /// The held messages to send now that the session is ready, if any.
    fn release(
        &mut self,
        key: &HostedResourceKey,
        chat: &ChatState,
        session: Option<&SessionState>,
    ) -> Option<Release> {
        let messages = self.start.release(session);
        (!messages.is_empty()).then(|| Release { key: key.clone(), messages, running: chat.active_turn.is_some() })
    }
}

/// Held messages on their way out: the first starts a turn (unless one is
/// running), the rest are queued behind it.
struct Release {
    key: HostedResourceKey,
    messages: Vec<HeldMessage>,
    running: bool,
}

#[derive(Default)]
struct CoreState {
    mirror: MultiHostStateMirror,
    app_sinks: HashMap<u64, Sink>,
    chats: HashMap<HostedResourceKey, ChatWatch>,
    /// Session channels subscribed for the lifecycle of open chats.
    sessions: HashSet<HostedResourceKey>,
    /// Envelopes that arrived while a subscribe for the key was in flight.
    pending: HashMap<HostedResourceKey, Vec<ActionEnvelope>>,
    /// Per channel, the `fromSeq` of the snapshot the mirror was last seeded
    /// from: envelopes at or below it are already in the state (after a
    /// re-subscribe, the old subscription's envelopes may still be queued).
    floors: HashMap<HostedResourceKey, i64>,
    streams: HashMap<u64, HostedResourceKey>,
    inbox: BTreeMap<(String, String, String), InboxItem>,
    /// Each session's last status bits, to see what changed.
    statuses: HashMap<(String, String), u32>,
    /// Hosts whose sessions' statuses were noted (without a notification)
    /// when the core first saw the host connected.
    seen_hosts: HashSet<String>,
    /// Messages waiting for their host (on disk once the saved list is loaded).
    outbox: Outbox,
    /// Each session's latest `_meta["hangar/git"]` from `root/sessionAdded`
    /// and `root/sessionSummaryChanged` (keyed by host and session): the
    /// ahp client's summary cache does not apply a change's `_meta`.
    git: HashMap<(String, String), serde_json::Value>,
    next_id: u64,
}

/// The desktop core.
pub struct Core {
    multi: MultiHostClient,
    state: Mutex<CoreState>,
    notifier: Mutex<Option<Arc<dyn Notifier>>>,
    /// The settings (in memory until [`Core::use_data_dir`]) and the data dir.
    settings: Mutex<(Arc<SettingsFile>, Option<PathBuf>)>,
    /// Each host's software, from its `initialize` answer.
    software: Arc<HostSoftware>,
    /// `serverSeq`s seen on each connection, to find lost events.
    tap: Arc<SeqTap>,
    /// Envelopes still to drop (the test seam [`Core::lose_next_envelopes`]).
    lose: Arc<AtomicUsize>,
    resyncs: AtomicU64,
    /// How long an archive that removes a worktree waits for its echo, in
    /// milliseconds ([`Core::set_archive_echo_wait`]).
    archive_echo_wait_ms: AtomicU64,
    /// Each host's connection: failures, retry schedule, label.
    book: Arc<HostBook>,
    /// The saved-host list, once loaded (`load_saved_hosts`).
    remotes: Mutex<Option<Remotes>>,
    /// Settings → *Open from other devices*, once the embedded host runs.
    device_listener: Mutex<Option<Arc<crate::device_access::DeviceListener>>>,
}

impl CoreState {
    /// A session's sidebar row, its status from the mirrored session's
    /// lifecycle while one is held (see [`row`]).
    fn row(&self, host: &ahp::hosts::HostHandle, s: &ahp_types::state::SessionSummary) -> SessionRow {
        let key = HostedResourceKey::new(host.id.clone(), s.resource.clone());
        let git =
            self.git.get(&(host.id.as_str().to_owned(), s.resource.clone())).or_else(|| git_meta(s.meta.as_ref()));
        row(host, s, self.mirror.sessions().get(&key), git)
    }

    /// Keep a summary's (or a summary change's) `_meta["hangar/git"]`.
    fn note_git(&mut self, host: &HostId, session: &str, meta: Option<&ahp_types::common::JsonObject>) {
        if let Some(git) = git_meta(meta) {
            self.git.insert((host.as_str().to_owned(), session.to_owned()), git.clone());
        }
    }
}

fn send_all(sinks: &mut HashMap<u64, Sink>, event: &StreamEvent) {
    sinks.retain(|_, sink| sink(event.clone()));
}

/// Send a chat op to a chat's streams.
fn send_chat(sinks: &mut HashMap<u64, Sink>, op: ChatOp) {
    send_all(sinks, &StreamEvent::Chat(op));
}

/// Send an app op to the app streams.
fn send_app(sinks: &mut HashMap<u64, Sink>, op: AppOp) {
    send_all(sinks, &StreamEvent::App(op));
}

impl Core {
    /// A core with no hosts; starts the event pump on the current runtime.
    pub fn start() -> Arc<Self> {
        let core = Arc::new(Self {
            multi: MultiHostClient::new(),
            state: Mutex::new(CoreState::default()),
            notifier: Mutex::new(None),
            settings: Mutex::new((Arc::new(SettingsFile::default()), None)),
            software: Arc::new(HostSoftware::default()),
            tap: Arc::new(SeqTap::default()),
            lose: Arc::new(AtomicUsize::new(0)),
            archive_echo_wait_ms: AtomicU64::new(crate::worktree_close::ECHO_WAIT_MS),
            resyncs: AtomicU64::new(0),
            book: Arc::new(HostBook::default()),
            remotes: Mutex::new(None),
            device_listener: Mutex::new(None),
        });
        let pump = core.clone();
        let feed = EventFeed::new(core.multi.events(), core.tap.clone(), core.lose.clone());
        tokio::spawn(async move { pump.pump(feed).await });
        tokio::spawn(hosts::retry_on_wake_or_network(Arc::downgrade(&core)));
        let watcher = core.clone();
        let mut host_events = core.multi.host_events();
        tokio::spawn(async move {
            while let Some(event) = host_events.recv().await {
                watcher.on_host_event(&event);
                // A reconnect may answer with snapshots the event stream
                // never carries: re-snapshot what the core holds.
                if let HostEvent::Connected { host_id, generation } = &event {
                    if *generation > 1 {
                        watcher.resync(host_id).await;
                        watcher.report_back(host_id).await;
                    }
                    watcher.send_unsent(host_id).await;
                }
                watcher.push_hosts().await;
                watcher.refresh_rows().await;
            }
        });
        core
    }

    /// Drop the next `n` action envelopes before the pump sees them, as a
    /// lagging broadcast receiver would. A fault-injection seam for tests.
    pub fn lose_next_envelopes(&self, n: usize) {
        self.lose.store(n, Ordering::SeqCst);
    }

    /// How long an archive that removes a worktree waits for the host's echo
    /// before reading the host's list of sessions instead (15 s). A seam for
    /// tests: with zero it listens for no echo at all, as when the echo was
    /// lost on the way.
    pub fn set_archive_echo_wait(&self, wait: std::time::Duration) {
        self.archive_echo_wait_ms.store(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX), Ordering::SeqCst);
    }

    /// See [`Core::set_archive_echo_wait`].
    pub fn archive_echo_wait(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.archive_echo_wait_ms.load(Ordering::SeqCst))
    }

    /// How many times the core has re-snapshotted a host's channels.
    pub fn resync_count(&self) -> u64 {
        self.resyncs.load(Ordering::SeqCst)
    }

    /// The multi-host client (for commands).
    pub fn multi(&self) -> &MultiHostClient {
        &self.multi
    }

    /// Install the desktop notifier.
    pub fn set_notifier(&self, notifier: Arc<dyn Notifier>) {
        *lock(&self.notifier) = Some(notifier);
    }

    /// Keep the settings in `data_dir/settings.json` (read now) and show
    /// `data_dir` (and its log file) in Settings.
    pub fn use_data_dir(&self, data_dir: &Path) {
        *lock(&self.settings) =
            (Arc::new(SettingsFile::open(data_dir.join("settings.json"))), Some(data_dir.to_owned()));
    }

    /// The settings and the data dir, if the core has one.
    pub fn settings(&self) -> (Arc<SettingsFile>, Option<PathBuf>) {
        lock(&self.settings).clone()
    }

    /// Serve *Open from other devices* with `listener` (see `devices_page`).
    pub fn use_device_listener(&self, listener: Arc<crate::device_access::DeviceListener>) {
        *lock(&self.device_listener) = Some(listener);
    }

    /// The *Open from other devices* listener, when the app has one.
    pub fn device_listener(&self) -> Option<Arc<crate::device_access::DeviceListener>> {
        lock(&self.device_listener).clone()
    }

    /// Every session row of every host.
    async fn rows(&self) -> Vec<SessionRow> {
        let hosts = self.handles().await;
        let st = lock(&self.state);
        hosts.iter().flat_map(|h| h.session_summaries.iter().map(|s| st.row(h, s)).collect::<Vec<_>>()).collect()
    }

    /// Current app view: hosts, session rows, inbox.
    pub async fn app_snapshot(&self) -> AppOp {
        let hosts = self.handles().await.iter().map(|h| self.view(h)).collect();
        let sessions = self.rows().await;
        let inbox = lock(&self.state).inbox.values().cloned().collect();
        AppOp::Snapshot { hosts, sessions, inbox }
    }

    /// Register an app-stream sink; it first receives a snapshot.
    pub async fn watch_app(&self, sink: Sink) -> u64 {
        let snapshot = self.app_snapshot().await;
        let mut st = lock(&self.state);
        st.next_id += 1;
        let id = st.next_id;
        if sink(StreamEvent::App(snapshot)) {
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
        let CoreState { mirror, chats, streams, outbox, .. } = &mut *st;
        let chat_state = mirror.chats().get(&key).ok_or_else(|| CoreError::NotFound(chat.to_owned()))?;
        let watch = chats.get_mut(&key).ok_or_else(|| CoreError::NotFound(chat.to_owned()))?;
        // A fresh projection per stream would be wasteful; re-snapshot the
        // shared one so every sink of this chat is in step.
        let unsent = outbox.views(host.as_str(), chat);
        let snapshot = StreamEvent::Chat(watch.snapshot(chat_state, mirror.sessions().get(&watch.session_key), unsent));
        for other in watch.sinks.values() {
            other(snapshot.clone());
        }
        if sink(snapshot) {
            watch.sinks.insert(id, sink);
            streams.insert(id, key);
        }
        Ok(id)
    }

    /// Send a message on a chat: a new turn, or — while the session's agent
    /// is still starting — held (shown in the chat's `start` view) and sent
    /// once the session is ready, or — while the host is unreachable — kept
    /// on disk and sent once it is back ([`unsent`]). A session whose start
    /// failed refuses.
    pub async fn send(&self, host: &HostId, chat: &str, message: Composed) -> Result<Sent, CoreError> {
        let key = HostedResourceKey::new(host.clone(), chat);
        if self.unreachable(host).await? {
            return self.keep_unsent(&key, &message).map(|held| Sent::Held { held });
        }
        {
            let mut st = lock(&self.state);
            let CoreState { mirror, chats, outbox, .. } = &mut *st;
            if let Some(watch) = chats.get_mut(&key) {
                let session = mirror.sessions().get(&watch.session_key);
                match Lifecycle::of(session) {
                    Lifecycle::Creating => {
                        let id = watch.start.hold(message);
                        if let Some(op) = watch.start.update(session, outbox.views(host.as_str(), chat)) {
                            send_chat(&mut watch.sinks, ChatOp::Batch { ops: vec![op] });
                        }
                        return Ok(Sent::Held { held: id });
                    }
                    Lifecycle::Failed => {
                        let reason = session
                            .and_then(|s| s.creation_error.as_ref())
                            .map(|e| e.message.clone())
                            .unwrap_or_default();
                        return Err(CoreError::AgentNotStarted(reason));
                    }
                    Lifecycle::Ready => {}
                }
            }
        }
        let (turn_id, action) = outgoing::turn_started(&message);
        let handle = self.multi.dispatch(host, chat.to_owned(), action).await?;
        Ok(Sent::Started { client_seq: handle.client_seq, turn_id })
    }

    /// Send held messages: the first as a turn unless one runs, the rest queued.
    async fn send_released(&self, release: Release) {
        let Release { key, messages, running } = release;
        for (i, m) in messages.iter().enumerate() {
            let (_, action) = if i == 0 && !running {
                outgoing::turn_started(&m.message)
            } else {
                outgoing::pending(PendingMessageKind::Queued, &m.message)
            };
            if let Err(e) = self.multi.dispatch(&key.host_id, key.uri.clone(), action).await {
                tracing::warn!("sending a held message on {}: {e}", key.uri);
            }
        }
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
                let more = matches!(op, ChatOp::Older { more: true, .. });
                send_chat(&mut watch.sinks, ChatOp::Batch { ops: vec![op] });
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
        let params =
            ahp_types::commands::FetchTurnsParams { channel: chat.to_owned(), meta: None, cursor: Some(cursor) };
        let client = self
            .multi
            .client(host)
            .await
            .ok_or_else(|| CoreError::NotFound(format!("host {host} is not connected")))?;
        let _: serde_json::Value = client.request("fetchTurns", params).await?;
        Ok(true)
    }

    /// A copy of a session's reduced state: the mirror's when the core holds
    /// its channel (an open chat's session), else a fresh snapshot.
    pub async fn session_state(&self, host: &HostId, session: &str) -> Result<SessionState, CoreError> {
        let key = HostedResourceKey::new(host.clone(), session);
        if let Some(state) = lock(&self.state).mirror.sessions().get(&key).cloned() {
            return Ok(state);
        }
        let result = self.multi.subscribe(host, session.to_owned()).await?;
        match result.snapshot.map(|s| s.state) {
            Some(ahp_types::state::SnapshotState::Session(s)) => Ok(*s),
            _ => Err(CoreError::NotFound(format!("session {session}"))),
        }
    }

    /// The agents a host offers (`RootState.agents`), if it is known.
    pub async fn host_agents(&self, host: &HostId) -> Option<Vec<ahp_types::state::AgentInfo>> {
        self.multi.hosts().await.into_iter().find(|h| &h.id == host).map(|h| h.agents)
    }

    /// A copy of a chat's reduced state, if subscribed.
    pub fn chat_state(&self, host: &HostId, chat: &str) -> Option<ChatState> {
        lock(&self.state).mirror.chats().get(&HostedResourceKey::new(host.clone(), chat)).cloned()
    }

    /// Subscribe to a chat and its session (once each) and seed the mirror
    /// from their snapshots.
    async fn ensure_chat(&self, key: &HostedResourceKey, session: &str) -> Result<(), CoreError> {
        let session_key = HostedResourceKey::new(key.host_id.clone(), session);
        let (claim_chat, claim_session) = {
            let mut st = lock(&self.state);
            let claim_chat = !st.chats.contains_key(key) && !st.pending.contains_key(key);
            let claim_session = !st.sessions.contains(&session_key) && !st.pending.contains_key(&session_key);
            for (claimed, k) in [(claim_chat, key), (claim_session, &session_key)] {
                if claimed {
                    st.pending.insert(k.clone(), Vec::new());
                }
            }
            (claim_chat, claim_session)
        };
        if claim_session {
            match self.seed(&session_key).await {
                Ok(()) => {
                    lock(&self.state).sessions.insert(session_key.clone());
                    // Its lifecycle is known now: the row may say starting or failed.
                    self.send_row(&key.host_id, session, false).await;
                }
                // Without it the chat still works; the host decides when a
                // turn may start.
                Err(e) => tracing::warn!("subscribing {session}: {e}"),
            }
        }
        if !claim_chat {
            return self.wait_subscribed(key).await;
        }
        self.seed(key).await?;
        let mut st = lock(&self.state);
        if !st.mirror.chats().contains_key(key) {
            return Err(CoreError::Unexpected(format!("{} is not a chat", key.uri)));
        }
        let watch = ChatWatch {
            projection: ChatProjection::default(),
            sinks: HashMap::new(),
            session: session.to_owned(),
            session_key,
            start: SessionStart::default(),
            customizations: CustomizationsFollow::default(),
        };
        st.chats.insert(key.clone(), watch);
        let CoreState { mirror, chats, inbox, outbox, .. } = &mut *st;
        if let (Some(chat), Some(watch)) = (mirror.chats().get(key), chats.get_mut(key)) {
            watch.snapshot(
                chat,
                mirror.sessions().get(&watch.session_key),
                outbox.views(key.host_id.as_str(), &key.uri),
            );
            update_inbox(inbox, key, &watch.session, chat);
        }
        let items = st.inbox.values().cloned().collect();
        send_app(&mut st.app_sinks, AppOp::Inbox { items });
        Ok(())
    }

    /// Subscribe `key` (which the caller has put in `pending`) and seed the
    /// mirror from its snapshot, replaying the envelopes that raced it.
    async fn seed(&self, key: &HostedResourceKey) -> Result<(), CoreError> {
        let result = self.multi.subscribe(&key.host_id, key.uri.clone()).await;
        let mut st = lock(&self.state);
        let buffered = st.pending.remove(key).unwrap_or_default();
        let snapshot = result?.snapshot.ok_or_else(|| CoreError::Unexpected(format!("no snapshot for {}", key.uri)))?;
        st.mirror.apply_snapshot(&key.host_id, &snapshot);
        st.floors.insert(key.clone(), snapshot.from_seq);
        for env in buffered {
            if env.server_seq as i64 > snapshot.from_seq && env.rejection_reason.is_none() {
                st.mirror.apply_envelope(&key.host_id, &env);
            }
        }
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
        let hosts = self.handles().await.iter().map(|h| self.view(h)).collect();
        send_app(&mut lock(&self.state).app_sinks, AppOp::Hosts { hosts });
    }

    async fn refresh_rows(&self) {
        let sessions = self.rows().await;
        let hosts = self.handles().await;
        send_app(&mut lock(&self.state).app_sinks, AppOp::Sessions { sessions });
        for h in hosts {
            self.note_already_waiting(&h);
            for s in &h.session_summaries {
                self.note_status(&h.id, &h.label, s).await;
            }
        }
    }

    /// The first time a host is seen connected (its summaries just listed),
    /// note its sessions' statuses, all at once, so that they do not
    /// notify: a session already waiting was waiting before the app started.
    fn note_already_waiting(&self, h: &ahp::hosts::HostHandle) {
        if h.generation == 0 {
            return;
        }
        let mut st = lock(&self.state);
        if st.seen_hosts.insert(h.id.as_str().to_owned()) {
            for s in &h.session_summaries {
                st.statuses.insert((h.id.as_str().to_owned(), s.resource.clone()), s.status);
            }
        }
    }

    /// Track sessions' statuses: subscribe the chat of one that needs input
    /// (for the inbox), and notify — while the window is not focused and
    /// as far as Settings allows — when one starts waiting (an approval if
    /// the inbox holds one of its chat's, else a question), finishes a
    /// turn or fails.
    async fn note_status(&self, host: &HostId, host_label: &str, s: &ahp_types::state::SessionSummary) {
        let key = (host.as_str().to_owned(), s.resource.clone());
        let before = lock(&self.state).statuses.insert(key, s.status).unwrap_or(0);
        let change = notifications::change(before, s.status);
        let chat_key = s.default_chat.as_ref().map(|chat| HostedResourceKey::new(host.clone(), chat.clone()));
        if let (true, Some(chat_key)) = (needs_input(s.status), &chat_key) {
            let known = {
                let st = lock(&self.state);
                st.chats.contains_key(chat_key) || st.pending.contains_key(chat_key)
            };
            if !known {
                if let Err(e) = self.ensure_chat(chat_key, &s.resource).await {
                    tracing::warn!("subscribing {} for the inbox: {e}", chat_key.uri);
                }
            }
        }
        let kind = match change {
            None => return,
            Some(notifications::Change::Ended(kind)) => kind,
            Some(notifications::Change::StartedWaiting) => {
                let st = lock(&self.state);
                let approval =
                    chat_key.is_some_and(|k| st.inbox.keys().any(|(h, c, _)| h == k.host_id.as_str() && *c == k.uri));
                if approval {
                    notifications::Kind::Approval
                } else {
                    notifications::Kind::Question
                }
            }
        };
        if !notifications::allowed(&self.settings().0.get().notify, kind) {
            return;
        }
        let notifier = lock(&self.notifier).clone();
        if let Some(n) = notifier.filter(|n| !n.window_focused()) {
            let (title, body) = notifications::text(kind, &s.title, host_label);
            n.notify(kind, &title, &body);
        }
    }
}

/// Replace one chat's inbox entries; `true` if they changed.
fn update_inbox(
    inbox: &mut BTreeMap<(String, String, String), InboxItem>,
    key: &HostedResourceKey,
    session: &str,
    chat: &ChatState,
) -> bool {
    let host = key.host_id.as_str().to_owned();
    let before: Vec<InboxItem> =
        inbox.iter().filter(|((h, c, _), _)| *h == host && *c == key.uri).map(|(_, v)| v.clone()).collect();
    inbox.retain(|(h, c, _), _| !(*h == host && *c == key.uri));
    let mut after = Vec::new();
    for (turn_id, tool_call_id, title, confirmation) in pending_confirmations(chat) {
        let item = InboxItem {
            host: host.clone(),
            session: session.to_owned(),
            chat: key.uri.clone(),
            chat_title: chat.title.clone(),
            turn_id,
            tool_call_id: tool_call_id.clone(),
            title,
            confirmation,
        };
        after.push(item.clone());
        inbox.insert((host.clone(), key.uri.clone(), tool_call_id), item);
    }
    before != after
}

/// The wire `type` of an action.
pub fn action_type(action: &StateAction) -> String {
    serde_json::to_value(action).ok().and_then(|v| v["type"].as_str().map(str::to_owned)).unwrap_or_default()
}
