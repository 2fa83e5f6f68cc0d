//! Line comments on an agent's changes, collected as a review and sent to
//! the agent as one message: the comment, the arguments of `review.*`, and
//! what `review.send` did.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Which side of a diff a comment's lines are numbered on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReviewSide {
    /// The file as it is now (added and unchanged lines).
    #[default]
    New,
    /// The file before the change (only removed lines were selected).
    Old,
}

/// One comment on a line or a range of lines of a changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReviewComment {
    /// Its id (minted by the UI).
    pub id: String,
    /// The file's id in the changeset (a `file:` URI).
    pub file: String,
    /// The file's path as shown (relative to the session's folder).
    pub path: String,
    /// First line, 1-based, on `side`.
    pub first_line: u32,
    /// Last line, 1-based, on `side` (equal to `first_line` for one line).
    pub last_line: u32,
    /// The side the lines are numbered on.
    #[serde(default)]
    pub side: ReviewSide,
    /// The lines the comment is about, as the diff showed them (each with
    /// its `+`, `-` or space mark).
    pub quote: Vec<String>,
    /// What the person wrote.
    pub body: String,
}

/// `review.save`: the session's comments, replaced whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReviewSaveArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// Every comment, in order.
    pub comments: Vec<ReviewComment>,
}

/// What `review.send` did with the review.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReviewSent {
    /// The chat it went to.
    pub chat: String,
    /// How many comments it carried.
    pub comments: usize,
    /// The turn it started, when no turn was running.
    pub turn_id: Option<String>,
    /// Its queued message's id, when it waits behind the running turn (or
    /// for its host).
    pub queued: Option<String>,
}
