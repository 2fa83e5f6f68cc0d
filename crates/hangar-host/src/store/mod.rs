//! Durable storage in one SQLite file (`DATA_DIR/hangar.db`, WAL mode).
//!
//! Map:
//! - `schema.rs`  — tables and pragmas.
//! - `ops.rs`     — what the engine asks the store to write ([`StoreOp`]).
//! - `writer.rs`  — the single writer thread: group commit, then hand the
//!   committed publications to fan-out (clients never see an action that a
//!   `kill -9` could lose).
//! - `load.rs`    — rebuilding sessions and chats at startup from checkpoints,
//!   the action log written since, and the tail of each chat's turns.
//! - `turn_pages.rs` — reading older turns for `fetchTurns`.
//! - `usage.rs`   — `x-hangar/usage`'s reader: tokens and cost per day and
//!   agent, the costliest sessions, from the stored turns.
//! - `search/`    — the full-text index (FTS5, in `search.db` beside this
//!   file), queued by the writer in the same transactions and applied by an
//!   indexer thread of its own, and `x-hangar/search`'s reader.
//!
//! The action stream is the source of truth: every persisted envelope goes to
//! `log`; each channel is checkpointed (its state without completed turns)
//! every few hundred actions and at every turn end, after which its older log
//! rows are dropped. Completed turns live in `turns`, one row each, written in
//! the same transaction as the checkpoint of the action that completed them.
//! `sessions` is the index `listSessions` is served from.

mod load;
mod ops;
mod schema;
pub mod search;
mod turn_pages;
pub mod usage;
mod writer;

pub use load::{load, LoadedChat, LoadedSession, LoadedState};
pub use ops::{ChannelKind, StoreOp};
pub use turn_pages::{TurnCursor, TurnPage, TurnPages};
pub use writer::{spawn_writer, Sequenced, StoreWriter};

use std::path::Path;

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored row did not decode.
    #[error("stored JSON in {table} is corrupt: {source}")]
    Json {
        /// The table whose row failed.
        table: &'static str,
        /// The decoder's error.
        source: serde_json::Error,
    },
    /// A file operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// A thread could not be started.
    #[error("starting a thread: {0}")]
    Thread(String),
    /// A failure injected by the test-only switch ([`writer::FAULT_FLAG_VAR`]).
    #[error("{0} (injected by {var})", var = writer::FAULT_FLAG_VAR)]
    Injected(String),
}

/// Open (and create, migrate) the database file. The search index is
/// opened apart, by [`search::SearchIndexer::start`].
pub fn open(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    let conn = rusqlite::Connection::open(path)?;
    schema::prepare(&conn)?;
    Ok(conn)
}

/// Build the search index (`search.db` beside the database file) again
/// from the store (`hangar reindex`).
pub fn reindex(path: &Path) -> Result<search::RebuildReport, StoreError> {
    drop(open(path)?);
    let mut conn = search::open_index(path)?;
    search::rebuild(&mut conn)
}
