//! `resourceRequest` (the headless grant decision) and the extension methods
//! `x-hangar/listGrants` / `x-hangar/revokeGrant`.
//!
//! Wire shapes of the extensions:
//! - `x-hangar/listGrants {channel}` → `{items: [{id, uri, read, write, createdAt}]}`
//! - `x-hangar/revokeGrant {channel, id?: number, uri?: string}` → `{}`; `-32008`
//!   when no grant matches, `-32602` when neither `id` nor `uri` is given.

use std::path::PathBuf;
use std::sync::Arc;

use ahp_types::commands::{ResourceRequestParams, ResourceRequestResult};
use serde::{Deserialize, Serialize};

use super::grants::Grant;
use super::ops::parse_uri;
use super::policy::{canonicalize_lenient, Policy};
use super::uri::path_to_file_uri;
use crate::RpcError;

/// How `resourceRequest` is decided when no user is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestPolicy {
    /// Grant every request (still never `/proc`, `/sys`, `/dev` or the data dir).
    GrantAll,
    /// Deny every request with `-32009`.
    DenyAll,
    /// Grant requests for paths inside these folders (compared canonically); deny others.
    GrantUnder(Vec<PathBuf>),
}

impl RequestPolicy {
    /// The default for `hangar serve`: grant under the user's home directory.
    pub fn default_for_home() -> Self {
        match std::env::var_os("HOME") {
            Some(home) if !home.is_empty() => RequestPolicy::GrantUnder(vec![PathBuf::from(home)]),
            _ => RequestPolicy::DenyAll,
        }
    }
}

/// One grant on the wire (`x-hangar/listGrants`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantInfo {
    /// Grant id, for `x-hangar/revokeGrant`.
    pub id: i64,
    /// `file:` URI of the granted root.
    pub uri: String,
    /// Read granted.
    pub read: bool,
    /// Write granted.
    pub write: bool,
    /// When the grant was first made (RFC 3339).
    pub created_at: String,
}

impl From<&Grant> for GrantInfo {
    fn from(g: &Grant) -> Self {
        Self { id: g.id, uri: path_to_file_uri(&g.path), read: g.read, write: g.write, created_at: g.created_at.clone() }
    }
}

/// Result of `x-hangar/listGrants`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListGrantsResult {
    /// All grants, oldest first.
    pub items: Vec<GrantInfo>,
}

/// Params of `x-hangar/revokeGrant`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RevokeGrantParams {
    /// Channel (ignored; root).
    #[serde(default)]
    pub channel: Option<String>,
    /// Grant id from `x-hangar/listGrants`.
    #[serde(default)]
    pub id: Option<i64>,
    /// Or: the granted URI exactly.
    #[serde(default)]
    pub uri: Option<String>,
}

/// Decides and records grants.
pub struct Access {
    policy: Arc<Policy>,
    request_policy: RequestPolicy,
}

impl Access {
    /// Grants recorded in `policy`'s store, decided by `request_policy`.
    pub fn new(policy: Arc<Policy>, request_policy: RequestPolicy) -> Self {
        Self { policy, request_policy }
    }

    /// `resourceRequest`.
    pub fn request(&self, p: &ResourceRequestParams) -> Result<ResourceRequestResult, RpcError> {
        let path = parse_uri(&p.uri, "uri")?;
        let canonical = canonicalize_lenient(&path)?.path;
        if self.policy.is_never(&canonical) {
            return Err(RpcError::permission_denied("this path is never served", None));
        }
        let (mut read, write) = (p.read == Some(true), p.write == Some(true));
        if !read && !write {
            read = true;
        }
        let granted = match &self.request_policy {
            RequestPolicy::GrantAll => true,
            RequestPolicy::DenyAll => false,
            RequestPolicy::GrantUnder(roots) => roots
                .iter()
                .filter_map(|r| std::fs::canonicalize(r).ok())
                .any(|r| canonical.starts_with(r)),
        };
        if !granted {
            return Err(RpcError::permission_denied("resource request denied by host policy", None));
        }
        let store = self.policy.grants();
        if !store.allows(&canonical, read, write) {
            store.grant(&canonical, read, write).map_err(|e| RpcError::internal(e.to_string()))?;
        }
        Ok(ResourceRequestResult {})
    }

    /// `x-hangar/listGrants`.
    pub fn list_grants(&self) -> ListGrantsResult {
        ListGrantsResult { items: self.policy.grants().list().iter().map(GrantInfo::from).collect() }
    }

    /// `x-hangar/revokeGrant`.
    pub fn revoke_grant(&self, p: &RevokeGrantParams) -> Result<serde_json::Value, RpcError> {
        let store = self.policy.grants();
        let removed = match (p.id, &p.uri) {
            (Some(id), _) => store.revoke_id(id),
            (None, Some(uri)) => {
                let path = parse_uri(uri, "uri")?;
                let canonical = canonicalize_lenient(&path).map(|c| c.path).unwrap_or(path);
                store.revoke_path(&canonical)
            }
            (None, None) => return Err(RpcError::invalid_params("id", "give `id` or `uri`")),
        }
        .map_err(|e| RpcError::internal(e.to_string()))?;
        match removed {
            Some(_) => Ok(serde_json::json!({})),
            None => Err(RpcError::not_found("no such grant")),
        }
    }
}
