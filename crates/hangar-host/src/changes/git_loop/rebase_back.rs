//! A rebase merge back: the session's branch rebased onto the folder's
//! branch in the session's worktree (the user's own `git rebase`), so the
//! folder's branch can then fast-forward to it. Checked first without
//! writing anything: each commit `git rebase` would replay is merged in
//! the object store with `git merge-tree --write-tree --merge-base`, so a
//! conflict is answered with its files and blocks before the worktree is
//! touched. Should git still stop (a `pre-rebase` hook, a conflict the
//! check could not foresee), the rebase is aborted: nothing is left half
//! done.

use super::command::{self, git};
use super::merge_back::{check_merge, must_be_clean};
use super::GitLoopError;
use crate::worktrees::Worktree;

/// Rebase `wt`'s branch onto `into` (nothing to do when `into` is already
/// its ancestor: `ff`).
pub fn rebase(wt: &Worktree, into: &str, ff: bool) -> Result<(), GitLoopError> {
    if ff {
        return Ok(());
    }
    must_be_clean(&wt.path, &format!("commit them in the session before rebasing {} onto {into}", wt.branch))?;
    let onto = format!("refs/heads/{into}");
    let range = format!("{onto}..refs/heads/{}", wt.branch);
    let commits = git(&wt.repository, &["rev-list", "--reverse", "--no-merges", &range])?;
    let mut tree = onto.clone();
    for commit in commits.lines() {
        let base = format!("--merge-base={commit}^");
        tree = check_merge(&wt.repository, &[&base, &tree, commit], into, &wt.branch)?;
    }
    let said = command::run("git", &wt.path, &["rebase", "--no-autostash", &onto], command::TIMEOUT)?;
    if said.ok {
        return Ok(());
    }
    let stopped = git(&wt.path, &["diff", "--name-only", "--diff-filter=U"]).unwrap_or_default();
    let _ = command::run("git", &wt.path, &["rebase", "--abort"], command::TIMEOUT);
    let files: Vec<String> = stopped.lines().map(str::to_owned).collect();
    if files.is_empty() {
        return Err(GitLoopError::Refused(format!("git rebase failed: {}", said.both)));
    }
    Err(GitLoopError::Conflict { into: into.to_owned(), files, theirs: wt.branch.clone(), detail: Vec::new() })
}
