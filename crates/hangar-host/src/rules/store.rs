//! The rules on disk: a table in their own SQLite file, `rules.db`, in the
//! data dir, in WAL mode with `synchronous=NORMAL` like the host's other
//! stores (`customizations/enablement.rs` says why SQLite rather than a
//! file we replace ourselves): a committed change survives a restart and
//! `kill -9`. A `rules.db` SQLite cannot open is moved aside
//! (`rules.db.corrupt-<time>`), reported in the log and by
//! [`RuleStore::moved_aside`], and a fresh one is started; nothing is
//! dropped silently.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use super::{Decision, Rule, RuleInput, Scope, ScopeKind, Tool};
use crate::locks;

/// The file, in the data dir.
pub const FILE: &str = "rules.db";

/// Why the rules could not be read or kept.
#[derive(Debug, thiserror::Error)]
pub enum RuleStoreError {
    /// The data dir, or moving a corrupt file aside.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// SQLite refused.
    #[error("rules in {path}: {source}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// The error.
        source: rusqlite::Error,
    },
    /// `ruleSave` or `ruleDelete` named a rule that does not exist.
    #[error("no rule {0}")]
    UnknownRule(String),
}

/// The rules of one host.
pub struct RuleStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    moved_aside: Option<PathBuf>,
}

const SCHEMA: &str = "
    PRAGMA journal_mode=WAL;
    PRAGMA synchronous=NORMAL;
    CREATE TABLE IF NOT EXISTS rules (
        id TEXT PRIMARY KEY,
        scope TEXT NOT NULL,
        tool TEXT NOT NULL,
        pattern TEXT NOT NULL,
        decision TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        hits INTEGER NOT NULL DEFAULT 0
    );";

fn open_db(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.execute_batch(SCHEMA)?;
    // A file that is not a database fails here, not at the first use.
    conn.query_row("SELECT count(*) FROM rules", [], |r| r.get::<_, i64>(0))?;
    Ok(conn)
}

fn text<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

fn from_text<T: serde::de::DeserializeOwned>(column: usize, s: &str) -> rusqlite::Result<T> {
    let value = if s.starts_with('{') {
        serde_json::from_str(s)
    } else {
        serde_json::from_value(serde_json::Value::String(s.to_owned()))
    };
    value.map_err(|e| rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(e)))
}

fn row_to_rule(row: &rusqlite::Row<'_>) -> rusqlite::Result<Rule> {
    Ok(Rule {
        id: row.get(0)?,
        scope: from_text(1, &row.get::<_, String>(1)?)?,
        tool: from_text(2, &row.get::<_, String>(2)?)?,
        pattern: row.get(3)?,
        decision: from_text(4, &row.get::<_, String>(4)?)?,
        created_by: row.get(5)?,
        created_at: row.get(6)?,
        hits: row.get::<_, i64>(7)?.max(0) as u64,
    })
}

const COLUMNS: &str = "id, scope, tool, pattern, decision, created_by, created_at, hits";

impl RuleStore {
    /// Open (or create) `rules.db` in `data_dir`; one SQLite cannot read is
    /// moved aside first.
    pub fn open(data_dir: &Path) -> Result<Self, RuleStoreError> {
        std::fs::create_dir_all(data_dir).map_err(|source| RuleStoreError::Io {
            what: "creating",
            path: data_dir.to_owned(),
            source,
        })?;
        let path = data_dir.join(FILE);
        let sqlite = |source| RuleStoreError::Sqlite { path: path.clone(), source };
        let (conn, moved_aside) = match open_db(&path) {
            Ok(conn) => (conn, None),
            Err(e) if path.exists() => {
                let aside = data_dir.join(format!("{FILE}.corrupt-{}", jiff::Timestamp::now().as_second()));
                tracing::error!("{} cannot be read ({e}); moved aside to {}", path.display(), aside.display());
                std::fs::rename(&path, &aside).map_err(|source| RuleStoreError::Io {
                    what: "moving aside",
                    path: path.clone(),
                    source,
                })?;
                for suffix in ["-wal", "-shm"] {
                    let _ = std::fs::remove_file(data_dir.join(format!("{FILE}{suffix}")));
                }
                (open_db(&path).map_err(sqlite)?, Some(aside))
            }
            Err(e) => return Err(sqlite(e)),
        };
        Ok(Self { path, conn: Mutex::new(conn), moved_aside })
    }

    /// Where an unreadable `rules.db` was moved at open, if it was.
    pub fn moved_aside(&self) -> Option<&Path> {
        self.moved_aside.as_deref()
    }

