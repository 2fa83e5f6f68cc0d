//! The agent layer: what carries out the engine's [`SideEffect`]s — starting
//! agents when sessions are created, running and cancelling turns, answering
//! permission requests and elicitations. Hangar runs real ACP (Agent Client
//! Protocol) agents.
//!
//! Map:
//! - `agent_host.rs` — [`AgentHost`]: the narrow interface to the host the
//!   layer works through (the host implements it; tests use a double).
//! - `mod.rs`       — the [`AgentLayer`] trait, [`agent_layer`], and
//!   [`AcpLayer`]: one task per session (its agent looked up in the live
//!   registry), routing effects to it; process groups ended at shutdown.
//! - `session.rs`   — the per-session task: turns, prompts, permissions,
//!   cancel, steering, crash/hang handling.
//! - `startup.rs`   — starting a session's agent: transport, `initialize`,
//!   `session/new|load|resume`, the ACP session id kept in `_meta`.
//! - `update.rs`    — THE router's input: one `session/update` decoded once
//!   into a typed [`update::SessionUpdate`]; the session routes its own kinds
//!   (title, commands, options, mode) and hands the rest to the turn.
//! - `turn.rs`      — mapping the typed updates of one prompt onto an AHP
//!   turn (parts, tool-call state machine, plan, usage, endings).
//! - `usage.rs`     — `usage_update` and a prompt answer's `usage` merged into
//!   one report per turn (`_meta["hangar/usage"]`).
//! - `prompt.rs`    — a user message and its attachments as ACP prompt
//!   content, within the agent's `promptCapabilities`.
//! - `tools.rs`     — ACP tool content, diffs and permission options in AHP terms.
//! - `elicitation.rs` — ACP `elicitation/create` as AHP input requests and
//!   the user's answers back.
//! - `models.rs`    — models the agents report; `resolveSessionConfig`.
//! - `config_options.rs` — the agent's modes and other settings as session
//!   config properties, switched before a prompt or at once when idle.
//! - `commands.rs`  — the agent's own `/` commands (`available_commands_update`).
//! - `fork_context.rs` — a forked chat's earlier turns, as text for its first prompt.
//! - `past_sessions.rs` — the agent's own earlier sessions (`session/list`),
//!   and how it opens one (`session/load` or `session/resume`).
//! - `replay.rs`    — the history `session/load` replays when one of those
//!   is opened, made into completed turns.
//! - `sign_in.rs`   — the sign-in methods an agent offers (`authMethods`) in
//!   the forms Hangar carries out: an API key, a login in a terminal, ACP
//!   `authenticate`; a start refused with `auth_required` names them.
//! - `sign_in_run.rs` — carrying out a login: its command in a
//!   pseudo-terminal (a terminal channel the person answers), or a fresh
//!   agent process sent `authenticate`; both recorded in `crate::process_groups`.
//! - `fs.rs`        — `fs/read_text_file` / `fs/write_text_file`, confined.
//! - `terminal_requests.rs` — `terminal/*`: the agent's commands as AHP terminal
//!   channels, and what a tool call shows of them.
//! - `terminal_channel.rs` — a program's output and exit told to its
//!   terminal channel (logins, clients' shells).
//! - `approvals.rs` — approvals bound to the diff that was shown.
//! - `rule_answers.rs` — permission requests the host's approval rules
//!   answer before any client is asked (`crate::rules`).
//! - `rpc.rs`       — JSON-RPC over NDJSON, one id map per direction.
//! - `inbound.rs`   — what the reader hands on: a request, a notification,
//!   the end of the stream.
//! - `chunk_lines.rs` — the reader's fast path for streamed text chunks:
//!   typed parse, merged while more lines are buffered.
//! - `coalesce.rs`  — merging a burst of queued text chunks into one delta.
//! - `transport.rs` — child process (cwd, own process group, stderr tail) or TCP.
//! - `test_support/` — (tests only) an [`AgentHost`] double reducing with
//!   `ahp::reducers`, and the in-process replay of recorded ACP transcripts.
//! - `transcript_tests.rs` — (tests only) every recorded transcript replayed
//!   through the turn mapping, one table row each.
//!
//! Why our own NDJSON loop: the official `agent-client-protocol` crate (5.x)
//! is used for its v1 schema types (tool calls, permission requests, plans,
//! content blocks), but its client builder spawns agents without a working
//! directory, has no TCP transport, is runtime-agnostic (futures, not tokio)
//! and rejects whole notifications whose update kind it does not know. A
//! ~150-line tokio loop gives us cwd, process groups, TCP, per-direction id
//! maps and tolerance of unknown updates.
//!
//! Environment knobs (seconds): `HANGAR_ACP_START_TIMEOUT` (initialize and
//! session setup, default 60), `HANGAR_ACP_IDLE_TIMEOUT` (silence during a
//! prompt before the agent counts as hung, default 600),
//! `HANGAR_ACP_CANCEL_TIMEOUT` (time to end a cancelled prompt, default 15).

