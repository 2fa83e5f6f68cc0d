//! The Changes view: a session's (or one turn's) changed files, a file's
//! diff with its hunks, and the arguments of Keep / Undo and "viewed".

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::app::ChangeCounts;
use super::part::DiffView;

/// `changes.list`: a session's pending changes, or one turn's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChangesArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// A turn id: that turn's changes instead of the pending ones.
    pub turn: Option<String>,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    /// Created.
    Added,
    /// Edited.
    Modified,
    /// Deleted.
    Deleted,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    /// Its id in the changeset (a `file:` URI).
    pub id: String,
    /// Its path relative to the session's folder (or absolute outside it).
    pub path: String,
    /// How it changed.
    pub status: FileStatus,
    /// Lines added (none when not diffed).
    pub added: Option<i64>,
    /// Lines removed.
    pub removed: Option<i64>,
    /// Marked "viewed".
    pub reviewed: bool,
    /// Why there is no diff: "tooLarge" or "binary".
    pub not_diffed: Option<String>,
}

/// A changeset as the Changes view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangesView {
    /// The changeset's URI.
    pub uri: String,
    /// Its files, by path.
    pub files: Vec<ChangedFile>,
    /// Why the host cannot track this session's changes, if it cannot.
    pub error: Option<String>,
    /// Files can be marked "viewed".
    pub can_review: bool,
    /// "Keep" can target a range of lines.
    pub accept_lines: bool,
    /// The ids of the changeset's operations (`commit`, `push`,
    /// `pullRequest`, `mergeBack`, …): the panel offers what the host does.
    pub operations: Vec<String>,
    /// The session works in a worktree of its own (`hangar/worktree`), so
    /// *Merge back* applies.
    pub worktree: bool,
}

/// `changes.diff`: one file of a changeset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChangesFileArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// A turn id, as in `changes.list`.
    pub turn: Option<String>,
    /// The file's id.
    pub file: String,
    /// Every unchanged line too (a gap was expanded), not only 3 around
    /// each hunk.
    pub whole: Option<bool>,
}

/// One hunk of a file's diff.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HunkView {
    /// Index of its first line in the diff's `lines`.
    pub start: usize,
    /// Index past its last line.
    pub end: usize,
    /// Zero-based first line on the new side (for Keep / Undo of this hunk).
    pub first_line: usize,
    /// Zero-based last line on the new side (the line before it, for a
    /// pure deletion).
    pub last_line: usize,
}

/// Unchanged lines left out of a file's diff.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GapView {
    /// Index in the diff's `lines` they would come before.
    pub at: usize,
    /// How many.
    pub hidden: usize,
}

/// A changed line split into words: `(changed, text)` runs that make up
/// the whole line, the changed ones marked.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WordsView {
    /// Index of the line in the diff's `lines`.
    pub line: usize,
    /// The line's runs.
    pub runs: Vec<(bool, String)>,
}

/// A file's diff: its hunks with a little context, and the gaps between.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileDiffView {
    /// The unified diff lines (hunks and their context only).
    pub diff: DiffView,
    /// Its hunks, in order.
    pub hunks: Vec<HunkView>,
    /// The unchanged stretches left out, in order.
    pub gaps: Vec<GapView>,
    /// Word-level changes of replaced lines (each removed line paired with
    /// the added line at the same place in its hunk).
    pub words: Vec<WordsView>,
}

/// What Keep / Undo targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChangesInvokeArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// A turn id, as in `changes.list`.
    pub turn: Option<String>,
    /// `accept` (Keep) or `reject` (Undo).
    pub operation: String,
    /// One file (its id); none for every file.
    pub file: Option<String>,
    /// With `file`: the zero-based new-side lines whose hunks are targeted.
    pub lines: Option<(usize, usize)>,
    /// `commit`: the commit message (sent as `_meta["hangar/commit"]`).
    pub message: Option<String>,
}

/// What Keep / Undo did.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangesInvoked {
    /// The host's words.
    pub message: String,
    /// For an Undo: the turn id its record is kept under (the host's
    /// follow-up); Undo of that turn (`reject`) redoes what was undone.
    pub redo: Option<String>,
    /// For a `commit`: the new commit's id.
    pub commit: Option<String>,
}

/// `changes.turnCounts`: which of these turns changed files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnCountsArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// Turn ids.
    pub turns: Vec<String>,
}

/// What one turn changed, in numbers.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnCounts {
    /// Turn id.
    pub turn: String,
    /// Its counts.
    pub counts: ChangeCounts,
}

/// `changes.review`: mark files "viewed" or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangesReviewArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// File ids.
    pub files: Vec<String>,
    /// Viewed or not.
    pub reviewed: bool,
}
