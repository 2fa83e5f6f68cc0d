//! Every change an agent makes to a session's files, whoever wrote it, kept
//! so it can be reviewed, kept or undone (AHP changesets).
//!
//! Map:
//! - `scan.rs`       — walking the working directories (`.gitignore`
//!   respected) into a manifest; the big-file rule; the fast path.
//! - `watch.rs`      — a file watcher per session: the dirty set between
//!   scans, and the barrier that drains it.
//! - `scan_dirty.rs` — a scan of only the dirty paths.
//! - `git_base.rs`   — git's index and objects as the content of unchanged
//!   tracked files (`git:` hashes), read with `gix`.
//! - `watch_and_git_tests.rs` — the tracker with its watcher and git base,
//!   against the full scan (tests).
//! - `changes_db.rs` — `changes.db`: content-addressed blobs and the rows.
//! - `tracker.rs`    — [`Tracker`]: a scan before and after each turn, what
//!   the turn changed, the session's pending changes.
//! - `hunks.rs`      — line hunks, picking hunks by a range, three-way merge.
//! - `operations.rs` — `accept` and `reject` at each scope.
//! - `commit.rs`     — `commit`: a git commit of exactly the kept changes.
//! - `changeset.rs`  — the AHP view: URIs, catalogue, `ChangesetState`.
//! - `fork.rs`       — a working copy as a turn left the files (a fork).
//! - `git_loop/`     — after a commit: branch state, drafts, push, pull
//!   request, merge back.
//! - `uncommitted.rs` — the diff against git's `HEAD` (the `git` CLI).
//!
//! The host side (turn hooks, channels, `invokeChangesetOperation`, the
//! audit log, kept content, forked sessions) is in `host/`.
//!
//! Why a content-addressed store in SQLite and not a shadow git repository
//! (Cline, Roo): one file, written in the same transaction as the rows that
//! name the content, so a `kill -9` never leaves a row without its content;
//! no `git` binary needed; and the fast path (size, mtime, inode) is the
//! same one git's index uses. See `docs/changesets.md`.

pub mod changes_db;
pub mod changeset;
pub mod commit;
pub mod fork;
pub mod git_base;
pub mod git_loop;
pub mod hunks;
pub mod operations;
pub mod scan;
pub mod scan_dirty;
pub mod tracker;
pub mod uncommitted;
pub mod watch;

#[cfg(test)]
mod watch_and_git_tests;

pub use tracker::Tracker;
