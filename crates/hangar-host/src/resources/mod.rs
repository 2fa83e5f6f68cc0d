//! The AHP filesystem surface: `resource*` commands, grants, watches and
//! `@`-mention completions, behind one [`ResourceService`].
//!
//! Files, one job each:
//! - `mod.rs` — [`ResourceService`]: opening, method dispatch, the public API.
//! - [`uri`] — `file:` URI ⇄ absolute path; refuses other schemes, `..`, encoded separators and NUL.
//! - [`policy`] — canonicalization and the access decision (working dirs, grants, browse roots).
//! - [`file_ops`] — resourceRead/Write/List/Copy/Move/Delete/Resolve/Mkdir.
//! - [`access`] — resourceRequest ([`RequestPolicy`]) and `x-hangar/listGrants` / `x-hangar/revokeGrant`.
//! - [`grants`] — grants persisted in SQLite (`resource_grants` in `hangar.db`).
//! - [`home`] — the user's home and the credential folders under it no grant opens
//!   (the defaults `config` builds on; this module never imports `config`); for
//!   tests, `FakeHome`, a home with a private key in `.ssh`.
//! - [`meta`] — etags, ISO 8601 times, content types.
//! - [`watch`] — `createResourceWatch` batches from a notify watcher.
//! - [`mention_completions`] — per-root file index kept fresh by notify; the `completions` answer.
//! - [`fuzzy`] — fuzzy scoring of paths.
//! - `tests.rs` — end-to-end tests through [`ResourceService::handle`].
//!
//! Error codes (see `docs/ahp-host-notes.md` §2.4, §6.4):
//! - `-32009` PermissionDenied: outside every allowed root (with `data.request`,
//!   the grant that would allow it); other schemes, `..`, remote hosts, device
//!   files/fifos/sockets, `/proc` `/sys` `/dev`, the data dir and the protected
//!   credential folders (`HostConfig::protected_paths`), files over the
//!   32 MiB read cap, deleting or moving an allowed root (no `data.request`: no
//!   grant helps); a denied `resourceRequest`.
//! - `-32008` NotFound: missing file or directory (only after access is allowed,
//!   so absence outside the roots is not revealed).
//! - `-32010` AlreadyExists: `createOnly`, `failIfExists`, `resourceMkdir` on a file.
//! - `-32011` Conflict: `ifMatch` differs from the current `resourceResolve` etag
//!   (or the file is gone).
//! - `-32602` InvalidParams: malformed params or URIs, encoded separators, a
//!   position past the end, reading/listing the wrong kind of entry, deleting a
//!   non-empty directory without `recursive` (field `recursive`).
//!
//! Integration notes:
//! - Working directories are trust roots: whatever the callback returns is
//!   readable and writable (never-served paths aside). So every working
//!   directory a client proposes goes through
//!   [`ResourceService::check_working_dir`] first (`createSession` does).
//! - `resourceRequest` under [`RequestPolicy::Ask`] needs a client to ask:
//!   [`ResourceService::begin_request`] returns [`RequestStep::Ask`], the
//!   caller asks, then [`ResourceService::settle_request`] records the answer.
//! - [`ResourceService::completions`] and [`ResourceService::watch`] are
//!   blocking (the first completions query on a root walks it); call them from
//!   `spawn_blocking`. [`watch::changed_action`] wraps a batch as the
//!   `resourceWatch/changed` action; [`WatchHandle::state`] is the channel's
//!   snapshot state.
//! - [`bench_completions`] times completions on a generated tree (for a bench).
//!
//! Platform: Unix only (raw-byte paths, `O_NOFOLLOW`).

pub mod access;
pub mod file_ops;
pub mod fuzzy;
pub mod grants;
pub mod home;
pub mod mention_completions;
pub mod meta;
pub mod policy;
pub mod uri;
pub mod watch;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ahp_types::commands::{CompletionsParams, CompletionsResult, CreateResourceWatchParams};
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use access::{GrantInfo, ListGrantsResult, PendingRequest, RequestStep, RevokeGrantParams};
pub use file_ops::{MAX_LIST_ENTRIES, MAX_READ_BYTES, MAX_WRITE_BYTES};
pub use grants::GrantStoreError;
pub use home::{credential_dirs, home_dir};
pub use mention_completions::{bench_completions, generate_tree, CompletionsBench};
pub use policy::{BadRequestPolicy, RequestPolicy};
pub use watch::{changed_action, OnChange, WatchHandle};

/// The methods [`ResourceService::handle`] serves.
pub const METHODS: &[&str] = &[
    "resourceRead",
    "resourceWrite",
    "resourceList",
    "resourceCopy",
    "resourceMove",
    "resourceDelete",
    "resourceResolve",
    "resourceMkdir",
    "resourceRequest",
    "x-hangar/listGrants",
    "x-hangar/revokeGrant",
];

/// Why [`ResourceService::open`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ResourceServiceError {
    /// The grant store could not be opened.
    #[error(transparent)]
    Grants(#[from] GrantStoreError),
}

struct Inner {
    ops: file_ops::Ops,
    access: access::Access,
}

/// The host's filesystem surface. Cheap to clone.
#[derive(Clone)]
pub struct ResourceService {
    inner: Arc<Inner>,
    policy: Arc<policy::Policy>,
    completions: Arc<mention_completions::Completions>,
}

