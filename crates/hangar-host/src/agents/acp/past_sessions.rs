//! An agent's own earlier sessions: those a person ran in the agent's CLI
//! (Claude Code, Codex, Qwen Code, OpenCode, Copilot keep them on disk) or
//! through another client. A fresh agent process is started in the folder,
//! sent `initialize`, then ACP `session/list` (with `cwd` to narrow it to
//! the folder, and the agent's own `cursor` to page), and ended. Whether
//! the agent can list them (`sessionCapabilities.list`) and open one to
//! continue it (`loadSession`, replaying its history; or
//! `sessionCapabilities.resume`, without) comes from its `initialize`.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::rpc::Connection;
use super::startup::{ask, initialize_params, Live};
use super::transport;
use crate::agents::AgentSpec;
use crate::process_groups::Registry;

/// How an agent can open one of its earlier sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpensWith {
    /// `session/load`: the history is replayed (and becomes turns here).
    Load,
    /// `session/resume`: the agent remembers, nothing is replayed.
    Resume,
}

impl OpensWith {
    /// From the agent's `agentCapabilities`.
    pub fn from_capabilities(caps: &Value) -> Option<Self> {
        if caps.get("loadSession").and_then(Value::as_bool) == Some(true) {
            Some(Self::Load)
        } else if caps.pointer("/sessionCapabilities/resume").is_some() {
            Some(Self::Resume)
        } else {
            None
        }
    }

    /// The ACP method.
    pub fn method(self) -> &'static str {
        match self {
            Self::Load => "session/load",
            Self::Resume => "session/resume",
        }
    }
}

/// One page of an agent's earlier sessions.
#[derive(Debug, Default)]
pub struct PastSessions {
    /// Whether the agent lists its sessions over ACP at all.
    pub listable: bool,
    /// How one can be opened, if at all.
    pub opens_with: Option<OpensWith>,
    /// The agent's `SessionInfo`s as it sent them (`sessionId`, `cwd`,
    /// `title`?, `updatedAt`?).
    pub sessions: Vec<Value>,
    /// The agent's cursor for the next page.
    pub next_cursor: Option<String>,
}

/// Ask `agent` (started in `cwd` with `env`) for its sessions in `folder`
/// (all of them without); each request bounded by `limit`. The process is
/// recorded in `groups` while it runs, and ended.
pub(crate) async fn list_past_sessions(
    agent: &AgentSpec,
    cwd: &Path,
    env: &[(String, String)],
    folder: Option<&Path>,
    cursor: Option<&str>,
    limit: Duration,
    groups: &Registry,
) -> Result<PastSessions, String> {
    let transport = transport::open(&agent.command, cwd, env).await.map_err(|e| e.to_string())?;
    let (conn, inbound, process) = Connection::start(transport);
    let key = format!("past-sessions-{}", crate::engine::clock::new_id());
    if let Some(pgid) = process.as_ref().and_then(|p| p.pgid) {
        groups.insert(&key, pgid);
    }
    let live = Live { conn, inbound, stashed: VecDeque::new(), process };
    let answer = ask_list(&live, folder, cursor, limit).await;
    live.stop(groups, &key).await;
    answer
}

async fn ask_list(
    live: &Live,
    folder: Option<&Path>,
    cursor: Option<&str>,
    limit: Duration,
) -> Result<PastSessions, String> {
    let info = ask(&live.conn, "initialize", initialize_params(), limit).await?;
    let caps = info.get("agentCapabilities").cloned().unwrap_or(Value::Null);
    let mut page = PastSessions {
        listable: caps.pointer("/sessionCapabilities/list").is_some(),
        opens_with: OpensWith::from_capabilities(&caps),
        ..PastSessions::default()
    };
    if !page.listable {
        return Ok(page);
    }
    let mut params = json!({});
    if let Some(folder) = folder {
        params["cwd"] = json!(folder.display().to_string());
    }
    if let Some(cursor) = cursor {
        params["cursor"] = json!(cursor);
    }
    let result = ask(&live.conn, "session/list", params, limit).await?;
    page.sessions = result.get("sessions").and_then(Value::as_array).cloned().unwrap_or_default();
    page.sessions.retain(|s| s.get("sessionId").and_then(Value::as_str).is_some_and(|id| !id.is_empty()));
    page.next_cursor = result.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
    Ok(page)
}
