//! The whole index again from the store: every session's title from
//! `sessions`, every turn from `turns` (a chat's session from its
//! checkpoint) in the order they were stored (the reader ranks the newest
//! matches by that order), in one transaction, then the version mark and
//! the last `search_queue` row it covers (what was queued before the
//! rebuild read the store is already in it).

use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::Value;

use super::feed::{insert_turn, replace_title};
use super::schema::{mark_current, recreate, set_meta};
use crate::store::StoreError;

/// What a rebuild did.
#[derive(Debug, Clone, Copy)]
pub struct RebuildReport {
    /// Session titles indexed.
    pub titles: u64,
    /// Turns indexed.
    pub turns: u64,
    /// How long it took.
    pub took: Duration,
}

/// Drop the index and build it again from the store's tables (`conn` is an
/// index connection: [`super::open_index`]).
pub fn rebuild(conn: &mut Connection) -> Result<RebuildReport, StoreError> {
    let started = Instant::now();
    let tx = conn.transaction()?;
    // Read first: the rebuild's snapshot of the store starts here, so every
    // queued row up to this one is covered by what it reads.
    let queued: i64 = tx.query_row("SELECT COALESCE(MAX(id), 0) FROM search_queue", [], |r| r.get(0))?;
    recreate(&tx)?;
    let mut titles = 0;
    {
        let mut stmt = tx.prepare("SELECT uri, modified_at, summary FROM sessions")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (uri, at, summary): (String, String, String) = (row.get(0)?, row.get(1)?, row.get(2)?);
            let summary: Value =
                serde_json::from_str(&summary).map_err(|source| StoreError::Json { table: "sessions", source })?;
            let title = summary.get("title").and_then(Value::as_str).unwrap_or_default();
            if !title.trim().is_empty() {
                replace_title(&tx, &uri, &summary, title, &at)?;
                titles += 1;
            }
        }
    }
    let mut turns = 0;
    {
        let mut stmt = tx.prepare(
            "SELECT c.parent, t.chat, t.ord, t.turn_id, t.turn FROM turns t
             JOIN checkpoints c ON c.channel = t.chat
             JOIN sessions s ON s.uri = c.parent
             ORDER BY t.rowid",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (session, chat, ord, turn_id, turn): (String, String, i64, String, String) =
                (row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?);
            let turn: Value =
                serde_json::from_str(&turn).map_err(|source| StoreError::Json { table: "turns", source })?;
            insert_turn(&tx, &session, &chat, ord, &turn_id, &turn)?;
            turns += 1;
        }
    }
    mark_current(&tx)?;
    set_meta(&tx, "queue_done", queued)?;
    tx.commit()?;
    Ok(RebuildReport { titles, turns, took: started.elapsed() })
}