mod agent_host;
mod approvals;
mod chunk_lines;
pub mod coalesce;
mod commands;
mod config_options;
mod elicitation;
mod fork_context;
mod fs;
pub mod inbound;
mod models;
mod past_sessions;
mod prompt;
mod replay;
mod rpc;
mod rule_answers;
mod session;
pub mod sign_in;
mod sign_in_run;
mod startup;
mod terminal_channel;
mod terminal_requests;
#[cfg(test)]
mod test_support;
mod tools;
#[cfg(test)]
mod transcript_tests;
pub(crate) mod transport;
mod turn;
mod update;
pub mod usage;

pub use agent_host::AgentHost;
pub use config_options::AgentOption;
pub use models::{resolve_session_config, session_config_completions};
pub(crate) use past_sessions::list_past_sessions;
pub use past_sessions::{OpensWith, PastSessions};
pub use sign_in::{SignInKind, SignInMethod};
pub(crate) use sign_in_run::authenticate;
pub use sign_in_run::{run_login, SignInRunError};
pub use startup::{META_KEY as ACP_META_KEY, OPEN_KEY as ACP_OPEN_KEY};
pub use terminal_channel::TerminalChannel;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ahp_types::actions::{ChatErrorAction, SessionReadyAction};
use ahp_types::state::{ErrorInfo, ErrorResponsePart, SessionState};
use ahp_types::StateAction;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::agents::registry::AgentRegistry;
use crate::agents::AgentSpec;
use crate::engine::SideEffect;
use crate::process_groups::Registry;
use session::{Command, SessionTask, Setup};
use sign_in::AuthMethods;
use startup::META_KEY;

/// Carries out side effects. Implementations must not block: long work is
/// spawned on the tokio runtime, and state changes go back through
/// [`AgentHost::emit`].
pub trait AgentLayer: Send + Sync {
    /// Handle one side effect.
    fn handle(&self, host: &Arc<dyn AgentHost>, effect: SideEffect);
    /// The host is stopping: end every agent process.
    fn shutdown(&self) {}
    /// Stop `session`'s agent process (its next turn starts a fresh one,
    /// resuming the agent's session); whether one was running.
    fn restart(&self, _session: &str) -> bool {
        false
    }
    /// Agent `provider` and its sign-in method `id`, as the agent last
    /// offered it (a client names a method; the host supplies what runs).
    fn sign_in_method(&self, _provider: &str, _id: &str) -> Option<(AgentSpec, SignInMethod)> {
        None
    }
    /// Where agent process groups are recorded; one that records nothing
    /// by default.
    fn process_groups(&self) -> Registry {
        Registry::default()
    }
}

/// The agent layer for the agents of `registry` (read at each session
/// start, so an agent added while the host runs is used at once); their
/// process groups are recorded under `data_dir`.
pub fn agent_layer(registry: Arc<AgentRegistry>, data_dir: &Path) -> Arc<dyn AgentLayer> {
    Arc::new(AcpLayer::new(registry, data_dir))
}

