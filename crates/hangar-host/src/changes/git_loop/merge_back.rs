//! `mergeBack`: a worktree session's branch merged into the branch checked
//! out in the folder the worktree was made from, with the user's own `git`
//! there (their hooks and identity), in the mode asked: a fast-forward
//! when possible else a merge commit (the default), `ff-only`, `merge`
//! (always a merge commit), `squash` (one commit, `squash.rs`) or `rebase`
//! (the branch rebased onto the folder's, then a fast-forward,
//! `rebase_back.rs`). Never forced: the original folder must be clean, and
//! a merge that would conflict is found with `git merge-tree --write-tree`
//! before anything is written, so the folder is left exactly as it was and
//! the conflicting files are named, each with its conflicting blocks
//! (`conflict_hunks.rs`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::command::{self, git};
use super::push::current_branch;
use super::{conflict_hunks, rebase_back, squash, GitLoopError};
use crate::worktrees::{remove, Worktree};

/// `_meta["hangar/mergeBack"].mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// A fast-forward when possible, else a merge commit.
    #[default]
    Auto,
    /// A fast-forward or nothing.
    FfOnly,
    /// Always a merge commit (`--no-ff`).
    Merge,
    /// One new commit on the folder's branch with the branch's changes.
    Squash,
    /// The branch rebased onto the folder's branch, then a fast-forward.
    Rebase,
}

/// What a merge back did, as `_meta["hangar/mergeBack"]` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Merged {
    /// The branch merged into.
    pub into: String,
    /// The folder it is checked out in.
    pub repository: PathBuf,
    /// That branch's new tip.
    pub commit: String,
    /// Whether the folder's branch was fast-forwarded (after a rebase too).
    pub fast_forward: bool,
    /// How: `fast-forward`, `merge`, `squash` or `rebase`.
    pub how: &'static str,
}

fn refuse(reason: String) -> GitLoopError {
    GitLoopError::Refused(reason)
}

/// Merge `wt`'s branch into the branch checked out in `wt.repository`;
/// `message` is a squash's commit message.
pub fn merge_back(wt: &Worktree, mode: Mode, message: &str) -> Result<Merged, GitLoopError> {
    let repo = &wt.repository;
    let into = current_branch(repo).map_err(|_| {
        refuse(format!("HEAD is detached in {}: check out the branch to merge {} into", repo.display(), wt.branch))
    })?;
    must_be_clean(repo, &format!("commit or stash them before merging {} back", wt.branch))?;
    let theirs = format!("refs/heads/{}", wt.branch);
    let range = format!("{into}..{theirs}");
    if git(repo, &["rev-list", "--count", &range])? == "0" {
        return Err(refuse(format!("nothing to merge: {} has no commit that {into} lacks", wt.branch)));
    }
    let ff = command::run("git", repo, &["merge-base", "--is-ancestor", &into, &theirs], command::TIMEOUT)?.ok;
    if mode == Mode::FfOnly && !ff {
        return Err(refuse(format!(
            "{into} and {} have diverged, so a fast-forward is not possible (merge without \"ff-only\" for a merge commit)",
            wt.branch
        )));
    }
    if mode == Mode::Rebase {
        rebase_back::rebase(wt, &into, ff)?;
        return fast_forward(repo, into, &theirs, "rebase");
    }
    if !ff {
        check_merge(repo, &[&into, &theirs], &into, &wt.branch)?;
    }
    if mode == Mode::Squash {
        let commit = squash::squash(repo, &theirs, message)?;
        return Ok(Merged { into, repository: repo.clone(), commit, fast_forward: false, how: "squash" });
    }
    let how = match mode {
        Mode::Merge => "--no-ff",
        _ if ff => return fast_forward(repo, into, &theirs, "fast-forward"),
        _ => "--ff",
    };
    let said = command::run("git", repo, &["merge", "--no-edit", how, &theirs], command::TIMEOUT)?;
    if !said.ok {
        // A hook that refused after git began: back to where it was.
        let _ = command::run("git", repo, &["merge", "--abort"], command::TIMEOUT);
        return Err(refuse(format!("git merge failed: {}", said.both)));
    }
    let commit = git(repo, &["rev-parse", "HEAD"])?;
    Ok(Merged { into, repository: repo.clone(), commit, fast_forward: false, how: "merge" })
}

/// Refuse when `dir` has uncommitted changes (untracked files included),
/// naming them and saying `then`.
pub(super) fn must_be_clean(dir: &Path, then: &str) -> Result<(), GitLoopError> {
    match remove::uncommitted(dir) {
        Ok(None) => Ok(()),
        Ok(Some(files)) => Err(refuse(format!("{} has uncommitted changes ({files}): {then}", dir.display()))),
        Err(e) => Err(refuse(e.to_string())),
    }
}

/// `git merge --ff-only theirs` in `repo`, answered as `how`.
fn fast_forward(repo: &Path, into: String, theirs: &str, how: &'static str) -> Result<Merged, GitLoopError> {
    let said = command::run("git", repo, &["merge", "--ff-only", theirs], command::TIMEOUT)?;
    if !said.ok {
        return Err(refuse(format!("git merge --ff-only failed: {}", said.both)));
    }
    let commit = git(repo, &["rev-parse", "HEAD"])?;
    Ok(Merged { into, repository: repo.to_path_buf(), commit, fast_forward: true, how })
}

/// Whether `git merge-tree --write-tree <merge_tree_args…>` merges
/// cleanly; a conflict is `GitLoopError::Conflict` with each file's blocks
/// (`ours` is the folder's branch, `theirs` the session's). Only objects
/// are written, never a ref, the index or a file. The clean merge's tree.
pub(super) fn check_merge(
    repo: &Path,
    merge_tree_args: &[&str],
    ours: &str,
    theirs: &str,
) -> Result<String, GitLoopError> {
    let mut check = vec!["merge-tree", "--write-tree", "--name-only", "--no-messages"];
    check.extend_from_slice(merge_tree_args);
    let said = command::run("git", repo, &check, command::TIMEOUT)?;
    let tree = said.stdout.lines().next().unwrap_or_default().to_owned();
    if said.ok {
        return Ok(tree);
    }
    let mut files: Vec<String> = said.stdout.lines().skip(1).take_while(|l| !l.is_empty()).map(str::to_owned).collect();
    files.dedup();
    if files.is_empty() {
        return Err(refuse(format!("git merge-tree failed: {}", said.both)));
    }
    let detail = conflict_hunks::read(repo, &tree, &files);
    Err(GitLoopError::Conflict { into: ours.to_owned(), files, theirs: theirs.to_owned(), detail })
}
