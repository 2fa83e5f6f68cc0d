//! `mergeBack`: a worktree session's branch merged into the branch checked
//! out in the folder the worktree was made from, with the user's own `git
//! merge` there (their hooks and identity). A fast-forward when possible,
//! else a merge commit (or as `mode` says). Never forced: the original
//! folder must be clean, and a merge that would conflict is found with
//! `git merge-tree --write-tree` before anything is written, so the folder
//! is left exactly as it was and the conflicting files are named, each with
//! its conflicting blocks (`conflict_hunks.rs`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::command::{self, git};
use super::conflict_hunks;
use super::push::current_branch;
use super::GitLoopError;
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
    /// Whether it was a fast-forward.
    pub fast_forward: bool,
}

fn refuse(reason: String) -> GitLoopError {
    GitLoopError::Refused(reason)
}

/// Merge `wt`'s branch into the branch checked out in `wt.repository`.
pub fn merge_back(wt: &Worktree, mode: Mode) -> Result<Merged, GitLoopError> {
    let repo = &wt.repository;
    let into = current_branch(repo).map_err(|_| {
        refuse(format!("HEAD is detached in {}: check out the branch to merge {} into", repo.display(), wt.branch))
    })?;
    match remove::uncommitted(repo) {
        Ok(None) => {}
        Ok(Some(files)) => {
            return Err(refuse(format!(
                "{} has uncommitted changes ({files}): commit or stash them before merging {} back",
                repo.display(),
                wt.branch
            )))
        }
        Err(e) => return Err(refuse(e.to_string())),
    }
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
    if !ff {
        let check = ["merge-tree", "--write-tree", "--name-only", "--no-messages", &into, &theirs];
        let said = command::run("git", repo, &check, command::TIMEOUT)?;
        if !said.ok {
            let mut files: Vec<String> =
                said.stdout.lines().skip(1).take_while(|l| !l.is_empty()).map(str::to_owned).collect();
            files.dedup();
            if files.is_empty() {
                return Err(refuse(format!("git merge-tree failed: {}", said.both)));
            }
            let tree = said.stdout.lines().next().unwrap_or_default();
            let detail = conflict_hunks::read(repo, tree, &files);
            return Err(GitLoopError::Conflict { into, files, theirs: wt.branch.clone(), detail });
        }
    }
    let how = match mode {
        Mode::Auto => "--ff",
        Mode::FfOnly => "--ff-only",
        Mode::Merge => "--no-ff",
    };
    let said = command::run("git", repo, &["merge", "--no-edit", how, &theirs], command::TIMEOUT)?;
    if !said.ok {
        // A hook that refused after git began: back to where it was.
        let _ = command::run("git", repo, &["merge", "--abort"], command::TIMEOUT);
        return Err(refuse(format!("git merge failed: {}", said.both)));
    }
    let commit = git(repo, &["rev-parse", "HEAD"])?;
    Ok(Merged { into, repository: repo.clone(), commit, fast_forward: ff && mode != Mode::Merge })
}
