//! Grant decisions: `resourceRequest` under the [`RequestPolicy`](super::RequestPolicy) (decided
//! here, or — for [`RequestPolicy::Ask`](super::RequestPolicy::Ask) — in two steps, [`Access::begin`]
//! then [`Access::settle`] once a client answered), the working-directory
//! check for `createSession`, and the extension methods
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

use super::file_ops::parse_uri;
use super::grants::Grant;
use super::policy::{canonicalize_lenient, Policy};
use super::uri::path_to_file_uri;
use crate::RpcError;

/// A `resourceRequest` that passed the checks and awaits a decision.
#[derive(Debug, Clone)]
pub struct PendingRequest {
    canonical: PathBuf,
    read: bool,
    write: bool,
    /// The request as a client would be asked it (canonical URI, explicit flags).
    pub ask: ResourceRequestParams,
}

/// What [`Access::begin`] found.
#[derive(Debug)]
pub enum RequestStep {
    /// Decided (granted and recorded, or already covered).
    Done(ResourceRequestResult),
    /// The policy says: ask a client, then [`Access::settle`].
    Ask(PendingRequest),
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
        Self {
            id: g.id,
            uri: path_to_file_uri(&g.path),
            read: g.read,
            write: g.write,
            created_at: g.created_at.clone(),
        }
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
}

impl Access {
    /// Grants recorded in `policy`'s store, decided by its request policy.
    pub fn new(policy: Arc<Policy>) -> Self {
        Self { policy }
    }

    /// `resourceRequest`, decided by the policy alone; `Ask` answers `-32009`.
    pub fn request(&self, p: &ResourceRequestParams) -> Result<ResourceRequestResult, RpcError> {
        match self.begin(p)? {
            RequestStep::Done(result) => Ok(result),
            RequestStep::Ask(pending) => self.settle(pending, false),
        }
    }

    /// Check a `resourceRequest` and decide it if the policy can without asking.
    /// No flags means read only.
    pub fn begin(&self, p: &ResourceRequestParams) -> Result<RequestStep, RpcError> {
        let path = parse_uri(&p.uri, "uri")?;
        let canonical = canonicalize_lenient(&path)?.path;
        if self.policy.is_never(&canonical) {
            return Err(RpcError::permission_denied("this path is never served", None));
        }
        let write = p.write == Some(true);
        let read = p.read == Some(true) || !write;
        let ask = ResourceRequestParams {
            channel: p.channel.clone(),
            meta: None,
            uri: path_to_file_uri(&canonical),
            read: read.then_some(true),
            write: write.then_some(true),
        };
        let pending = PendingRequest { canonical, read, write, ask };
        if self.policy.grants().allows(&pending.canonical, read, write) {
            return Ok(RequestStep::Done(ResourceRequestResult {}));
        }
        match self.policy.request_policy().decide(&pending.canonical) {
            Some(granted) => self.settle(pending, granted).map(RequestStep::Done),
            None => Ok(RequestStep::Ask(pending)),
        }
    }

    /// Record the grant if `granted`, else refuse with `-32009`.
    pub fn settle(&self, pending: PendingRequest, granted: bool) -> Result<ResourceRequestResult, RpcError> {
        if !granted {
            return Err(RpcError::permission_denied("resource request denied by host policy", None));
        }
        let store = self.policy.grants();
        store.grant(&pending.canonical, pending.read, pending.write).map_err(|e| RpcError::internal(e.to_string()))?;
        Ok(ResourceRequestResult {})
    }

    /// May `dir` become a session working directory (read and write inside)?
    /// Yes inside a browse root, an existing working directory or read+write
    /// grant, or where the policy would grant without asking; never for
    /// never-served paths. A refusal's `data.request` is the grant to ask for.
    pub fn check_working_dir(&self, dir: &std::path::Path) -> Result<(), RpcError> {
        let canonical = canonicalize_lenient(dir)?.path;
        if self.policy.is_never(&canonical) {
            return Err(RpcError::permission_denied("this folder is never served", None));
        }
        // Inside an existing working directory is covered too: that directory
        // passed `may_be_working_dir`, whose every reason covers its subfolders.
        if self.policy.may_be_working_dir(&canonical) {
            return Ok(());
        }
        let request = ResourceRequestParams {
            channel: ahp_types::ROOT_RESOURCE_URI.to_owned(),
            meta: None,
            uri: path_to_file_uri(&canonical),
            read: Some(true),
            write: Some(true),
        };
        Err(RpcError::permission_denied("working directory outside the allowed roots", Some(request)))
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
