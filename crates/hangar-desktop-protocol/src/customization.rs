//! The open session's customizations as the UI shows them (a chat stream's
//! `customizations` op): the host's AHP `SessionState.customizations`
//! (containers — `directory`, `plugin`, top-level `mcpServer` — and their
//! children) with the effective state, each scope's decision and Hangar's
//! `_meta` conventions (`hangar.readBy`, `hangar.appliedBy`, `hangar.note`,
//! `hangar.restartPending`, `hangar.shadowedBy`, `hangar.notPassed`) read
//! into typed fields,
//! and the scope a toggle is for.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a customization is (AHP `CustomizationType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum CustomizationKind {
    /// A folder of one kind of children.
    Directory,
    /// An Open Plugins / Claude plugin with its components.
    Plugin,
    /// A custom agent (chosen per message).
    Agent,
    /// A skill (or a Claude command).
    Skill,
    /// A prompt (`/` completion).
    Prompt,
    /// A rule / instructions file.
    Rule,
    /// A hook handler.
    Hook,
    /// An MCP server.
    McpServer,
    /// A kind from a newer protocol.
    Other,
}

/// Where a toggle decision holds, most specific first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ToggleScope {
    /// This session only.
    Session,
    /// Every session in this session's folder (kept by the host).
    Workspace,
    /// Every session on the host (kept by the host).
    Global,
}

/// Each scope's decision (`null`: none), and which one decides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DecisionsView {
    /// This session's decision.
    pub session: Option<bool>,
    /// This folder's decision.
    pub workspace: Option<bool>,
    /// The host-wide decision.
    pub global: Option<bool>,
    /// The scope whose decision is in effect (`null`: none, on by default).
    pub decided_by: Option<ToggleScope>,
}

/// Who makes a customization take effect (`_meta["hangar.appliedBy"]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum AppliedBy {
    /// The host (MCP servers it passes, prompts it offers…): a toggle works.
    Host,
    /// The agent reads the file itself: the host cannot stop it.
    Agent,
    /// Nobody in this session.
    None,
}

/// A container's load state (AHP `CustomizationLoadState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum LoadStatus {
    /// Still being read.
    Loading,
    /// Read.
    Loaded,
    /// Read, some of it failed (`message` says what).
    Degraded,
    /// Could not be read (`message` says why).
    Error,
}

/// An MCP server's lifecycle (AHP `McpServerState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum McpStatus {
    /// Starting.
    Starting,
    /// Serving.
    Ready,
    /// Needs the user to sign in.
    AuthRequired,
    /// Failed (`message` says why).
    Error,
    /// Not running (the agent may run it itself).
    Stopped,
    /// A state from a newer protocol.
    Other,
}

/// The customization that wins a name clash over this one.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShadowView {
    /// Its id.
    pub id: String,
    /// Its name (the id when it is not in the tree).
    pub name: String,
    /// Its file or folder.
    pub uri: Option<String>,
}

/// One customization: a container's own fields, or a child.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationItem {
    /// Id (for `customizations.toggle`).
    pub id: String,
    /// Kind.
    pub kind: CustomizationKind,
    /// Name.
    pub name: String,
    /// The file or folder (`file:` URI).
    pub uri: String,
    /// Description (agents, skills, prompts, rules).
    pub description: Option<String>,
    /// Its own effective state (the deciding scope's, else on).
    pub enabled: bool,
    /// Each scope's decision.
    pub decisions: DecisionsView,
    /// Agent ids that read its file natively (`hangar.readBy`).
    pub read_by: Vec<String>,
    /// Who applies it in this session (`hangar.appliedBy`).
    pub applied_by: Option<AppliedBy>,
    /// What the toggle does for this session's agent (`hangar.note`).
    pub note: Option<String>,
    /// The toggle takes effect at the agent's next start (`hangar.restartPending`).
    pub restart_pending: bool,
    /// The customization that wins a name clash (`hangar.shadowedBy`).
    pub shadowed_by: Option<ShadowView>,
    /// Why an enabled MCP server was not given to this agent (`hangar.notPassed`).
    pub not_passed: Option<String>,
    /// Where in its file the entry is (`hangar.at`: a JSON pointer, or a
    /// dotted TOML path), for an MCP server's or a hook's own form.
    pub at: Option<String>,
    /// An MCP server's state.
    pub mcp_status: Option<McpStatus>,
    /// An MCP server's error.
    pub mcp_message: Option<String>,
}

