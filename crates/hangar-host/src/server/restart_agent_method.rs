//! `x-hangar/restartAgent` `{ channel: <session URI> }`: stop the session's
//! agent process so that its next turn starts a fresh one, which resumes
//! the agent's own session and reads the customizations as they are then
//! (an MCP server turned on or off, an edited rule). Nothing of the
//! session is lost; a pending restart is no longer shown. Refused while a
//! turn runs (`-32004` TurnInProgress: cancel it or let it finish first). Answers
//! `{ stopped }`: whether an agent process was running.

use std::sync::Arc;

use ahp_types::state::SessionStatus;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::host::Host;
use crate::RpcError;

/// The request's params.
#[derive(Debug, Deserialize)]
pub struct RestartAgentParams {
    /// The session.
    pub channel: String,
}

/// Stop the agent of `p.channel`, if it is not in a turn.
pub fn restart_agent(host: &Arc<Host>, p: &RestartAgentParams) -> Result<Value, RpcError> {
    let status = host
        .with_engine_locked(|e| e.session_state(&p.channel).map(|s| s.status))
        .ok_or_else(|| RpcError::session_not_found(&p.channel))?;
    if SessionStatus(status).contains(SessionStatus::InProgress) {
        return Err(RpcError::turn_in_progress("a turn is running: cancel it or let it finish first"));
    }
    let stopped = host.restart_agent(&p.channel);
    Ok(json!({ "stopped": stopped }))
}
