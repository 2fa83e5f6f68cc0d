//! `x-hangar/agentSessions` `{ provider, folder?, cursor? }`: the agent's
//! own earlier sessions on this host (run in its CLI or by another client),
//! in `folder` (a `file:` URI; all of them without), as the agent lists
//! them over ACP `session/list` (`agents/acp/past_sessions.rs`), or, for
//! Gemini CLI, which has no `session/list`, as its own files hold them
//! (`agents/past_sessions_on_disk/`: one page, no cursor). Answers
//! `{ listable, opensWith: "load" | "resume" | null, sessions: [{
//! sessionId, folder, title?, updatedAt?, opened? }], nextCursor? }`:
//! `listable` false (and no sessions) when the agent cannot list them;
//! `opensWith` how `createSession` with `_meta["hangar/agentSession"]`
//! would open one (null: it cannot); `opened` the Hangar session already
//! made from it. `-32602` for an unknown provider, a folder that is not an
//! existing directory the host serves, or a bad cursor; `-32603` with the
//! agent's words when it fails.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::agent_sign_in_method::saved_env;
use super::frames::answer_later;
use crate::agents::acp::{list_past_sessions, OpensWith, PastSessions, ACP_META_KEY};
use crate::agents::{past_sessions_on_disk, AgentSpec};
use crate::host::Host;
use crate::hub::ConnId;
use crate::resources::uri::{file_uri_to_path, path_to_file_uri};
use crate::RpcError;

/// How long the agent may take to start and to answer each request.
const LIST_LIMIT: Duration = Duration::from_secs(60);

/// The request's params.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentSessionsParams {
    /// The agent (a provider id of `root.agents`).
    pub provider: String,
    /// Only sessions in this folder (`file:` URI).
    pub folder: Option<String>,
    /// The agent's cursor from an earlier page.
    pub cursor: Option<String>,
}

/// List and answer `conn`.
pub fn answer(host: &Arc<Host>, conn: ConnId, id: Value, p: AgentSessionsParams) {
    answer_later(host, conn, id, |host| async move { run(&host, p).await });
}

async fn run(host: &Arc<Host>, p: AgentSessionsParams) -> Result<Value, RpcError> {
    let agent = host.agent_registry.get(&p.provider).ok_or_else(|| RpcError::provider_not_found(&p.provider))?;
    let folder = match &p.folder {
        Some(uri) => {
            let path = file_uri_to_path(uri)
                .ok()
                .filter(|p| p.is_dir())
                .ok_or_else(|| RpcError::invalid_params("folder", format!("not an existing directory: {uri}")))?;
            host.resources.check_working_dir(&path)?;
            Some(path)
        }
        None => None,
    };
    if p.cursor.as_deref().is_some_and(str::is_empty) {
        return Err(RpcError::invalid_params("cursor", "an empty cursor"));
    }
    let cwd = folder
        .clone()
        .or_else(|| std::env::var_os("HOME").map(std::path::PathBuf::from))
        .unwrap_or_else(|| std::path::PathBuf::from("/"));
    let env = saved_env(host, &agent.id).await;
    let page = match on_disk(&agent, &env, folder.clone()).await? {
        Some(found) => {
            if p.cursor.is_some() {
                return Err(RpcError::invalid_params("cursor", format!("{} lists every session at once", agent.id)));
            }
            PastSessions {
                listable: true,
                opens_with: Some(found.opens_with),
                sessions: found.sessions,
                next_cursor: None,
            }
        }
        None => list_past_sessions(
            &agent,
            &cwd,
            &env,
            folder.as_deref(),
            p.cursor.as_deref(),
            LIST_LIMIT,
            &host.process_groups(),
        )
        .await
        .map_err(|e| RpcError::internal(format!("{} could not list its sessions: {e}", agent.id)))?,
    };
    let opened = opened_sessions(host);
    let sessions: Vec<Value> = page
        .sessions
        .iter()
        .map(|s| {
            let sid = s.get("sessionId").and_then(Value::as_str).unwrap_or_default();
            let mut item = json!({ "sessionId": sid });
            if let Some(cwd) = s.get("cwd").and_then(Value::as_str) {
                item["folder"] = json!(path_to_file_uri(std::path::Path::new(cwd)));
            }
            for key in ["title", "updatedAt"] {
                if let Some(v) = s.get(key).filter(|v| v.is_string()) {
                    item[key] = v.clone();
                }
            }
            if let Some((_, uri)) = opened.iter().find(|(id, _)| id == sid) {
                item["opened"] = json!(uri);
            }
            item
        })
        .collect();
    let mut answer = json!({
        "listable": page.listable,
        "opensWith": page.opens_with.map(|o| match o {
            OpensWith::Load => "load",
            OpensWith::Resume => "resume",
        }),
        "sessions": sessions,
    });
    if let Some(next) = page.next_cursor {
        answer["nextCursor"] = json!(next);
    }
    Ok(answer)
}

/// The agent's sessions read from its own files (`agents/past_sessions_on_disk`),
/// off the async threads; `None` for agents listed over ACP.
async fn on_disk(
    agent: &AgentSpec,
    env: &[(String, String)],
    folder: Option<PathBuf>,
) -> Result<Option<past_sessions_on_disk::OnDisk>, RpcError> {
    let (agent, env) = (agent.clone(), env.to_vec());
    tokio::task::spawn_blocking(move || past_sessions_on_disk::list(&agent, &env, folder.as_deref()))
        .await
        .map_err(|e| RpcError::internal(format!("reading the agent's sessions failed: {e}")))
}

/// `(ACP session id, Hangar session URI)` of every session that uses one.
fn opened_sessions(host: &Arc<Host>) -> Vec<(String, String)> {
    host.with_engine_locked(|e| {
        e.session_uris()
            .into_iter()
            .filter_map(|uri| {
                let state = e.session_state(&uri)?;
                let sid = state.meta.as_ref()?.get(ACP_META_KEY)?.get("sessionId")?.as_str()?.to_owned();
                Some((sid, uri))
            })
            .collect()
    })
}
