//! Approval rules: the host's own answers to agents' permission requests,
//! the same for every agent (issue 31). A rule says "allow" or "deny" for one
//! kind of tool call (`shell`, `edit`, `read`, `mcp`, `fetch`) whose subject
//! matches a pattern, in a scope (one session, one folder, the whole host).
//!
//! Map:
//! - `mod.rs`      — the rule as the wire carries it ([`Rule`]) and its
//!   validation ([`RuleInput::validate`]).
//! - `store.rs`    — [`RuleStore`]: the rules in `rules.db` in the data dir
//!   (survives a restart and `kill -9`), hit counts.
//! - `shell.rs`    — a shell command split into the simple commands it
//!   chains (`;`, `&&`, `||`, `|`, `&`, `$(…)`, backticks, newlines), each as
//!   words.
//! - `matching.rs` — which rule answers a request: patterns per tool, scope
//!   precedence (session > folder > host), deny over allow, every part of a
//!   chained command.
//! - `agent_rules/` — the agents' own remembered rules (Claude Code's
//!   `permissions`, Codex's config and `.rules`, Gemini CLI's and Qwen
//!   Code's settings, trusted folders and policies), read-only, with where
//!   they live.
//! - `suggest.rs`  — the rule to prefill from a confirmation
//!   (`_meta["hangar/ruleSuggestion"]` on a pending tool call).
//! - `subject.rs`  — THE mapping of each agent's ACP tool call (kind, title,
//!   `rawInput`, locations) onto a tool and its subjects.

pub mod agent_rules;
pub mod matching;
pub mod shell;
pub mod store;
pub mod subject;
pub mod suggest;

use serde::{Deserialize, Serialize};

pub use matching::{decide, Verdict};
pub use store::{RuleStore, RuleStoreError};
pub use subject::{ToolRequest, ToolSubject};

/// `_meta` key on a tool call a rule answered: the rule's id.
pub const META_KEY: &str = "hangar/rule";

/// Where a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScopeKind {
    /// One session (`uri` is the session's URI).
    Session,
    /// Sessions working in a folder or below it (`uri` is its `file:` URI).
    Folder,
    /// Every session of this host (no `uri`).
    Host,
}

/// A rule's scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    /// Which kind.
    pub kind: ScopeKind,
    /// The session or the folder; absent for `host`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}

/// What kind of tool call a rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    /// A shell command; the pattern is a command prefix, word by word.
    Shell,
    /// A file edit (write, delete, move); the pattern is a path glob.
    Edit,
    /// A file read; the pattern is a path glob.
    Read,
    /// An MCP tool; the pattern is `server/tool` (either may be `*`).
    Mcp,
    /// A web fetch; the pattern is a domain (`*.example.com` for its
    /// subdomains too).
    Fetch,
}

/// What the host answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Pick the agent's allow option.
    Allow,
    /// Pick the agent's reject option.
    Deny,
}

/// A stored rule, as `x-hangar/rules` answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// Its id.
    pub id: String,
    /// Where it applies.
    pub scope: Scope,
    /// The kind of tool call.
    pub tool: Tool,
    /// What it matches (see [`Tool`]).
    pub pattern: String,
    /// Allow or deny.
    pub decision: Decision,
    /// Who made it (a client id, or what the client says).
    pub created_by: String,
    /// When (ISO 8601).
    pub created_at: String,
    /// How many requests it answered.
    pub hits: u64,
}

/// `x-hangar/ruleSave`'s params: a rule without its bookkeeping; with `id`
/// it changes that rule (keeping its `createdAt` and `hits`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuleInput {
    /// The rule to change; absent to add one.
    #[serde(default)]
    pub id: Option<String>,
    /// Where it applies.
    pub scope: Scope,
    /// The kind of tool call.
    pub tool: Tool,
    /// What it matches.
    pub pattern: String,
    /// Allow or deny.
    pub decision: Decision,
    /// Who made it; the connection's client id when absent.
    #[serde(default)]
    pub created_by: Option<String>,
    /// Accepted and ignored (the host keeps its own).
    #[serde(default)]
    pub created_at: Option<String>,
    /// Accepted and ignored (the host keeps its own).
    #[serde(default)]
    pub hits: Option<u64>,
}

