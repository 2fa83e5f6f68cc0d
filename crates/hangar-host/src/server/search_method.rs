//! `x-hangar/search` `{ query, limit?, cursor?, sessions?, archived? }`:
//! full-text search over every session of this host (the index is
//! `store/search/`). Answers `{ items: [{ session, chat, turnId, title,
//! snippet, at, score }], nextCursor? }`, best first. An empty query, a
//! `limit` outside 1..=200 or a cursor this search did not hand out is
//! `-32602` with the reason.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::frames::{error_frame, result_frame};
use crate::host::Host;
use crate::hub::ConnId;
use crate::store::search::{SearchCursor, SearchError, SearchRequest};
use crate::RpcError;

/// Results per page when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 20;
/// The largest `limit`.
pub const MAX_LIMIT: u32 = 200;

/// The request's params.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchParams {
    /// What to find.
    pub query: String,
    /// Results per page (1..=200, default 20).
    #[serde(default)]
    pub limit: Option<u32>,
    /// From the previous page's `nextCursor`.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Only these sessions (URIs).
    #[serde(default)]
    pub sessions: Option<Vec<String>>,
    /// Only archived (`true`) or only not archived (`false`) sessions.
    #[serde(default)]
    pub archived: Option<bool>,
}

/// Run the search off the connection's read loop (a common word ranks
/// thousands of matches: tens to hundreds of milliseconds of SQLite work
/// that must not hold the connection or a runtime worker), then answer `conn`.
pub fn answer(host: &Arc<Host>, conn: ConnId, id: Value, p: SearchParams) {
    let host = host.clone();
    tokio::task::spawn_blocking(move || {
        let frame = match search(&host, &p) {
            Ok(result) => result_frame(&id, &result),
            Err(error) => error_frame(&id, &error),
        };
        host.hub.send(conn, frame.into());
    });
}

/// Run the search.
pub fn search(host: &Arc<Host>, p: &SearchParams) -> Result<Value, RpcError> {
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(RpcError::invalid_params("limit", format!("must be between 1 and {MAX_LIMIT}, not {limit}")));
    }
    let fingerprint = SearchCursor::fingerprint(&p.query, p.sessions.as_deref(), p.archived);
    let offset = match &p.cursor {
        None => 0,
        Some(raw) => match SearchCursor::decode(raw) {
            Some(c) if c.search == fingerprint => c.offset,
            Some(_) => return Err(RpcError::invalid_params("cursor", "the cursor belongs to another search")),
            None => return Err(RpcError::invalid_params("cursor", "unknown cursor")),
        },
    };
    let request =
        SearchRequest { query: &p.query, limit, offset, sessions: p.sessions.as_deref(), archived: p.archived };
    let mut page = host.search.search(&request).map_err(|e| match e {
        SearchError::Query(q) => RpcError::invalid_params("query", q.to_string()),
        SearchError::Store(s) => RpcError::internal(format!("searching: {s}")),
    })?;
    // A session disposed a moment ago may still be in the last committed
    // index (its removal commits just after the reply): the engine says
    // which sessions exist now.
    let read = page.hits.len() as u64;
    host.with_engine_locked(|e| page.hits.retain(|h| e.session_state(&h.session).is_some()));
    let next = page.more.then(|| SearchCursor { offset: offset + read, search: fingerprint });
    let items: Vec<Value> = page
        .hits
        .into_iter()
        .map(|h| {
            json!({
                "session": h.session, "chat": h.chat, "turnId": h.turn_id, "title": h.title,
                "snippet": h.snippet, "at": h.at, "score": h.score,
            })
        })
        .collect();
    let mut result = json!({ "items": items });
    if let (Some(next), Some(obj)) = (next, result.as_object_mut()) {
        obj.insert("nextCursor".to_owned(), Value::String(next.encode()));
    }
    Ok(result)
}
