//! The approval rules over AHP (`crate::rules`; the wire contract is in
//! docs/host.md, "Approval rules"):
//!
//! - `x-hangar/rules` `{ scope?, folder? }` → `{ rules: [rule], agentRules,
//!   agentRuleErrors? }`: every rule, oldest first; with `scope` (`{ kind,
//!   uri? }`) only the rules of that scope (and that `uri` when given); the
//!   agents' own rules (`crate::rules::agent_rules`) of the host's home and
//!   of `folder` (a `file:` URI) when given. When the host found `rules.db` unreadable
//!   at start and moved it aside, `movedAside` names where it went.
//! - `x-hangar/ruleSave` `rule` → `{ id }`: adds a rule (no `id`) or changes
//!   one (with `id`; its `createdAt` and `hits` are kept). A bad `tool`,
//!   `decision`, `scope` or `pattern`, or an unknown `id`, is `-32602` with
//!   the reason.
//! - `x-hangar/ruleDelete` `{ id }` → `{}`; an unknown `id` is `-32602`.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::host::Host;
use crate::rules::{RuleInput, RuleStoreError, ScopeKind};
use crate::RpcError;

/// `x-hangar/rules`' params.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesParams {
    /// Only this scope's rules.
    #[serde(default)]
    pub scope: Option<ScopeFilter>,
    /// A folder (`file:` URI) whose agents' own project rules to list too.
    #[serde(default)]
    pub folder: Option<String>,
}

/// A scope to filter by: its kind, and optionally its `uri`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeFilter {
    /// `session`, `folder` or `host`.
    pub kind: ScopeKind,
    /// The session or folder.
    #[serde(default)]
    pub uri: Option<String>,
}

/// `x-hangar/ruleDelete`'s params.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleIdParams {
    /// The rule.
    pub id: String,
}

fn store_error(e: RuleStoreError) -> RpcError {
    match e {
        RuleStoreError::UnknownRule(id) => RpcError::invalid_params("id", format!("no rule {id}")),
        other => RpcError::internal(other.to_string()),
    }
}

/// `x-hangar/rules`.
pub fn list(host: &Host, p: Option<RulesParams>) -> Result<Value, RpcError> {
    let p = p.unwrap_or_default();
    let folder = match &p.folder {
        Some(uri) => Some(
            crate::resources::uri::file_uri_to_path(uri)
                .map_err(|e| RpcError::invalid_params("folder", e.to_string()))?,
        ),
        None => None,
    };
    let mut rules = host.rules.list().map_err(store_error)?;
    if let Some(f) = p.scope {
        rules.retain(|r| r.scope.kind == f.kind && (f.uri.is_none() || r.scope.uri == f.uri));
    }
    let home = host.config.customization_home.as_deref();
    let (agent_rules, agent_errors) = crate::rules::agent_rules::agent_rules(home, folder.as_deref());
    let mut result = json!({ "rules": rules, "agentRules": agent_rules });
    if let (false, Some(obj)) = (agent_errors.is_empty(), result.as_object_mut()) {
        obj.insert("agentRuleErrors".to_owned(), json!(agent_errors));
    }
    if let (Some(aside), Some(obj)) = (host.rules.moved_aside(), result.as_object_mut()) {
        obj.insert("movedAside".to_owned(), json!(aside.display().to_string()));
    }
    Ok(result)
}

/// `x-hangar/ruleSave`.
pub fn save(host: &Host, client: &str, mut rule: RuleInput) -> Result<Value, RpcError> {
    rule.validate().map_err(|e| RpcError::invalid_params(e.field, e.reason))?;
    let saved = host.rules.save(rule, client).map_err(store_error)?;
    Ok(json!({ "id": saved.id }))
}

/// `x-hangar/ruleDelete`.
pub fn delete(host: &Host, p: &RuleIdParams) -> Result<Value, RpcError> {
    host.rules.delete(&p.id).map_err(store_error)?;
    Ok(json!({}))
}
