//! What comes after `commit` in the review loop, on a session's git
//! branch: its state for the session's summary (`_meta["hangar/git"]`), the
//! drafts of a commit message and of a pull request, `push`, `pullRequest`
//! (through `gh`) and `mergeBack` (a worktree session's branch into the
//! folder it came from). The host wires them into
//! `invokeChangesetOperation` (`host::git_operations`); docs/changesets.md
//! has the wire contract.
//!
//! Map:
//! - `command.rs`      — running the user's `git` / `gh`: no prompts, a timeout.
//! - `state.rs`        — branch, upstream, ahead / behind, read with `gix`.
//! - `draft.rs`        — drafted commit message and pull request.
//! - `push.rs`         — `git push` to the upstream or `origin`.
//! - `pull_request.rs` — `gh pr create` / `gh pr view`, or the command to run.
//! - `merge_back.rs`   — checked with `git merge-tree`, then `git merge` (the modes).
//! - `squash.rs`       — a squash merge back: one commit, put back when refused.
//! - `rebase_back.rs`  — a rebase merge back: checked commit by commit, then `git rebase`.
//! - `conflict_hunks.rs` — a conflicting merge back's blocks, both sides.
//! - `operations.rs`   — the operation ids and `_meta` keys.
//!
//! Why the `git` CLI for the writes and not `gix`: a push needs the user's
//! credentials, remotes and `pre-push` hook, a merge their hooks and
//! identity; `gix` reads the branch state in-process, where no user
//! configuration matters.

pub mod command;
pub mod conflict_hunks;
pub mod draft;
pub mod merge_back;
pub mod operations;
pub mod pull_request;
pub mod push;
pub mod rebase_back;
pub mod squash;
pub mod state;

/// Why a git operation did nothing.
#[derive(Debug, thiserror::Error)]
pub enum GitLoopError {
    /// The request cannot be met; the reason (git's own words included).
    #[error("{0}")]
    Refused(String),
    /// A merge would conflict: nothing was touched.
    #[error("merging would conflict in {}: nothing was changed; resolve it in the session's worktree (merge {into} into it) and merge back again", .files.join(", "))]
    Conflict {
        /// The branch merged into.
        into: String,
        /// The conflicting files, relative to the repository's top folder.
        files: Vec<String>,
        /// The session's branch.
        theirs: String,
        /// Each file's conflicting blocks.
        detail: Vec<conflict_hunks::FileConflict>,
    },
    /// `gh` is missing or not signed in.
    #[error("{reason}; run this instead, after pushing the branch: {command}")]
    NoGh {
        /// Why `gh` cannot be used.
        reason: String,
        /// The `gh pr create …` command line, quoted for a shell.
        command: String,
    },
    /// A program is not installed.
    #[error("{program} is not available on this host ({reason})")]
    Missing {
        /// `git` or `gh`.
        program: String,
        /// The error starting it.
        reason: String,
    },
    /// A command ran past its time.
    #[error("{command} did not finish within {secs} s and was stopped")]
    TimedOut {
        /// The command.
        command: String,
        /// Its time.
        secs: u64,
    },
    /// The host failed (temporary files, reading output).
    #[error("{0}")]
    Io(String),
}