/// Why a rule was refused: the field and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct InvalidRule {
    /// The offending field (`scope.uri`, `pattern`, …).
    pub field: &'static str,
    /// Why.
    pub reason: String,
}

fn invalid(field: &'static str, reason: impl Into<String>) -> InvalidRule {
    InvalidRule { field, reason: reason.into() }
}

impl RuleInput {
    /// Check the scope and the pattern; the pattern comes back trimmed.
    pub fn validate(&mut self) -> Result<(), InvalidRule> {
        match (self.scope.kind, self.scope.uri.as_deref()) {
            (ScopeKind::Host, Some(_)) => return Err(invalid("scope.uri", "a host-wide rule names no uri")),
            (ScopeKind::Session, None | Some("")) => {
                return Err(invalid("scope.uri", "a session rule needs the session's uri"))
            }
            (ScopeKind::Folder, None | Some("")) => {
                return Err(invalid("scope.uri", "a folder rule needs the folder's file: uri"))
            }
            (ScopeKind::Folder, Some(uri)) => {
                crate::resources::uri::file_uri_to_path(uri)
                    .map_err(|e| invalid("scope.uri", format!("not a file: uri of a folder: {e}")))?;
            }
            _ => {}
        }
        self.pattern = self.pattern.trim().to_owned();
        matching::check_pattern(self.tool, &self.pattern).map_err(|reason| invalid("pattern", reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(v: serde_json::Value) -> Result<RuleInput, serde_json::Error> {
        serde_json::from_value(v)
    }

    #[test]
    fn the_wire_shape_round_trips() {
        let rule = Rule {
            id: "r1".into(),
            scope: Scope { kind: ScopeKind::Folder, uri: Some("file:///w".into()) },
            tool: Tool::Shell,
            pattern: "npm test".into(),
            decision: Decision::Allow,
            created_by: "desktop".into(),
            created_at: "2026-11-28T05:00:00.000Z".into(),
            hits: 2,
        };
        let v = serde_json::to_value(&rule).unwrap();
        assert_eq!(
            v,
            json!({"id": "r1", "scope": {"kind": "folder", "uri": "file:///w"}, "tool": "shell",
                   "pattern": "npm test", "decision": "allow", "createdBy": "desktop",
                   "createdAt": "2026-11-28T05:00:00.000Z", "hits": 2})
        );
        let host = Scope { kind: ScopeKind::Host, uri: None };
        assert_eq!(serde_json::to_value(host).unwrap(), json!({"kind": "host"}));
    }

    #[test]
    fn bad_rules_are_refused_with_the_field() {
        let base = json!({"scope": {"kind": "host"}, "tool": "shell", "pattern": "npm test", "decision": "allow"});
        assert!(input(base.clone()).unwrap().validate().is_ok());
        let mut bad_tool = base.clone();
        bad_tool["tool"] = json!("teleport");
        assert!(input(bad_tool).is_err());
        let mut bad_decision = base.clone();
        bad_decision["decision"] = json!("maybe");
        assert!(input(bad_decision).is_err());
        let mut bad_scope = base.clone();
        bad_scope["scope"] = json!({"kind": "galaxy"});
        assert!(input(bad_scope).is_err());
        let cases = [
            (json!({"kind": "session"}), "pattern ok", "scope.uri"),
            (json!({"kind": "folder", "uri": "https://x"}), "npm test", "scope.uri"),
            (json!({"kind": "host", "uri": "file:///w"}), "npm test", "scope.uri"),
            (json!({"kind": "host"}), "   ", "pattern"),
            (json!({"kind": "host"}), "npm test && rm -rf /", "pattern"),
        ];
        for (scope, pattern, field) in cases {
            let mut v = base.clone();
            v["scope"] = scope;
            v["pattern"] = json!(pattern);
            let err = input(v).unwrap().validate().unwrap_err();
            assert_eq!(err.field, field, "{err}");
        }
    }
}
