//! A discovered MCP server's *Test*: start it on the host as the agent
//! would (stdio: its command, arguments, environment and folder), run MCP
//! `initialize` and `tools/list` with the official Rust SDK (`rmcp`), stop
//! it, and say what it offers, or why it failed with the end of its stderr.
//! HTTP and SSE servers are not tested yet (that needs an HTTP client).

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::transport::TokioChildProcess;
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
    /// Not a stdio server.
    #[error("only stdio servers can be tested for now; this one is reached over {0}")]
    Unsupported(&'static str),
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

/// Start `launch` (in `cwd` unless it names its own folder), list its tools,
/// stop it; at most `limit` in all.
pub async fn test_server(launch: &McpLaunch, cwd: &Path, limit: Duration) -> Result<McpTested, McpTestError> {
    let (command, args, env, own_cwd) = match &launch.transport {
        McpTransport::Stdio { command, args, env, cwd } => (command, args, env, cwd),
        McpTransport::Http { .. } => return Err(McpTestError::Unsupported("HTTP")),
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
    let run = async {
        let client = ().serve(transport).await.map_err(|e| format!("no MCP answer to initialize ({e})"))?;
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
        Ok::<_, String>(McpTested { server, version, tools })
    };
    let outcome = match tokio::time::timeout(limit, run).await {
        Ok(outcome) => outcome,
        Err(_) => Err(format!("no answer within {} s", limit.as_secs())),
    };
    if outcome.is_err() {
        // Let the stderr reader catch up with a server that exited.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    outcome
        .map_err(|message| McpTestError::Failed { message, stderr: String::from_utf8_lossy(&lock(&tail)).into_owned() })
}
