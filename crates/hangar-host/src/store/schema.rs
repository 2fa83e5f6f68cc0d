//! Tables and pragmas of `hangar.db`.

use rusqlite::Connection;

/// Current schema version, kept in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 1;

/// Set pragmas and create the tables if the file is new.
pub fn prepare(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // NORMAL in WAL mode: a committed transaction survives a process crash
    // (`kill -9`); only an OS crash may lose the last commits.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version < SCHEMA_VERSION {
        conn.execute_batch(
            "BEGIN;
             CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS log (
                 seq INTEGER PRIMARY KEY,
                 channel TEXT NOT NULL,
                 envelope TEXT NOT NULL);
             CREATE INDEX IF NOT EXISTS log_by_channel ON log(channel, seq);
             CREATE TABLE IF NOT EXISTS checkpoints (
                 channel TEXT PRIMARY KEY,
                 kind TEXT NOT NULL,
                 parent TEXT,
                 seq INTEGER NOT NULL,
                 state TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS turns (
                 chat TEXT NOT NULL,
                 ord INTEGER NOT NULL,
                 turn_id TEXT NOT NULL,
                 turn TEXT NOT NULL,
                 PRIMARY KEY (chat, ord));
             CREATE TABLE IF NOT EXISTS sessions (
                 uri TEXT PRIMARY KEY,
                 created_at TEXT NOT NULL,
                 modified_at TEXT NOT NULL,
                 summary TEXT NOT NULL);
             PRAGMA user_version = 1;
             COMMIT;",
        )?;
    }
    // The search index's queue (store/search/queue.rs). The index itself
    // lived in this file before version 3 of the index; it is now in
    // `search.db`, built again from the store on the first start.
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS search_queue (
             id INTEGER PRIMARY KEY AUTOINCREMENT,
             kind TEXT NOT NULL,
             key TEXT NOT NULL,
             arg TEXT);
         DROP TABLE IF EXISTS search_fts;
         DROP TABLE IF EXISTS search_docs;
         DELETE FROM meta WHERE key = 'search_version';",
    )?;
    Ok(())
}
