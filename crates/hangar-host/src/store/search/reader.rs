//! Running a search on a read connection of its own to the index file, the
//! store attached (WAL: readers never wait for the writer or the indexer).
//! Best matches first (`rank.rs`), newest first among equals, among the
//! newest [`RANKED`] matches; sessions no longer in `sessions` are never
//! found.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};

use super::query::match_expression;
use super::IndexFeed;
use super::QueryError;
use super::{narrow, rank};
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
    /// Relevance, higher is better (`rank.rs`).
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
pub const RANKED: usize = 1_000;

/// The snippet's markers and length (of the page's rows only).
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
        if self.feed.done() < queued {
            self.feed.hurry();
        }
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

/// Run one search on `conn`, in two steps. First the newest [`RANKED`]
/// matches, each with its time and its text highlighted, are scored
/// (`rank.rs`) and the page is chosen from them; then the snippet, title
/// and the rest are read for that page's rows only (a snippet per match
/// would cost more than the search).
pub fn search(conn: &Connection, request: &SearchRequest<'_>) -> Result<SearchPage, SearchError> {
    let expression = match_expression(request.query)?;
    let Best { page, narrowed } = best(conn, &expression, request)?;
    // The snippets come from the expression that found the page: FTS5
    // would gather a long last word's whole list again for each of them.
    let snippet_expression = narrowed.as_ref().map_or(expression.as_str(), |n| n.expression.as_str());
    let fetch = request.limit as usize + 1;
    let chosen: Vec<&Candidate> =
        page.iter().skip(usize::try_from(request.offset).unwrap_or(usize::MAX)).take(fetch).collect();
    let mut hits = Vec::with_capacity(chosen.len());
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT d.session, d.chat, d.turn_id, COALESCE(json_extract(s.summary, '$.title'), ''), {SNIPPET}
         FROM search_fts
         JOIN search_docs d ON d.id = search_fts.rowid
         JOIN sessions s ON s.uri = d.session
         WHERE search_fts MATCH ?1 AND search_fts.rowid = ?2"
    ))?;
    for candidate in chosen {
        let found = stmt
            .query_row(rusqlite::params![snippet_expression, candidate.id], |r| {
                let snippet: String = r.get(4)?;
                Ok(SearchHit {
                    session: r.get(0)?,
                    chat: r.get(1)?,
                    turn_id: r.get(2)?,
                    title: r.get(3)?,
                    snippet: narrowed.as_ref().map_or_else(|| snippet.clone(), |n| n.unmark_others(&snippet)),
                    at: candidate.at.clone(),
                    score: candidate.score,
                })
            })
            .optional()?;
        // A session removed between the two steps is simply not found.
        hits.extend(found);
    }
    let more = hits.len() > request.limit as usize;
    hits.truncate(request.limit as usize);
    Ok(SearchPage { hits, more })
}

/// The page's candidates, and the narrowed query that found them (`None`:
/// the query as typed did).
struct Best {
    page: Vec<Candidate>,
    narrowed: Option<narrow::Narrowed>,
}

/// One of the newest matches, scored.
struct Candidate {
    id: i64,
    at: String,
    score: f64,
}

/// The newest [`RANKED`] matches of `expression` (the query as typed)
/// that pass the request's filters, best first (newest first among equals).
/// A query with a long last word is answered through the prefix index
/// when it can be (`narrow.rs`).
fn best(conn: &Connection, expression: &str, request: &SearchRequest<'_>) -> Result<Best, SearchError> {
    if let Some(n) = narrow::narrowed(request.query) {
        // Read newest first only as far as needed: the rows are highlighted
        // as they are stepped through.
        let mut kept = Vec::with_capacity(RANKED);
        let mut seen = 0;
        let mut hopeless = false;
        let read = newest(conn, &n.expression, request, NARROWED_SCAN, |r| {
            seen += 1;
            if rank::matches(&r.highlighted).any(|m| n.holds_last(m)) {
                let counted = rank::count(&r.highlighted, |m| n.is_query_word(m));
                kept.push(Scored { id: r.id, at: r.at, counted });
            }
            hopeless = narrowing_is_hopeless(seen, kept.len());
            kept.len() < RANKED && !hopeless
        })?;
        if !hopeless && (read < NARROWED_SCAN || kept.len() == RANKED) {
            return Ok(Best { page: ranked(kept), narrowed: Some(n) });
        }
    }
    let mut scored = Vec::with_capacity(RANKED);
    newest(conn, expression, request, RANKED, |r| {
        let counted = rank::count(&r.highlighted, |_| true);
        scored.push(Scored { id: r.id, at: r.at, counted });
        true
    })?;
    Ok(Best { page: ranked(scored), narrowed: None })
}

/// How many rows of a narrowed query are read, at most, to keep
/// [`RANKED`] of them; fewer kept, and the query runs as typed.
const NARROWED_SCAN: usize = 3 * RANKED;

/// Rows of a narrowed query read before its yield is judged.
const NARROWED_PROBE: usize = RANKED / 4;

/// Whether a narrowed scan that kept `kept` of the `read` rows so far
/// would, at that rate, keep fewer than [`RANKED`] in [`NARROWED_SCAN`]
/// rows: a rare word under a common prefix (`pars` for `parser`). Such a
/// query runs as typed at once, where its word's own short lists are
/// cheap, instead of after reading every narrowed row in vain.
fn narrowing_is_hopeless(read: usize, kept: usize) -> bool {
    read >= NARROWED_PROBE && kept * NARROWED_SCAN < RANKED * read
}

/// A match as read: its document, time and highlighted text.
struct Highlighted {
    id: i64,
    at: String,
    highlighted: String,
}

