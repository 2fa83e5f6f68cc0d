//! The host wing: [`Host`], the engine, the store, the hub and the agent
//! layer wired together, and the background duties (active-client grace
//! periods). Every `impl Host` is in this folder; the server calls it, and
//! the wings below (agents, changes, customizations, resources, terminals,
//! engine, store, hub) never import it.
//!
//! Map:
//! - `mod.rs`            — [`Host`]: opening the data dir, restoring state,
//!   wiring; side effects handed to the agent layer; customizations,
//!   resources and terminals per session.
//! - `agent_host.rs`     — the host as the agent layer sees it (`impl
//!   AgentHost for Host`).
//! - `change_tracking.rs` — the change tracker wired in: turn hooks,
//!   changeset channels and `SessionSummary.changes`,
//!   `invokeChangesetOperation` with its audit entries, "viewed" marks,
//!   `resourceRead` of kept content.
//! - `fork_session.rs`   — `createSession` with `_meta["hangar/fork"]`: a new
//!   session from another chat's turn, its folders copied as that turn left
//!   them.
//! - `git_operations.rs` — the session changeset's `push`, `pullRequest`,
//!   `mergeBack` and drafts, and the branch state on the summary
//!   (`_meta["hangar/git"]`).
//! - `pull_request_watch.rs` — a session's pull request read again with
//!   `gh` (its state), at each branch-state refresh and on a timer while a
//!   client watches the session.
//! - `worktree_session.rs` — `createSession` / `disposeSession` with
//!   `_meta["hangar/worktree"]`: a session in a git worktree of its own,
//!   and removing it with the session.
//! - `client_requests.rs` — requests the host sends to clients (e.g.
//!   `resourceRequest` under `--grant-policy ask`) and their answers.

mod agent_host;
mod change_tracking;
pub mod client_requests;
pub mod fork_session;
mod git_operations;
mod pull_request_watch;
pub mod worktree_session;

use std::collections::HashMap;
use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;

use ahp_types::actions::{RootAgentsChangedAction, SessionActiveClientRemovedAction};
use ahp_types::state::RootState;
use ahp_types::StateAction;

use crate::agents::acp::{agent_layer, AgentHost, AgentLayer};
use crate::compat_v0_9::generation::ProtocolGeneration;
use crate::config::HostConfig;
use crate::customizations::service::{Customizations, Publish};
use crate::customizations::slash_completions::AgentCommand;
use crate::engine::{Engine, SideEffect};
use crate::host::client_requests::OutgoingRequests;
use crate::hub::{ConnId, Hub, Publication};
use crate::locks::lock;
use crate::resources::{uri::file_uri_to_path, ResourceService, ResourceServiceError, WatchHandle};
use crate::store::{self, TurnPages};
use crate::RpcError;

/// Run `f` off the caller's thread: on tokio's blocking pool inside a
/// runtime, else on a thread of its own.
fn run_blocking(f: impl FnOnce() + Send + 'static) {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(f)),
        Err(_) => drop(std::thread::spawn(f)),
    }
}

