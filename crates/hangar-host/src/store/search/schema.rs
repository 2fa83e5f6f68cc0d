//! The index's own database file (`search.db` beside `hangar.db`), its
//! tables, and the version that says whether they are current.
//!
//! The index lives in a file of its own so that writing it never takes the
//! store's write lock: the store writer only appends a row per indexable
//! change to `hangar.db`'s `search_queue` (see `queue.rs`), and the
//! indexer thread (`indexer.rs`) turns those rows into index rows here.
//! Every index connection attaches `hangar.db` as `store`; the store's
//! tables (`turns`, `sessions`, `checkpoints`, `search_queue`) are named
//! unqualified, and SQLite finds them there.
//!
//! - `search_fts`  — FTS5, one `body` column, tokenizer `unicode61
//!   remove_diacritics 2` (case and accents ignored), prefix indexes of 2,
//!   3 and 4 characters (a query's last word is a prefix: without them a
//!   short prefix merges the lists of every word it starts, seconds on a
//!   big store).
//! - `search_docs` — one row per indexed document, same rowid as its
//!   `search_fts` row: the session, chat, turn (`ord`, `turn_id`; both NULL for
//!   a session's title) and when it happened.
//! - `index_meta`  — `version` ([`INDEX_VERSION`]; an index without it or
//!   with a smaller one is dropped and rebuilt) and `queue_done` (the last
//!   `search_queue` row applied, written in the same transaction as what
//!   it applied: a `kill -9` loses nothing and applies nothing twice).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};

use super::rebuild::{rebuild, RebuildReport};
use crate::store::StoreError;

/// The index's layout and content version; raise it when either changes.
/// 2: prefix indexes of 2, 3 and 4 characters.
/// 3: the index in `search.db`, fed from `search_queue` off the writer.
pub const INDEX_VERSION: i64 = 3;

/// The index file that belongs to the store file `db`.
pub fn index_path(db: &Path) -> PathBuf {
    db.with_file_name("search.db")
}

/// Open the index file of the store file `db` (creating it), with the
/// store attached as `store`.
pub fn open_index(db: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(index_path(db))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.execute("ATTACH DATABASE ?1 AS store", params![db.to_string_lossy()])?;
    conn.execute_batch("CREATE TABLE IF NOT EXISTS main.index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);")?;
    Ok(conn)
}

/// Create the index tables (empty) after dropping any older ones.
pub(super) fn recreate(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "DROP TABLE IF EXISTS main.search_fts;
         DROP TABLE IF EXISTS main.search_docs;
         CREATE TABLE main.search_docs (
             id INTEGER PRIMARY KEY,
             session TEXT NOT NULL,
             chat TEXT NOT NULL,
             ord INTEGER,
             turn_id TEXT,
             at TEXT NOT NULL);
         CREATE INDEX main.search_docs_by_session ON search_docs(session, ord);
         CREATE INDEX main.search_docs_by_chat ON search_docs(chat, ord);
         CREATE VIRTUAL TABLE main.search_fts
             USING fts5(body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4');",
    )
}

fn meta(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM main.index_meta WHERE key = ?1", [key], |r| r.get(0)).optional()
}

pub(super) fn set_meta(conn: &Connection, key: &str, value: i64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO main.index_meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
        params![key, value.to_string()],
    )?;
    Ok(())
}

/// The version the index in this file was built with, if any.
pub(super) fn stored_version(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    let tables: i64 = conn.query_row(
        "SELECT COUNT(*) FROM main.sqlite_master WHERE name IN ('search_fts', 'search_docs')",
        [],
        |r| r.get(0),
    )?;
    Ok(meta(conn, "version")?.and_then(|v| v.parse().ok()).filter(|_| tables == 2))
}

/// The last `search_queue` row the index holds.
pub(super) fn queue_done(conn: &Connection) -> rusqlite::Result<i64> {
    Ok(meta(conn, "queue_done")?.and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// Record that the index is complete at [`INDEX_VERSION`].
pub(super) fn mark_current(conn: &Connection) -> rusqlite::Result<()> {
    set_meta(conn, "version", INDEX_VERSION)
}

/// Rebuild the index when it is missing or older than [`INDEX_VERSION`];
/// `Some` with what was rebuilt, `None` when it was current.
pub fn ensure(conn: &mut Connection) -> Result<Option<RebuildReport>, StoreError> {
    if stored_version(conn)?.is_some_and(|v| v >= INDEX_VERSION) {
        return Ok(None);
    }
    rebuild(conn).map(Some)
}