/// A match with what its score needs.
struct Scored {
    id: i64,
    at: String,
    counted: rank::Counted,
}

/// Hand `each` the newest matches of `expression` that pass the
/// request's filters, newest first, highlighted with `rank.rs`'s markers,
/// at most `limit` of them and until `each` answers `false`; how many were
/// read.
fn newest(
    conn: &Connection,
    expression: &str,
    request: &SearchRequest<'_>,
    limit: usize,
    mut each: impl FnMut(Highlighted) -> bool,
) -> Result<usize, SearchError> {
    let sessions = request.sessions.map(|s| serde_json::Value::from(s.to_vec()).to_string());
    let archived = request.archived.map(i64::from);
    let mut filters = String::new();
    if sessions.is_some() {
        filters.push_str(" AND d.session IN (SELECT value FROM json_each(?3))");
    }
    if archived.is_some() {
        filters.push_str(
            " AND ((SELECT json_extract(s.summary, '$.status') & 64 FROM sessions s WHERE s.uri = d.session) != 0) = ?4",
        );
    }
    let sql = format!(
        "SELECT search_fts.rowid, d.at, highlight(search_fts, 0, char({open}), char({close}))
         FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
         WHERE search_fts MATCH ?1{filters}
         ORDER BY search_fts.rowid DESC
         LIMIT ?2",
        open = u32::from(rank::OPEN),
        close = u32::from(rank::CLOSE),
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    // As many values as the statement numbers (`?4` counts four).
    let used = stmt.parameter_count();
    let values = [
        rusqlite::types::Value::from(expression.to_owned()),
        rusqlite::types::Value::from(i64::try_from(limit).unwrap_or(i64::MAX)),
        sessions.map_or(rusqlite::types::Value::Null, rusqlite::types::Value::from),
        archived.map_or(rusqlite::types::Value::Null, rusqlite::types::Value::from),
    ];
    let mut rows = stmt.query(rusqlite::params_from_iter(values.into_iter().take(used)))?;
    let mut read = 0;
    while let Some(r) = rows.next()? {
        read += 1;
        if !each(Highlighted { id: r.get(0)?, at: r.get(1)?, highlighted: r.get(2)? }) {
            break;
        }
    }
    Ok(read)
}

/// Scored against each other (the length of each against their mean),
/// best first, newest first among equals.
fn ranked(scored: Vec<Scored>) -> Vec<Candidate> {
    let mean_words = if scored.is_empty() {
        0.0
    } else {
        scored.iter().map(|s| f64::from(s.counted.words)).sum::<f64>() / scored.len() as f64
    };
    let mut ranked: Vec<Candidate> = scored
        .into_iter()
        .map(|s| Candidate { id: s.id, at: s.at, score: rank::score(s.counted, mean_words) })
        .collect();
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| b.at.cmp(&a.at)).then_with(|| b.id.cmp(&a.id)));
    ranked
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

    /// One turn per body, in order (the last is the newest).
    fn bodies(bodies: &[&str]) -> Connection {
        let conn = store(0, 0);
        for (i, body) in bodies.iter().enumerate() {
            let i = i + 1;
            conn.execute("INSERT INTO search_fts(rowid, body) VALUES (?1, ?2)", params![i, body]).unwrap();
            conn.execute(
                "INSERT INTO search_docs VALUES (?1, 's:/1', 'c:/1', ?1, ?2, '2026-01-01T00:00:00Z')",
                params![i, format!("t{i}")],
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
        let conn = store(u32::try_from(RANKED).unwrap() + 10, 5);
        let found = turns(&conn, "quokka", 5);
        assert_eq!(found.len(), 5);
        assert!(
            found.iter().all(|t| t[1..].parse::<u32>().unwrap() > 10),
            "the five best are older than the newest {RANKED} matches: {found:?}"
        );
        assert_eq!(found[0], format!("t{}", RANKED + 10), "newest first among equals");
    }

    #[test]
    fn a_long_last_word_finds_the_words_it_starts_and_no_other() {
        let conn = bodies(&["a quokka here", "two Quokkas there", "a quokerish word", "QUOKKA again, quokka"]);
        let mut found = turns(&conn, "quokk", 10);
        found.sort();
        assert_eq!(found, ["t1", "t2", "t4"], "narrowed to `quok`, kept only what starts `quokk`");
        assert_eq!(turns(&conn, "again quokka", 10), ["t4"]);
        assert_eq!(turns(&conn, "quokk", 1), ["t4"], "two matches score above one");
    }

    #[test]
    fn a_narrowed_scan_gives_up_as_soon_as_its_yield_is_too_low() {
        assert!(!narrowing_is_hopeless(NARROWED_PROBE - 1, 0), "too few rows read to judge");
        assert!(narrowing_is_hopeless(NARROWED_PROBE, 0), "nothing kept in the probe");
        assert!(narrowing_is_hopeless(NARROWED_PROBE, NARROWED_PROBE / 3 - 1), "under a third");
        assert!(!narrowing_is_hopeless(NARROWED_PROBE, NARROWED_PROBE / 3 + 1), "a third or more reaches RANKED");
        assert!(!narrowing_is_hopeless(NARROWED_SCAN, RANKED), "exactly enough");
    }

    #[test]
    fn a_long_last_word_rare_under_its_prefix_is_still_found() {
        let mut texts = vec!["the old quokka"];
        texts.extend(std::iter::repeat_n("a quokerish word", NARROWED_SCAN + 5));
        let conn = bodies(&texts);
        assert_eq!(turns(&conn, "quokka", 10), ["t1"], "the narrowed rows ran out of room: run as typed");
    }
}
