//! The Agents page's methods. Each answers with the host's
//! [`Catalog`] as it is afterwards; each change makes the agent list again
//! and publishes `root/agentsChanged`, so every client can start a session
//! with an agent the moment it is installed or added.
//!
//! - `x-hangar/agents` `{}`: the catalog.
//! - `x-hangar/agentInstall` `{ id, version? }`: install a well-known agent
//!   with npm into the data dir (the pinned version unless another is
//!   named). Answers at once; the install runs on, its progress in the
//!   catalog's `known[].install` (ask again to follow it), a failure kept
//!   there with npm's words.
//! - `x-hangar/agentRemove` `{ id }`: remove one installed here.
//! - `x-hangar/agentSave` `{ agent }`: add or replace a custom agent
//!   (`-32602` naming the field when it is not acceptable).
//! - `x-hangar/agentDelete` `{ id }`: delete a custom agent.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::frames::answer_later;
use crate::agents::catalog::Catalog;
use crate::agents::custom::{CustomAgent, CustomAgentError};
use crate::agents::install::{self, InstallError};
use crate::host::Host;
use crate::hub::ConnId;
use crate::RpcError;

/// `x-hangar/agentInstall`'s params.
#[derive(Debug, Deserialize)]
pub struct InstallParams {
    /// A well-known agent's id.
    pub id: String,
    /// Another version than the pinned one.
    #[serde(default)]
    pub version: Option<String>,
}

/// `x-hangar/agentRemove`'s and `x-hangar/agentDelete`'s params.
#[derive(Debug, Deserialize)]
pub struct IdParams {
    /// The agent.
    pub id: String,
}

/// `x-hangar/agentSave`'s params.
#[derive(Debug, Deserialize)]
pub struct SaveParams {
    /// The custom agent.
    pub agent: CustomAgent,
}

/// The catalog as the answer's JSON.
pub fn catalog(host: &Host) -> Result<Value, RpcError> {
    serde_json::to_value(Catalog::of(&host.agent_registry, &host.config.data_dir, &host.agent_installs))
        .map_err(|e| RpcError::internal(e.to_string()))
}

/// Start installing `p.id`; answers with the catalog showing it started.
pub fn install(host: &Arc<Host>, p: InstallParams) -> Result<Value, RpcError> {
    let pinned = install::pinned(&p.id).map_err(|e| RpcError::invalid_params("id", e.to_string()))?;
    let version = p.version.unwrap_or_else(|| pinned.to_owned());
    if host.agent_installs.begin(&p.id, &version) {
        let host = host.clone();
        // A thread of its own, not the runtime's blocking pool: npm takes
        // seconds to minutes, and a host told to stop must not wait for it.
        // It enters the runtime, as the reload may spawn tasks.
        let runtime = tokio::runtime::Handle::current();
        let (installs, id) = (host.agent_installs.clone(), p.id.clone());
        let spawned = std::thread::Builder::new().name(format!("install {}", p.id)).spawn(move || {
            let _runtime = runtime.enter();
            let installs = host.agent_installs.clone();
            let id = p.id;
            let result = install::install(&host.config.data_dir, &id, Some(&version), false, &mut |event| {
                installs.update(&id, &event)
            });
            if let Err(e) = &result {
                tracing::warn!("installing agent {id}: {e}");
            }
            installs.end(&id, result.as_ref().map(|_| ()));
            host.reload_agents();
        });
        if let Err(e) = spawned {
            let message = format!("cannot start the install: {e}");
            installs.end(&id, Err(&InstallError::Io(e)));
            return Err(RpcError::internal(message));
        }
    }
    catalog(host)
}

/// Remove `p.id` from Hangar's install folder, then answer.
pub fn remove(host: &Arc<Host>, conn: ConnId, id: Value, p: IdParams) {
    answer_later(host, conn, id, |host| async move {
        let data_dir = host.config.data_dir.clone();
        let removed = tokio::task::spawn_blocking(move || install::remove(&data_dir, &p.id, false))
            .await
            .map_err(|e| RpcError::internal(e.to_string()))?;
        removed.map_err(|e| match e {
            InstallError::Unknown { .. } => RpcError::invalid_params("id", e.to_string()),
            other => RpcError::internal(other.to_string()),
        })?;
        host.reload_agents();
        catalog(&host)
    });
}

/// Add or replace a custom agent.
pub fn save(host: &Arc<Host>, p: SaveParams) -> Result<Value, RpcError> {
    crate::agents::custom::save(&host.config.data_dir, p.agent).map_err(custom_error)?;
    host.reload_agents();
    catalog(host)
}

/// Delete custom agent `p.id`.
pub fn delete(host: &Arc<Host>, p: &IdParams) -> Result<Value, RpcError> {
    if !crate::agents::custom::delete(&host.config.data_dir, &p.id).map_err(custom_error)? {
        return Err(RpcError::not_found(format!("no custom agent {:?}", p.id)));
    }
    host.reload_agents();
    catalog(host)
}

fn custom_error(e: CustomAgentError) -> RpcError {
    match e {
        CustomAgentError::Invalid { field, .. } => RpcError::invalid_params(field, e.to_string()),
        CustomAgentError::File { .. } => RpcError::internal(e.to_string()),
    }
}
