//! [`RemoteError`]: everything the saved-host operations can fail with, each
//! message saying what to do about it.

use std::path::PathBuf;

use crate::connect::ConnectError;
use crate::fingerprint::BadFingerprint;

/// Why a saved-host operation failed.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The platform has no config directory (and `XDG_CONFIG_HOME` is unset).
    #[error("no config directory on this platform: set XDG_CONFIG_HOME")]
    NoConfigDir,
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The host list is not the JSON this crate writes.
    #[error("{path} is not a Hangar host list: {source}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What did not parse.
        source: serde_json::Error,
    },
    /// A name that is empty, too long, or has control characters.
    #[error("host name {0:?}: use 1 to 64 printable characters, no leading or trailing spaces")]
    BadName(String),
    /// `add` or `rename` to a name already in the list.
    #[error("a host named {0:?} is already saved")]
    Exists(String),
    /// No saved host has this name.
    #[error("no saved host named {0:?} (`hangar remote list` shows them)")]
    NotFound(String),
    /// An empty or unusable token.
    #[error("the token is empty or has whitespace or control characters inside")]
    BadToken,
    /// A fingerprint that does not parse.
    #[error(transparent)]
    BadFingerprint(#[from] BadFingerprint),
    /// The fingerprint confirmed for a host is not the one it presents.
    #[error("the host presents SHA-256 {found}, not the {expected} you gave: nothing was saved")]
    FingerprintMismatch {
        /// The one given.
        expected: crate::Fingerprint,
        /// The one the host presented.
        found: crate::Fingerprint,
    },
    /// No OS keyring can be reached.
    #[error(
        "no OS keyring to keep the token in ({detail}). On Linux, install and unlock a Secret Service provider \
         (for example `apt install gnome-keyring` in a desktop session, or KeePassXC with its Secret Service \
         integration); or opt in to a plaintext token file of mode 0600 (`--insecure-token-file`)"
    )]
    NoKeyring {
        /// What the keyring said.
        detail: String,
    },
    /// The keyring failed otherwise.
    #[error("the OS keyring failed: {0}")]
    Keyring(String),
    /// The saved host's token is gone from its store.
    #[error("this host's token is no longer in the keyring (or token file): remove the host and add it again")]
    TokenMissing,
    /// Connecting failed.
    #[error(transparent)]
    Connect(#[from] ConnectError),
}
