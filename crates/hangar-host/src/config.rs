//! How a host is set up: address, TLS, data directory, token, agents, origins,
//! limits, file access (browse roots, grant policy, protected folders).
//! Built by the CLI (or the desktop app) and handed to
//! [`crate::host::Host::open`]. Its file-access defaults come from
//! [`crate::resources`] (home, credential folders, grant policy); nothing
//! there depends on this module.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::ServerConfig;

use crate::agents::AgentSpec;
use crate::resources::{credential_dirs, home_dir, RequestPolicy};

/// Origins of the desktop app's own webview, always allowed.
pub const DESKTOP_ORIGINS: &[&str] = &["tauri://localhost", "http://tauri.localhost", "https://tauri.localhost"];

/// Host configuration.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Where to listen. Loopback unless the user says otherwise.
    pub listen: SocketAddr,
    /// TLS for the listener (`wss://`; see [`crate::server::tls`]); `None` serves `ws://`.
    pub tls: Option<TlsIdentity>,
    /// Data directory (database, token, lock, device tokens).
    pub data_dir: PathBuf,
    /// The host's token; clients present it or a device token
    /// ([`crate::server::device_tokens`]).
    pub token: String,
    /// Agents given explicitly (`--agent`); they come first.
    pub agents: Vec<AgentSpec>,
    /// Where to find the well-known agents (Hangar's own install folder is
    /// always searched first); `None` turns discovery off.
    pub discovery: Option<crate::agents::registry::Discovery>,
    /// Extra allowed `Origin` values besides [`DESKTOP_ORIGINS`].
    pub allowed_origins: Vec<String>,
    /// How long a disconnected client stays active before the host removes it.
    pub active_client_grace: Duration,
    /// Envelopes kept for `reconnect`.
    pub replay_capacity: usize,
    /// Largest accepted WebSocket message.
    pub max_message_bytes: usize,
    /// Deepest accepted JSON nesting.
    pub max_json_depth: usize,
    /// Frames queued for one connection before it is cut off as too slow.
    pub outbox_frames: usize,
    /// Completed turns a chat keeps in memory (older ones are paged in).
    pub turn_tail: usize,
    /// Where `resourceList` is allowed for folder pickers, and where a
    /// client may put a session's working directory (default: home).
    pub browse_roots: Vec<PathBuf>,
    /// How a `resourceRequest` is decided (default: grant under home).
    pub request_policy: RequestPolicy,
    /// Folders never served, whatever is granted (default: [`credential_dirs`] of home).
    pub protected_paths: Vec<PathBuf>,
    /// How long [`RequestPolicy::Ask`] waits for a client's answer before denying.
    pub grant_ask_timeout: Duration,
    /// Resource watches one connection may hold at once.
    pub max_watches_per_connection: usize,
    /// The home whose user-level customizations (`~/.claude`, `~/.codex`,
    /// …) sessions see; `None` for none.
    pub customization_home: Option<PathBuf>,
    /// Where forks get their working copies (default: `hangar-worktrees`
    /// beside the data directory).
    pub worktrees_dir: PathBuf,
    /// How often a session's open pull request is read again with `gh`
    /// while a client watches the session (default: 60 s).
    pub pull_request_refresh: Duration,
}

impl HostConfig {
    /// Defaults for everything but the data directory and token.
    pub fn new(data_dir: PathBuf, token: String) -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8765)),
            tls: None,
            token,
            agents: Vec::new(),
            discovery: None,
            allowed_origins: Vec::new(),
            active_client_grace: Duration::from_secs(30),
            replay_capacity: 4096,
            max_message_bytes: 16 * 1024 * 1024,
            max_json_depth: 64,
            outbox_frames: 65_536,
            turn_tail: 50,
            browse_roots: home_dir().into_iter().collect(),
            request_policy: RequestPolicy::default_for_home(),
            protected_paths: home_dir().map(|h| credential_dirs(&h)).unwrap_or_default(),
            grant_ask_timeout: Duration::from_secs(120),
            max_watches_per_connection: 256,
            customization_home: home_dir(),
            worktrees_dir: data_dir.parent().unwrap_or(&data_dir).join("hangar-worktrees"),
            pull_request_refresh: Duration::from_secs(60),
            data_dir,
        }
    }
}

/// A ready TLS setup (made by [`crate::server::tls`]).
#[derive(Debug, Clone)]
pub struct TlsIdentity {
    /// What the listener hands to each handshake.
    pub server_config: Arc<ServerConfig>,
    /// The certificate clients see first (its SHA-256 is the fingerprint they pin).
    pub certificate: CertificateDer<'static>,
}
