//! # hangar-e2e — support for the end-to-end suites
//!
//! Map:
//! - [`TestHost`] (`host.rs`) — a host on a real socket in a temporary (or
//!   given) data directory, started as [`Launch`] says: the real `hangar
//!   serve` binary (`process.rs`: ready line, stdout, stderr, signals,
//!   `kill -9`, restart) or the same `hangar_cli::serve` code inside the test
//!   process (`in_process.rs`).
//! - [`RawClient`]   — a bare `tokio-tungstenite` connection for malformed
//!   input and handshake checks.
//! - [`connect`] / [`initialized`] — the official `ahp::Client` over
//!   `ahp_ws::WebSocketTransport`, the way any AHP client talks to Hangar.
//! - [`actions`]     — builders for the actions tests dispatch.
//! - [`acp`]         — a host with one agent and a session on a temporary
//!   workspace ([`acp::Rig`]), turns and chat state.
//! - [`interop`]     — real agents from npm (`tests/interop`): the mock
//!   model server as a child process, whether the agents are installed.
//! - [`wait_for_action`] — await a matching envelope on a subscription.
//! - [`files_containing`] — the files under a folder holding some bytes.
//! - [`soak`]        — many clients, sessions with streaming agents, random
//!   drops and reconnects, checked with the official reducers.
//! - [`wire_fuzz`]   — mutated frames over many connections to a running
//!   host, a bystander timing pings.
//! - [`SecretService`] (`secret_service.rs`) — a private D-Bus session with
//!   an unlocked gnome-keyring, for keyring tests against the real thing.
//!
//! The suites (one test binary: `tests/all.rs`, a module per suite under
//! `tests/suite/`) use these; the binary comes from the same target
//! directory (build it first: `cargo build -p hangar-cli`), or `HANGAR_BIN`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test support: a helper that cannot go on fails the test that called it"
)]

use std::time::Duration;

use ahp::{Client, ClientConfig, SessionSubscription, SubscriptionEvent};
use ahp_types::commands::InitializeResult;
use ahp_types::{ActionEnvelope, ROOT_RESOURCE_URI};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub mod acp;
pub mod actions;
pub mod changesets;
pub mod git_repos;
mod host;
mod in_process;
pub mod interop;
mod process;
mod secret_service;
pub mod soak;
pub mod wire_fuzz;

pub use host::{Launch, TestHost};
pub use process::{desktop_bridge_bin, hangar_bin, ExitedHost};
pub use secret_service::SecretService;

/// How long any single wait in a test may take before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// A process's resident memory (`VmRSS`), in KiB; 0 if it cannot be read.
pub fn rss_kib(pid: u32) -> u64 {
    status_kib(pid, "VmRSS:")
}

/// A `/proc/PID/status` field given in kB (`"RssAnon:"`, …), in KiB; 0 if
/// it cannot be read.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

/// The least-squares slope of `(x, y)` points (0 for fewer than two, or
/// when every x is the same): how memory grows per second or per turn.
pub fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if points.len() < 2 {
        return 0.0;
    }
    let (mean_x, mean_y) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let cov: f64 = points.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let var: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    if var == 0.0 {
        0.0
    } else {
        cov / var
    }
}

/// Connect the official client (not yet initialized).
pub async fn connect(host: &TestHost) -> Client {
    let transport = ahp_ws::WebSocketTransport::connect(&host.authed_url()).await.unwrap();
    Client::connect(transport, ClientConfig::default()).await.unwrap()
}

/// Connect and `initialize` as `client_id`, subscribed to the root channel.
pub async fn initialized(host: &TestHost, client_id: &str) -> (Client, InitializeResult) {
    let client = connect(host).await;
    let init =
        client.initialize(client_id.to_owned(), vec!["1.0.0".into()], vec![ROOT_RESOURCE_URI.into()]).await.unwrap();
    (client, init)
}

/// Wait for an action envelope matching `pred` on `sub`.
pub async fn wait_for_action(sub: &mut SessionSubscription, pred: impl Fn(&ActionEnvelope) -> bool) -> ActionEnvelope {
    tokio::time::timeout(WAIT, async {
        loop {
            match sub.recv().await {
                Some(SubscriptionEvent::Action(env)) if pred(&env) => return env,
                Some(_) => {}
                None => panic!("subscription {} closed", sub.uri()),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("timed out waiting for an action on {}", sub.uri()))
}

/// Every file under `dir` whose bytes contain `needle` (a token that must
/// not be on disk in plain text, say).
pub fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            found.extend(files_containing(&path, needle));
        } else if let Ok(bytes) = std::fs::read(&path) {
            if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

/// The wire `type` of an envelope's action.
pub fn action_type(env: &ActionEnvelope) -> String {
    serde_json::to_value(&env.action).unwrap()["type"].as_str().unwrap_or_default().to_owned()
}

/// A bare WebSocket client.
pub struct RawClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl RawClient {
    /// Connect to `url` (include `?tkn=`).
    pub async fn connect(url: &str) -> Result<Self, tokio_tungstenite::tungstenite::Error> {
        let (ws, _) = tokio_tungstenite::connect_async(url).await?;
        Ok(Self { ws })
    }

    /// Connect and initialize as `client_id`.
    pub async fn initialized(host: &TestHost, client_id: &str) -> Self {
        let mut raw = Self::connect(&host.authed_url()).await.unwrap();
        let reply = raw
            .request(
                json!(1),
                "initialize",
                json!({"channel": ROOT_RESOURCE_URI, "protocolVersions": ["1.0.0"], "clientId": client_id}),
            )
            .await;
        assert!(reply.get("result").is_some(), "{reply}");
        raw
    }

    /// Send a text frame.
    pub async fn send_text(&mut self, text: impl Into<String>) {
        self.try_send_text(text).await.unwrap();
    }

    /// Send a text frame; the host may close the connection meanwhile.
    pub async fn try_send_text(
        &mut self,
        text: impl Into<String>,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.ws.send(Message::text(text.into())).await
    }

    /// Send a request and wait for the response with the same id.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_text(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()).await;
        self.response_to(&id).await
    }

    /// Wait for the response whose id is `id`, skipping notifications.
    pub async fn response_to(&mut self, id: &Value) -> Value {
        loop {
            let msg = self.next_json().await.unwrap_or_else(|| panic!("connection closed before the response to {id}"));
            if msg.get("id") == Some(id) && msg.get("method").is_none() {
                return msg;
            }
        }
    }

    /// The next JSON message, or `None` when the connection closes.
    pub async fn next_json(&mut self) -> Option<Value> {
        tokio::time::timeout(WAIT, async {
            loop {
                match self.ws.next().await {
                    Some(Ok(Message::Text(t))) => return Some(serde_json::from_str(&t).unwrap()),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
                    Some(Ok(_)) => {}
                }
            }
        })
        .await
        .expect("timed out waiting for a message")
    }

    /// The next message within `wait`, `None` if nothing came.
    pub async fn next_json_within(&mut self, wait: Duration) -> Option<Value> {
        match tokio::time::timeout(wait, self.ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => Some(serde_json::from_str(&t).unwrap()),
            _ => None,
        }
    }

    /// Wait until the host closes the connection.
    pub async fn expect_closed(&mut self) {
        tokio::time::timeout(WAIT, async {
            loop {
                match self.ws.next().await {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => {}
                }
            }
        })
        .await
        .expect("the host did not close the connection");
    }
}
