//! `agents.pastSessions`: an agent's own earlier sessions in a folder on a
//! host (run in the agent's CLI, or by another client), as the host lists
//! them (`x-hangar/agentSessions`), to continue one in Hangar
//! (`session.create` with `agentSession`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `agents.pastSessions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct PastSessionsArgs {
    /// Host id.
    pub host: String,
    /// The agent's provider id.
    pub agent: String,
    /// Only sessions in this folder (`file:` URI).
    pub folder: Option<String>,
}

/// One of the agent's earlier sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PastSessionView {
    /// The agent's own session id (what `session.create`'s `agentSession` takes).
    pub session_id: String,
    /// Its title as the agent gives it ("Untitled" when it gives none).
    pub title: String,
    /// Its folder (`file:` URI), when the agent says.
    pub folder: Option<String>,
    /// When it was last used (ISO 8601), when the agent says.
    pub updated_at: Option<String>,
    /// The Hangar session already made from it, if any.
    pub opened: Option<String>,
}

/// `agents.pastSessions`' answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PastSessionsView {
    /// The sessions, as the agent lists them.
    pub sessions: Vec<PastSessionView>,
    /// Why there is nothing to open, in words, when the agent cannot list
    /// or open its sessions.
    pub unavailable: Option<String>,
    /// Opening one replays its history here (`false`: the agent resumes it
    /// with its memory, and the earlier turns are not shown).
    pub replays: bool,
}
