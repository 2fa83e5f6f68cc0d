//! `createTerminal` / `disposeTerminal`: a client's own terminal, the
//! user's shell (`$SHELL`, else `/bin/sh`) in a pseudo-terminal on this
//! host, at the channel URI the client names.
//!
//! - `cwd` must pass the working-directory check `createSession`'s folders
//!   pass (`-32009` with the grant to ask for otherwise); without one, the
//!   claim's session's first folder, else the home folder.
//! - `claim`: a client claim must name the calling client (`-32602`); the
//!   client holding it types (`terminal/input`) and resizes. A session
//!   claim ties the terminal to that session: read-only for clients, ended
//!   when the session is disposed.
//! - A client-claimed terminal is kept until `disposeTerminal` (or the host
//!   stops), whether or not its client is connected: VS Code's agent host
//!   does the same (its terminal manager keeps a terminal until
//!   `disposeTerminal`; the claim only says who acts on it). It is not
//!   stored: a restarted host has none.
//! - `disposeTerminal` ends the program and every job it started and removes
//!   the channel; a client may dispose its own terminals and its logins,
//!   never an agent's command (`-32009`); unknown → `-32008`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ahp_types::commands::{CreateTerminalParams, DisposeTerminalParams};
use ahp_types::state::{TerminalClaim, TerminalLifecycleState, TerminalRunningLifecycleState, TerminalState};
use serde_json::Value;

use super::session_folder::session_folder;
use crate::agents::acp::TerminalChannel;
use crate::host::Host;
use crate::resources::uri::{file_uri_to_path, path_to_file_uri};
use crate::terminals::{Launch, PtyProcess, Size};
use crate::RpcError;

/// Output a shell's process keeps besides its channel (unused for reading
/// back, but bounded).
const OUTPUT_KEPT: usize = 64 * 1024;
/// The longest terminal URI accepted.
const MAX_URI: usize = 2048;

/// `createTerminal` from `client`.
pub fn create_terminal(host: &Arc<Host>, client: &str, p: CreateTerminalParams) -> Result<Value, RpcError> {
    check_uri(&p.channel)?;
    let session = match &p.claim {
        TerminalClaim::Client(c) if c.client_id != client => {
            return Err(RpcError::invalid_params("claim", "a client claim must name the calling client"));
        }
        TerminalClaim::Session(s) => Some(s.session.clone()),
        _ => None,
    };
    let size = Size::new(p.cols.unwrap_or(80), p.rows.unwrap_or(24))
        .map_err(|e| RpcError::invalid_params("cols", e.to_string()))?;
    let cwd = working_dir(host, p.cwd.as_deref(), session.as_deref())?;
    let shell = user_shell();
    let title = p.name.clone().unwrap_or_else(|| {
        Path::new(&shell).file_name().map_or_else(|| shell.clone(), |n| n.to_string_lossy().into_owned())
    });
    let state = TerminalState {
        title,
        cwd: Some(path_to_file_uri(&cwd)),
        cols: Some(i64::from(size.cols)),
        rows: Some(i64::from(size.rows)),
        content: Vec::new(),
        lifecycle: TerminalLifecycleState::Running(TerminalRunningLifecycleState {}),
        claim: p.claim,
        supports_command_detection: None,
        is_pty: Some(true),
    };
    let agent_host = host.as_agent_host().ok_or_else(|| RpcError::internal("the host is stopping"))?;
    host.with_engine(|e| e.create_terminal(&p.channel, state))?;
    let launch = Launch { program: shell, args: Vec::new(), env: Vec::new(), cwd };
    let events = Arc::new(TerminalChannel::new(agent_host, &p.channel));
    match PtyProcess::spawn(&launch, size, OUTPUT_KEPT, events) {
        Ok(process) => {
            host.terminals.insert(&p.channel, session.as_deref(), Arc::new(process));
            Ok(Value::Null)
        }
        Err(e) => {
            let _ = host.with_engine(|engine| engine.dispose_terminal(client, &p.channel));
            Err(RpcError::internal(e.to_string()))
        }
    }
}

/// `disposeTerminal` from `client`.
pub fn dispose_terminal(host: &Arc<Host>, client: &str, p: &DisposeTerminalParams) -> Result<Value, RpcError> {
    host.with_engine(|e| e.dispose_terminal(client, &p.channel))?;
    host.terminals.end(&p.channel);
    Ok(Value::Null)
}

/// A channel URI a terminal may take: `scheme:rest`, not the root, a chat
/// or a file, printable, bounded.
fn check_uri(uri: &str) -> Result<(), RpcError> {
    let valid = uri.len() <= MAX_URI
        && !uri.chars().any(|c| c.is_whitespace() || c.is_control())
        && uri.split_once(':').is_some_and(|(scheme, rest)| {
            !rest.is_empty()
                && !matches!(scheme, "ahp-root" | "ahp-chat" | "file")
                && scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
    if valid {
        Ok(())
    } else {
        Err(RpcError::invalid_params("channel", "must be a terminal URI such as ahp-terminal:/<id>"))
    }
}

/// The folder the shell starts in, checked like a session's working
/// directory.
fn working_dir(host: &Arc<Host>, cwd: Option<&str>, session: Option<&str>) -> Result<PathBuf, RpcError> {
    let dir = match (cwd, session) {
        (Some(uri), _) => file_uri_to_path(uri)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| RpcError::invalid_params("cwd", format!("not an existing folder: {uri}")))?,
        (None, Some(session)) => session_folder(host, session)?,
        (None, None) => std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute())
            .ok_or_else(|| RpcError::invalid_params("cwd", "this host has no home folder: name one"))?,
    };
    host.resources.check_working_dir(&dir)?;
    std::fs::canonicalize(&dir).map_err(|e| RpcError::invalid_params("cwd", format!("{}: {e}", dir.display())))
}

/// The user's shell: `$SHELL` when it is an absolute path to a file, else
/// `/bin/sh`.
fn user_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| Path::new(s).is_absolute() && Path::new(s).is_file())
        .unwrap_or_else(|| "/bin/sh".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_uris_are_checked() {
        for ok in ["ahp-terminal:/t1", "ahp-session:/s/terminals/mine", "x-term:abc"] {
            assert!(check_uri(ok).is_ok(), "{ok}");
        }
        for bad in ["", "t1", "ahp-root://", "ahp-chat:/c", "file:///tmp", "ahp-terminal:", "a b:/x", "1x:/y"] {
            assert!(check_uri(bad).is_err(), "{bad}");
        }
        assert!(check_uri(&format!("ahp-terminal:/{}", "x".repeat(MAX_URI))).is_err());
    }
}