    fn sqlite(&self) -> impl Fn(rusqlite::Error) -> RuleStoreError + '_ {
        move |source| RuleStoreError::Sqlite { path: self.path.clone(), source }
    }

    /// Every rule, oldest first.
    pub fn list(&self) -> Result<Vec<Rule>, RuleStoreError> {
        let conn = locks::lock(&self.conn);
        let mut stmt =
            conn.prepare(&format!("SELECT {COLUMNS} FROM rules ORDER BY created_at, id")).map_err(self.sqlite())?;
        let rows = stmt.query_map([], row_to_rule).map_err(self.sqlite())?;
        rows.collect::<rusqlite::Result<Vec<Rule>>>().map_err(self.sqlite())
    }

    /// Add a rule (no `id`) or change one (its `createdAt` and `hits`
    /// kept); `input` must be validated. Returns the rule as stored.
    pub fn save(&self, input: RuleInput, client: &str) -> Result<Rule, RuleStoreError> {
        let conn = locks::lock(&self.conn);
        let created_by = input.created_by.filter(|c| !c.is_empty()).unwrap_or_else(|| client.to_owned());
        let (id, created_at, hits) = match input.id {
            None => (crate::engine::clock::new_id(), crate::engine::clock::now(), 0),
            Some(id) => {
                let old: Option<(String, i64)> = conn
                    .query_row("SELECT created_at, hits FROM rules WHERE id = ?1", [&id], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })
                    .optional()
                    .map_err(self.sqlite())?;
                let (created_at, hits) = old.ok_or_else(|| RuleStoreError::UnknownRule(id.clone()))?;
                (id, created_at, hits.max(0) as u64)
            }
        };
        let rule = Rule {
            id,
            scope: input.scope,
            tool: input.tool,
            pattern: input.pattern,
            decision: input.decision,
            created_by,
            created_at,
            hits,
        };
        conn.execute(
            &format!("INSERT OR REPLACE INTO rules ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
            params![
                rule.id,
                serde_json::to_string(&rule.scope).unwrap_or_default(),
                text(&rule.tool),
                rule.pattern,
                text(&rule.decision),
                rule.created_by,
                rule.created_at,
                rule.hits as i64
            ],
        )
        .map_err(self.sqlite())?;
        Ok(rule)
    }

    /// Delete rule `id`.
    pub fn delete(&self, id: &str) -> Result<(), RuleStoreError> {
        let conn = locks::lock(&self.conn);
        match conn.execute("DELETE FROM rules WHERE id = ?1", [id]).map_err(self.sqlite())? {
            0 => Err(RuleStoreError::UnknownRule(id.to_owned())),
            _ => Ok(()),
        }
    }

    /// Count one more answer for each of `ids`.
    pub fn hit(&self, ids: &[String]) -> Result<(), RuleStoreError> {
        let conn = locks::lock(&self.conn);
        for id in ids {
            conn.execute("UPDATE rules SET hits = hits + 1 WHERE id = ?1", [id]).map_err(self.sqlite())?;
        }
        Ok(())
    }
}

/// A scope for tests and callers that build rules in code.
pub fn scope(kind: ScopeKind, uri: Option<&str>) -> Scope {
    Scope { kind, uri: uri.map(str::to_owned) }
}

/// A rule input for tests and callers that build rules in code.
pub fn input(scope: Scope, tool: Tool, pattern: &str, decision: Decision) -> RuleInput {
    RuleInput {
        id: None,
        scope,
        tool,
        pattern: pattern.to_owned(),
        decision,
        created_by: None,
        created_at: None,
        hits: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_kept_changed_counted_and_deleted_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let store = RuleStore::open(dir.path()).unwrap();
        let a = store
            .save(input(scope(ScopeKind::Host, None), Tool::Shell, "npm test", Decision::Allow), "client-1")
            .unwrap();
        assert_eq!((a.created_by.as_str(), a.hits), ("client-1", 0));
        store.hit(std::slice::from_ref(&a.id)).unwrap();
        let mut change = input(scope(ScopeKind::Folder, Some("file:///w")), Tool::Shell, "npm ci", Decision::Deny);
        change.id = Some(a.id.clone());
        let changed = store.save(change, "client-2").unwrap();
        assert_eq!((changed.hits, changed.created_at.as_str()), (1, a.created_at.as_str()));
        let mut unknown = input(scope(ScopeKind::Host, None), Tool::Read, "src/**", Decision::Allow);
        unknown.id = Some("nope".into());
        assert!(matches!(store.save(unknown, "c"), Err(RuleStoreError::UnknownRule(_))));
        drop(store);
        let store = RuleStore::open(dir.path()).unwrap();
        assert_eq!(store.list().unwrap(), vec![changed.clone()]);
        assert!(matches!(store.delete("nope"), Err(RuleStoreError::UnknownRule(_))));
        store.delete(&changed.id).unwrap();
        assert!(store.list().unwrap().is_empty());
        assert!(store.moved_aside().is_none());
    }

    #[test]
    fn a_corrupt_file_is_moved_aside_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), b"this is not a database, it is a rules file gone wrong").unwrap();
        let store = RuleStore::open(dir.path()).unwrap();
        let aside = store.moved_aside().unwrap().to_owned();
        assert!(std::fs::read(&aside).unwrap().starts_with(b"this is not a database"));
        assert!(store.list().unwrap().is_empty());
    }
}
