//! The Agents page: a host's well-known agents (where each is, its version
//! against the one Hangar pins, an install running or failed), its custom
//! agents, and the arguments of `agents.*`. The host's `x-hangar/agents`
//! answer has this shape; every `agents.*` command answers with it again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One host's agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentsView {
    /// The well-known agents, in a fixed order.
    pub known: Vec<KnownAgentView>,
    /// Agents added by hand.
    pub custom: Vec<CustomAgentView>,
    /// Why the host could not read its custom agents, if it could not.
    #[serde(default)]
    pub custom_error: Option<String>,
    /// Whether npm is on the host (installs need it).
    pub npm: bool,
    /// Whether the host also looks on its `PATH` for agents.
    pub discovers: bool,
    /// The agent ids sessions can be started with now.
    pub registered: Vec<String>,
}

/// Where a well-known agent is on its host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum AgentLocation {
    /// Installed by Hangar: it can be updated and removed here.
    Hangar,
    /// On `PATH` or in another npm prefix.
    Elsewhere,
    /// Not there.
    Missing,
}

/// One well-known agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct KnownAgentView {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its npm package.
    pub package: String,
    /// The version Hangar installs.
    pub pinned: String,
    /// Where it is.
    pub location: AgentLocation,
    /// The executable found.
    #[serde(default)]
    pub program: Option<String>,
    /// The installed version, when known.
    #[serde(default)]
    pub version: Option<String>,
    /// An install running, or the last one that failed.
    #[serde(default)]
    pub install: Option<InstallView>,
}

/// Where an install is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum InstallPhase {
    /// npm is working out what to fetch.
    Resolving,
    /// Fetching packages: `done` of `total`.
    Downloading,
    /// Unpacking and linking.
    Linking,
    /// It failed: `error` says why.
    Failed,
}

/// An install's progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstallView {
    /// The version being installed.
    pub version: String,
    /// Where it is.
    pub phase: InstallPhase,
    /// Packages fetched.
    pub done: u32,
    /// Packages to fetch (0 until known).
    pub total: u32,
    /// npm's last line.
    pub line: String,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<String>,
}

/// A custom agent: a command run as an ACP agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomAgentView {
    /// Its id (letters, digits, `-`, `_`, `.`).
    pub id: String,
    /// Shown to people.
    #[serde(default)]
    pub name: String,
    /// The program.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Set in its environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// `agents.install`: install (or update) a well-known agent on a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentInstallArgs {
    /// Host id.
    pub host: String,
    /// The agent's id.
    pub id: String,
    /// Another version than the pinned one.
    #[serde(default)]
    pub version: Option<String>,
}

/// `agents.remove` / `agents.deleteCustom`: an agent on a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentIdArgs {
    /// Host id.
    pub host: String,
    /// The agent's id.
    pub id: String,
}

/// `agents.saveCustom`: add or replace a custom agent on a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomAgentSaveArgs {
    /// Host id.
    pub host: String,
    /// The agent.
    pub agent: CustomAgentView,
}