/// A top-level entry: a directory or plugin with its children, or an MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationContainer {
    /// The entry's own fields.
    pub item: CustomizationItem,
    /// The kind a directory holds.
    pub contents: Option<CustomizationKind>,
    /// Whether new files may be written into it (a directory).
    pub writable: bool,
    /// `project` or `user` (`hangar.scope`).
    pub scope: Option<String>,
    /// A plugin's version.
    pub version: Option<String>,
    /// A plugin's manifest file (`hangar.manifest`), for its form.
    pub manifest: Option<String>,
    /// Load state.
    pub load: Option<LoadStatus>,
    /// Why it is degraded or failed.
    pub load_message: Option<String>,
    /// Children (empty for an MCP server; `childrenKnown` false if not read).
    pub children: Vec<CustomizationItem>,
    /// Whether the children were read (AHP: absent = not parsed).
    pub children_known: bool,
}

/// The session's customizations.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationsView {
    /// Whether the host reports customizations for this session at all.
    pub reported: bool,
    /// The session's folder (what "This folder" means).
    pub workspace: Option<String>,
    /// Top-level entries, in the host's order.
    pub containers: Vec<CustomizationContainer>,
}

/// `host.customizations`: a host's user-level customizations, per agent.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostCustomizations {
    /// One entry per agent the host offers, in the host's order.
    pub agents: Vec<AgentCustomizations>,
}

/// One agent's user-level customizations on a host.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentCustomizations {
    /// Agent id.
    pub agent: String,
    /// Its display name.
    pub label: String,
    /// What it reads under home, and the MCP servers the host gives every agent.
    pub view: CustomizationsView,
}

/// `customizations.read`: one customization file on the session's host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationFileArgs {
    /// Host id.
    pub host: String,
    /// Session URI (the channel the host checks access against).
    pub session: String,
    /// The file (`file:` URI).
    pub uri: String,
}

/// A customization file as read.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationFile {
    /// The file.
    pub uri: String,
    /// Its text.
    pub text: String,
    /// Its version (`resourceResolve` etag), for the next save's `ifMatch`.
    pub etag: Option<String>,
}

/// `customizations.save`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct CustomizationSaveArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// The file (`file:` URI).
    pub uri: String,
    /// The whole new text.
    pub text: String,
    /// The version the edit started from; the save is refused when the
    /// file is no longer that version. `null`: write whatever is there.
    pub etag: Option<String>,
    /// A new file: refused when one is already there.
    pub create: bool,
}

/// What a save did.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum SaveOutcome {
    /// Written; the file's new version.
    Saved {
        /// For the next save.
        etag: Option<String>,
    },
    /// The file changed on disk since it was read: nothing was written.
    Conflict {
        /// The text on disk now (`null`: the file is gone).
        disk: Option<String>,
        /// Its version (save with it to keep yours).
        etag: Option<String>,
    },
    /// A new file's name is taken: nothing was written.
    Exists,
}

/// `customizations.transfer`: copy (Duplicate) or move (Rename) a
/// customization's file or folder to a new name on the session's host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationTransferArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// The file or folder now.
    pub from: String,
    /// Its new place (refused when taken).
    pub to: String,
    /// Keep the original (a copy) or not (a move).
    pub keep: bool,
}

/// `customizations.delete`: a customization's file, or a skill's folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomizationDeleteArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// The file or folder.
    pub uri: String,
    /// A folder with everything in it.
    pub recursive: bool,
}

/// `markdown.render`: text as the transcript shows markdown (sanitized
/// HTML blocks), for an editor's preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MarkdownArgs {
    /// The markdown.
    pub text: String,
}

/// `customizations.testMcp`: start an MCP server on the session's host and
/// list its tools (the host's `x-hangar/testMcpServer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTestArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// The MCP server's customization id.
    pub id: String,
}

/// `customizations.testHook`: run a hook's command on the session's host
/// with a recorded tool event on stdin (the host's `x-hangar/testHook`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookTestArgs {
    /// Host id.
    pub host: String,
    /// Session URI (its folder is where the hook runs).
    pub session: String,
    /// The hook's shell command, as the form holds it.
    pub command: String,
    /// The event's JSON, as the agent would write it to the hook's stdin.
    pub input: String,
    /// The hook's timeout in seconds (the host allows at most 60).
    pub timeout_secs: Option<u32>,
}

/// What one run of a hook did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookRan {
    /// Its exit code (`null`: ended by a signal or at the time limit).
    pub exit_code: Option<i32>,
    /// Its standard output (at most 64 KiB).
    pub stdout: String,
    /// Its standard error (at most 64 KiB).
    pub stderr: String,
    /// It was ended at the time limit.
    pub timed_out: bool,
    /// How long it ran.
    pub millis: u32,
}

/// What a tested MCP server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpTested {
    /// Its name.
    pub server: String,
    /// Its version.
    pub version: String,
    /// Its tools.
    pub tools: Vec<McpToolView>,
}

/// One tool of a tested MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView {
    /// Name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
}
