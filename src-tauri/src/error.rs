//! Errors of the desktop core, as the UI sees them (a message string).

use ahp::hosts::HostError;
use hangar_remote::RemoteError;

use hangar_desktop_protocol::command::WireError;

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
    /// The host refused, or cannot be asked: the reason, as it is.
    #[error("{0}")]
    Refused(String),
    /// The host answered with something unexpected.
    #[error("unexpected answer: {0}")]
    Unexpected(String),
    /// A saved-host operation failed (`hangar_remote`).
    #[error("{}", remote_message(.0))]
    Remote(#[from] RemoteError),
    /// The settings could not be written.
    #[error(transparent)]
    Settings(#[from] crate::settings_file::SaveError),
    /// The line comments could not be kept on disk.
    #[error(transparent)]
    Review(#[from] crate::review_store::ReviewStoreError),
    /// The embedded host could not start.
    #[error("embedded host: {0}")]
    EmbeddedHost(String),
}

/// `hangar_remote`'s message, but a missing keyring names the dialog's
/// opt-in rather than the command line's flag.
fn remote_message(error: &RemoteError) -> String {
    match error {
        RemoteError::NoKeyring { detail } => format!(
            "no OS keyring to keep the token in ({detail}). On Linux, install and unlock a Secret Service provider \
             (for example `apt install gnome-keyring` in a desktop session, or KeePassXC with its Secret Service \
             integration), or tick \"Keep the token in a plaintext file\" (mode 0600, readable only by you)"
        ),
        other => other.to_string(),
    }
}

/// A command that did not parse is the core's [`CoreError::UnknownCommand`]
/// or [`CoreError::BadArgs`], with the same message.
impl From<WireError> for CoreError {
    fn from(error: WireError) -> Self {
        match error {
            WireError::UnknownCommand(name) => Self::UnknownCommand(name),
            WireError::BadArgs { command, message } => Self::BadArgs { command, message },
        }
    }
}

impl CoreError {
    /// The JSON-RPC error code the host answered with, when that is the failure.
    pub fn rpc_code(&self) -> Option<i32> {
        match self {
            Self::Host(HostError::Client(ahp::ClientError::Rpc(e))) => Some(e.code),
            _ => None,
        }
    }
}

impl serde::Serialize for CoreError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}
