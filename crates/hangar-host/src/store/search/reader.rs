//! Running a search on a read connection of its own (WAL: readers never
//! wait for the writer). Best matches first (FTS5's bm25), newest first
//! among equals; sessions no longer in `sessions` are never found.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::Connection;

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

/// Run one search on `conn`. The best page is chosen first from the rowid,
/// score and time of every match alone; the snippet, title and the rest are
/// read for that page's rows only (a snippet per match would cost more than
/// the search).
pub fn search(conn: &Connection, request: &SearchRequest<'_>) -> Result<SearchPage, SearchError> {
    let expression = match_expression(request.query)?;
    let sessions = request.sessions.map(|s| serde_json::Value::from(s.to_vec()).to_string());
    let archived = request.archived.map(i64::from);
    let mut filters = String::new();
    if sessions.is_some() {
        filters.push_str(" AND d.session IN (SELECT value FROM json_each(?2))");
    }
    if archived.is_some() {
        filters.push_str(
            " AND ((SELECT json_extract(s.summary, '$.status') & 64 FROM sessions s WHERE s.uri = d.session) != 0) = ?3",
        );
    }
    let sql = format!(
        "WITH top AS (
             SELECT search_fts.rowid AS id, bm25(search_fts) AS score, d.at AS at
             FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
             WHERE search_fts MATCH ?1{filters}
             ORDER BY score, d.at DESC, d.id DESC
             LIMIT ?4 OFFSET ?5)
         SELECT d.session, d.chat, d.turn_id, COALESCE(json_extract(s.summary, '$.title'), ''), {SNIPPET}, top.at,
                top.score
         FROM top
         JOIN search_fts ON search_fts.rowid = top.id
         JOIN search_docs d ON d.id = top.id
         JOIN sessions s ON s.uri = d.session
         WHERE search_fts MATCH ?1
         ORDER BY top.score, top.at DESC, top.id DESC"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let fetch = i64::from(request.limit) + 1;
    let offset = i64::try_from(request.offset).unwrap_or(i64::MAX);
    let rows = stmt.query_map(
        rusqlite::params_from_iter([
            rusqlite::types::Value::from(expression),
            sessions.map_or(rusqlite::types::Value::Null, rusqlite::types::Value::from),
            archived.map_or(rusqlite::types::Value::Null, rusqlite::types::Value::from),
            rusqlite::types::Value::from(fetch),
            rusqlite::types::Value::from(offset),
        ]),
        |r| {
            Ok(SearchHit {
                session: r.get(0)?,
                chat: r.get(1)?,
                turn_id: r.get(2)?,
                title: r.get(3)?,
                snippet: r.get(4)?,
                at: r.get(5)?,
                score: -r.get::<_, f64>(6)?,
            })
        },
    )?;
    let mut hits = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let more = hits.len() > request.limit as usize;
    hits.truncate(request.limit as usize);
    Ok(SearchPage { hits, more })
}
