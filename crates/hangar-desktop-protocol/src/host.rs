//! Hosts as the sidebar shows them and the host commands: a host's
//! connection in words ([`HostConnection`], never a bare spinner), the
//! "Add host" dialog's two steps (`host.probe`, `host.add`) and the host
//! menu (`host.rename`, `host.remove`, `host.reconnect`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A host's connection, each state with what the person needs to act on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "state", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum HostConnection {
    /// The first connection (since launch, or since "Reconnect" after a
    /// refusal) is being opened.
    Connecting,
    /// Connected; sessions are live.
    Connected,
    /// The connection was lost; trying again with backoff.
    Reconnecting {
        /// How many attempts failed since the connection was lost.
        attempt: u32,
        /// When the next attempt starts (ms since the Unix epoch); absent
        /// while an attempt is under way.
        next_attempt_at: Option<u64>,
        /// Why the last attempt failed, if one did.
        reason: Option<String>,
    },
    /// Never reached since launch; trying again with backoff.
    Unreachable {
        /// How many attempts failed.
        attempt: u32,
        /// When the next attempt starts (ms since the Unix epoch); absent
        /// while an attempt is under way.
        next_attempt_at: Option<u64>,
        /// Why the host could not be reached.
        reason: String,
    },
    /// The host refused the token (401/403, e.g. a revoked device token);
    /// not retried until the person asks.
    TokenRefused {
        /// The HTTP status.
        status: u16,
        /// What the host and the client said.
        reason: String,
    },
    /// The host presented another certificate than the pinned one; not retried.
    CertificateChanged {
        /// The pinned SHA-256 fingerprint.
        expected: String,
        /// The one presented now.
        found: String,
    },
    /// The host speaks no protocol version this app does; not retried.
    ProtocolUnsupported {
        /// What the host said (and the versions it supports).
        reason: String,
    },
    /// The host cannot be tried as saved (no keyring, token missing, bad
    /// URL); not retried until the person asks.
    Failed {
        /// What is wrong and what to do.
        reason: String,
    },
}

/// A saved remote host's details (the embedded host has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RemoteView {
    /// `ws://…` or `wss://…`.
    pub url: String,
    /// The pinned certificate's SHA-256 fingerprint (`wss://` only).
    pub fingerprint: Option<String>,
    /// Whether the token is in a plaintext file rather than the OS keyring.
    pub insecure_token_file: bool,
}

/// `host.probe`: the first step of "Add host".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostProbeArgs {
    /// The host's URL.
    pub url: String,
}

/// What `host.probe` found.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostProbe {
    /// Whether the URL is `wss://` (then `fingerprint` is what to confirm).
    pub secure: bool,
    /// The certificate's SHA-256 fingerprint, to compare with what
    /// `hangar serve` printed on the host before trusting it.
    pub fingerprint: Option<String>,
}

/// `host.add`: save a host (as `hangar remote add` does) and connect to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct HostAddArgs {
    /// A unique name.
    pub name: String,
    /// `ws://…` or `wss://…`, without a token.
    pub url: String,
    /// The host's token or a device token (`hangar token create`).
    pub token: String,
    /// The fingerprint the person confirmed (required for `wss://`).
    pub fingerprint: Option<String>,
    /// Keep the token in a plaintext 0600 file instead of the OS keyring
    /// (explicit opt-in, where no keyring exists).
    pub insecure_token_file: Option<bool>,
}

/// A host, by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostArgs {
    /// Host id.
    pub host: String,
}

/// `host.rename`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostRenameArgs {
    /// Host id.
    pub host: String,
    /// The new name.
    pub name: String,
}

/// A host was saved and added.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostAdded {
    /// Its id (stable; the list's id).
    pub host: String,
}
