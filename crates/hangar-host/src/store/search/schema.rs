//! The index tables, and the version that says whether they are current.
//!
//! - `search_fts`  — FTS5, one `body` column, tokenizer `unicode61
//!   remove_diacritics 2` (case and accents ignored), prefix indexes of 2,
//!   3 and 4 characters (a query's last word is a prefix: without them a
//!   short prefix merges the lists of every word it starts, seconds on a
//!   big store).
//! - `search_docs` — one row per indexed document, same rowid as its
//!   `search_fts` row: the session, chat, turn (`ord`, `turn_id`; both NULL for
//!   a session's title) and when it happened.
//!
//! `meta['search_version']` holds [`INDEX_VERSION`]; an index without it or
//! with a smaller one is dropped and rebuilt.

use rusqlite::{params, Connection, OptionalExtension};

use super::rebuild::{rebuild, RebuildReport};
use crate::store::StoreError;

/// The index's layout and content version; raise it when either changes.
/// 2: prefix indexes of 2, 3 and 4 characters.
pub const INDEX_VERSION: i64 = 2;

/// Create the index tables (empty) after dropping any older ones.
pub(super) fn recreate(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "DROP TABLE IF EXISTS search_fts;
         DROP TABLE IF EXISTS search_docs;
         CREATE TABLE search_docs (
             id INTEGER PRIMARY KEY,
             session TEXT NOT NULL,
             chat TEXT NOT NULL,
             ord INTEGER,
             turn_id TEXT,
             at TEXT NOT NULL);
         CREATE INDEX search_docs_by_session ON search_docs(session, ord);
         CREATE INDEX search_docs_by_chat ON search_docs(chat, ord);
         CREATE VIRTUAL TABLE search_fts
             USING fts5(body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4');",
    )
}

/// The version the index in this database was built with, if any.
pub(super) fn stored_version(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    let version: Option<String> =
        conn.query_row("SELECT value FROM meta WHERE key = 'search_version'", [], |r| r.get(0)).optional()?;
    let tables: i64 =
        conn.query_row("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('search_fts', 'search_docs')", [], |r| {
            r.get(0)
        })?;
    Ok(version.and_then(|v| v.parse().ok()).filter(|_| tables == 2))
}

/// Record that the index is complete at [`INDEX_VERSION`].
pub(super) fn mark_current(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES('search_version', ?1)
         ON CONFLICT(key) DO UPDATE SET value = ?1",
        params![INDEX_VERSION.to_string()],
    )?;
    Ok(())
}

/// Rebuild the index when it is missing or older than [`INDEX_VERSION`];
/// `Some` with what was rebuilt, `None` when it was current.
pub fn ensure(conn: &mut Connection) -> Result<Option<RebuildReport>, StoreError> {
    if stored_version(conn)?.is_some_and(|v| v >= INDEX_VERSION) {
        return Ok(None);
    }
    rebuild(conn).map(Some)
}
