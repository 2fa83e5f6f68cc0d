//! Running a search on a read connection of its own to the index file, the
//! store attached (WAL: readers never wait for the writer or the indexer). Best matches first (FTS5's bm25), newest first
//! among equals, among the newest [`RANKED`] matches; sessions no longer in
//! `sessions` are never found.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::Connection;

use super::query::match_expression;
use super::IndexFeed;
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

/// At most this many matches are ranked: the newest ones (documents are
/// numbered in the order they were indexed, and a rebuild indexes turns in
/// the order they were stored). A word found in a few hundred thousand
/// turns would otherwise cost a score, a lookup and a sort for each of
/// them on every keystroke; ranked this way a query costs what this many
/// matches cost, whatever the size of the store.
pub const RANKED: u32 = 2_000;

/// The snippet's markers and length.
const SNIPPET: &str = "snippet(search_fts, 0, '«', '»', '…', 24)";

/// How long a search waits for the indexer to apply what was committed
/// before it (the bound on a turn becoming findable).
pub const READ_YOUR_WRITES: Duration = Duration::from_secs(1);

/// A read connection for searches, and the indexer's progress.
pub struct SearchReader {
    conn: Mutex<Connection>,
    feed: IndexFeed,
}

impl SearchReader {
    /// Open a reader on the index of the store file `path`, fed by `feed`.
    pub fn open(path: &Path, feed: IndexFeed) -> Result<Self, StoreError> {
        Ok(Self { conn: Mutex::new(open_reader(path)?), feed })
    }

    /// Run one search. It first waits (up to [`READ_YOUR_WRITES`]) until the
    /// index holds everything the store committed before the search
    /// began, so a client that saw a turn end finds it; the indexer is
    /// usually milliseconds behind.
    pub fn search(&self, request: &SearchRequest<'_>) -> Result<SearchPage, SearchError> {
        let conn = crate::locks::lock(&self.conn);
        let queued: i64 =
            conn.prepare_cached("SELECT COALESCE(MAX(id), 0) FROM search_queue")?.query_row([], |r| r.get(0))?;
        if !self.feed.wait_done(queued, READ_YOUR_WRITES) {
            tracing::warn!("search: the index is behind the store by more than {READ_YOUR_WRITES:?}");
        }
        search(&conn, request)
    }
}

/// A connection for searches on the index of the store file `path` (also
/// for the bench).
pub fn open_reader(path: &Path) -> Result<Connection, StoreError> {
    super::open_index(path)
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
        "WITH recent AS (
             SELECT search_fts.rowid AS id, bm25(search_fts) AS score, d.at AS at
             FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
             WHERE search_fts MATCH ?1{filters}
             ORDER BY search_fts.rowid DESC
             LIMIT {RANKED}),
         top AS (
             SELECT id, score, at FROM recent
             ORDER BY score, at DESC, id DESC
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use rusqlite::{params, Connection};

    use super::*;

    /// `n` turns of one session, the `best` oldest saying "quokka" ten
    /// times (the best matches), every other once among other words.
    fn store(n: u32, best: u32) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE sessions (uri TEXT PRIMARY KEY, summary TEXT NOT NULL);").unwrap();
        super::super::schema::recreate(&conn).unwrap();
        conn.execute("INSERT INTO sessions VALUES ('s:/1', '{\"title\":\"t\",\"status\":1}')", []).unwrap();
        for i in 1..=n {
            let body =
                if i <= best { "quokka ".repeat(10) } else { format!("a quokka in turn {i} and many other words") };
            conn.execute("INSERT INTO search_fts(rowid, body) VALUES (?1, ?2)", params![i, body]).unwrap();
            conn.execute(
                "INSERT INTO search_docs VALUES (?1, 's:/1', 'c:/1', ?1, ?2, ?3)",
                params![i, format!("t{i}"), format!("2026-01-01T00:00:{:06}Z", i)],
            )
            .unwrap();
        }
        conn
    }

    fn turns(conn: &Connection, query: &str, limit: u32) -> Vec<String> {
        let request = SearchRequest { query, limit, offset: 0, sessions: None, archived: None };
        search(conn, &request).unwrap().hits.into_iter().filter_map(|h| h.turn_id).collect()
    }

    #[test]
    fn best_first_when_the_matches_fit_the_window() {
        let conn = store(100, 2);
        assert_eq!(turns(&conn, "quokka", 3), ["t2", "t1", "t100"], "the best, newest first among equals");
    }

    #[test]
    fn only_the_newest_matches_are_ranked_when_there_are_more() {
        let conn = store(RANKED + 10, 5);
        let found = turns(&conn, "quokka", 5);
        assert_eq!(found.len(), 5);
        assert!(
            found.iter().all(|t| t[1..].parse::<u32>().unwrap() > 10),
            "the five best are older than the newest {RANKED} matches: {found:?}"
        );
        assert_eq!(found[0], format!("t{}", RANKED + 10), "newest first among equals");
    }
}
