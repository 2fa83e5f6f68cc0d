//! # hangar-e2e — support for the end-to-end suites
//!
//! Map:
//! - [`HostProcess`] — the real `hangar serve` binary on a real socket, in a
//!   temporary (or given) data directory; `kill -9`, SIGTERM, restart.
//! - [`RawClient`]   — a bare `tokio-tungstenite` connection for malformed
//!   input and handshake checks.
//! - [`connect`] / [`initialized`] — the official `ahp::Client` over
//!   `ahp_ws::WebSocketTransport`, the way any AHP client talks to Hangar.
//! - [`actions`]     — builders for the actions tests dispatch.
//! - [`wait_for_action`] — await a matching envelope on a subscription.
//!
//! Tests in `tests/` use these; the binary comes from the same target
//! directory (build it first: `cargo build -p hangar-cli`), or `HANGAR_BIN`.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
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

/// How long any single wait in a test may take before it fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// The `hangar` binary under test.
pub fn hangar_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("HANGAR_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().unwrap();
    // Tests run from target/<profile>/deps/, bench binaries from target/<profile>/.
    let dir = exe.parent().unwrap();
    let candidates = [dir.join("hangar"), dir.parent().unwrap().join("hangar")];
    let found = candidates.iter().find(|p| p.exists());
    found.cloned().unwrap_or_else(|| {
        panic!("{} is missing: run `cargo build -p hangar-cli` first (or set HANGAR_BIN)", candidates[1].display())
    })
}

/// A running `hangar serve`.
pub struct HostProcess {
    child: Option<Child>,
    /// `ws://127.0.0.1:PORT/` from the ready line.
    pub url: String,
    /// The data directory.
    pub data_dir: PathBuf,
    /// The token from `DATA_DIR/token`.
    pub token: String,
    /// The ready line exactly as printed.
    pub ready_line: String,
    /// Collects whatever follows the ready line on stdout (the contract: nothing).
    stdout_rest: Option<std::thread::JoinHandle<Vec<String>>>,
    /// Everything written to stderr so far.
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
    _tmp: Option<tempfile::TempDir>,
}

/// What a host left behind once it exited.
pub struct ExitedHost {
    /// Its exit status.
    pub status: ExitStatus,
    /// Lines it printed to stdout after the ready line.
    pub extra_stdout: Vec<String>,
    /// Everything it printed to stderr.
    pub stderr: String,
}

impl HostProcess {
    /// Start in a fresh temporary data directory with `extra` arguments.
    pub fn start(extra: &[&str]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let mut host = Self::start_in(tmp.path(), extra);
        host._tmp = Some(tmp);
        host
    }

    /// Start on `data_dir` (kept after the host stops).
    pub fn start_in(data_dir: &Path, extra: &[&str]) -> Self {
        Self::try_start_in(data_dir, extra, &[]).unwrap_or_else(|e| panic!("hangar serve did not start: {e}"))
    }

    /// Start with extra environment variables; `Err` carries stderr if it
    /// exits before printing the ready line.
    pub fn try_start_in(data_dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Result<Self, String> {
        let mut cmd = Command::new(hangar_bin());
        cmd.arg("serve").arg("--listen").arg("127.0.0.1:0").arg("--data-dir").arg(data_dir).args(extra);
        // Tests register their agents explicitly, unless they test discovery
        // (with an `--npm-prefix` of their own).
        if !extra.contains(&"--npm-prefix") {
            cmd.arg("--no-discover");
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        #[allow(clippy::zombie_processes)] // waited for in kill9/sigterm/drop
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout_rest = std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Anything more on stdout breaks the contract; keep it for the tests.
            reader.lines().map_while(Result::ok).collect()
        });
        let stderr = child.stderr.take().unwrap();
        let stderr_text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let all = stderr_text.clone();
        let stderr_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if std::env::var_os("HANGAR_TEST_LOG").is_some() {
                    eprintln!("[host] {line}");
                }
                let mut all = all.lock().unwrap();
                all.push_str(&line);
                all.push('\n');
            }
        });
        let line = rx.recv_timeout(Duration::from_secs(60)).map_err(|_| "no ready line within 60 s".to_owned())?;
        if line.trim().is_empty() {
            let _ = child.wait();
            let _ = stderr_reader.join();
            let stderr = stderr_text.lock().unwrap().clone();
            return Err(stderr);
        }
        let ready: Value = serde_json::from_str(line.trim()).map_err(|e| format!("bad ready line {line:?}: {e}"))?;
        let url = ready["url"].as_str().unwrap().to_owned();
        let token = std::fs::read_to_string(data_dir.join("token")).unwrap().trim().to_owned();
        Ok(Self {
            child: Some(child),
            url,
            data_dir: data_dir.to_owned(),
            token,
            ready_line: line.trim_end().to_owned(),
            stdout_rest: Some(stdout_rest),
            stderr: stderr_text,
            stderr_reader: Some(stderr_reader),
            _tmp: None,
        })
    }

    /// The URL with the token.
    pub fn authed_url(&self) -> String {
        format!("{}?tkn={}", self.url, self.token)
    }

    /// Process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// `kill -9`: no chance to flush anything.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// SIGTERM, then wait for the exit status.
    pub fn sigterm(&mut self) -> ExitStatus {
        self.stop_with("TERM").status
    }

    /// Send `signal` (`TERM`, `INT`), wait for the exit, and collect what the
    /// host printed.
    pub fn stop_with(&mut self, signal: &str) -> ExitedHost {
        let mut child = self.child.take().unwrap();
        let sent = Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status().unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        let extra_stdout = self.stdout_rest.take().map(|t| t.join().unwrap()).unwrap_or_default();
        if let Some(reader) = self.stderr_reader.take() {
            reader.join().unwrap();
        }
        ExitedHost { status, extra_stdout, stderr: self.stderr.lock().unwrap().clone() }
    }
}

impl Drop for HostProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Connect the official client (not yet initialized).
pub async fn connect(host: &HostProcess) -> Client {
    let transport = ahp_ws::WebSocketTransport::connect(&host.authed_url()).await.unwrap();
    Client::connect(transport, ClientConfig::default()).await.unwrap()
}

/// Connect and `initialize` as `client_id`, subscribed to the root channel.
pub async fn initialized(host: &HostProcess, client_id: &str) -> (Client, InitializeResult) {
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
    pub async fn initialized(host: &HostProcess, client_id: &str) -> Self {
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
