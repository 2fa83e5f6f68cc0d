//! The Rules page and *Always allow* / *Never allow*: a host's approval
//! rules as the host serves them (`x-hangar/rules`, docs/host.md
//! "Approval rules"), the agents' own rules beside them, and the arguments
//! of `rules.*`. Each host has its own rules; every command names its host.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum RuleScopeKind {
    /// One session (`uri` is the session's URI).
    Session,
    /// Sessions in a folder or below it (`uri` is its `file:` URI).
    Folder,
    /// Every session on the host.
    Host,
}

/// A rule's scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct RuleScope {
    /// Session, folder or host.
    pub kind: RuleScopeKind,
    /// The session or folder (none for `host`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}

/// The kind of request a rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum RuleTool {
    /// A shell command (pattern: a command prefix, `npm test`).
    Shell,
    /// A file edit (pattern: a glob, `src/**`).
    Edit,
    /// A file read (pattern: a glob).
    Read,
    /// An MCP tool (pattern: `server/tool`).
    Mcp,
    /// A fetch (pattern: a domain).
    Fetch,
}

/// Allow or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    /// Answered with the agent's allow option.
    Allow,
    /// Answered with the agent's reject option.
    Deny,
}

/// One of the host's rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleView {
    /// Its id (`_meta["hangar/rule"]` of the tool calls it answered).
    pub id: String,
    /// Where it applies.
    pub scope: RuleScope,
    /// What it matches.
    pub tool: RuleTool,
    /// The command prefix, glob, `server/tool` or domain.
    pub pattern: String,
    /// Allow or deny.
    pub decision: RuleDecision,
    /// The client (or person) that made it.
    pub created_by: String,
    /// When (ISO-8601).
    pub created_at: String,
    /// How many requests it answered.
    pub hits: u64,
}

/// An agent's own remembered rule (read-only; the agent applies it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentRuleView {
    /// The agent (`claude`).
    pub agent: String,
    /// `allow`, `ask` or `deny`.
    pub decision: String,
    /// The rule as the agent writes it (`Bash(npm test:*)`).
    pub rule: String,
    /// The file it lives in, on the host.
    pub file: String,
    /// `user`, `project` or `local`.
    pub scope: String,
}

/// An agent's settings file the host could not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentRuleErrorView {
    /// The file.
    pub file: String,
    /// Why.
    pub error: String,
}

/// `rules.list`: a host's rules and its agents' own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RulesView {
    /// The host's rules, oldest first.
    pub rules: Vec<RuleView>,
    /// The agents' own rules.
    pub agent_rules: Vec<AgentRuleView>,
    /// Agent settings files that could not be read.
    #[serde(default)]
    pub agent_rule_errors: Vec<AgentRuleErrorView>,
    /// Where an unreadable rules file was moved at the host's start.
    #[serde(default)]
    pub moved_aside: Option<String>,
}

/// `rules.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct RulesListArgs {
    /// Host id.
    pub host: String,
    /// A folder (`file:` URI) whose agents' project rules to list too.
    #[serde(default)]
    pub folder: Option<String>,
}

/// A rule to save: without `id` a new one, with `id` a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct RuleDraft {
    /// The rule to change; none adds one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Where it applies.
    pub scope: RuleScope,
    /// What it matches.
    pub tool: RuleTool,
    /// The pattern.
    pub pattern: String,
    /// Allow or deny.
    pub decision: RuleDecision,
}

/// `rules.save`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleSaveArgs {
    /// Host id.
    pub host: String,
    /// The rule.
    pub rule: RuleDraft,
}

/// `rules.save`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleSaved {
    /// The rule's id.
    pub id: String,
}

/// `rules.delete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleDeleteArgs {
    /// Host id.
    pub host: String,
    /// The rule.
    pub id: String,
}

/// The rule a pending confirmation offers to make
/// (`_meta["hangar/ruleSuggestion"]`), for the person to edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleSuggestion {
    /// What it would match.
    pub tool: RuleTool,
    /// The pattern to prefill.
    pub pattern: String,
}
