//! [`TerminalChannel`]: a program's output and exit, told to its AHP
//! terminal channel as `terminal/data` and `terminal/exited` (a login, a
//! client's shell).

use std::sync::Arc;

use ahp_types::actions::{TerminalDataAction, TerminalExitedAction};
use ahp_types::StateAction;

use super::agent_host::AgentHost;
use crate::terminals::{Exit, TerminalEvents};

/// Tells terminal channel `uri` what its program does.
pub struct TerminalChannel {
    host: Arc<dyn AgentHost>,
    uri: String,
}

impl TerminalChannel {
    /// For channel `uri` of `host`.
    pub fn new(host: Arc<dyn AgentHost>, uri: &str) -> Self {
        Self { host, uri: uri.to_owned() }
    }
}

impl TerminalEvents for TerminalChannel {
    fn output(&self, text: &str) {
        self.host.emit(&self.uri, StateAction::TerminalData(TerminalDataAction { data: text.to_owned() }));
    }

    fn exited(&self, exit: &Exit) {
        let exit_code = exit.code.map(i64::from);
        self.host.emit(&self.uri, StateAction::TerminalExited(TerminalExitedAction { exit_code }));
    }
}
