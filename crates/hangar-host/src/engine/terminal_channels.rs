//! Terminal channels: a command an agent runs for a session or an agent's
//! login (`<session>/terminals/<id>`), or a client's own terminal
//! (`createTerminal`, at the URI it names); their output as
//! `terminal/data`, their end as `terminal/exited`. `RootState.terminals`
//! lists the running ones; an ended terminal stays subscribable (its
//! retained output) until its session is disposed, or, for a client's
//! terminal, until `disposeTerminal`. A client's `terminal/input` and
//! `terminal/resized` become [`SideEffect`]s the host carries out on the
//! process. Not stored: after a restart a tool call keeps the command's
//! outcome in its result (`ToolResultTerminalContent.result`).

use ahp_types::actions::RootTerminalsChangedAction;
use ahp_types::state::{TerminalClaim, TerminalInfo, TerminalLifecycleState, TerminalState};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};

use super::{Engine, SideEffect};
use crate::RpcError;

/// The largest width or height of a terminal, in cells.
pub const MAX_CELLS: u16 = 1000;

/// A terminal's size in cells: what `createTerminal` and `terminal/resized`
/// may ask for, and what a pseudo-terminal is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

/// A size outside 1..=[`MAX_CELLS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a terminal is 1 to {MAX_CELLS} cells wide and high, not {cols}x{rows}")]
pub struct BadSize {
    /// Columns asked for.
    pub cols: i64,
    /// Rows asked for.
    pub rows: i64,
}

impl Size {
    /// `cols` x `rows` when both are within 1..=[`MAX_CELLS`].
    pub fn new(cols: i64, rows: i64) -> Result<Self, BadSize> {
        let cell = |n: i64| u16::try_from(n).ok().filter(|n| (1..=MAX_CELLS).contains(n));
        match (cell(cols), cell(rows)) {
            (Some(cols), Some(rows)) => Ok(Self { cols, rows }),
            _ => Err(BadSize { cols, rows }),
        }
    }
}

impl Default for Size {
    fn default() -> Self {
        Self { cols: 80, rows: 24 }
    }
}

/// Most output a terminal channel holds; what comes later is not shown
/// (the agent still gets it through `terminal/output`).
pub const MAX_TERMINAL_CONTENT: usize = 1024 * 1024;

/// A terminal channel.
pub(crate) struct TerminalEntry {
    pub state: TerminalState,
    /// The session it ends with (none for a client's terminal with a
    /// client claim).
    pub session: Option<String>,
    /// Made by a client's `createTerminal` (which `disposeTerminal` may end).
    pub by_client: bool,
    /// Bytes of output taken so far.
    pub bytes: usize,
}

/// The channel URI of terminal `id` of `session`.
pub fn terminal_uri(session: &str, id: &str) -> String {
    format!("{session}/terminals/{id}")
}

impl Engine {
    /// Open terminal channel `uri` of `session` with `state`, listed on the
    /// root while it runs. `false` when the session is gone or the URI is taken.
    pub fn open_terminal(&mut self, uri: &str, session: &str, state: TerminalState) -> bool {
        if !self.sessions.contains_key(session) || self.channel(uri).is_some() {
            return false;
        }
        let entry = TerminalEntry { state, session: Some(session.to_owned()), by_client: false, bytes: 0 };
        self.terminals.insert(uri.to_owned(), entry);
        self.announce_terminals();
        true
    }

    /// Open a client's terminal channel `uri` (`createTerminal`) with
    /// `state`; a session claim ties it to that session (and its chat).
    /// `-32010` when the URI names a channel already, `-32001` for a
    /// claim's unknown session, `-32602` for a chat not of that session.
    pub fn create_terminal(&mut self, uri: &str, state: TerminalState) -> Result<(), RpcError> {
        self.refuse_while_unsaved().map_err(RpcError::internal)?;
        if self.channel(uri).is_some() {
            return Err(RpcError::already_exists(format!("{uri} is already a channel")));
        }
        let session = match &state.claim {
            TerminalClaim::Session(claim) => {
                let Some(session) = self.sessions.get(&claim.session) else {
                    return Err(RpcError::session_not_found(&claim.session));
                };
                if !session.state.chats.iter().any(|c| c.resource == claim.chat) {
                    return Err(RpcError::invalid_params("claim.chat", "not a chat of the claim's session"));
                }
                Some(claim.session.clone())
            }
            _ => None,
        };
        self.terminals.insert(uri.to_owned(), TerminalEntry { state, session, by_client: true, bytes: 0 });
        self.announce_terminals();
        Ok(())
    }

