//! The indexer thread: follows `search_queue` in `hangar.db` and applies
//! its rows to the index in `search.db`, on a connection of its own, so
//! indexing never runs inside (or waits on) the store writer's commit.
//!
//! It starts by catching up with whatever was queued before (a `kill -9`
//! between a turn's commit and its indexing loses nothing: the row is
//! still queued), then sleeps until the writer wakes it after a commit
//! that queued rows. Each pass applies up to [`BATCH`] rows in one
//! transaction that also records the last row applied; a turn is
//! findable milliseconds after its turn end commits.

use std::path::Path;
use std::thread::JoinHandle;

use rusqlite::{params, Connection};
use tracing::error;

use super::feed::{apply, Queued};
use super::queue::IndexFeed;
use super::schema::{ensure, index_path, open_index, queue_done, set_meta};
use crate::store::StoreError;

/// Queue rows applied per transaction.
const BATCH: i64 = 512;

/// After a wake-up the indexer lets the writer's next commits pile up for
/// this long, so that a stream of turn ends costs one index transaction
/// (one FTS5 segment) per period instead of one per turn. A search that
/// waits for the index cuts it short ([`IndexFeed::hurry`]); well within
/// the one second from a turn's end to its being findable.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(200);

/// The indexer thread's nice value, the lowest priority there is (as
/// GNOME Tracker's indexers run): on a machine with no idle core the
/// agents' streams and the store writer come first, the indexer getting
/// about 1.5 % of a core beside each busy thread at nice 0 (CFS weights 15
/// against 1,024), and catching up in the gaps. Indexing a turn costs more
/// CPU than storing its stream (`bench-search`'s CPU line: an FTS5 insert
/// with three prefix indexes), so at nice 10 (weight 110, about 10 %) it
/// took a visible share of streaming on a saturated 2-core machine. Unlike
/// `SCHED_IDLE` it is never starved outright, and a search that waits for
/// it ([`IndexFeed::hurry`]) still has it within a second unless every
/// core is busy.
#[cfg(target_os = "linux")]
const NICENESS: i32 = 19;

/// The running indexer; [`SearchIndexer::stop`] ends it.
pub struct SearchIndexer {
    feed: IndexFeed,
    thread: Option<JoinHandle<()>>,
}

impl SearchIndexer {
    /// Open (rebuilding when missing or old) the index of the store file
    /// `db`, apply what is queued, and start following the queue. The
    /// writer shares the returned feed ([`super::super::spawn_writer`]).
    pub fn start(db: &Path) -> Result<(Self, IndexFeed), StoreError> {
        let mut conn = match open_current(db) {
            Ok(conn) => conn,
            Err(e) => {
                // The index is only ever derived from the store: a damaged
                // index file is set aside and built again, never a reason
                // not to start.
                let index = index_path(db);
                let aside = index.with_extension(format!("db.damaged-{}", crate::engine::clock::now()));
                tracing::error!(
                    "search index {} unusable ({e}); moved to {} and rebuilt",
                    index.display(),
                    aside.display()
                );
                std::fs::rename(&index, &aside)
                    .map_err(|source| StoreError::Io { what: format!("moving {} aside", index.display()), source })?;
                for suffix in ["-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
                }
                open_current(db)?
            }
        };
        let feed = IndexFeed::default();
        feed.set_done(queue_done(&conn)?);
        catch_up(&mut conn, &feed)?;
        let thread_feed = feed.clone();
        let thread = std::thread::Builder::new()
            .name("hangar-search-index".into())
            .spawn(move || run(conn, &thread_feed))
            .map_err(|e| StoreError::Thread(e.to_string()))?;
        Ok((Self { feed: feed.clone(), thread: Some(thread) }, feed))
    }

