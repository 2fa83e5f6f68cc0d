//! Pages of a chat's completed turns, newest last, and the opaque cursor that
//! names the next older page.

use std::path::Path;
use std::sync::Mutex;

use ahp_types::state::Turn;
use rusqlite::{params, Connection};

use super::StoreError;

/// Where the next older page starts: the turns before this turn id.
/// Keyed by id, so a cursor stays valid while newer turns are added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnCursor(pub String);

const CURSOR_PREFIX: &str = "hangar-turns-before-";

impl TurnCursor {
    /// The cursor for the turns older than `turn_id`.
    pub fn before(turn_id: &str) -> Self {
        Self(turn_id.to_owned())
    }

    /// The opaque wire form (the id hex-encoded).
    pub fn encode(&self) -> String {
        let hex: String = self.0.bytes().map(|b| format!("{b:02x}")).collect();
        format!("{CURSOR_PREFIX}{hex}")
    }

    /// Parse the wire form; `None` for anything this host did not hand out.
    pub fn decode(raw: &str) -> Option<Self> {
        let hex = raw.strip_prefix(CURSOR_PREFIX)?;
        if hex.is_empty() || !hex.len().is_multiple_of(2) {
            return None;
        }
        let bytes: Option<Vec<u8>> =
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect();
        String::from_utf8(bytes?).ok().map(Self)
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

/// Read a page of at most `limit` turns of `chat` older than the cursor's
/// turn (or the newest turns when `before` is `None`). A cursor naming a turn
/// the chat does not have is `None` (the caller answers "unknown cursor").
pub fn read_page(
    conn: &Connection,
    chat: &str,
    before: Option<&TurnCursor>,
    limit: usize,
) -> Result<Option<TurnPage>, StoreError> {
    let before_ord = match before {
        None => i64::MAX,
        Some(cursor) => {
            let ord: Option<i64> = conn
                .prepare_cached("SELECT MAX(ord) FROM turns WHERE chat = ?1 AND turn_id = ?2")?
                .query_row(params![chat, cursor.0], |r| r.get(0))?;
            match ord {
                Some(ord) => ord,
                None => return Ok(None),
            }
        }
    };
    let mut stmt =
        conn.prepare_cached("SELECT ord, turn FROM turns WHERE chat = ?1 AND ord < ?2 ORDER BY ord DESC LIMIT ?3")?;
    let rows =
        stmt.query_map(params![chat, before_ord, limit as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    let mut page = Vec::new();
    for row in rows {
        let (ord, json) = row?;
        let turn: Turn = serde_json::from_str(&json).map_err(|source| StoreError::Json { table: "turns", source })?;
        page.push((ord, turn));
    }
    page.reverse();
    let next = match page.first() {
        Some((oldest, turn)) => {
            let more: bool = conn
                .prepare_cached("SELECT EXISTS(SELECT 1 FROM turns WHERE chat = ?1 AND ord < ?2)")?
                .query_row(params![chat, oldest], |r| r.get(0))?;
            more.then(|| TurnCursor::before(&turn.id))
        }
        None => None,
    };
    Ok(Some(TurnPage { turns: page.into_iter().map(|(_, t)| t).collect(), next }))
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

    /// At most `limit` turns of `chat` older than `before`'s turn (the newest
    /// without one); `None` for a cursor the chat does not know (`read_page`).
    pub fn page(&self, chat: &str, before: Option<&TurnCursor>, limit: usize) -> Result<Option<TurnPage>, StoreError> {
        let conn = crate::locks::lock(&self.conn);
        read_page(&conn, chat, before, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trips_and_rejects_foreign_values() {
        let c = TurnCursor::before("turn 7/ü");
        assert_eq!(TurnCursor::decode(&c.encode()), Some(c));
        assert_eq!(TurnCursor::decode("42"), None);
        assert_eq!(TurnCursor::decode("hangar-turns-before-"), None);
        assert_eq!(TurnCursor::decode("hangar-turns-before-x"), None);
        assert_eq!(TurnCursor::decode("hangar-turns-before-ff"), None, "not UTF-8");
    }
}
