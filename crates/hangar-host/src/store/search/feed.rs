//! The indexer's side: one `search_queue` row applied to the index, on
//! the indexer's connection (the index file, the store attached), reading
//! the store as it is now. A turn or session a later row removed is
//! skipped; the later row then removes what is left of it.

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;

use super::extract::turn_text;
use crate::store::StoreError;

/// One queued change, as the writer queued it (`queue.rs`).
pub(super) struct Queued {
    pub id: i64,
    pub kind: String,
    pub key: String,
    pub arg: Option<String>,
}

/// Apply one queued change to the index.
pub(super) fn apply(tx: &Connection, row: &Queued) -> Result<(), StoreError> {
    match (row.kind.as_str(), row.arg.as_deref()) {
        ("turn", Some(turn_id)) => index_turn(tx, &row.key, turn_id),
        ("truncate", keep_through) => forget_turns_after(tx, &row.key, keep_through),
        ("title", _) => index_title(tx, &row.key),
        ("remove", _) => forget_session(tx, &row.key),
        (kind, _) => {
            tracing::warn!("search queue row {} of unknown kind {kind:?} skipped", row.id);
            Ok(())
        }
    }
}

/// Index a stored turn (a turn whose row is gone since, or whose chat
/// belongs to no session, is skipped). Indexing it again replaces it.
fn index_turn(tx: &Connection, chat: &str, turn_id: &str) -> Result<(), StoreError> {
    let row: Option<(i64, Option<String>, String)> = tx
        .prepare_cached(
            "SELECT t.ord, c.parent, t.turn FROM turns t LEFT JOIN checkpoints c ON c.channel = t.chat
             WHERE t.chat = ?1 AND t.turn_id = ?2 ORDER BY t.ord DESC LIMIT 1",
        )?
        .query_row(params![chat, turn_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((ord, Some(session), turn)) = row else {
        return Ok(());
    };
    let turn: Value = serde_json::from_str(&turn).map_err(|source| StoreError::Json { table: "turns", source })?;
    delete_docs(tx, "chat = ?1 AND ord = ?2", params![chat, ord])?;
    insert_turn(tx, &session, chat, ord, turn_id, &turn)
}

/// Add one turn's document (also used by the rebuild).
pub(super) fn insert_turn(
    tx: &Connection,
    session: &str,
    chat: &str,
    ord: i64,
    turn_id: &str,
    turn: &Value,
) -> Result<(), StoreError> {
    let at = turn.get("startedAt").and_then(Value::as_str).map_or_else(now, str::to_owned);
    insert_doc(tx, session, chat, Some((ord, turn_id)), &at, &turn_text(turn))
}

fn insert_doc(
    tx: &Connection,
    session: &str,
    chat: &str,
    turn: Option<(i64, &str)>,
    at: &str,
    body: &str,
) -> Result<(), StoreError> {
    let (ord, turn_id) = turn.unzip();
    tx.prepare_cached("INSERT INTO search_docs(session, chat, ord, turn_id, at) VALUES(?1, ?2, ?3, ?4, ?5)")?
        .execute(params![session, chat, ord, turn_id, at])?;
    let id = tx.last_insert_rowid();
    tx.prepare_cached("INSERT INTO search_fts(rowid, body) VALUES(?1, ?2)")?.execute(params![id, body])?;
    Ok(())
}

/// `chat/truncated`: drop the documents of the turns the store dropped.
fn forget_turns_after(tx: &Connection, chat: &str, keep_through: Option<&str>) -> Result<(), StoreError> {
    // The store has already dropped the rows, so the kept turn's `ord` is read
    // from the index itself.
    let keep_ord: i64 = match keep_through {
        Some(turn_id) => tx
            .query_row(
                "SELECT MAX(ord) FROM search_docs WHERE chat = ?1 AND turn_id = ?2",
                params![chat, turn_id],
                |r| r.get::<_, Option<i64>>(0),
            )?
            .unwrap_or(i64::MAX),
        None => 0,
    };
    delete_docs(tx, "chat = ?1 AND ord > ?2", params![chat, keep_ord])
}

/// A session is gone: none of its documents are found any more.
fn forget_session(tx: &Connection, session: &str) -> Result<(), StoreError> {
    delete_docs(tx, "session = ?1", params![session])
}

fn delete_docs(tx: &Connection, condition: &str, args: impl rusqlite::Params + Clone) -> Result<(), StoreError> {
    tx.execute(
        &format!("DELETE FROM search_fts WHERE rowid IN (SELECT id FROM search_docs WHERE {condition})"),
        args.clone(),
    )?;
    tx.execute(&format!("DELETE FROM search_docs WHERE {condition}"), args)?;
    Ok(())
}

/// A session's title may have changed: replace its title document when the
/// stored summary's title differs from the indexed one.
fn index_title(tx: &Connection, session: &str) -> Result<(), StoreError> {
    let row: Option<(String, String)> = tx
        .prepare_cached("SELECT modified_at, summary FROM sessions WHERE uri = ?1")?
        .query_row(params![session], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((modified_at, summary)) = row else {
        return Ok(());
    };
    let summary: Value =
        serde_json::from_str(&summary).map_err(|source| StoreError::Json { table: "sessions", source })?;
    let title = summary.get("title").and_then(Value::as_str).unwrap_or_default();
    let indexed: Option<String> = tx
        .prepare_cached(
            "SELECT f.body FROM search_docs d JOIN search_fts f ON f.rowid = d.id
             WHERE d.session = ?1 AND d.ord IS NULL",
        )?
        .query_row(params![session], |r| r.get(0))
        .optional()?;
    if indexed.as_deref() == Some(title) || (indexed.is_none() && title.trim().is_empty()) {
        return Ok(());
    }
    replace_title(tx, session, &summary, title, &modified_at)
}

/// Replace a session's title document (also used by the rebuild).
pub(super) fn replace_title(
    tx: &Connection,
    session: &str,
    summary: &Value,
    title: &str,
    at: &str,
) -> Result<(), StoreError> {
    delete_docs(tx, "session = ?1 AND ord IS NULL", params![session])?;
    if title.trim().is_empty() {
        return Ok(());
    }
    let chat = summary
        .get("defaultChat")
        .and_then(Value::as_str)
        .or_else(|| summary.pointer("/chats/0/resource").and_then(Value::as_str))
        .unwrap_or_default();
    insert_doc(tx, session, chat, None, at, title)
}

fn now() -> String {
    crate::engine::clock::now()
}