    /// Apply what is queued, then end the thread.
    pub fn stop(&mut self) {
        self.feed.wake();
        self.feed.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for SearchIndexer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The index file, opened and rebuilt first when missing or old.
fn open_current(db: &Path) -> Result<Connection, StoreError> {
    let mut conn = open_index(db)?;
    if let Some(report) = ensure(&mut conn)? {
        tracing::info!(
            "search index rebuilt: {} titles, {} turns in {} ms",
            report.titles,
            report.turns,
            report.took.as_millis()
        );
    }
    Ok(conn)
}

fn run(mut conn: Connection, feed: &IndexFeed) {
    be_nice();
    while feed.wait() {
        feed.settle(SETTLE);
        if let Err(e) = catch_up(&mut conn, feed) {
            // The rows stay queued; the next wake-up (or the next start)
            // applies them.
            error!("search index: {e}");
        }
    }
    if let Err(e) = catch_up(&mut conn, feed) {
        error!("search index at shutdown: {e}");
    }
}

/// Lower this thread's priority (Linux: a thread's own nice value); a
/// failure only means the index competes with the writer as an equal.
fn be_nice() {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        if let Err(e) = rustix::process::setpriority_process(Some(tid), NICENESS) {
            tracing::debug!("search index: could not lower the thread's priority: {e}");
        }
    }
}

/// Apply every queued row after the last one applied.
pub(super) fn catch_up(conn: &mut Connection, feed: &IndexFeed) -> Result<(), StoreError> {
    loop {
        let tx = conn.transaction()?;
        let rows = {
            let mut stmt =
                tx.prepare_cached("SELECT id, kind, key, arg FROM search_queue WHERE id > ?1 ORDER BY id LIMIT ?2")?;
            let rows = stmt.query_map(params![feed.done(), BATCH], |r| {
                Ok(Queued { id: r.get(0)?, kind: r.get(1)?, key: r.get(2)?, arg: r.get(3)? })
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()?
        };
        let Some(last) = rows.last().map(|r| r.id) else {
            return Ok(());
        };
        for row in &rows {
            match apply(&tx, row) {
                // A stored row that does not decode is reported and
                // skipped; it would never decode on a retry either.
                Err(e @ StoreError::Json { .. }) => error!("search index: queue row {} skipped: {e}", row.id),
                other => other?,
            }
        }
        set_meta(&tx, "queue_done", last)?;
        tx.commit()?;
        feed.set_done(last);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use std::sync::Arc;

    use super::*;
    use crate::store::search::{search, SearchRequest};
    use crate::store::{self, ChannelKind, Sequenced, StoreOp};

    struct Nothing;

    impl Sequenced for Nothing {
        fn seq(&self) -> Option<u64> {
            None
        }
    }

    /// A session with one chat, and a turn that says `text`, through a
    /// writer queuing for `feed`.
    fn write_turn(db: &Path, feed: IndexFeed, turn_id: &str, text: &str) {
        let (writer, thread) = store::spawn_writer(store::open(db).unwrap(), Some(feed), |_: Vec<Nothing>| {}).unwrap();
        let session: Arc<str> = "ahp-session:/s".into();
        let chat: Arc<str> = "ahp-chat:/s/main".into();
        let turn = serde_json::json!({"id": turn_id, "startedAt": "2026-01-01T00:00:00.000Z",
            "message": {"text": text, "origin": {"kind": "user"}}, "responseParts": [], "state": "complete"});
        writer.write(vec![
            StoreOp::IndexSession {
                uri: session.clone(),
                created_at: "2026-01-01T00:00:00.000Z".to_owned(),
                modified_at: "2026-01-01T00:00:00.000Z".to_owned(),
                summary: serde_json::json!({"title": "a session", "defaultChat": &*chat}).to_string(),
            },
            StoreOp::TurnEnded { chat: chat.clone(), turn_id: turn_id.to_owned(), turn: turn.to_string() },
            StoreOp::Checkpoint {
                channel: chat,
                kind: ChannelKind::Chat,
                parent: Some(session),
                seq: 1,
                state: "{}".to_owned(),
            },
        ]);
        writer.flush();
        drop(writer);
        thread.join().unwrap();
    }

    fn found(db: &Path, query: &str) -> Vec<String> {
        let conn = open_index(db).unwrap();
        let request = SearchRequest { query, limit: 20, offset: 0, sessions: None, archived: None };
        search(&conn, &request).unwrap().hits.into_iter().filter_map(|h| h.turn_id).collect()
    }

    /// The nice values of this process's indexer threads.
    #[cfg(target_os = "linux")]
    fn indexer_nice_values() -> Vec<i32> {
        let mut found = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if comm.trim_end() != "hangar-search-i" {
                continue;
            }
            let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
            // Fields after the parenthesised name: state is field 3, nice field 19.
            let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
            found.extend(after.split_whitespace().nth(16).and_then(|n| n.parse::<i32>().ok()));
        }
        found
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_indexer_thread_runs_at_the_lowest_priority() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hangar.db");
        drop(store::open(&db).unwrap());
        let (mut indexer, _) = SearchIndexer::start(&db).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut seen = indexer_nice_values();
        while !seen.contains(&NICENESS) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
            seen = indexer_nice_values();
        }
        indexer.stop();
        assert!(seen.contains(&19), "an indexer thread at nice 19: {seen:?}");
    }

    #[test]
    fn a_turn_queued_while_no_indexer_ran_is_indexed_at_the_next_start_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hangar.db");
        drop(store::open(&db).unwrap());
        // The index exists and is current; then the host "dies" with a turn
        // committed and queued but never indexed.
        let (mut indexer, _) = SearchIndexer::start(&db).unwrap();
        indexer.stop();
        write_turn(&db, IndexFeed::default(), "t1", "the wombat was queued");
        assert!(found(&db, "wombat").is_empty(), "not indexed yet: no indexer ran");

        let (mut indexer, feed) = SearchIndexer::start(&db).unwrap();
        assert_eq!(found(&db, "wombat"), ["t1"], "applied from the queue at start");
        assert!(feed.done() > 0);
        indexer.stop();
        let (mut indexer, _) = SearchIndexer::start(&db).unwrap();
        assert_eq!(found(&db, "wombat"), ["t1"], "not applied twice");
        indexer.stop();
    }

    #[test]
    fn a_damaged_index_file_is_set_aside_and_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hangar.db");
        drop(store::open(&db).unwrap());
        write_turn(&db, IndexFeed::default(), "t1", "the echidna outlived its index");
        std::fs::write(index_path(&db), vec![0x5a; 8192]).unwrap();
        let (mut indexer, _) = SearchIndexer::start(&db).unwrap();
        assert_eq!(found(&db, "echidna"), ["t1"]);
        indexer.stop();
        let aside = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains("damaged"))
            .count();
        assert_eq!(aside, 1, "the damaged file is kept beside, not deleted");
    }

    #[test]
    fn a_running_indexer_follows_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hangar.db");
        drop(store::open(&db).unwrap());
        let (mut indexer, feed) = SearchIndexer::start(&db).unwrap();
        write_turn(&db, feed.clone(), "t1", "the platypus streamed");
        let queued: i64 =
            store::open(&db).unwrap().query_row("SELECT MAX(id) FROM search_queue", [], |r| r.get(0)).unwrap();
        assert!(feed.wait_done(queued, std::time::Duration::from_secs(10)), "the indexer caught up");
        assert_eq!(found(&db, "platypus"), ["t1"]);
        indexer.stop();
    }
}
