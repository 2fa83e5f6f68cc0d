//! Taking a session's worktree away (`disposeSession` with
//! `_meta["hangar/worktree"]: { "remove": true, "force"?: bool }`). Without
//! `force`, a worktree with uncommitted changes, or whose branch has
//! commits its base branch does not have, is refused with the reason. The
//! branch goes with the worktree only when it has nothing unmerged; a
//! forced removal keeps it, so its commits stay reachable.

use std::path::Path;

use super::{git, Worktree, WorktreeError};

/// How many changed paths a refusal names.
const NAMED: usize = 5;

/// What [`remove`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Removed {
    /// Whether the branch was deleted too.
    pub branch_deleted: bool,
}

/// The uncommitted changes of the checkout at `dir` (untracked files
/// included, ignored ones not), the first few named: `None` when clean.
pub fn uncommitted(dir: &Path) -> Result<Option<String>, WorktreeError> {
    let status = git(dir, &["--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=normal"])?;
    let files: Vec<&str> = status.lines().filter_map(|l| l.get(3..)).collect();
    if files.is_empty() {
        return Ok(None);
    }
    let mut named = files.iter().take(NAMED).copied().collect::<Vec<_>>().join(", ");
    if files.len() > NAMED {
        named.push_str(&format!(" and {} more", files.len() - NAMED));
    }
    Ok(Some(named))
}

/// Refuse when removing `wt` would lose edits or commits.
pub fn check(wt: &Worktree) -> Result<(), WorktreeError> {
    if wt.path.is_dir() {
        if let Some(files) = uncommitted(&wt.path)? {
            return Err(WorktreeError::Uncommitted { path: wt.path.clone(), files });
        }
    }
    match unmerged(wt)? {
        0 => Ok(()),
        count => Err(WorktreeError::Unmerged { branch: wt.branch.clone(), base: wt.base.clone(), count }),
    }
}

/// Commits on the worktree's branch that its base does not have.
fn unmerged(wt: &Worktree) -> Result<u64, WorktreeError> {
    let base = if wt.base == wt.base_commit { wt.base.clone() } else { format!("refs/heads/{}", wt.base) };
    let range = format!("{base}..refs/heads/{}", wt.branch);
    let count = git(&wt.repository, &["rev-list", "--count", &range]).map_err(|e| match e {
        WorktreeError::Git { reason, .. } => {
            WorktreeError::Git { what: format!("telling whether {} is merged into {}", wt.branch, wt.base), reason }
        }
        other => other,
    })?;
    Ok(count.parse().unwrap_or(u64::MAX))
}

/// Remove `wt` (after [`check`], or with `force`): `git worktree remove`,
/// then its branch when nothing on it is unmerged, then the folder the host
/// made for it.
pub fn remove(wt: &Worktree, force: bool) -> Result<Removed, WorktreeError> {
    let path = wt.path.to_string_lossy();
    if wt.path.is_dir() {
        let mut args = vec!["worktree", "remove"];
        if force {
            args.push("--force");
        }
        args.push(&path);
        git(&wt.repository, &args)?;
    } else {
        git(&wt.repository, &["worktree", "prune"])?;
    }
    let branch_deleted =
        unmerged(wt).is_ok_and(|n| n == 0) && git(&wt.repository, &["branch", "-D", &wt.branch]).is_ok();
    if let Some(parent) = wt.path.parent() {
        // The host's `worktree-<id>` folder, empty now.
        let _ = std::fs::remove_dir(parent);
    }
    Ok(Removed { branch_deleted })
}

/// Undo a worktree just made for a session that could not be created.
pub fn discard(wt: &Worktree) {
    if let Err(e) = remove(wt, true) {
        tracing::warn!(path = %wt.path.display(), "removing an unused worktree: {e}");
    }
}
