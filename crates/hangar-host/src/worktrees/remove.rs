//! Taking a session's worktree away (`disposeSession` with
//! `_meta["hangar/worktree"]: { "remove": true, "force"?: bool }`). Without
//! `force`, a worktree with uncommitted changes, or whose branch has
//! commits whose changes its base branch does not have, is refused with the
//! reason. The branch goes with the worktree only when every change of it
//! is in its base (merged, squash-merged or cherry-picked: see
//! [`super::merged`]), as GitHub deletes a pull request's branch after a
//! squash merge; a forced removal of a branch with work of its own keeps
//! it, so its commits stay reachable.

use std::path::Path;

use super::{git, merged, Worktree, WorktreeError};

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

/// Commits on the worktree's branch whose changes its base does not have.
fn unmerged(wt: &Worktree) -> Result<u64, WorktreeError> {
    let base = if wt.base == wt.base_commit { wt.base.clone() } else { format!("refs/heads/{}", wt.base) };
    let branch = format!("refs/heads/{}", wt.branch);
    merged::unmerged(&wt.repository, &base, &branch).map_err(|e| match e {
        WorktreeError::Git { reason, .. } => {
            WorktreeError::Git { what: format!("telling whether {} is merged into {}", wt.branch, wt.base), reason }
        }
        other => other,
    })
}

/// Remove `wt` (after [`check`], or with `force`): `git worktree remove`,
/// then its branch when every change of it is in its base, then the folder the host
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worktrees::add::add;
    use crate::worktrees::merged::tests::{commit, repository, squash_merge};

    fn has_branch(ws: &Path, branch: &str) -> bool {
        !git(ws, &["branch", "--list", branch]).unwrap().is_empty()
    }

    #[test]
    fn a_squash_merged_branch_is_removed_with_its_worktree_and_one_with_more_work_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        repository(&ws);
        let wt = add(&ws, Some("topic"), "topic", &tmp.path().join("wt-1")).unwrap().worktree;
        commit(&wt.path, "b.txt", "b\n");
        commit(&wt.path, "c.txt", "c\n");
        let two = check(&wt).unwrap_err();
        assert!(matches!(two, WorktreeError::Unmerged { count: 2, .. }), "{two}");
        commit(&ws, "main.txt", "main moved on\n");
        squash_merge(&ws, "topic");
        check(&wt).unwrap();
        assert_eq!(remove(&wt, false).unwrap(), Removed { branch_deleted: true });
        assert!(!wt.path.exists());
        assert!(!has_branch(&ws, "topic"), "every change of it is in main: the branch goes");

        let more = add(&ws, Some("more"), "more", &tmp.path().join("wt-2")).unwrap().worktree;
        commit(&more.path, "d.txt", "d\n");
        squash_merge(&ws, "more");
        commit(&more.path, "e.txt", "e\n");
        let one = check(&more).unwrap_err();
        assert!(matches!(one, WorktreeError::Unmerged { count: 1, .. }), "{one}");
        assert_eq!(remove(&more, true).unwrap(), Removed { branch_deleted: false });
        assert_eq!(git(&ws, &["log", "-1", "--format=%s", "more"]).unwrap(), "e.txt: e", "the branch keeps its work");
    }
}
