//! Pages of a chat's completed turns, newest last, and the opaque cursor that
//! names the next older page.

use std::path::Path;
use std::sync::Mutex;

use ahp_types::state::Turn;
use rusqlite::{params, Connection};

use super::StoreError;

/// Where the next older page starts: turns with `ord` below this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnCursor(pub i64);

impl TurnCursor {
    /// The opaque wire form.
    pub fn encode(self) -> String {
        format!("hangar-turns-before-{}", self.0)
    }

    /// Parse the wire form; `None` for anything this host did not hand out.
    pub fn decode(raw: &str) -> Option<Self> {
        raw.strip_prefix("hangar-turns-before-")?.parse::<i64>().ok().filter(|n| *n > 0).map(Self)
    }
}

/// A page of turns, oldest first, with the cursor for the page before it.
#[derive(Debug, Default)]
pub struct TurnPage {
    /// The turns, oldest first.
    pub turns: Vec<Turn>,
    /// Set when older turns exist.
    pub next: Option<TurnCursor>,
}

/// Read a page of at most `limit` turns of `chat` older than `before` (or the
/// newest turns when `before` is `None`).
pub fn read_page(conn: &Connection, chat: &str, before: Option<TurnCursor>, limit: usize) -> Result<TurnPage, StoreError> {
    let before = before.map_or(i64::MAX, |c| c.0);
    let mut stmt = conn.prepare_cached(
        "SELECT ord, turn FROM turns WHERE chat = ?1 AND ord < ?2 ORDER BY ord DESC LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![chat, before, limit as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    let mut page = Vec::new();
    for row in rows {
        let (ord, json) = row?;
        let turn: Turn = serde_json::from_str(&json).map_err(|source| StoreError::Json { table: "turns", source })?;
        page.push((ord, turn));
    }
    page.reverse();
    let oldest = page.first().map(|(ord, _)| *ord);
    let next = match oldest {
        Some(oldest) => {
            let more: bool = conn
                .prepare_cached("SELECT EXISTS(SELECT 1 FROM turns WHERE chat = ?1 AND ord < ?2)")?
                .query_row(params![chat, oldest], |r| r.get(0))?;
            more.then_some(TurnCursor(oldest))
        }
        None => None,
    };
    Ok(TurnPage { turns: page.into_iter().map(|(_, t)| t).collect(), next })
}

/// A read-only connection for `fetchTurns`, separate from the writer's.
pub struct TurnPages {
    conn: Mutex<Connection>,
}

impl TurnPages {
    /// Open a reader on the database file.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(Self { conn: Mutex::new(conn) })
    }

    /// See [`read_page`].
    pub fn page(&self, chat: &str, before: Option<TurnCursor>, limit: usize) -> Result<TurnPage, StoreError> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        read_page(&conn, chat, before, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trips_and_rejects_foreign_values() {
        assert_eq!(TurnCursor::decode(&TurnCursor(42).encode()), Some(TurnCursor(42)));
        assert_eq!(TurnCursor::decode("42"), None);
        assert_eq!(TurnCursor::decode("hangar-turns-before--1"), None);
        assert_eq!(TurnCursor::decode("hangar-turns-before-x"), None);
    }
}
