//! A terminal a tool call ran its command in, or an agent's login, as the
//! UI follows it (`terminal.read`, asked again while the command runs) and
//! types in it (`terminal.input`, a login this app's client claims).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `terminal.read`: a terminal's output from byte `from` on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalArgs {
    /// Host id.
    pub host: String,
    /// The terminal channel's URI.
    pub uri: String,
    /// Bytes of output already shown: only what follows is sent.
    pub from: usize,
}

/// A terminal's output after `from`, and whether its command still runs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalRead {
    /// The command line.
    pub title: String,
    /// Output after the requested byte (from a character boundary).
    pub text: String,
    /// Bytes of output in all: the next read's `from`.
    pub length: usize,
    /// Whether the command has ended.
    pub ended: bool,
    /// Its exit code, once ended (none when a signal ended it).
    pub exit_code: Option<i64>,
    /// Whether this app may type in it: a running pseudo-terminal this
    /// app's client holds the claim of (a login it started).
    pub input: bool,
}

/// `terminal.input`: keystrokes for a terminal this app's client claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalInputArgs {
    /// Host id.
    pub host: String,
    /// The terminal channel's URI.
    pub uri: String,
    /// What was typed, as a terminal sends it (Enter is `\r`).
    pub data: String,
}
