//! The store writer's side of the index: one small `search_queue` row in
//! `hangar.db` per indexable change, written in the same transaction as the
//! change (so a `kill -9` cannot lose it), and a wake-up for the indexer
//! thread after the commit. The writer never reads or writes the index
//! itself: that is the indexer's work, on a connection and a file of its own.
//!
//! Rows: `turn` (chat, turn id) at a turn's end; `truncate` (chat, the
//! turn kept through, or NULL for all); `title` (session) when a session's
//! title differs from the last one queued for it; `remove` (session).
//! Applied rows are deleted by the writer, in a later transaction, once
//! the indexer says it has committed them ([`IndexFeed::done`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use rusqlite::{params, Connection};
use serde::Deserialize;

use crate::store::{StoreError, StoreOp};

/// Applied rows are deleted once this many have piled up.
const PRUNE_EVERY: i64 = 256;

/// What the writer and the indexer thread share: the wake-up, the last
/// queue row the index holds, and whether the indexer should stop.
#[derive(Clone, Default)]
pub struct IndexFeed {
    inner: Arc<FeedInner>,
}

#[derive(Default)]
struct FeedInner {
    /// What the indexer should know when it wakes.
    signal: Mutex<Signal>,
    wake: Condvar,
    done: AtomicI64,
    /// Notified when `done` moves (searches wait on it to see their writes).
    done_lock: Mutex<()>,
    done_moved: Condvar,
}

#[derive(Default)]
struct Signal {
    /// Rows were queued since the indexer last looked.
    work: bool,
    /// A search waits for the index: apply now, do not settle.
    hurry: bool,
    /// The indexer should end.
    stop: bool,
}

impl IndexFeed {
    /// Rows were queued and committed: the indexer should look.
    pub fn wake(&self) {
        let mut s = crate::locks::lock(&self.inner.signal);
        s.work = true;
        self.inner.wake.notify_one();
    }

    /// A search waits for what is queued: the indexer applies it now
    /// instead of letting more pile up first.
    pub fn hurry(&self) {
        let mut s = crate::locks::lock(&self.inner.signal);
        s.hurry = true;
        self.inner.wake.notify_one();
    }

    /// The indexer should end (after the work in hand).
    pub fn stop(&self) {
        let mut s = crate::locks::lock(&self.inner.signal);
        s.stop = true;
        self.inner.wake.notify_one();
    }

    /// Wait until there is work (`true`) or the indexer should stop (`false`).
    pub(super) fn wait(&self) -> bool {
        let mut s = crate::locks::lock(&self.inner.signal);
        loop {
            if s.stop {
                return false;
            }
            if s.work || s.hurry {
                s.work = false;
                return true;
            }
            s = self.inner.wake.wait(s).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// Let more work pile up for at most `limit` (one transaction then
    /// applies it all), unless a search is waiting or the indexer should
    /// stop.
    pub(super) fn settle(&self, limit: std::time::Duration) {
        let until = std::time::Instant::now() + limit;
        let mut s = crate::locks::lock(&self.inner.signal);
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if s.hurry || s.stop || left.is_zero() {
                s.hurry = false;
                s.work = false;
                return;
            }
            s = self.inner.wake.wait_timeout(s, left).map_or_else(|p| p.into_inner().0, |(g, _)| g);
        }
    }

    /// The last queue row the index has committed.
    pub fn done(&self) -> i64 {
        self.inner.done.load(Ordering::Acquire)
    }

    pub(super) fn set_done(&self, id: i64) {
        self.inner.done.fetch_max(id, Ordering::AcqRel);
        let _guard = crate::locks::lock(&self.inner.done_lock);
        self.inner.done_moved.notify_all();
    }

    /// Wait until the index holds queue row `id`, for at most `limit`;
    /// whether it does.
    pub fn wait_done(&self, id: i64, limit: std::time::Duration) -> bool {
        let until = std::time::Instant::now() + limit;
        let mut guard = crate::locks::lock(&self.inner.done_lock);
        loop {
            if self.done() >= id {
                return true;
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = self.inner.done_moved.wait_timeout(guard, left).map_or_else(|p| p.into_inner().0, |(g, _)| g);
        }
    }
}

/// The writer's memory of what it queued: the last title per session (a
/// session's index row is rewritten at every status change; its title
/// rarely changes) and the last applied rows deleted.
#[derive(Default)]
pub struct QueueState {
    titles: HashMap<Arc<str>, Option<String>>,
    pruned: i64,
}

impl QueueState {
    /// A commit failed and its transaction was rolled back: what this
    /// remembers as queued may not be, so the batch's retry queues every
    /// title again.
    pub(crate) fn rolled_back(&mut self) {
        self.titles.clear();
    }
}

#[derive(Deserialize)]
struct TitleOnly {
    title: Option<String>,
}

/// Queue the index work of `ops`, just applied in this transaction, in
/// their order (`skip`: ops not applied). `true` when a row was queued.
pub(crate) fn queue_ops(
    tx: &Connection,
    ops: &[StoreOp],
    skip: impl Fn(usize) -> bool,
    state: &mut QueueState,
) -> Result<bool, StoreError> {
    let mut queued = false;
    let mut insert = |kind: &str, key: &str, arg: Option<&str>| -> Result<(), StoreError> {
        tx.prepare_cached("INSERT INTO search_queue(kind, key, arg) VALUES(?1, ?2, ?3)")?
            .execute(params![kind, key, arg])?;
        queued = true;
        Ok(())
    };
    for (i, op) in ops.iter().enumerate() {
        if skip(i) {
            continue;
        }
        match op {
            StoreOp::TurnEnded { chat, turn_id, .. } => insert("turn", chat, Some(turn_id))?,
            StoreOp::TurnsTruncated { chat, keep_through } => insert("truncate", chat, keep_through.as_deref())?,
            StoreOp::IndexSession { uri, summary, .. } => {
                let title = serde_json::from_str::<TitleOnly>(summary)
                    .map_err(|source| StoreError::Json { table: "sessions", source })?
                    .title;
                if state.titles.get(uri) != Some(&title) {
                    insert("title", uri, None)?;
                    state.titles.insert(uri.clone(), title);
                }
            }
            StoreOp::SessionRemoved { uri, .. } => {
                state.titles.remove(uri);
                insert("remove", uri, None)?;
            }
            StoreOp::Log { .. } | StoreOp::Checkpoint { .. } => {}
        }
    }
    Ok(queued)
}

/// Delete the rows the index has committed, once enough have piled up.
pub(crate) fn prune(tx: &Connection, feed: &IndexFeed, state: &mut QueueState) -> Result<(), StoreError> {
    let done = feed.done();
    if done - state.pruned >= PRUNE_EVERY {
        tx.prepare_cached("DELETE FROM search_queue WHERE id <= ?1")?.execute(params![done])?;
        state.pruned = done;
    }
    Ok(())
}