/// The ACP session a Hangar session uses (`_meta["hangar.acp"].sessionId`),
/// and whether it is one of the agent's own earlier sessions still to be
/// opened (`open`: `true` until its first start has loaded it).
fn acp_meta(state: &SessionState) -> (Option<String>, bool) {
    let acp = state.meta.as_ref().and_then(|m| m.get(META_KEY));
    let id = acp.and_then(|v| v.get("sessionId")).and_then(Value::as_str).map(str::to_owned);
    let open = acp.and_then(|v| v.get(startup::OPEN_KEY)).and_then(Value::as_bool) == Some(true);
    (id, open)
}

/// A turn in a session whose agent is no longer on the host (removed from
/// the Agents page, or a custom agent deleted) ends at once saying so,
/// rather than waiting for an agent that will never answer.
fn agent_gone(host: &Arc<dyn AgentHost>, provider: &str, chat: &str, turn_id: &str) {
    let message = format!(
        "The agent {provider:?} is no longer on this host: install or add it again (the host's Agents page), \
         then send the message again, or start a new session with another agent."
    );
    let error = ErrorInfo { error_type: "agentNotFound".to_owned(), message, stack: None, meta: None };
    let action = ChatErrorAction {
        turn_id: turn_id.to_owned(),
        duration: 0,
        part: ErrorResponsePart { error, resumable: None },
        meta: None,
    };
    host.emit(chat, StateAction::ChatError(action));
}

/// Timeouts for talking to agents.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// initialize / session setup.
    pub start: Duration,
    /// Silence during a prompt before the agent counts as hung.
    pub idle: Duration,
    /// Time to end a cancelled prompt before the agent is stopped.
    pub cancel: Duration,
    /// Other requests (model switches).
    pub request: Duration,
}

impl Timeouts {
    fn from_env() -> Self {
        let secs = |name: &str, default: f64| {
            let v = std::env::var(name).ok().and_then(|v| v.parse::<f64>().ok()).unwrap_or(default);
            Duration::from_secs_f64(v.max(0.1))
        };
        Self {
            start: secs("HANGAR_ACP_START_TIMEOUT", 60.0),
            idle: secs("HANGAR_ACP_IDLE_TIMEOUT", 600.0),
            cancel: secs("HANGAR_ACP_CANCEL_TIMEOUT", 15.0),
            request: Duration::from_secs(30),
        }
    }
}

/// Runs each session's ACP agent on its own task.
pub struct AcpLayer {
    agents: Arc<AgentRegistry>,
    tasks: Mutex<HashMap<String, mpsc::UnboundedSender<Command>>>,
    registry: Registry,
    timeouts: Timeouts,
    auth: AuthMethods,
}

impl AcpLayer {
    /// A layer for these agents; agent process groups are recorded under
    /// `data_dir` (leftovers of an earlier host are ended now).
    pub fn new(agents: Arc<AgentRegistry>, data_dir: &Path) -> Self {
        Self {
            agents,
            tasks: Mutex::default(),
            registry: Registry::open(data_dir),
            timeouts: Timeouts::from_env(),
            auth: AuthMethods::default(),
        }
    }

    fn spawn(&self, host: &Arc<dyn AgentHost>, setup: Setup) -> mpsc::UnboundedSender<Command> {
        let (tx, rx) = mpsc::unbounded_channel();
        let session = setup.session.clone();
        let task = SessionTask::new(host.clone(), setup, self.registry.clone(), self.timeouts, self.auth.clone());
        tokio::spawn(task.run(rx));
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.insert(session, tx.clone());
        }
        tx
    }

    /// The task of `session`, started for a session restored from the store
    /// (after a restart) if it has none yet.
    fn task_for(&self, host: &Arc<dyn AgentHost>, session: &str) -> Option<mpsc::UnboundedSender<Command>> {
        if let Some(tx) = self.tasks.lock().ok().and_then(|t| t.get(session).cloned()) {
            return Some(tx);
        }
        let state = host.session(session, SessionState::clone)?;
        let agent = self.agents.get(&state.provider)?;
        let (acp_session, open_past) = acp_meta(&state);
        let setup = Setup {
            session: session.to_owned(),
            agent,
            working_directories: state.working_directories.unwrap_or_default(),
            acp_session,
            open_past,
        };
        Some(self.spawn(host, setup))
    }
}

