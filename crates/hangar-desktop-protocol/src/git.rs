//! A session's git state and the Changes panel's git actions: the branch
//! state a session row carries (`_meta["hangar/git"]` of the host's session
//! summary), and the arguments and answers of `changes.push`,
//! `changes.pullRequestDraft`, `changes.pullRequest` and `changes.mergeBack`
//! (the host's changeset operations, docs/changesets.md), and a worktree
//! session's worktree (`session.worktree`) and its removal on archive or
//! dispose.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A session's branch, as the host reads it (`_meta["hangar/git"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GitState {
    /// The branch checked out; none on a detached `HEAD`.
    pub branch: Option<String>,
    /// Its upstream (`origin/x`), if it has one.
    pub upstream: Option<String>,
    /// Commits `branch` has that `against` lacks.
    #[serde(default)]
    pub ahead: i64,
    /// Commits `against` has that `branch` lacks.
    #[serde(default)]
    pub behind: i64,
    /// What `ahead` / `behind` count against (the upstream, or a worktree's base).
    pub against: Option<String>,
    /// The pull request opened from the session, once there is one.
    #[serde(default)]
    pub pull_request: Option<PullRequestLink>,
}

/// A pull request: its link, number and state as `gh` said it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PullRequestLink {
    /// Its web page.
    pub url: String,
    /// Its number.
    pub number: i64,
    /// `OPEN`, `CLOSED` or `MERGED`.
    pub state: String,
}

/// What `changes.push` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Pushed {
    /// The host's words.
    pub message: String,
    /// The branch pushed.
    pub branch: Option<String>,
    /// Where to (`origin/x`).
    pub upstream: Option<String>,
}

/// `changes.pullRequestDraft`: a pull request to edit before opening it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PullRequestDraft {
    /// Title.
    pub title: String,
    /// Body (Markdown).
    pub body: String,
    /// The branch it asks to merge into.
    pub base: String,
    /// The session's branch.
    pub head: String,
}

/// `changes.pullRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PullRequestArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// Title.
    pub title: String,
    /// Body.
    pub body: String,
    /// The branch to merge into; none: the host's draft's.
    pub base: Option<String>,
}

/// What `changes.pullRequest` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum PullRequestOpened {
    /// Opened.
    Opened {
        /// Its link, number and state.
        link: PullRequestLink,
    },
    /// The host has no signed-in `gh`: the command to run there instead.
    Command {
        /// Why it was not opened.
        reason: String,
        /// The exact `gh pr create …` line.
        command: String,
    },
}

/// `changes.mergeBack`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MergeBackArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// `ff-only`, `merge`, `squash` or `rebase`; none: a fast-forward when
    /// possible, else a merge commit.
    pub mode: Option<String>,
    /// A squash's commit message; none: the host drafts it.
    #[serde(default)]
    pub message: Option<String>,
}

/// What `changes.mergeBack` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum MergedBack {
    /// Merged.
    Merged {
        /// The host's words.
        message: String,
        /// The branch merged into.
        into: Option<String>,
        /// Its new tip.
        commit: Option<String>,
    },
    /// Not merged: these files conflict (nothing was changed).
    Conflicts {
        /// The host's words.
        message: String,
        /// Paths relative to the repository's top folder.
        files: Vec<String>,
        /// The branch merged into (the folder's), when the host says.
        ours: Option<String>,
        /// The session's branch, when the host says.
        theirs: Option<String>,
        /// Each file's conflicting blocks (empty from a host that does not send them).
        details: Vec<ConflictFile>,
    },
}

/// Remove a session's worktree with the session (`_meta["hangar/worktree"]:
/// {"remove": true, "force"}` on the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeRemoval {
    /// Remove it even with uncommitted edits or unmerged commits (the
    /// branch is then kept).
    #[serde(default)]
    pub force: bool,
}

/// `session.worktree`: the git worktree a session works in
/// (its `_meta["hangar/worktree"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeInfo {
    /// The worktree's folder on the host.
    pub path: String,
    /// Its branch.
    pub branch: String,
    /// The repository it was made from.
    pub repository: String,
    /// The branch it was made from.
    pub base: String,
}

/// A file that conflicts on merge back, with its conflicting blocks
/// (`data.files` of the host's `-32011`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConflictFile {
    /// Relative to the repository's top folder.
    pub path: String,
    /// Its blocks; none for a conflict without text (a deletion, a binary file).
    #[serde(default)]
    pub hunks: Vec<ConflictHunk>,
}

/// One conflicting block: both sides' lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConflictHunk {
    /// Where it starts in the merged file (1-based).
    pub line: i64,
    /// The folder's branch's lines.
    pub ours: Vec<String>,
    /// The common ancestor's lines, when the host has them.
    #[serde(default)]
    pub base: Option<Vec<String>>,
    /// The session's branch's lines.
    pub theirs: Vec<String>,
    /// A side was cut short.
    #[serde(default)]
    pub truncated: bool,
}
