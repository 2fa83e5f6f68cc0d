//! A discovered MCP server's *Test*: reach it from the host as the agent
//! would (stdio: start its command with its arguments, environment and
//! folder; streamable HTTP: its URL with its headers), run MCP `initialize`
//! and `tools/list` with the official Rust SDK (`rmcp`), stop it, and say
//! what it offers, or why it failed (with the end of a process's stderr).
//! Servers on the older SSE transport are not tested: `rmcp` no longer
//! speaks it as a client.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde::Serialize;
use tokio::io::AsyncReadExt;

use super::{McpLaunch, McpTransport};
use crate::locks::lock;

/// The stderr kept for an error message.
const STDERR_TAIL: usize = 2048;

/// What a server that answered offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpTested {
    /// Its name (`serverInfo`).
    pub server: String,
    /// Its version.
    pub version: String,
    /// Its tools, in its order.
    pub tools: Vec<McpToolInfo>,
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpToolInfo {
    /// Name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
}

/// Why a test failed.
#[derive(Debug, thiserror::Error)]
pub enum McpTestError {
    /// A transport the test cannot reach.
    #[error("servers reached over {0} cannot be tested here; the agent connects to it itself")]
    Unsupported(&'static str),
    /// A header that HTTP cannot carry.
    #[error("header {0} is not a valid HTTP header")]
    Header(String),
    /// The program did not start.
    #[error("{command} did not start: {error}")]
    Start {
        /// The program.
        command: String,
        /// The OS's words.
        error: String,
    },
    /// It started but did not answer as an MCP server.
    #[error("{message}{}", said(.stderr))]
    Failed {
        /// What went wrong.
        message: String,
        /// The end of its stderr.
        stderr: String,
    },
}

fn said(stderr: &str) -> String {
    let tail = stderr.trim();
    if tail.is_empty() {
        String::new()
    } else {
        format!(". It said: {tail}")
    }
}

/// Reach `launch` (a process started in `cwd` unless it names its own
/// folder), list its tools, stop it; at most `limit` in all.
pub async fn test_server(launch: &McpLaunch, cwd: &Path, limit: Duration) -> Result<McpTested, McpTestError> {
    let (command, args, env, own_cwd) = match &launch.transport {
        McpTransport::Stdio { command, args, env, cwd } => (command, args, env, cwd),
        McpTransport::Http { url, headers } => return test_http(url, headers, limit).await,
        McpTransport::Sse { .. } => return Err(McpTestError::Unsupported("SSE")),
    };
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).envs(env.iter().map(|(k, v)| (k, v))).current_dir(own_cwd.as_deref().unwrap_or(cwd));
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| McpTestError::Start { command: command.clone(), error: e.to_string() })?;
    let tail = Arc::new(Mutex::new(Vec::new()));
    if let Some(mut stderr) = stderr {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 1024];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let mut kept = lock(&tail);
                kept.extend_from_slice(&buf[..n]);
                let excess = kept.len().saturating_sub(STDERR_TAIL);
                kept.drain(..excess);
            }
        });
    }
    let run =
        async { listed(().serve(transport).await.map_err(|e| format!("no MCP answer to initialize ({e})"))?).await };
    let outcome = within(limit, run).await;
    if outcome.is_err() {
        // Let the stderr reader catch up with a server that exited.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    outcome
        .map_err(|message| McpTestError::Failed { message, stderr: String::from_utf8_lossy(&lock(&tail)).into_owned() })
}

/// Connect to a streamable HTTP server at `url` with `headers`, list its tools.
async fn test_http(url: &str, headers: &[(String, String)], limit: Duration) -> Result<McpTested, McpTestError> {
    let mut custom = std::collections::HashMap::new();
    for (name, value) in headers {
        let parsed = (http::HeaderName::try_from(name.as_str()), http::HeaderValue::try_from(value.as_str()));
        let (Ok(name), Ok(value)) = parsed else { return Err(McpTestError::Header(name.clone())) };
        custom.insert(name, value);
    }
    // reqwest is built without a TLS provider of its own: ours is ring (an
    // error only says one is installed already).
    let _ = tokio_rustls::rustls::crypto::ring::default_provider().install_default();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    let transport = StreamableHttpClientTransport::from_config(config);
    let run = async { listed(().serve(transport).await.map_err(|e| format!("no MCP answer from {url} ({e})"))?).await };
    within(limit, run).await.map_err(|message| McpTestError::Failed { message, stderr: String::new() })
}

/// What the connected `client` offers; the connection is closed after.
async fn listed(client: RunningService<RoleClient, ()>) -> Result<McpTested, String> {
    let info = client.peer_info().and_then(|i| i.server_info.as_ref().map(|s| (s.name.clone(), s.version.clone())));
    let tools = client.list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"));
    let _ = client.cancel().await;
    let (server, version) = info.unwrap_or_default();
    let tools = tools?
        .into_iter()
        .map(|t| McpToolInfo {
            name: t.name.into_owned(),
            description: t.description.map(std::borrow::Cow::into_owned),
        })
        .collect();
    Ok(McpTested { server, version, tools })
}

/// `run`'s outcome, or a time-out after `limit`.
async fn within(
    limit: Duration,
    run: impl std::future::Future<Output = Result<McpTested, String>>,
) -> Result<McpTested, String> {
    match tokio::time::timeout(limit, run).await {
        Ok(outcome) => outcome,
        Err(_) => Err(format!("no answer within {} s", limit.as_secs())),
    }
}
