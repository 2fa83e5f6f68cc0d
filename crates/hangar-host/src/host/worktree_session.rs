//! `createSession` with `_meta["hangar/worktree"]` (`{ "branch"?: string }`):
//! the session works in a new git worktree of its folder's repository, on
//! a new branch, with the repository's `.hangar/setup` run in it first; and
//! `disposeSession` with `_meta["hangar/worktree"]`
//! (`{ "remove": true, "force"?: bool }`): the worktree goes with the
//! session when nothing would be lost; likewise when the session is
//! archived (`dispatchAction` of `session/isArchivedChanged` with that
//! `_meta` in its params). The git work is in
//! [`crate::worktrees`]; this file reads the requests and records the
//! worktree in the session's `_meta["hangar/worktree"]`.

use std::sync::Arc;

use ahp_types::actions::SessionIsArchivedChangedAction;
use ahp_types::commands::DispatchActionParams;
use ahp_types::StateAction;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::engine::clock::new_id;
use crate::engine::{CreateSession, WORKTREE_META};
use crate::host::Host;
use crate::resources::uri::{file_uri_to_path, path_to_file_uri};
use crate::worktrees::{self, setup, Worktree, WorktreeError};
use crate::RpcError;

/// What a `createSession` asks of its worktree.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorktreeRequest {
    /// The new branch's name; `hangar/<session id>` (made unique) if absent.
    #[serde(default)]
    pub branch: Option<String>,
}

/// What a `disposeSession` asks of the session's worktree.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemovalRequest {
    /// Remove the worktree with the session.
    #[serde(default)]
    pub remove: bool,
    /// Even with uncommitted changes or unmerged commits.
    #[serde(default)]
    pub force: bool,
}

/// The `_meta["hangar/worktree"]` of a request, read as `T`.
pub fn worktree_meta<T: for<'de> Deserialize<'de>>(meta: Option<&Map<String, Value>>) -> Result<Option<T>, RpcError> {
    let Some(raw) = meta.and_then(|m| m.get(WORKTREE_META)) else { return Ok(None) };
    serde_json::from_value(raw.clone())
        .map(Some)
        .map_err(|e| RpcError::invalid_params("_meta", format!("{WORKTREE_META}: {e}")))
}

/// A worktree error as the client sees it: the request could not be met
/// (-32602 with the reason), or the host failed.
fn rpc_error(e: WorktreeError) -> RpcError {
    match e {
        WorktreeError::Io(_) => RpcError::internal(format!("{WORKTREE_META}: {e}")),
        other => RpcError::invalid_params("_meta", format!("{WORKTREE_META}: {other}")),
    }
}

impl Host {
    /// Make session `req.uri` in a new worktree of its one working
    /// directory's repository.
    pub fn worktree_session(self: &Arc<Self>, mut req: CreateSession, ask: WorktreeRequest) -> Result<(), RpcError> {
        if self.with_engine_locked(|e| e.channel(&req.uri).is_some()) {
            return Err(RpcError::session_already_exists(&req.uri));
        }
        let folder = match req.working_directories.as_deref() {
            Some([one]) => {
                file_uri_to_path(one).map_err(|e| RpcError::invalid_params("workingDirectories", e.to_string()))?
            }
            _ => {
                return Err(RpcError::invalid_params(
                    "workingDirectories",
                    format!("{WORKTREE_META}: a worktree session has exactly one working directory"),
                ))
            }
        };
        let id = &new_id()[..8];
        let hint = branch_hint(&req.uri);
        let dest_root = self.config.worktrees_dir.join(format!("worktree-{id}"));
        let added = worktrees::add::add(&folder, ask.branch.as_deref(), hint, &dest_root).map_err(rpc_error)?;
        let mut worktree = added.worktree;
        let log = self.config.data_dir.join("worktree-setup").join(format!("{id}.log"));
        worktree.setup = setup::run(&worktree.path, &worktree.repository, &log, setup::SETUP_TIMEOUT);
        if let Some(run) = worktree.setup.as_ref().filter(|r| !r.ok) {
            tracing::warn!(session = req.uri, log = %run.log.display(), "worktree setup failed: {run:?}");
        }
        req.working_directories = Some(vec![path_to_file_uri(&added.dir)]);
        let record = serde_json::to_value(&worktree).map_err(|e| RpcError::internal(e.to_string()))?;
        req.meta = Some(Map::from_iter([(WORKTREE_META.to_owned(), record)]));
        let created = self.with_engine(|e| e.create_session(req));
        if created.is_err() {
            worktrees::remove::discard(&worktree);
        }
        created
    }