    /// `disposeTerminal` by `client`: the channel is removed (the host ends
    /// its process). A terminal with a client claim is ended only by that
    /// client (its shell, its login); one with a session claim only when a
    /// client created it, never an agent's command. `-32008` for no such
    /// terminal, `-32009` for one that is not the client's to end.
    pub fn dispose_terminal(&mut self, client: &str, uri: &str) -> Result<(), RpcError> {
        let Some(entry) = self.terminals.get(uri) else {
            return Err(RpcError::not_found(format!("no such terminal: {uri}")));
        };
        match &entry.state.claim {
            TerminalClaim::Client(c) if c.client_id != client => {
                return Err(RpcError::permission_denied("another client holds this terminal's claim", None));
            }
            TerminalClaim::Session(_) if !entry.by_client => {
                return Err(RpcError::permission_denied("this terminal runs an agent's command", None));
            }
            _ => {}
        }
        self.terminals.remove(uri);
        self.announce_terminals();
        Ok(())
    }

    /// Whether `action` on terminal `uri` may come from `client`: only the
    /// client holding a client claim acts on a terminal (an agent's
    /// commands are read-only), and input and resizes need it running.
    pub(super) fn check_terminal_action(&self, client: &str, uri: &str, action: &StateAction) -> Result<(), String> {
        let Some(state) = self.terminal_state(uri) else { return Ok(()) };
        match &state.claim {
            TerminalClaim::Session(_) => {
                return Err("this terminal is claimed by a session: it is read-only".to_owned())
            }
            TerminalClaim::Client(c) if c.client_id != client => {
                return Err("only the client that holds this terminal's claim may act on it".to_owned())
            }
            _ => {}
        }
        let running = matches!(state.lifecycle, TerminalLifecycleState::Running(_));
        match action {
            StateAction::TerminalInput(_) | StateAction::TerminalResized(_) if !running => {
                Err("the terminal has exited".to_owned())
            }
            StateAction::TerminalInput(_) | StateAction::TerminalResized(_) if state.is_pty != Some(true) => {
                Err("this terminal has no pseudo-terminal: it takes no input".to_owned())
            }
            StateAction::TerminalResized(a) => Size::new(a.cols, a.rows).map(drop).map_err(|e| e.to_string()),
            StateAction::TerminalClaimed(a) if matches!(a.claim, TerminalClaim::Session(_)) => {
                Err("a client may hand its terminal only to a client".to_owned())
            }
            _ => Ok(()),
        }
    }

    /// A terminal's state.
    pub fn terminal_state(&self, uri: &str) -> Option<&TerminalState> {
        self.terminals.get(uri).map(|t| &t.state)
    }

    /// Whether `action` on terminal `uri` is past [`MAX_TERMINAL_CONTENT`]
    /// (counted as it is let through).
    pub(super) fn terminal_full(&mut self, uri: &str, action: &StateAction) -> bool {
        let (Some(entry), StateAction::TerminalData(data)) = (self.terminals.get_mut(uri), action) else {
            return false;
        };
        if entry.bytes >= MAX_TERMINAL_CONTENT {
            return true;
        }
        entry.bytes += data.data.len();
        false
    }

    /// After an applied action on terminal `uri`: an exit, a title or a
    /// claim updates the root list; a client's input and resize go to the
    /// process.
    pub(super) fn after_terminal_action(&mut self, uri: &str, action: &StateAction, client: Option<&str>) {
        match action {
            StateAction::TerminalExited(_) | StateAction::TerminalClaimed(_) | StateAction::TerminalTitleChanged(_) => {
                self.announce_terminals();
            }
            StateAction::TerminalInput(a) if client.is_some() => {
                self.effects.push(SideEffect::TerminalInput { terminal: uri.to_owned(), data: a.data.clone() });
            }
            StateAction::TerminalResized(a) if client.is_some() => {
                if let Ok(size) = Size::new(a.cols, a.rows) {
                    self.effects.push(SideEffect::TerminalResized { terminal: uri.to_owned(), size });
                }
            }
            _ => {}
        }
    }

    /// Drop every terminal channel of `session` (disposed).
    pub(super) fn remove_terminals(&mut self, session: &str) {
        let before = self.terminals.len();
        self.terminals.retain(|_, t| t.session.as_deref() != Some(session));
        if self.terminals.len() != before {
            self.announce_terminals();
        }
    }

    /// `root/terminalsChanged` with the running terminals, when they differ
    /// from the list shown.
    fn announce_terminals(&mut self) {
        let mut running: Vec<TerminalInfo> = self
            .terminals
            .iter()
            .filter(|(_, t)| matches!(t.state.lifecycle, TerminalLifecycleState::Running(_)))
            .map(|(uri, t)| TerminalInfo {
                resource: uri.clone(),
                title: t.state.title.clone(),
                claim: t.state.claim.clone(),
                lifecycle: t.state.lifecycle.clone(),
            })
            .collect();
        running.sort_by(|a, b| a.resource.cmp(&b.resource));
        if self.root.terminals.as_deref().unwrap_or_default() == running.as_slice() {
            return;
        }
        let action = StateAction::RootTerminalsChanged(RootTerminalsChangedAction { terminals: running });
        let _ = self.emit_server(ROOT_RESOURCE_URI, action);
    }
}
