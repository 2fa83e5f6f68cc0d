//! Terminal channels (`<session>/terminals/<id>`): a command an agent runs
//! for a session, its output as `terminal/data`, its end as
//! `terminal/exited`. `RootState.terminals` lists the running ones; an
//! ended terminal stays subscribable (its retained output) until its
//! session is disposed. Not stored: after a restart a tool call keeps the
//! command's outcome in its result (`ToolResultTerminalContent.result`).

use ahp_types::actions::RootTerminalsChangedAction;
use ahp_types::state::{TerminalInfo, TerminalLifecycleState, TerminalState};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};

use super::Engine;

/// Most output a terminal channel holds; what comes later is not shown
/// (the agent still gets it through `terminal/output`).
pub const MAX_TERMINAL_CONTENT: usize = 1024 * 1024;

/// A terminal channel.
pub(crate) struct TerminalEntry {
    pub state: TerminalState,
    pub session: String,
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
        self.terminals.insert(uri.to_owned(), TerminalEntry { state, session: session.to_owned(), bytes: 0 });
        self.announce_terminals();
        true
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

    /// After an applied action on terminal `uri`: an exit updates the root list.
    pub(super) fn after_terminal_action(&mut self, action: &StateAction) {
        if matches!(action, StateAction::TerminalExited(_)) {
            self.announce_terminals();
        }
    }

    /// Drop every terminal channel of `session` (disposed).
    pub(super) fn remove_terminals(&mut self, session: &str) {
        let before = self.terminals.len();
        self.terminals.retain(|_, t| t.session != session);
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
