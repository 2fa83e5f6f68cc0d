//! `x-hangar/agentSignIn` `{ channel: <session URI>, method, key? }`: sign
//! the session's agent in with one of the methods it offered when it last
//! started (a start refused with `authRequired` lists them in its error's
//! `_meta["hangar.signIn"]`). By the method's kind:
//!
//! - `apiKey`: `key` is kept in this host's OS keyring and set in the
//!   agent's environment from its next start; answers `{ saved: VARIABLE }`.
//! - `terminal`: the agent's login command runs on this host in a
//!   pseudo-terminal, a terminal channel claimed by the asking client (who
//!   answers its questions with `terminal/input`); answers
//!   `{ terminal: <URI> }` at once (its exit code says whether the login
//!   worked).
//! - `agent`: a fresh agent process is sent ACP `authenticate`; answers
//!   `{ signedIn: true }` when the agent accepted it.
//!
//! `-32602` for a method the agent did not offer (the host runs only what
//! the agent itself named) or a missing or bad key; `-32603` with the
//! keyring's words when no keyring can keep the key.
//! `x-hangar/agentSignOut` `{ channel, variable }` forgets a saved key.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::frames::answer_later;
use super::session_folder::session_folder;
use crate::agents::acp::{authenticate, run_login, SignInKind};
use crate::agents::keys::AgentKeyError;
use crate::host::Host;
use crate::hub::ConnId;
use crate::RpcError;

/// How long an agent may take to answer `authenticate` (a browser login).
const AUTHENTICATE_LIMIT: Duration = Duration::from_secs(5 * 60);

/// The request's params.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSignInParams {
    /// The session whose agent signs in.
    pub channel: String,
    /// The agent's method id.
    pub method: String,
    /// The key, for an `apiKey` method.
    pub key: Option<String>,
}

/// The params of `x-hangar/agentSignOut`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSignOutParams {
    /// A session of the agent.
    pub channel: String,
    /// The saved key's variable.
    pub variable: String,
}

/// Sign in and answer `conn` (`client`: the asking client's id).
pub fn sign_in(host: &Arc<Host>, conn: ConnId, client: String, id: Value, p: AgentSignInParams) {
    answer_later(host, conn, id, |host| async move { run(&host, &client, p).await });
}

/// Forget a saved key and answer `conn`.
pub fn sign_out(host: &Arc<Host>, conn: ConnId, id: Value, p: AgentSignOutParams) {
    answer_later(host, conn, id, |host| async move {
        let (provider, _) = session_agent(&host, &p.channel)?;
        let keys = host.clone();
        tokio::task::spawn_blocking(move || keys.agent_keys.remove(&provider, &p.variable))
            .await
            .map_err(|e| RpcError::internal(e.to_string()))?
            .map_err(key_error)?;
        Ok(json!({}))
    });
}

async fn run(host: &Arc<Host>, client: &str, p: AgentSignInParams) -> Result<Value, RpcError> {
    let (provider, cwd) = session_agent(host, &p.channel)?;
    let (agent, method) = host.sign_in_method(&provider, &p.method).ok_or_else(|| {
        RpcError::invalid_params("method", format!("{provider} offers no sign-in method {:?}", p.method))
    })?;
    match &method.kind {
        SignInKind::ApiKey { var } => {
            let key = p.key.ok_or_else(|| RpcError::invalid_params("key", "an API key method needs the key"))?;
            let (keys, var) = (host.clone(), var.clone());
            let saved = var.clone();
            tokio::task::spawn_blocking(move || keys.agent_keys.save(&provider, &var, &key))
                .await
                .map_err(|e| RpcError::internal(e.to_string()))?
                .map_err(key_error)?;
            Ok(json!({ "saved": saved }))
        }
        SignInKind::Terminal { .. } => {
            let agent_host = host.as_agent_host().ok_or_else(|| RpcError::internal("the host is stopping"))?;
            let env = saved_env(host, &provider).await;
            let uri = run_login(agent_host, &p.channel, client, &cwd, &method, env)
                .map_err(|e| RpcError::internal(e.to_string()))?;
            Ok(json!({ "terminal": uri }))
        }
        SignInKind::Agent => {
            let env = saved_env(host, &provider).await;
            authenticate(&agent, &cwd, &env, &method, AUTHENTICATE_LIMIT, &host.process_groups())
                .await
                .map_err(|e| RpcError::internal(e.to_string()))?;
            Ok(json!({ "signedIn": true }))
        }
    }
}

/// Agent `provider`'s saved keys (the keyring is asked off this task).
pub(super) async fn saved_env(host: &Arc<Host>, provider: &str) -> Vec<(String, String)> {
    let (host, provider) = (host.clone(), provider.to_owned());
    tokio::task::spawn_blocking(move || host.agent_keys.env(&provider)).await.unwrap_or_default()
}

/// The agent of session `channel` and the session's folder.
fn session_agent(host: &Arc<Host>, channel: &str) -> Result<(String, PathBuf), RpcError> {
    let cwd = session_folder(host, channel)?;
    let provider = host
        .with_engine_locked(|e| e.session_state(channel).map(|s| s.provider.clone()))
        .ok_or_else(|| RpcError::session_not_found(channel))?;
    Ok((provider, cwd))
}

fn key_error(e: AgentKeyError) -> RpcError {
    match e {
        AgentKeyError::BadKey => RpcError::invalid_params("key", e.to_string()),
        other => RpcError::internal(other.to_string()),
    }
}
