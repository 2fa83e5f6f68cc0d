//! The WebSocket JSON-RPC server.
//!
//! Map:
//! - `ws_upgrade.rs` — token, Origin and Host checks on the HTTP upgrade.
//! - `token_throttle.rs` — failed tokens per address: too many → 429.
//! - `device_tokens.rs` — per-device tokens on disk (hashes only):
//!   `hangar token create|list|revoke`.
//! - `device_watch.rs` — the running server's live set of device tokens,
//!   reloaded when the file changes (revocation closes connections).
//! - `json_file.rs`  — the JSON files of `DATA_DIR/devices/`: read, replaced
//!   atomically, changed under a lock file.
//! - `pairing_codes.rs` — one-time pairing codes (hashes only) traded for a
//!   device token: `hangar token create NAME --pair`, `POST /pair`.
//! - `web_route.rs`  — one port, two services: AHP upgrades, or the web
//!   UI's requests handed to a [`web_route::WebService`] (`--web`).
//! - `tls.rs`        — `wss://`: certificate and key from PEM files, or a
//!   self-signed pair kept in the data directory.
//! - `connection.rs` — one connection: TLS handshake, upgrade, read, answer,
//!   write, limits; closed when its device token is revoked.
//! - `frames.rs`     — raw JSON-RPC decoding (string ids!) and encoding;
//!   `frames_fuzz.rs` fuzzes it (tests only).
//! - `methods.rs`    — the method table.
//! - `chat_snapshot.rs` — a chat snapshot wanting more turns than the host
//!   holds live: the older ones read from the store.
//! - `resource_methods.rs` — `resource*`, watches and `completions`, run off
//!   the read loop.
//! - `grant_ask.rs`  — `resourceRequest` under the grant policy; asks a
//!   client when the policy is `ask`.
//! - `hook_test_method.rs` — `x-hangar/testHook`: a hook's command run on
//!   this host with a recorded tool event (a test bench).
//! - `agent_sign_in_method.rs` — `x-hangar/agentSignIn` / `agentSignOut`:
//!   a key kept in the keyring, a login run in a terminal channel, or ACP
//!   `authenticate`, for a method the agent offered.
//! - `agent_sessions_method.rs` — `x-hangar/agentSessions`: an agent's own
//!   earlier sessions (ACP `session/list`), to open with `createSession`.
//! - `agents_methods.rs` — `x-hangar/agents`, `agentInstall`, `agentRemove`,
//!   `agentSave`, `agentDelete`: the Agents page (install with progress,
//!   custom agents), each change published at once.
//! - `session_folder.rs` — the folder a command run for a session starts in.
//! - `rules_methods.rs` — `x-hangar/rules`, `ruleSave`, `ruleDelete`: the
//!   approval rules (`crate::rules`).
//! - `usage_method.rs` — `x-hangar/usage`: tokens and cost per day and
//!   agent, the costliest sessions.
//! - `search_method.rs` — `x-hangar/search`: full-text search over every
//!   session (titles, messages, the agents' markdown, tool titles, edited paths).
//! - `restart_agent_method.rs` — `x-hangar/restartAgent`: a session's agent
//!   stopped, to start afresh (a pending customization change taken).
//! - `mcp_test_method.rs` — `x-hangar/testMcpServer`: a discovered MCP
//!   server started on this host, its tools listed (a Test button).
//! - `terminal_methods.rs` — `createTerminal` / `disposeTerminal`: a
//!   client's own shell in a pseudo-terminal, at the URI it names.

mod agent_sessions_method;
mod agent_sign_in_method;
mod agents_methods;
mod changeset_methods;
mod chat_snapshot;
mod connection;
pub mod device_tokens;
pub mod device_watch;
mod frames;
#[cfg(test)]
mod frames_fuzz;
mod grant_ask;
mod hook_test_method;
pub mod json_file;
mod mcp_test_method;
mod methods;
pub mod pairing_codes;
mod resource_methods;
mod restart_agent_method;
mod rules_methods;
mod search_method;
mod session_folder;
mod terminal_methods;
pub mod tls;
pub mod tls_names;
pub mod token_throttle;
mod usage_method;
pub mod web_route;
pub mod ws_upgrade;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::host::Host;
use device_watch::DeviceRegistry;
use web_route::WebService;
use ws_upgrade::UpgradePolicy;

/// Accept connections on `listener` until `shutdown` resolves: over TLS when
/// `host.config.tls` is set; the host's token or any unrevoked device token
/// of its data directory opens a connection.
pub async fn serve(host: Arc<Host>, listener: TcpListener, shutdown: impl Future<Output = ()>) {
    let tls = host.config.tls.as_ref().map(|tls| tls.server_config.clone());
    serve_with(host, listener, shutdown, ListenOptions { tls, web: None }).await;
}

/// How one listener of a host serves.
#[derive(Default)]
pub struct ListenOptions {
    /// Over TLS with this configuration (usually `host.config.tls`'s; the
    /// desktop's *Open from other devices* listener brings its own).
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
    /// Also serve this on the port: what is not an AHP upgrade goes to it.
    pub web: Option<Arc<dyn WebService>>,
}

/// [`serve`], with `options` saying whether this listener uses TLS and
/// serves the web UI too.
pub async fn serve_with(
    host: Arc<Host>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
    options: ListenOptions,
) {
    let loopback = listener.local_addr().map(|a| a.ip().is_loopback()).unwrap_or(true);
    let tls = options.tls.clone().map(TlsAcceptor::from);
    let policy = Arc::new(UpgradePolicy {
        token: host.config.token.clone(),
        devices: DeviceRegistry::watch(&host.config.data_dir),
        allowed_origins: host.config.allowed_origins.clone(),
        loopback_only_host: loopback,
        throttle: token_throttle::TokenThrottle::default(),
    });
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    let conn = connection::serve(host.clone(), stream, peer.ip(), policy.clone(), tls.clone(), options.web.clone());
                    tokio::spawn(conn);
                }
                Err(e) => tracing::warn!("accept failed: {e}"),
            },
            () = &mut shutdown => break,
        }
    }
}