    /// Dispose of `uri`; with `ask.remove`, its worktree goes too, unless
    /// that would lose edits or commits and `ask.force` is not set (then
    /// nothing happens and the reason is the error).
    pub fn dispose_worktree_session(self: &Arc<Self>, uri: &str, ask: RemovalRequest) -> Result<(), RpcError> {
        if !ask.remove {
            return self.with_engine(|e| e.dispose_session(uri));
        }
        let worktree = self.session_worktree(uri)?;
        if !ask.force {
            worktrees::remove::check(&worktree).map_err(rpc_error)?;
        }
        self.with_engine(|e| e.dispose_session(uri))?;
        worktrees::remove::remove(&worktree, ask.force).map(drop).map_err(|e| {
            RpcError::internal(format!(
                "the session is disposed, but its worktree at {} was not removed: {e}",
                worktree.path.display()
            ))
        })
    }

    /// For a `dispatchAction` archiving a session with
    /// `_meta: {"hangar/worktree": {"remove": true, "force"?: bool}}` in
    /// its params: the worktree to remove once the archive is applied, or
    /// the reason to reject the action (removal would lose edits or
    /// commits without `force`, no worktree, a malformed `_meta`). `None`
    /// for any other action.
    pub fn archive_removal(
        &self,
        p: &DispatchActionParams,
        raw: &serde_json::value::RawValue,
    ) -> Result<Option<(Worktree, bool)>, String> {
        let StateAction::SessionIsArchivedChanged(SessionIsArchivedChangedAction { is_archived: true }) = &p.action
        else {
            return Ok(None);
        };
        let params: Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        let meta = params.get("_meta").and_then(Value::as_object);
        let ask = match worktree_meta::<RemovalRequest>(meta).map_err(|e| e.message)? {
            Some(ask) if ask.remove => ask,
            _ => return Ok(None),
        };
        let worktree = self.session_worktree(&p.channel).map_err(|e| e.message)?;
        if !ask.force {
            worktrees::remove::check(&worktree).map_err(|e| format!("{WORKTREE_META}: {e}"))?;
        }
        Ok(Some((worktree, ask.force)))
    }

    /// Remove the worktree of `uri`, archived just now.
    pub fn remove_archived_worktree(&self, uri: &str, (worktree, force): (Worktree, bool)) {
        if let Err(e) = worktrees::remove::remove(&worktree, force) {
            tracing::warn!(session = uri, path = %worktree.path.display(), "the session is archived, but its worktree was not removed: {e}");
        }
    }

    /// The worktree `uri` works in.
    fn session_worktree(&self, uri: &str) -> Result<Worktree, RpcError> {
        let meta = self.with_engine_locked(|e| e.session_state(uri).map(|s| s.meta.clone()));
        let meta = meta.ok_or_else(|| RpcError::session_not_found(uri))?;
        let record = meta.as_ref().and_then(|m| m.get(WORKTREE_META)).ok_or_else(|| {
            RpcError::invalid_params("_meta", format!("{WORKTREE_META}: {uri} does not work in a worktree of its own"))
        })?;
        serde_json::from_value(record.clone()).map_err(|e| RpcError::internal(format!("{WORKTREE_META} of {uri}: {e}")))
    }
}

/// The name a new worktree's branch is made from (`hangar/<hint>`): the
/// session URI's last segment, and of a long generated id (as clients
/// mint them) its first 8 characters, as git shows a short commit id.
fn branch_hint(uri: &str) -> &str {
    let last = uri.rsplit(['/', ':']).next().unwrap_or_default();
    let generated = last.len() > 12 && last.chars().all(|c| c.is_ascii_hexdigit());
    if generated {
        last.get(..8).unwrap_or(last)
    } else {
        last
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_generated_session_id_makes_a_short_branch_name() {
        assert_eq!(super::branch_hint("ahp-session:/ac866a0ff00261a4b94a70b35b04b166"), "ac866a0f");
        assert_eq!(super::branch_hint("ahp-session:/wt-one"), "wt-one");
        assert_eq!(super::branch_hint("ahp-session:/fix-the-parser-in-the-long-run"), "fix-the-parser-in-the-long-run");
    }
}
