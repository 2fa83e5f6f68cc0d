//! Carrying out a sign-in the agent offered (`sign_in.rs` says which
//! forms): its login command in a pseudo-terminal on the host, a terminal
//! channel the person watches and answers through `terminal/input`
//! ([`run_login`]), or ACP `authenticate` sent to a fresh agent process
//! started for that alone ([`authenticate`]). A key is kept by
//! `agents/keys.rs` instead and needs nothing run. Both processes are
//! recorded in the data dir's process-group registry while they run, so a
//! host killed with `kill -9` has them ended at its next start.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ahp_types::state::{
    TerminalClaim, TerminalClientClaim, TerminalLifecycleState, TerminalRunningLifecycleState, TerminalState,
};
use serde_json::json;

use super::agent_host::AgentHost;
use super::rpc::Connection;
use super::sign_in::{SignInKind, SignInMethod};
use super::startup::{ask, ask_starting, initialize_params, Live};
use super::terminal_channel::TerminalChannel;
use super::{fs, transport};
use crate::agents::AgentSpec;
use crate::engine::terminal_uri;
use crate::process_groups::Registry;
use crate::resources::uri::path_to_file_uri;
use crate::terminals::{Exit, Launch, PtyProcess, Size, TerminalEvents};

/// The longest a login may take before its command is ended.
const LOGIN_LIMIT: Duration = Duration::from_secs(15 * 60);
/// Output a login terminal keeps for reading back (the channel has it all).
const LOGIN_OUTPUT: usize = 64 * 1024;

/// Why a sign-in could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum SignInRunError {
    /// The method is not one run here (a key is saved instead).
    #[error("sign-in method {0:?} is not run in a terminal or by the agent")]
    WrongKind(String),
    /// The session is gone.
    #[error("the session is gone")]
    NoSession,
    /// The login command did not start.
    #[error("{0}")]
    Spawn(#[from] crate::terminals::PtyError),
    /// The agent did not start, or refused.
    #[error("{0}")]
    Agent(String),
}

/// Run `method`'s login command (a [`SignInKind::Terminal`]) in `cwd` in a
/// pseudo-terminal, as terminal channel `<session>/terminals/login-…`
/// claimed by `client` (who types its answers: `terminal/input`); `env` is
/// set on top (the agent's saved keys, then the method's own). Answers the
/// channel's URI at once; the command's output and exit follow on it (exit
/// 0: signed in). It is ended after [`LOGIN_LIMIT`], with its session, or
/// by `disposeTerminal`.
pub fn run_login(
    host: Arc<dyn AgentHost>,
    session: &str,
    client: &str,
    cwd: &Path,
    method: &SignInMethod,
    mut env: Vec<(String, String)>,
) -> Result<String, SignInRunError> {
    let SignInKind::Terminal { command, env: own, title } = &method.kind else {
        return Err(SignInRunError::WrongKind(method.id.clone()));
    };
    let (program, args) = command.split_first().ok_or_else(|| SignInRunError::WrongKind(method.id.clone()))?;
    env.extend(own.iter().cloned());
    let launch = Launch { program: program.clone(), args: args.to_vec(), env, cwd: cwd.to_owned() };
    let uri = terminal_uri(session, &format!("login-{}", crate::engine::clock::new_id()));
    let size = Size::default();
    let state = TerminalState {
        title: format!("{}: {title}", method.name),
        cwd: Some(path_to_file_uri(cwd)),
        cols: Some(i64::from(size.cols)),
        rows: Some(i64::from(size.rows)),
        content: Vec::new(),
        lifecycle: TerminalLifecycleState::Running(TerminalRunningLifecycleState {}),
        claim: TerminalClaim::Client(TerminalClientClaim { client_id: client.to_owned() }),
        supports_command_detection: None,
        is_pty: Some(true),
    };
    if !host.open_terminal(session, &uri, state) {
        return Err(SignInRunError::NoSession);
    }
    let events = Arc::new(TerminalChannel::new(host.clone(), &uri));
    match PtyProcess::spawn(&launch, size, LOGIN_OUTPUT, events.clone()) {
        Ok(process) => {
            let process = Arc::new(process);
            let groups = host.process_groups();
            if let Some(pid) = process.pid() {
                groups.insert(&uri, pid);
            }
            host.attach_pty(&uri, Some(session), process.clone());
            let key = uri.clone();
            tokio::spawn(async move {
                if tokio::time::timeout(LOGIN_LIMIT, process.wait()).await.is_err() {
                    process.kill();
                    process.wait().await;
                }
                groups.remove(&key);
            });
            Ok(uri)
        }
        Err(e) => {
            events.output(&format!("{e}\r\n"));
            events.exited(&Exit { code: Some(127), signal: None });
            Err(e.into())
        }
    }
}

/// Start `agent` in `cwd` with `env`, `initialize` it and send ACP
/// `authenticate {methodId}` for `method` (a [`SignInKind::Agent`]); the
/// process is ended once it answers. `limit` bounds each request (a login
/// in a browser takes a person's time). Its process group is recorded in
/// `groups` meanwhile.
pub(crate) async fn authenticate(
    agent: &AgentSpec,
    cwd: &Path,
    env: &[(String, String)],
    method: &SignInMethod,
    limit: Duration,
    groups: &Registry,
) -> Result<(), SignInRunError> {
    if method.kind != SignInKind::Agent {
        return Err(SignInRunError::WrongKind(method.id.clone()));
    }
    let transport =
        transport::open(&agent.command, cwd, env).await.map_err(|e| SignInRunError::Agent(e.to_string()))?;
    let (conn, inbound, process) = Connection::start(transport);
    // Recorded under a key of its own: the session's agent is not this one.
    let key = format!("authenticate-{}", crate::engine::clock::new_id());
    if let Some(pgid) = process.as_ref().and_then(|p| p.pgid) {
        groups.insert(&key, pgid);
    }
    let mut live = Live { conn, inbound, stashed: VecDeque::new(), process };
    let answer = sign_in_with(&mut live, method, limit).await;
    live.stop(groups, &key).await;
    answer
}

async fn sign_in_with(live: &mut Live, method: &SignInMethod, limit: Duration) -> Result<(), SignInRunError> {
    ask(&live.conn, "initialize", initialize_params(), limit).await.map_err(SignInRunError::Agent)?;
    // No folder is served meanwhile: the agent signs in, nothing else.
    let nothing = fs::Scope::new(&[], &[]);
    let params = json!({ "methodId": method.id });
    let (answer, _) = ask_starting(live, &nothing, "authenticate", params, limit).await;
    answer.map(drop).map_err(|e| SignInRunError::Agent(e.message))
}