/// Why the host could not start.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// Another host holds the data directory.
    #[error(
        "another hangar host is already using {0} (lock held on hangar.lock); stop it or pass a different --data-dir"
    )]
    DataDirLocked(String),
    /// File system.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// The store.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The resource grants.
    #[error(transparent)]
    Resources(#[from] ResourceServiceError),
    /// The customization toggle decisions.
    #[error(transparent)]
    Customizations(#[from] crate::customizations::enablement::EnablementError),
    /// The change tracker's store.
    #[error(transparent)]
    Changes(#[from] crate::changes::changes_db::ChangeStoreError),
    /// The approval rules' store.
    #[error(transparent)]
    Rules(#[from] crate::rules::RuleStoreError),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> HostError {
    let what = what.into();
    move |source| HostError::Io { what, source }
}

/// A live resource watch and the connection that created it.
struct LiveWatch {
    owner: ConnId,
    _handle: WatchHandle,
}

/// A running host.
pub struct Host {
    engine: Arc<Mutex<Engine>>,
    /// The `resource*` file-system surface, watches and `@` completions.
    pub resources: ResourceService,
    /// Live resource watches by channel URI.
    watches: Mutex<HashMap<String, LiveWatch>>,
    /// Each open session's customizations, kept current.
    pub customizations: Arc<Customizations>,
    /// What each turn changed in its session's files.
    pub changes: crate::changes::Tracker,
    /// Each session's agent's own `/` commands, as it last reported them.
    agent_commands: Mutex<HashMap<String, Vec<AgentCommand>>>,
    /// Per agent: the modes and settings its last session offered.
    agent_options: Mutex<HashMap<String, Vec<crate::agents::acp::AgentOption>>>,
    /// Set at shutdown; the customization watcher's callback holds it while
    /// it uses the host.
    watch_gate: Arc<Mutex<bool>>,
    /// Fan-out.
    pub hub: Arc<Hub>,
    /// Requests the host sent to clients, awaiting their answers.
    pub outgoing: OutgoingRequests,
    /// Configuration.
    pub config: HostConfig,
    /// Older turns for `fetchTurns`.
    pub turn_pages: TurnPages,
    /// `x-hangar/search`'s read connection on the index.
    pub search: store::search::SearchReader,
    /// `x-hangar/usage`'s read connection.
    pub usage: store::usage::UsageReader,
    /// Client ids seen since start, with their negotiated generation.
    known_clients: Mutex<HashMap<String, ProtocolGeneration>>,
    grace_timers: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    /// Started once: re-reads watched sessions' pull requests (`pull_request_watch.rs`).
    pull_request_watch: std::sync::OnceLock<()>,
    agents: Arc<dyn AgentLayer>,
    /// The agents, current (installs and custom agents change it live).
    pub agent_registry: Arc<crate::agents::registry::AgentRegistry>,
    /// Installs from the Agents page, running or failed.
    pub agent_installs: crate::agents::install::Installs,
    /// The API keys saved for agents (in the OS keyring; names on disk).
    pub agent_keys: crate::agents::keys::AgentKeys,
    /// Running pseudo-terminals (clients' shells, logins), by channel URI.
    pub terminals: crate::terminals::LiveTerminals,
    /// The approval rules (`rules.db`): the host's own answers to agents'
    /// permission requests.
    pub rules: crate::rules::RuleStore,
    /// This host, for handing the agent layer an owned [`AgentHost`].
    me: Weak<Host>,
    next_conn: AtomicU64,
    writer_thread: Mutex<Option<JoinHandle<()>>>,
    /// The search indexer thread, stopped after the writer's last commit.
    indexer: Mutex<store::search::SearchIndexer>,
    _lock: File,
}

impl Host {
    /// Take the data directory, restore everything stored in it.
    pub fn open(config: HostConfig) -> Result<Arc<Self>, HostError> {
        std::fs::create_dir_all(&config.data_dir).map_err(io(format!("creating {}", config.data_dir.display())))?;
        let lock_path = config.data_dir.join("hangar.lock");
        let lock_file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io(format!("opening {}", lock_path.display())))?;
        if !lock_within(&lock_file, LOCK_WAIT) {
            return Err(HostError::DataDirLocked(config.data_dir.display().to_string()));
        }
        let db_path = config.data_dir.join("hangar.db");
        let conn = store::open(&db_path)?;
        let loaded = store::load(&conn, config.turn_tail)?;
        let hub = Arc::new(Hub::new(config.replay_capacity, loaded.server_seq));
        let fanout = hub.clone();
        let (indexer, index_feed) = store::search::SearchIndexer::start(&db_path)?;
        let (writer, thread) =
            store::spawn_writer(conn, Some(index_feed.clone()), move |batch: Vec<Publication>| fanout.publish(batch))
                .map_err(io("starting the store writer"))?;
        let customizations = Arc::new(Customizations::open(
            &config.data_dir,
            config.customization_home.clone(),
            Arc::new(crate::customizations::discover::discover),
        )?);
        let registry = Arc::new(crate::agents::registry::AgentRegistry::new(
            config.agents.clone(),
            config.discovery.clone(),
            config.data_dir.clone(),
        ));
        let root = RootState {
            agents: agents_with_customizations(&registry.all(), &customizations, &[]),
            active_sessions: Some(0),
            terminals: None,
            config: None,
            meta: None,
        };
        let mut engine = Engine::new(loaded.server_seq, root, writer, config.turn_tail);
        engine.restore(loaded);
        let agents = engine.root().agents.clone();
        let _ = engine.emit_server(
            ahp_types::ROOT_RESOURCE_URI,
            StateAction::RootAgentsChanged(RootAgentsChangedAction { agents }),
        );
        let effects = engine.take_effects();
        let engine = Arc::new(Mutex::new(engine));
        let sessions = engine.clone();
        let user_folders = customizations.clone();
        // Read and write reach the sessions' working directories and the
        // known customization folders under home (`~/.claude/agents`, …).
        let working_dirs = Arc::new(move || {
            let mut dirs: Vec<std::path::PathBuf> =
                lock(&sessions).working_directories().iter().filter_map(|uri| file_uri_to_path(uri).ok()).collect();
            dirs.extend(user_folders.user_folders());
            dirs
        });
        let resources = ResourceService::open(
            &config.data_dir,
            config.browse_roots.clone(),
            working_dirs,
            config.request_policy.clone(),
            &config.protected_paths,
        )?;
        let turn_pages = TurnPages::open(&db_path)?;
        let search = store::search::SearchReader::open(&db_path, index_feed)?;
        let usage = store::usage::UsageReader::open(&db_path)?;
        let changes = crate::changes::Tracker::open(&config.data_dir, resources.never_served().to_vec())?;
        let rules = crate::rules::RuleStore::open(&config.data_dir)?;
        let host = Arc::new_cyclic(|me| Self {
            engine,
            resources,
            watches: Mutex::new(HashMap::new()),
            customizations,
            changes,
            agent_commands: Mutex::default(),
            agent_options: Mutex::default(),
            watch_gate: Arc::new(Mutex::new(false)),
            hub,
            outgoing: OutgoingRequests::default(),
            turn_pages,
            search,
            usage,
            known_clients: Mutex::new(HashMap::new()),
            grace_timers: Mutex::new(HashMap::new()),
            pull_request_watch: std::sync::OnceLock::new(),
            agents: agent_layer(registry.clone(), &config.data_dir),
            agent_registry: registry,
            agent_installs: crate::agents::install::Installs::default(),
            agent_keys: crate::agents::keys::AgentKeys::open(&config.data_dir),
            terminals: crate::terminals::LiveTerminals::default(),
            rules,
            me: me.clone(),
            next_conn: AtomicU64::new(1),
            writer_thread: Mutex::new(Some(thread)),
            indexer: Mutex::new(indexer),
            _lock: lock_file,
            config,
        });
        let weak = Arc::downgrade(&host);
        let gate = host.watch_gate.clone();
        host.customizations.start_watching(Box::new(move |paths| {
            // Held while the host is in use here, so `shutdown` waits for
            // this to end and no watcher thread keeps a stopped host (its
            // data-dir lock) alive afterwards.
            let closed = lock(&gate);
            if *closed {
                return;
            }
            if let Some(host) = weak.upgrade() {
                let out = host.customizations.files_changed(&paths);
                host.publish(out);
                if host.customizations.concerns_home(&paths) {
                    host.refresh_agent_customizations();
                }
            }
        }));
        host.restore_changes();
        host.run_effects(effects);
        // Active clients restored from the store have no connection yet:
        // each gets the grace period a disconnecting client gets, so one that
        // never comes back is removed.
        let restored = lock(&host.engine).active_client_ids();
        for client_id in restored {
            host.start_grace_timer(client_id);
        }
        Ok(host)
    }

    /// Run `f` on the engine, then carry out the side effects it produced.
    pub fn with_engine<R>(self: &Arc<Self>, f: impl FnOnce(&mut Engine) -> R) -> R {
        self.engine_then_effects(f)
    }

    fn engine_then_effects<R>(&self, f: impl FnOnce(&mut Engine) -> R) -> R {
        let (result, effects) = {
            let mut engine = lock(&self.engine);
            let result = f(&mut engine);
            (result, engine.take_effects())
        };
        self.run_effects(effects);
        result
    }

    /// Run `f` on the engine while holding its lock, with no effects run
    /// (for snapshot-and-subscribe, which must be atomic).
    pub fn with_engine_locked<R>(&self, f: impl FnOnce(&mut Engine) -> R) -> R {
        f(&mut lock(&self.engine))
    }

    fn run_effects(&self, effects: Vec<SideEffect>) {
        if effects.is_empty() {
            return;
        }
        // Gone only while the host is being dropped: nobody is left to act.
        let Some(host) = self.me.upgrade() else {
            return;
        };
        let host: Arc<dyn AgentHost> = host;
        for effect in effects {
            match effect {
                SideEffect::TurnEnded { session, turn_id } => {
                    let Some(me) = self.me.upgrade() else { continue };
                    run_blocking(move || me.changes_after_turn(&session, &turn_id));
                }
                SideEffect::ChangesetReviewed { session, changeset, files, reviewed } => {
                    self.changes_reviewed(&session, &changeset, &files, reviewed);
                }
                SideEffect::TerminalInput { terminal, data } => {
                    self.terminals.input(&terminal, &data);
                }
                SideEffect::TerminalResized { terminal, size } => self.terminals.resize(&terminal, size),
                effect => {
                    if let SideEffect::SessionDisposed { session, .. } = &effect {
                        self.terminals.end_session(session);
                    }
                    self.customization_effect(&effect);
                    self.agents.handle(&host, effect);
                }
            }
        }
    }

    /// The `/` commands `session`'s agent last reported.
    pub fn agent_commands(&self, session: &str) -> Vec<AgentCommand> {
        lock(&self.agent_commands).get(session).cloned().unwrap_or_default()
    }

    /// What an effect means for the customizations (before the agent layer
    /// sees it: a new session's agent starts with its MCP servers known).
    fn customization_effect(&self, effect: &SideEffect) {
        let out = match effect {
            SideEffect::SessionCreated { session, provider, working_directories, .. } => {
                self.customizations.track(session, provider, working_directories, None)
            }
            SideEffect::SessionDisposed { session, .. } => {
                self.customizations.forget(session);
                lock(&self.agent_commands).remove(session);
                return;
            }
            SideEffect::CustomizationToggled { session, id, enablement } => {
                self.customizations.toggled(session, id, enablement)
            }
            _ => return,
        };
        self.publish(out);
    }

    /// Track the customizations of `session` if they are not yet (a session
    /// restored after a restart is tracked when first used).
    pub fn ensure_customizations(&self, session: &str) {
        if self.customizations.is_tracked(session) {
            return;
        }
        let Some((provider, dirs, stored)) = lock(&self.engine)
            .session_state(session)
            .map(|s| (s.provider.clone(), s.working_directories.clone().unwrap_or_default(), s.customizations.clone()))
        else {
            return;
        };
        let out = self.customizations.track(session, &provider, &dirs, stored.as_deref());
        self.publish(out);
    }

    /// Re-read the user-level customizations into `RootState.agents` (the
    /// agents' models and the rest stay as they are).
    fn refresh_agent_customizations(&self) {
        let ids: Vec<String> = lock(&self.engine).root().agents.iter().map(|a| a.provider.clone()).collect();
        let per_agent = self.customizations.user_level(&ids.iter().map(String::as_str).collect::<Vec<_>>());
        self.engine_then_effects(|e| {
            let mut agents = e.root().agents.clone();
            for (info, mine) in agents.iter_mut().zip(per_agent) {
                info.customizations = Some(mine).filter(|m| !m.is_empty());
            }
            if agents != e.root().agents {
                let _ = e.emit_server(
                    ahp_types::ROOT_RESOURCE_URI,
                    StateAction::RootAgentsChanged(RootAgentsChangedAction { agents }),
                );
            }
        });
    }

    /// Make the agent list again (an agent was installed, removed or added
    /// by hand) and publish it with `root/agentsChanged` when it changed.
    pub fn reload_agents(&self) {
        if !self.agent_registry.reload() {
            return;
        }
        let specs = self.agent_registry.all();
        let before = lock(&self.engine).root().agents.clone();
        // Read from disk outside the engine's lock.
        let agents = agents_with_customizations(&specs, &self.customizations, &before);
        self.engine_then_effects(|e| {
            if agents != e.root().agents {
                let _ = e.emit_server(
                    ahp_types::ROOT_RESOURCE_URI,
                    StateAction::RootAgentsChanged(RootAgentsChangedAction { agents }),
                );
            }
        });
    }

    /// Stop `session`'s agent process (a Restart): its next turn starts a
    /// fresh one with the customizations as they are then. Whether one ran.
    pub fn restart_agent(&self, session: &str) -> bool {
        let stopped = self.agents.restart(session);
        let out = self.customizations.agent_stopped(session);
        self.publish(out);
        stopped
    }

    /// Agent `provider` and its sign-in method `id`, as the agent last
    /// offered it.
    pub fn sign_in_method(
        &self,
        provider: &str,
        id: &str,
    ) -> Option<(crate::agents::AgentSpec, crate::agents::acp::SignInMethod)> {
        self.agents.sign_in_method(provider, id)
    }

    /// Where agent process groups are recorded (logins and `authenticate`
    /// runs are recorded there too).
    pub(crate) fn process_groups(&self) -> crate::process_groups::Registry {
        self.agents.process_groups()
    }

    /// This host as the agent layer sees it.
    pub fn as_agent_host(&self) -> Option<Arc<dyn AgentHost>> {
        self.me.upgrade().map(|h| h as Arc<dyn AgentHost>)
    }

    /// Emit customization actions on their session channels.
    fn publish(&self, out: Vec<Publish>) {
        if out.is_empty() {
            return;
        }
        self.engine_then_effects(|engine| {
            for (session, action) in out {
                if let Err(e) = engine.emit_server(&session, action) {
                    tracing::debug!(%session, "customization update not applied: {e:?}");
                }
            }
        });
    }

    /// Keep a watch alive under its channel URI and open its channel. `owner`
    /// created it: when that connection closes, the watch goes unless someone
    /// is subscribed. Refused (`-32600`, `data.limit`) when `owner` already
    /// holds `max_watches_per_connection` watches, and when it has gone.
    pub fn add_watch(&self, uri: &str, owner: ConnId, handle: WatchHandle) -> Result<(), RpcError> {
        let mut watches = lock(&self.watches);
        let limit = self.config.max_watches_per_connection;
        if watches.values().filter(|w| w.owner == owner).count() >= limit {
            let message =
                format!("too many resource watches on this connection (at most {limit}); unsubscribe from one first");
            return Err(RpcError::invalid_request(message).with_data(serde_json::json!({ "limit": limit })));
        }
        // Checked under the watches lock: `connection_closed` forgets the
        // connection before it looks for the watches it owns.
        if !self.hub.identified_connections().iter().any(|(conn, _)| *conn == owner) {
            return Err(RpcError::invalid_request("the connection closed"));
        }
        lock(&self.engine).add_watch(uri, handle.state().clone());
        watches.insert(uri.to_owned(), LiveWatch { owner, _handle: handle });
        Ok(())
    }

    /// Stop a watch nobody is subscribed to any more.
    pub fn release_watch_if_unwatched(&self, uri: &str) {
        if self.hub.has_subscribers(uri) {
            return;
        }
        if lock(&self.watches).remove(uri).is_some() {
            lock(&self.engine).remove_watch(uri);
        }
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> ConnId {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// A client finished `initialize`: remember it, stop its grace timer.
    pub fn client_arrived(&self, client_id: &str, generation: ProtocolGeneration) {
        lock(&self.known_clients).insert(client_id.to_owned(), generation);
        if let Some(timer) = lock(&self.grace_timers).remove(client_id) {
            timer.abort();
        }
    }

    /// The generation a known client negotiated, for `reconnect`.
    pub fn known_client(&self, client_id: &str) -> Option<ProtocolGeneration> {
        lock(&self.known_clients).get(client_id).copied()
    }

    /// A connection closed. If it was the client's last, start its grace
    /// period; when it ends with the client still away, the host removes it
    /// from every session's active clients.
    pub fn connection_closed(self: &Arc<Self>, conn: ConnId) {
        let (client_id, channels) = self.hub.remove_connection(conn);
        self.outgoing.connection_closed(conn);
        let owned: Vec<String> =
            lock(&self.watches).iter().filter(|(_, w)| w.owner == conn).map(|(uri, _)| uri.clone()).collect();
        for channel in channels.iter().chain(&owned) {
            self.release_watch_if_unwatched(channel);
        }
        let Some(client_id) = client_id else {
            return;
        };
        if self.hub.client_connected(&client_id) {
            return;
        }
        self.start_grace_timer(client_id);
    }

    /// Start (or restart) `client_id`'s grace period; `client_arrived`
    /// cancels it. Needs a tokio runtime; without one (a host opened outside
    /// `hangar serve`) no timer runs.
    fn start_grace_timer(self: &Arc<Self>, client_id: String) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no runtime: active client {client_id} will not be removed after its grace period");
            return;
        };
        // Weak: a pending timer must not keep a dropped host (its data-dir
        // lock, its store) alive until the grace period ends.
        let host = Arc::downgrade(self);
        let grace = self.config.active_client_grace;
        let id = client_id.clone();
        let timer = runtime.spawn(async move {
            tokio::time::sleep(grace).await;
            let Some(host) = host.upgrade() else {
                return;
            };
            if host.hub.client_connected(&id) {
                return;
            }
            lock(&host.grace_timers).remove(&id);
            host.remove_active_client(&id);
        });
        if let Some(old) = lock(&self.grace_timers).insert(client_id, timer.abort_handle()) {
            old.abort();
        }
    }

    fn remove_active_client(self: &Arc<Self>, client_id: &str) {
        self.with_engine(|engine| {
            for session in engine.sessions_with_active_client(client_id) {
                let action = StateAction::SessionActiveClientRemoved(SessionActiveClientRemovedAction {
                    client_id: client_id.to_owned(),
                });
                let _ = engine.emit_server(&session, action);
            }
        });
    }

    /// Stop: checkpoint every channel, commit, and end the writer.
    pub fn shutdown(&self) {
        // First: no watcher callback uses the host after this (one running
        // now is waited for).
        *lock(&self.watch_gate) = true;
        self.customizations.stop_watching();
        self.agents.shutdown();
        self.terminals.end_all();
        {
            let mut engine = lock(&self.engine);
            engine.checkpoint_all();
            engine.writer().flush();
        }
        if let Some(thread) = lock(&self.writer_thread).take() {
            drop(thread);
        }
        lock(&self.indexer).stop();
    }
}

/// How long a start waits for the data directory's lock. A host killed with
/// `kill -9` while it was spawning an agent leaves a child that holds a copy
/// of the lock's descriptor until its `exec` closes it (a few milliseconds,
/// longer on a loaded machine); a restart right then must not fail.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Take `file`'s exclusive lock, trying again for up to `wait`.
fn lock_within(file: &File, wait: std::time::Duration) -> bool {
    let until = std::time::Instant::now() + wait;
    loop {
        if file.try_lock().is_ok() {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `agents` as `RootState.agents` lists them, each with the user-level
/// customizations it sees; an agent already in `before` keeps what its
/// sessions reported (models, capabilities).
fn agents_with_customizations(
    agents: &[crate::agents::AgentSpec],
    customizations: &Customizations,
    before: &[ahp_types::state::AgentInfo],
) -> Vec<ahp_types::state::AgentInfo> {
    let ids: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
    let per_agent = customizations.user_level(&ids);
    agents
        .iter()
        .zip(per_agent)
        .map(|(agent, mine)| {
            let fresh = agent.info();
            let mut info = match before.iter().find(|b| b.provider == agent.id) {
                Some(known) => ahp_types::state::AgentInfo {
                    display_name: fresh.display_name,
                    description: fresh.description,
                    ..known.clone()
                },
                None => fresh,
            };
            info.customizations = Some(mine).filter(|m| !m.is_empty());
            info
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_pending_grace_timer_does_not_keep_a_dropped_host_open() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = HostConfig::new(dir.path().to_path_buf(), "token".to_owned());
        // Far longer than the test: the old timer held the host (and its
        // data-dir lock) until it fired.
        config.active_client_grace = Duration::from_secs(600);
        let host = Host::open(config.clone()).unwrap();
        let (tx, _rx) = tokio::sync::mpsc::channel(8);
        host.hub.add_connection(1, tx, Arc::new(tokio::sync::Notify::new()));
        host.hub.identify(1, "client-a", ProtocolGeneration::V1);
        host.connection_closed(1);
        assert!(lock(&host.grace_timers).contains_key("client-a"), "the grace period started");
        host.shutdown();
        drop(host);
        let reopened = Host::open(config);
        assert!(reopened.is_ok(), "the data directory is free again: {:?}", reopened.err());
    }
}
