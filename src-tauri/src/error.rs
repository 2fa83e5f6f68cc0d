//! Errors of the desktop core, as the UI sees them (a message string).

use ahp::hosts::HostError;

/// Why a core command failed.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// The command name is not in the table.
    #[error("unknown command {0}")]
    UnknownCommand(String),
    /// The arguments did not fit the command.
    #[error("bad arguments for {command}: {message}")]
    BadArgs {
        /// Command.
        command: String,
        /// What was wrong.
        message: String,
    },
    /// The command needs a stream (a channel) and none was given.
    #[error("{0} needs an event stream")]
    NeedsStream(String),
    /// No such host, session or chat.
    #[error("not found: {0}")]
    NotFound(String),
    /// The multi-host client or the host refused.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The session's agent did not start, so it takes no turns.
    #[error("the agent did not start: {0}")]
    AgentNotStarted(String),
    /// The host answered with something unexpected.
    #[error("unexpected answer: {0}")]
    Unexpected(String),
    /// The embedded host could not start.
    #[error("embedded host: {0}")]
    EmbeddedHost(String),
}

impl serde::Serialize for CoreError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}
