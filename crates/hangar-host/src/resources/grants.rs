//! Grants from `resourceRequest`, persisted in SQLite (`resource_grants` in
//! `DATA_DIR/hangar.db`) and mirrored in memory for the policy's checks.
//!
//! A grant names a canonical path and covers it and everything below it. Read
//! and write are separate flags; granting the same path again widens the flags.
//! Paths are stored as raw bytes so non-UTF-8 names survive.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use rusqlite::{params, Connection, OptionalExtension};

use crate::locks;

/// Errors of the grant store.
#[derive(Debug, thiserror::Error)]
pub enum GrantStoreError {
    /// SQLite failed.
    #[error("grant store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The data directory could not be created.
    #[error("grant store: {0}")]
    Io(#[from] std::io::Error),
}

/// One persisted grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// Row id, used by `x-hangar/revokeGrant`.
    pub id: i64,
    /// Canonical path the grant covers (and everything below it).
    pub path: PathBuf,
    /// Read access granted.
    pub read: bool,
    /// Write access granted.
    pub write: bool,
    /// RFC 3339 timestamp of the first grant.
    pub created_at: String,
}

impl Grant {
    /// True if this grant covers `path` for the requested flags.
    pub fn covers(&self, path: &Path, read: bool, write: bool) -> bool {
        path.starts_with(&self.path) && (!read || self.read) && (!write || self.write)
    }
}

/// SQLite-backed grant list with an in-memory mirror.
pub struct GrantStore {
    conn: Mutex<Connection>,
    cache: RwLock<Vec<Grant>>,
}

impl GrantStore {
    /// Open (and create if needed) `data_dir/hangar.db` in WAL mode.
    pub fn open(data_dir: &Path) -> Result<Self, GrantStoreError> {
        std::fs::create_dir_all(data_dir)?;
        let conn = Connection::open(data_dir.join("hangar.db"))?;
        Self::init(conn)
    }

    /// Use an in-memory database (tests).
    #[cfg(test)]
    pub fn in_memory() -> Result<Self, GrantStoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Self, GrantStoreError> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // `journal_mode` returns a row; read it rather than `execute`.
        let _mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS resource_grants (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                path BLOB NOT NULL UNIQUE,
                read INTEGER NOT NULL,
                write INTEGER NOT NULL,
                created_at TEXT NOT NULL
            );",
        )?;
        let store = Self { conn: Mutex::new(conn), cache: RwLock::new(Vec::new()) };
        store.reload()?;
        Ok(store)
    }

    fn reload(&self) -> Result<(), GrantStoreError> {
        let conn = locks::lock(&self.conn);
        let mut stmt = conn.prepare("SELECT id, path, read, write, created_at FROM resource_grants ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            let path: Vec<u8> = r.get(1)?;
            Ok(Grant {
                id: r.get(0)?,
                path: PathBuf::from(OsString::from_vec(path)),
                read: r.get::<_, i64>(2)? != 0,
                write: r.get::<_, i64>(3)? != 0,
                created_at: r.get(4)?,
            })
        })?;
        let grants = rows.collect::<Result<Vec<_>, _>>()?;
        *locks::write(&self.cache) = grants;
        Ok(())
    }

    /// All grants, oldest first.
    pub fn list(&self) -> Vec<Grant> {
        locks::read(&self.cache).clone()
    }

    /// True if some grant covers `path` with the flags (read and write may come from different grants).
    pub fn allows(&self, path: &Path, read: bool, write: bool) -> bool {
        let grants = locks::read(&self.cache);
        let read_ok = !read || grants.iter().any(|g| g.covers(path, true, false));
        let write_ok = !write || grants.iter().any(|g| g.covers(path, false, true));
        read_ok && write_ok
    }

    /// Grant `path` (canonical) with the flags, widening an existing grant on the same path.
    pub fn grant(&self, path: &Path, read: bool, write: bool) -> Result<Grant, GrantStoreError> {
        let now = jiff::Timestamp::now().to_string();
        {
            let conn = locks::lock(&self.conn);
            conn.execute(
                "INSERT INTO resource_grants (path, read, write, created_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(path) DO UPDATE SET read = max(read, excluded.read), write = max(write, excluded.write)",
                params![path.as_os_str().as_bytes(), read as i64, write as i64, now],
            )?;
        }
        self.reload()?;
        let found = self.list().into_iter().find(|g| g.path == path);
        found.ok_or(GrantStoreError::Sqlite(rusqlite::Error::QueryReturnedNoRows))
    }

    /// Remove a grant by id; returns the removed grant, or `None` if there was none.
    pub fn revoke_id(&self, id: i64) -> Result<Option<Grant>, GrantStoreError> {
        let existing = self.list().into_iter().find(|g| g.id == id);
        if existing.is_some() {
            locks::lock(&self.conn).execute("DELETE FROM resource_grants WHERE id = ?1", params![id])?;
            self.reload()?;
        }
        Ok(existing)
    }

    /// Remove the grant on exactly `path`; returns it, or `None`.
    pub fn revoke_path(&self, path: &Path) -> Result<Option<Grant>, GrantStoreError> {
        let id: Option<i64> = locks::lock(&self.conn)
            .query_row("SELECT id FROM resource_grants WHERE path = ?1", params![path.as_os_str().as_bytes()], |r| {
                r.get(0)
            })
            .optional()?;
        match id {
            Some(id) => self.revoke_id(id),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_widen_list_revoke_persist() -> Result<(), GrantStoreError> {
        let dir = tempfile::tempdir()?;
        let store = GrantStore::open(dir.path())?;
        let g = store.grant(Path::new("/srv/data"), true, false)?;
        assert!(store.allows(Path::new("/srv/data/x/y"), true, false));
        assert!(!store.allows(Path::new("/srv/data/x"), false, true));
        assert!(!store.allows(Path::new("/srv/database"), true, false));
        let widened = store.grant(Path::new("/srv/data"), false, true)?;
        assert_eq!(widened.id, g.id);
        assert!(widened.read && widened.write);
        drop(store);

        let reopened = GrantStore::open(dir.path())?;
        assert_eq!(reopened.list().len(), 1);
        assert!(reopened.allows(Path::new("/srv/data/z"), true, true));
        assert_eq!(reopened.revoke_id(g.id)?.map(|g| g.id), Some(g.id));
        assert_eq!(reopened.revoke_id(g.id)?, None);
        assert!(!reopened.allows(Path::new("/srv/data/z"), true, false));
        reopened.grant(Path::new("/a"), true, false)?;
        assert!(reopened.revoke_path(Path::new("/a"))?.is_some());
        assert!(reopened.list().is_empty());
        Ok(())
    }
}
