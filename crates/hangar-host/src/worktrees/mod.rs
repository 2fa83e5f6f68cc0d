//! A git worktree per session: `createSession` with `_meta["hangar/worktree"]`
//! makes one on a new branch ([`add`]), runs the repository's
//! `.hangar/setup` in it ([`setup`]), and `disposeSession` with
//! `{ "remove": true }` takes it away again when nothing would be lost
//! ([`remove`]). The host wires these in (`host::worktree_session`); the
//! [`Worktree`] record is what the session's `_meta["hangar/worktree"]`
//! carries.
//!
//! Why the `git` CLI and not `gix` for these writes: `git worktree add`,
//! `worktree remove` and `branch -D` must leave the repository exactly as
//! the person's own git would (its configuration, its worktree
//! bookkeeping under `.git/worktrees`), and the CLI is on every machine
//! that has repositories; `gix` stays for the in-process reads of the
//! change tracker.

pub mod add;
pub mod merged;
pub mod remove;
pub mod setup;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

/// A session's worktree, as `_meta["hangar/worktree"]` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Worktree {
    /// The worktree's top folder (under the host's worktrees folder).
    pub path: PathBuf,
    /// The branch made for it.
    pub branch: String,
    /// The top folder of the repository it was made from.
    pub repository: PathBuf,
    /// The branch it was made from, or the commit when `HEAD` was detached.
    pub base: String,
    /// The commit it was made from.
    pub base_commit: String,
    /// The setup script's run, when the repository has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<setup::SetupRun>,
}

/// Why a worktree could not be made or removed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// No `git` binary.
    #[error("git is not available on this host ({0})")]
    GitMissing(String),
    /// The folder is not in a repository.
    #[error("{} is not in a git repository", .0.display())]
    NotARepository(PathBuf),
    /// Nothing to branch from.
    #[error("the repository at {} has no commit to branch from", .0.display())]
    NoCommit(PathBuf),
    /// `git check-ref-format --branch` said no.
    #[error("git refuses the branch name {name:?}: {reason}")]
    BadBranch {
        /// The name asked for.
        name: String,
        /// What git said.
        reason: String,
    },
    /// The branch asked for is there already.
    #[error("branch {0} already exists in the repository")]
    BranchExists(String),
    /// Removal would lose commits.
    #[error("branch {branch} has {count} commit(s) not merged into {base}; pass \"force\": true to remove the worktree anyway (the branch is kept)")]
    Unmerged {
        /// The worktree's branch.
        branch: String,
        /// What it was made from.
        base: String,
        /// Commits on `branch` that `base` does not have.
        count: u64,
    },
    /// Removal would lose edits.
    #[error("the worktree at {} has uncommitted changes ({files}); pass \"force\": true to remove it anyway", .path.display())]
    Uncommitted {
        /// The worktree.
        path: PathBuf,
        /// The first few changed paths.
        files: String,
    },
    /// A git command failed.
    #[error("{what}: {reason}")]
    Git {
        /// The command.
        what: String,
        /// Its standard error.
        reason: String,
    },
    /// The file system.
    #[error("{0}")]
    Io(String),
}

/// Run `git -C dir args…`; its standard output (trimmed) or why it failed.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| WorktreeError::GitMissing(e.to_string()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_owned())
    } else {
        Err(WorktreeError::Git {
            what: format!("git {}", args.join(" ")),
            reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}