fn parse<T: DeserializeOwned>(params: Value) -> Result<T, crate::RpcError> {
    serde_json::from_value(params).map_err(|e| crate::RpcError::invalid_params("params", e.to_string()))
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<Value, crate::RpcError> {
    serde_json::to_value(value).map_err(|e| crate::RpcError::internal(format!("serialize result: {e}")))
}

impl ResourceService {
    /// Open the service. `data_dir/hangar.db` holds the grants (WAL mode, table
    /// `resource_grants`); `browse_roots` are where `resourceList` is allowed for
    /// folder pickers; `working_dirs` lists the sessions' working directories
    /// (read/write allowed inside); `request_policy` decides `resourceRequest`;
    /// `protected` folders (credentials) are never served, like the data dir.
    pub fn open(
        data_dir: &Path,
        browse_roots: Vec<PathBuf>,
        working_dirs: Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync>,
        request_policy: RequestPolicy,
        protected: &[PathBuf],
    ) -> Result<Self, ResourceServiceError> {
        let store = Arc::new(grants::GrantStore::open(data_dir)?);
        let policy =
            Arc::new(policy::Policy::new(browse_roots, working_dirs, store, data_dir, protected, request_policy));
        let inner = Inner { ops: file_ops::Ops::new(policy.clone()), access: access::Access::new(policy.clone()) };
        let completions = Arc::new(mention_completions::Completions::excluding(policy.never_served().to_vec()));
        Ok(Self { inner: Arc::new(inner), policy, completions })
    }

    /// True if `method` is one [`Self::handle`] serves.
    pub fn serves(method: &str) -> bool {
        METHODS.contains(&method)
    }

    /// Handle one request; `params` are the raw JSON params (with `channel`).
    /// File system work runs on tokio's blocking pool.
    pub async fn handle(&self, method: &str, params: Value) -> Result<Value, crate::RpcError> {
        if !Self::serves(method) {
            return Err(crate::RpcError::method_not_found(method));
        }
        let inner = self.inner.clone();
        let method = method.to_owned();
        tokio::task::spawn_blocking(move || inner.dispatch(&method, params))
            .await
            .map_err(|_| crate::RpcError::internal("resource operation panicked or was cancelled"))?
    }

    /// Check a `resourceRequest` (raw params) and decide it when the policy
    /// can without asking a client.
    pub async fn begin_request(&self, params: Value) -> Result<RequestStep, crate::RpcError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || inner.access.begin(&parse(params)?))
            .await
            .map_err(|_| crate::RpcError::internal("resource request panicked or was cancelled"))?
    }

    /// Record a client's answer to a [`RequestStep::Ask`] (`-32009` when not granted).
    pub async fn settle_request(&self, pending: PendingRequest, granted: bool) -> Result<Value, crate::RpcError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || to_json(&inner.access.settle(pending, granted)?))
            .await
            .map_err(|_| crate::RpcError::internal("resource request panicked or was cancelled"))?
    }

    /// The canonical paths never served, whatever the grants (credential
    /// folders, the data dir, `/proc`, `/sys`, `/dev`): agents' `fs/*`
    /// requests and files attached to prompts honour them too.
    pub fn never_served(&self) -> &[PathBuf] {
        self.policy.never_served()
    }

    /// May `dir` (an existing folder) become a session working directory?
    /// `-32009` (with `data.request` when a grant would help) if not.
    pub fn check_working_dir(&self, dir: &Path) -> Result<(), crate::RpcError> {
        self.inner.access.check_working_dir(dir)
    }

    /// Start a watch (read access required); `on_change` gets non-empty,
    /// debounced batches. Dropping the handle stops it.
    pub fn watch(
        &self,
        params: CreateResourceWatchParams,
        on_change: OnChange,
    ) -> Result<WatchHandle, crate::RpcError> {
        watch::start(self.policy.clone(), params, on_change)
    }

    /// `@`-mention completions over `roots` (the session's working
    /// directories; those the policy no longer trusts as one are skipped).
    /// Blocking: the first query on a root builds its index; later ones only rank.
    pub fn completions(
        &self,
        roots: &[PathBuf],
        params: &CompletionsParams,
    ) -> Result<CompletionsResult, crate::RpcError> {
        let trusted = self.policy.working_dirs();
        let roots: Vec<PathBuf> = roots
            .iter()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .filter(|r| trusted.iter().any(|w| r.starts_with(w)))
            .collect();
        self.completions.query(&roots, params)
    }
}

impl Inner {
    fn dispatch(&self, method: &str, params: Value) -> Result<Value, crate::RpcError> {
        match method {
            "resourceRead" => to_json(&self.ops.read(&parse(params)?)?),
            "resourceWrite" => to_json(&self.ops.write(&parse(params)?)?),
            "resourceList" => to_json(&self.ops.list(&parse(params)?)?),
            "resourceCopy" => to_json(&self.ops.copy(&parse(params)?)?),
            "resourceMove" => to_json(&self.ops.rename(&parse(params)?)?),
            "resourceDelete" => to_json(&self.ops.delete(&parse(params)?)?),
            "resourceResolve" => to_json(&self.ops.resolve(&parse(params)?)?),
            "resourceMkdir" => to_json(&self.ops.mkdir(&parse(params)?)?),
            "resourceRequest" => to_json(&self.access.request(&parse(params)?)?),
            "x-hangar/listGrants" => to_json(&self.access.list_grants()),
            "x-hangar/revokeGrant" => self.access.revoke_grant(&parse(params)?),
            other => Err(crate::RpcError::method_not_found(other)),
        }
    }
}
