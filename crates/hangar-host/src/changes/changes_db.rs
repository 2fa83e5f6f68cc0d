//! `changes.db`: the content-addressed blobs and every row the change
//! tracker keeps (manifests, open turns, per-turn changes, pending changes,
//! review marks, the audit log). Each public method is one transaction, so a
//! `kill -9` leaves either all of a step or none of it.
//!
//! The file history: once a session has ended a turn, every change of its
//! manifest (a turn's, the user's between turns, an undo's) appends a
//! `history` row with the content the file had before, and each turn's end
//! is marked by the last row id then (`turn_ends`). The files as a turn left
//! them are the manifest now with each file changed since set back to its
//! first `before` after that mark ([`ChangeStore::files_at_turn_end`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};

use super::scan::{self, Delta, Entry, Manifest, Stat};

/// Why `changes.db` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ChangeStoreError {
    /// SQLite.
    #[error("changes.db: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Reading a working directory.
    #[error("{0}")]
    Io(String),
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = FULL;
CREATE TABLE IF NOT EXISTS blobs (hash TEXT PRIMARY KEY, bytes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS manifest (
    session TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
    ino INTEGER NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (session, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS git_repos (git_dir TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS open_turns (session TEXT PRIMARY KEY, turn TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turn_changes (
    session TEXT NOT NULL, turn TEXT NOT NULL, ord INTEGER NOT NULL, path TEXT NOT NULL,
    before TEXT, after TEXT, PRIMARY KEY (session, turn, path));
CREATE TABLE IF NOT EXISTS pending (
    session TEXT NOT NULL, path TEXT NOT NULL, before TEXT, agent_after TEXT,
    reviewed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session, path));
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY, session TEXT NOT NULL, at TEXT NOT NULL, entry TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY, session TEXT NOT NULL, path TEXT NOT NULL, before TEXT);
CREATE INDEX IF NOT EXISTS history_by_session ON history (session, id);
CREATE TABLE IF NOT EXISTS turn_ends (
    session TEXT NOT NULL, turn TEXT NOT NULL, history INTEGER NOT NULL, PRIMARY KEY (session, turn));
";

/// One file a turn changed: its content before and after (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Absolute path.
    pub path: PathBuf,
    /// Content hash before (`None`: the file did not exist).
    pub before: Option<String>,
    /// Content hash after (`None`: the file was deleted).
    pub after: Option<String>,
}

/// A pending (not yet accepted or rejected) change of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// Absolute path.
    pub path: PathBuf,
    /// Content before the agent first touched it (or at the last accept).
    pub before: Option<String>,
    /// Content the agent last left (the base of a three-way reject).
    pub agent_after: Option<String>,
    /// The "viewed" mark.
    pub reviewed: bool,
}

/// Files by absolute path, with their content hash.
pub type FileHashes = HashMap<PathBuf, String>;

/// The open `changes.db`.
pub struct ChangeStore {
    conn: Connection,
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl ChangeStore {
    /// Open (or create) `path`.
    pub fn open(path: &Path) -> Result<Self, ChangeStoreError> {
        let conn = Connection::open(path)?;
        conn.execute_batch(SCHEMA)?;
        Ok(Self { conn })
    }

    /// Run `f` in one transaction.
    pub fn transaction<R>(
        &mut self,
        f: impl FnOnce(&Tx<'_>) -> Result<R, ChangeStoreError>,
    ) -> Result<R, ChangeStoreError> {
        let tx = self.conn.transaction()?;
        let result = f(&Tx { tx: &tx })?;
        tx.commit()?;
        Ok(result)
    }

    /// A blob's bytes.
    pub fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>, ChangeStoreError> {
        Ok(self.conn.query_row("SELECT bytes FROM blobs WHERE hash = ?1", [hash], |r| r.get(0)).optional()?)
    }

    /// The manifest last recorded for `session`.
    pub fn manifest(&self, session: &str) -> Result<Manifest, ChangeStoreError> {
        let mut stmt = self.conn.prepare("SELECT path, size, mtime, ino, hash FROM manifest WHERE session = ?1")?;
        let rows = stmt.query_map([session], |r| {
            let stat = Stat { size: r.get::<_, i64>(1)? as u64, mtime_ns: r.get(2)?, ino: r.get::<_, i64>(3)? as u64 };
            Ok((PathBuf::from(r.get::<_, String>(0)?), Entry { stat, hash: r.get(4)? }))
        })?;
        Ok(rows.collect::<Result<HashMap<_, _>, _>>()?)
    }

    /// The git dirs whose blobs manifests name (`git_base.rs`).
    pub fn git_repos(&self) -> Result<Vec<PathBuf>, ChangeStoreError> {
        let mut stmt = self.conn.prepare("SELECT git_dir FROM git_repos")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.map(|r| r.map(PathBuf::from)).collect::<Result<Vec<_>, _>>()?)
    }

    /// Fold the write-ahead log into the database and empty it (after a
    /// scan that wrote many rows: the log would otherwise stay that big).
    pub fn checkpoint(&self) -> Result<(), ChangeStoreError> {
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// The turn `session` has open (begun, not ended), if any.
    pub fn open_turn(&self, session: &str) -> Result<Option<String>, ChangeStoreError> {
        Ok(self.conn.query_row("SELECT turn FROM open_turns WHERE session = ?1", [session], |r| r.get(0)).optional()?)
    }

    /// Every session with recorded changes or pending files.
    pub fn sessions(&self) -> Result<Vec<String>, ChangeStoreError> {
        let mut stmt =
            self.conn.prepare("SELECT session FROM turn_changes UNION SELECT session FROM pending ORDER BY 1")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// `session`'s pending files, by path.
    pub fn pending(&self, session: &str) -> Result<Vec<Pending>, ChangeStoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, before, agent_after, reviewed FROM pending WHERE session = ?1 ORDER BY path")?;
        let rows = stmt.query_map([session], |r| {
            Ok(Pending {
                path: PathBuf::from(r.get::<_, String>(0)?),
                before: r.get(1)?,
                agent_after: r.get(2)?,
                reviewed: r.get::<_, i64>(3)? != 0,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The turns of `session` that changed files, oldest first.
    pub fn turns(&self, session: &str) -> Result<Vec<String>, ChangeStoreError> {
        let mut stmt =
            self.conn.prepare("SELECT turn FROM turn_changes WHERE session = ?1 GROUP BY turn ORDER BY MIN(rowid)")?;
        let rows = stmt.query_map([session], |r| r.get(0))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// What turn `turn` of `session` changed, by path.
    pub fn turn_changes(&self, session: &str, turn: &str) -> Result<Vec<FileChange>, ChangeStoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT path, before, after FROM turn_changes WHERE session = ?1 AND turn = ?2 ORDER BY ord, path",
        )?;
        let rows = stmt.query_map([session, turn], |r| {
            Ok(FileChange { path: PathBuf::from(r.get::<_, String>(0)?), before: r.get(1)?, after: r.get(2)? })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Every file of `session` as turn `turn` left it, with its content hash;
    /// `None` when the turn's end was not recorded (it did not end, or it
    /// ended before this host kept file history).
    pub fn files_at_turn_end(&self, session: &str, turn: &str) -> Result<Option<FileHashes>, ChangeStoreError> {
        let mark: Option<i64> = self
            .conn
            .query_row("SELECT history FROM turn_ends WHERE session = ?1 AND turn = ?2", [session, turn], |r| r.get(0))
            .optional()?;
        let Some(mark) = mark else { return Ok(None) };
        let mut files: FileHashes = self.manifest(session)?.into_iter().map(|(p, e)| (p, e.hash)).collect();
        let mut stmt =
            self.conn.prepare("SELECT path, before FROM history WHERE session = ?1 AND id > ?2 ORDER BY id")?;
        let rows =
            stmt.query_map(params![session, mark], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)))?;
        let mut seen = std::collections::HashSet::new();
        for row in rows {
            let (path, before) = row?;
            let path = PathBuf::from(path);
            if seen.insert(path.clone()) {
                match before {
                    Some(hash) => files.insert(path, hash),
                    None => files.remove(&path),
                };
            }
        }
        Ok(Some(files))
    }

    /// `session`'s audit log, oldest first (JSON entries).
    pub fn audit(&self, session: &str) -> Result<Vec<serde_json::Value>, ChangeStoreError> {
        let mut stmt = self.conn.prepare("SELECT entry FROM audit WHERE session = ?1 ORDER BY id")?;
        let rows = stmt.query_map([session], |r| r.get::<_, String>(0))?;
        Ok(rows.filter_map(Result::ok).filter_map(|s| serde_json::from_str(&s).ok()).collect())
    }
}

/// The writes of one transaction.
pub struct Tx<'a> {
    tx: &'a rusqlite::Transaction<'a>,
}

impl Tx<'_> {
    /// Keep `bytes` under `hash` (a no-op when already kept).
    pub fn put_blob(&self, hash: &str, bytes: &[u8]) -> Result<(), ChangeStoreError> {
        self.tx.execute("INSERT OR IGNORE INTO blobs (hash, bytes) VALUES (?1, ?2)", params![hash, bytes])?;
        Ok(())
    }

    /// Record `session`'s manifest as `new`, writing only what differs from
    /// `old` (see [`Tx::save_delta`]).
    pub fn save_manifest(&self, session: &str, old: &Manifest, new: &Manifest) -> Result<(), ChangeStoreError> {
        self.save_delta(session, old, &scan::delta(old, new))
    }

    /// Record `delta` on `session`'s manifest `old`; once the session has
    /// ended a turn, each file whose content changed goes into the history
    /// with its old content.
    pub fn save_delta(&self, session: &str, old: &Manifest, delta: &Delta) -> Result<(), ChangeStoreError> {
        let history = self.keeps_history(session)?;
        let mut log = self.tx.prepare_cached("INSERT INTO history (session, path, before) VALUES (?1, ?2, ?3)")?;
        let mut delete = self.tx.prepare_cached("DELETE FROM manifest WHERE session = ?1 AND path = ?2")?;
        let mut upsert = self.tx.prepare_cached(
            "INSERT OR REPLACE INTO manifest (session, path, size, mtime, ino, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (path, entry) in delta {
            let before = old.get(path);
            match entry {
                None => {
                    let Some(before) = before else { continue };
                    delete.execute(params![session, text(path)])?;
                    if history {
                        log.execute(params![session, text(path), before.hash])?;
                    }
                }
                Some(entry) if before == Some(entry) => {}
                Some(entry) => {
                    let s = &entry.stat;
                    upsert.execute(params![
                        session,
                        text(path),
                        s.size as i64,
                        s.mtime_ns,
                        s.ino as i64,
                        entry.hash
                    ])?;
                    if history && before.map(|b| &b.hash) != Some(&entry.hash) {
                        log.execute(params![session, text(path), before.map(|b| &b.hash)])?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Remember that manifests name blobs of the repository at `git_dir`.
    pub fn add_git_repo(&self, git_dir: &Path) -> Result<(), ChangeStoreError> {
        self.tx.execute("INSERT OR IGNORE INTO git_repos (git_dir) VALUES (?1)", [text(git_dir)])?;
        Ok(())
    }

    /// Mark `turn` open for `session` (`None`: no turn open).
    pub fn set_open_turn(&self, session: &str, turn: Option<&str>) -> Result<(), ChangeStoreError> {
        match turn {
            Some(turn) => self
                .tx
                .execute("INSERT OR REPLACE INTO open_turns (session, turn) VALUES (?1, ?2)", params![session, turn])?,
            None => self.tx.execute("DELETE FROM open_turns WHERE session = ?1", [session])?,
        };
        Ok(())
    }

    /// Whether `session` has ended a turn (before that, no file history is
    /// needed: nothing can be forked from).
    fn keeps_history(&self, session: &str) -> Result<bool, ChangeStoreError> {
        let mut stmt = self.tx.prepare_cached("SELECT 1 FROM turn_ends WHERE session = ?1 LIMIT 1")?;
        Ok(stmt.exists([session])?)
    }

    /// Mark the end of `turn`: the files as it left them are the history
    /// up to here.
    pub fn mark_turn_end(&self, session: &str, turn: &str) -> Result<(), ChangeStoreError> {
        self.tx.execute(
            "INSERT OR REPLACE INTO turn_ends (session, turn, history) \
             SELECT ?1, ?2, COALESCE(MAX(id), 0) FROM history",
            params![session, turn],
        )?;
        Ok(())
    }

    /// Record what `turn` changed.
    pub fn add_turn_changes(&self, session: &str, turn: &str, changes: &[FileChange]) -> Result<(), ChangeStoreError> {
        let mut insert = self.tx.prepare_cached(
            "INSERT OR REPLACE INTO turn_changes (session, turn, ord, path, before, after) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (ord, c) in changes.iter().enumerate() {
            insert.execute(params![session, turn, ord as i64, text(&c.path), c.before, c.after])?;
        }
        Ok(())
    }

    /// Insert or replace a pending file.
    pub fn set_pending(&self, session: &str, p: &Pending) -> Result<(), ChangeStoreError> {
        self.tx.execute(
            "INSERT OR REPLACE INTO pending (session, path, before, agent_after, reviewed) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![session, text(&p.path), p.before, p.agent_after, i64::from(p.reviewed)],
        )?;
        Ok(())
    }

    /// Drop a pending file.
    pub fn remove_pending(&self, session: &str, path: &Path) -> Result<(), ChangeStoreError> {
        self.tx.execute("DELETE FROM pending WHERE session = ?1 AND path = ?2", params![session, text(path)])?;
        Ok(())
    }

    /// Set the "viewed" mark of pending files.
    pub fn set_reviewed(&self, session: &str, paths: &[PathBuf], reviewed: bool) -> Result<(), ChangeStoreError> {
        let mut update = self.tx.prepare_cached("UPDATE pending SET reviewed = ?3 WHERE session = ?1 AND path = ?2")?;
        for path in paths {
            update.execute(params![session, text(path), i64::from(reviewed)])?;
        }
        Ok(())
    }

    /// Append an audit entry (never deleted).
    pub fn audit(&self, session: &str, at: &str, entry: &serde_json::Value) -> Result<(), ChangeStoreError> {
        self.tx.execute(
            "INSERT INTO audit (session, at, entry) VALUES (?1, ?2, ?3)",
            params![session, at, entry.to_string()],
        )?;
        Ok(())
    }
}
