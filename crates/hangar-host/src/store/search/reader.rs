//! Running a search on a read connection of its own (WAL: readers never
//! wait for the writer). Best matches first (FTS5's bm25), newest first
//! among equals; sessions no longer in `sessions` are never found.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection};

use super::query::match_expression;
use super::QueryError;
use crate::store::StoreError;

/// One search.
#[derive(Debug, Clone)]
pub struct SearchRequest<'a> {
    /// The person's query.
    pub query: &'a str,
    /// At most this many results.
    pub limit: u32,
    /// Results to skip (from the cursor).
    pub offset: u64,
    /// Only these sessions, when set.
    pub sessions: Option<&'a [String]>,
    /// Only archived (`true`) or only not archived (`false`) sessions.
    pub archived: Option<bool>,
}

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The session URI.
    pub session: String,
    /// The chat URI.
    pub chat: String,
    /// The turn, `None` for a title match.
    pub turn_id: Option<String>,
    /// The session's current title.
    pub title: String,
    /// The match in context, marked with `«` and `»`.
    pub snippet: String,
    /// When the turn started (or the title was set), ISO 8601.
    pub at: String,
    /// Relevance, higher is better (bm25 negated).
    pub score: f64,
}

/// A page of results.
#[derive(Debug, Clone, Default)]
pub struct SearchPage {
    /// The results, best first.
    pub hits: Vec<SearchHit>,
    /// Whether more results follow.
    pub more: bool,
}

/// Why a search failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query has nothing to search for.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Reading the index failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for SearchError {
    fn from(e: rusqlite::Error) -> Self {
        Self::Store(e.into())
    }
}

/// The snippet's markers and length.
const SNIPPET: &str = "snippet(search_fts, 0, '«', '»', '…', 24)";

/// A read connection for searches.
pub struct SearchReader {
    conn: Mutex<Connection>,
}

impl SearchReader {
    /// Open a reader on the database file.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self { conn: Mutex::new(open_reader(path)?) })
    }

    /// Run one search.
    pub fn search(&self, request: &SearchRequest<'_>) -> Result<SearchPage, SearchError> {
        let conn = crate::locks::lock(&self.conn);
        search(&conn, request)
    }
}

/// A connection that only reads (also for the bench).
pub fn open_reader(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(conn)
}

/// Run one search on `conn`.
pub fn search(conn: &Connection, request: &SearchRequest<'_>) -> Result<SearchPage, SearchError> {
    let expression = match_expression(request.query)?;
    let sessions = request.sessions.map(|s| serde_json::Value::from(s.to_vec()).to_string());
    let archived = request.archived.map(i64::from);
    let sql = format!(
        "SELECT d.session, d.chat, d.turn_id, COALESCE(json_extract(s.summary, '$.title'), ''), {SNIPPET}, d.at,
                bm25(search_fts)
         FROM search_fts
         JOIN search_docs d ON d.id = search_fts.rowid
         JOIN sessions s ON s.uri = d.session
         WHERE search_fts MATCH ?1
           AND (?2 IS NULL OR d.session IN (SELECT value FROM json_each(?2)))
           AND (?3 IS NULL OR ((json_extract(s.summary, '$.status') & 64) != 0) = ?3)
         ORDER BY bm25(search_fts), d.at DESC, d.id DESC
         LIMIT ?4 OFFSET ?5"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let fetch = i64::from(request.limit) + 1;
    let offset = i64::try_from(request.offset).unwrap_or(i64::MAX);
    let rows = stmt.query_map(params![expression, sessions, archived, fetch, offset], |r| {
        Ok(SearchHit {
            session: r.get(0)?,
            chat: r.get(1)?,
            turn_id: r.get(2)?,
            title: r.get(3)?,
            snippet: r.get(4)?,
            at: r.get(5)?,
            score: -r.get::<_, f64>(6)?,
        })
    })?;
    let mut hits = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let more = hits.len() > request.limit as usize;
    hits.truncate(request.limit as usize);
    Ok(SearchPage { hits, more })
}