impl AgentLayer for AcpLayer {
    fn handle(&self, host: &Arc<dyn AgentHost>, effect: SideEffect) {
        let session = match &effect {
            SideEffect::SessionCreated { session, provider, working_directories, .. } => {
                // A session with no agent (a host that has none: clients
                // drive its turns themselves) is ready at once.
                let Some(agent) = self.agents.get(provider) else {
                    host.emit(session, StateAction::SessionReady(SessionReadyAction {}));
                    return;
                };
                // A session made to open one of the agent's own earlier
                // sessions names it in its `_meta` from the start.
                let (acp_session, open_past) = host.session(session, acp_meta).unwrap_or_default();
                let setup = Setup {
                    session: session.clone(),
                    agent,
                    working_directories: working_directories.clone(),
                    acp_session,
                    open_past,
                };
                let tx = self.spawn(host, setup);
                let _ = tx.send(Command::Effect(Box::new(effect)));
                return;
            }
            // The host keeps customizations (the agent sees them at its next
            // start) and tracks changes.
            // The host carries out a terminal's input and resizes itself.
            SideEffect::CustomizationToggled { .. }
            | SideEffect::TurnEnded { .. }
            | SideEffect::ChangesetReviewed { .. }
            | SideEffect::TerminalInput { .. }
            | SideEffect::TerminalResized { .. } => return,
            SideEffect::SessionDisposed { session, .. } => {
                if let Some(tx) = self.tasks.lock().ok().and_then(|mut t| t.remove(session)) {
                    let _ = tx.send(Command::Dispose);
                }
                return;
            }
            SideEffect::TurnStarted { session, .. }
            | SideEffect::TurnCancelled { session, .. }
            | SideEffect::ConfigChanged { session } => Some(session.clone()),
            SideEffect::ToolCallConfirmed { chat, .. }
            | SideEffect::InputCompleted { chat, .. }
            | SideEffect::SteeringSet { chat, .. } => host.session_of_chat(chat),
        };
        let Some(session) = session else {
            return;
        };
        if let SideEffect::TurnStarted { chat, turn_id, .. } = &effect {
            let provider = host.session(&session, |s| s.provider.clone()).unwrap_or_default();
            if !provider.is_empty() && self.agents.get(&provider).is_none() {
                // An agent process started before it went stays no longer.
                self.restart(&session);
                agent_gone(host, &provider, chat, turn_id);
                return;
            }
        }
        if let Some(tx) = self.task_for(host, &session) {
            let _ = tx.send(Command::Effect(Box::new(effect)));
        }
    }

    fn sign_in_method(&self, provider: &str, id: &str) -> Option<(AgentSpec, SignInMethod)> {
        let agent = self.agents.get(provider)?;
        Some((agent, self.auth.get(provider, id)?))
    }

    fn process_groups(&self) -> Registry {
        self.registry.clone()
    }

    fn restart(&self, session: &str) -> bool {
        let task = self.tasks.lock().ok().and_then(|mut t| t.remove(session));
        task.is_some_and(|tx| tx.send(Command::Dispose).is_ok())
    }

    fn shutdown(&self) {
        if let Ok(mut tasks) = self.tasks.lock() {
            for (_, tx) in tasks.drain() {
                let _ = tx.send(Command::Dispose);
            }
        }
        self.registry.end_all();
    }
}
