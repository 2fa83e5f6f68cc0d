//! The single writer thread: group commit, then publish.
//!
//! The engine queues [`StoreOp`]s and publications (envelopes and
//! notifications to fan out) in `serverSeq` order. The writer takes everything
//! queued, writes it in one transaction, commits, and only then hands the
//! publications to fan-out. Under load batches grow, so throughput stays high;
//! idle, a batch is one action and latency is one commit.
//!
//! A commit that fails (a full disk, an unwritable data directory) loses
//! nothing queued: the batch stays, and is retried with whatever is queued
//! since, every [`RETRY_AFTER`] until it commits. Meanwhile
//! [`StoreWriter::failure`] says why, so the host refuses new client writes
//! with that reason instead of accepting what it cannot keep; nothing in the
//! failed batch is published before it commits.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{params, Connection, Transaction};
use tracing::error;

use super::search::{prune, queue_ops, IndexFeed, QueueState};
use super::{StoreError, StoreOp};

/// Largest number of queued items written in one transaction.
const MAX_BATCH: usize = 8192;

/// How long the writer waits before retrying a failed commit.
pub const RETRY_AFTER: Duration = Duration::from_millis(500);

/// Test-only fault switch: while the file this variable names exists, every
/// commit fails as a full disk would (the reliability tests use it; see
/// `docs/reliability.md`).
pub const FAULT_FLAG_VAR: &str = "HANGAR_TEST_STORE_FULL_FLAG";

/// Something fanned out after commit; `seq` is its `serverSeq`, if any.
pub trait Sequenced {
    /// The `serverSeq` this publication carries.
    fn seq(&self) -> Option<u64>;
}

enum Item<P> {
    Ops(Vec<StoreOp>),
    Publish(P),
    Barrier(Sender<()>),
}

/// Handle for queuing writes; cheap to clone.
pub struct StoreWriter<P> {
    tx: Sender<Item<P>>,
    failure: Arc<Mutex<Option<String>>>,
}

impl<P> Clone for StoreWriter<P> {
    fn clone(&self) -> Self {
        Self { tx: self.tx.clone(), failure: self.failure.clone() }
    }
}

impl<P: Send + 'static> StoreWriter<P> {
    /// Why the last commit failed, while writes are not being saved; `None`
    /// when the store is healthy.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().map_or_else(|p| p.into_inner().clone(), |f| f.clone())
    }

    /// Queue writes that must commit together (never split across batches).
    pub fn write(&self, ops: Vec<StoreOp>) {
        if ops.is_empty() {
            return;
        }
        if self.tx.send(Item::Ops(ops)).is_err() {
            error!("store writer is gone; a write was dropped");
        }
    }

    /// Queue a publication, released after everything queued before it commits.
    pub fn publish(&self, publication: P) {
        if self.tx.send(Item::Publish(publication)).is_err() {
            error!("store writer is gone; a publication was dropped");
        }
    }

    /// Wait until everything queued so far is committed and published.
    pub fn flush(&self) {
        let (tx, rx) = mpsc::channel();
        if self.tx.send(Item::Barrier(tx)).is_ok() {
            let _ = rx.recv();
        }
    }
}

/// Start the writer thread on `conn`. `after_commit` receives each committed
/// batch's publications, in order. With `index`, each transaction also
/// queues its search index work and the indexer is woken after the commit
/// ([`super::search::SearchIndexer`]); without, nothing is indexed (the
/// search bench's baseline). The thread ends when every [`StoreWriter`] is
/// dropped.
pub fn spawn_writer<P, F>(
    conn: Connection,
    index: Option<IndexFeed>,
    after_commit: F,
) -> std::io::Result<(StoreWriter<P>, JoinHandle<()>)>
where
    P: Sequenced + Send + 'static,
    F: FnMut(Vec<P>) + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let failure = Arc::new(Mutex::new(None));
    let state = Failure { reason: failure.clone(), fault_flag: std::env::var_os(FAULT_FLAG_VAR).map(PathBuf::from) };
    let index = index.map(|feed| Index { feed, queue: QueueState::default() });
    let handle = std::thread::Builder::new()
        .name("hangar-store".into())
        .spawn(move || run(conn, rx, after_commit, state, index))?;
    Ok((StoreWriter { tx, failure }, handle))
}

/// The writer's link to the search indexer.
struct Index {
    feed: IndexFeed,
    queue: QueueState,
}

/// The writer's side of [`StoreWriter::failure`], and the test-only switch.
struct Failure {
    reason: Arc<Mutex<Option<String>>>,
    fault_flag: Option<PathBuf>,
}

impl Failure {
    fn set(&self, reason: Option<String>) {
        match self.reason.lock() {
            Ok(mut r) => *r = reason,
            Err(p) => *p.into_inner() = reason,
        }
    }

    fn injected(&self) -> bool {
        self.fault_flag.as_deref().is_some_and(std::path::Path::exists)
    }
}

fn run<P: Sequenced, F: FnMut(Vec<P>)>(
    mut conn: Connection,
    rx: Receiver<Item<P>>,
    mut after_commit: F,
    failure: Failure,
    mut index: Option<Index>,
) {
    // What is queued and not yet committed: one batch, or every batch since a
    // commit started failing.
    let mut ops = Vec::new();
    let mut publications = Vec::new();
    let mut max_seq = None;
    let mut failing = false;
    loop {
        let first = if failing {
            match rx.recv_timeout(RETRY_AFTER) {
                Ok(item) => Some(item),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => {
                    if let Err(e) = commit(&mut conn, &ops, max_seq, &failure, index.as_mut()) {
                        error!("store commit failed at shutdown, {} writes lost: {e}", ops.len());
                    }
                    return;
                }
            }
        } else {
            match rx.recv() {
                Ok(item) => Some(item),
                Err(_) => return,
            }
        };
        let mut items: Vec<Item<P>> = first.into_iter().collect();
        while items.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(item) => items.push(item),
                Err(_) => break,
            }
        }
        let mut barriers = Vec::new();
        for item in items {
            match item {
                Item::Ops(group) => {
                    for op in group {
                        if let StoreOp::Log { seq, .. } | StoreOp::Checkpoint { seq, .. } = &op {
                            max_seq = max_seq.max(Some(*seq));
                        }
                        ops.push(op);
                    }
                }
                Item::Publish(p) => {
                    max_seq = max_seq.max(p.seq());
                    publications.push(p);
                }
                Item::Barrier(done) => barriers.push(done),
            }
        }
        match commit(&mut conn, &ops, max_seq, &failure, index.as_mut()) {
            Ok(queued) => {
                if queued {
                    if let Some(index) = &index {
                        index.feed.wake();
                    }
                }
                if failing {
                    tracing::info!("store commits again; {} queued writes saved", ops.len());
                    failure.set(None);
                    failing = false;
                }
                ops.clear();
                max_seq = None;
                after_commit(std::mem::take(&mut publications));
            }
            Err(e) => {
                if let Some(index) = &mut index {
                    index.queue.rolled_back();
                }
                // Nothing is published that was not stored: a client must
                // never see what a restart would not bring back. The batch
                // stays queued and is retried.
                if !failing {
                    error!("store commit failed; {} writes kept and retried: {e}", ops.len());
                }
                failure.set(Some(format!("the host cannot save to its data directory ({e})")));
                failing = true;
            }
        }
        for done in barriers {
            let _ = done.send(());
        }
    }
}

/// Write one batch in one transaction; `true` when it queued index work.
fn commit(
    conn: &mut Connection,
    ops: &[StoreOp],
    max_seq: Option<u64>,
    failure: &Failure,
    index: Option<&mut Index>,
) -> Result<bool, StoreError> {
    if ops.is_empty() && max_seq.is_none() {
        return Ok(false);
    }
    if failure.injected() {
        return Err(StoreError::Injected("disk full".to_owned()));
    }
    let tx = conn.transaction()?;
    // Under load a batch holds many index rows for the same session; only
    // the last one of each needs writing.
    let mut last_index_row: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        if let StoreOp::IndexSession { uri, .. } = op {
            last_index_row.insert(uri, i);
        }
    }
    let superseded = |i: usize| match ops.get(i) {
        Some(StoreOp::IndexSession { uri, .. }) => last_index_row.get(&**uri) != Some(&i),
        _ => false,
    };
    for (i, op) in ops.iter().enumerate() {
        if !superseded(i) {
            apply(&tx, op)?;
        }
    }
    // The search index follows what this transaction stored: queued here,
    // applied by the indexer after the commit.
    let mut queued = false;
    if let Some(index) = index {
        queued = queue_ops(&tx, ops, superseded, &mut index.queue)?;
        prune(&tx, &index.feed, &mut index.queue)?;
    }
    if let Some(seq) = max_seq {
        tx.execute(
            "INSERT INTO meta(key, value) VALUES('server_seq', ?1)
             ON CONFLICT(key) DO UPDATE SET value = MAX(CAST(value AS INTEGER), ?1)",
            params![seq as i64],
        )?;
    }
    tx.commit()?;
    Ok(queued)
}

fn apply(tx: &Transaction<'_>, op: &StoreOp) -> Result<(), StoreError> {
    match op {
        StoreOp::Log { seq, channel, envelope } => {
            tx.prepare_cached("INSERT OR REPLACE INTO log(seq, channel, envelope) VALUES(?1, ?2, ?3)")?
                .execute(params![*seq as i64, &**channel, &**envelope])?;
        }
        StoreOp::Checkpoint { channel, kind, parent, seq, state } => {
            tx.prepare_cached(
                "INSERT INTO checkpoints(channel, kind, parent, seq, state) VALUES(?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(channel) DO UPDATE SET seq = ?4, state = ?5",
            )?
            .execute(params![&**channel, kind.as_str(), parent.as_deref(), *seq as i64, state])?;
            tx.prepare_cached("DELETE FROM log WHERE channel = ?1 AND seq <= ?2")?
                .execute(params![&**channel, *seq as i64])?;
        }
        StoreOp::TurnEnded { chat, turn_id, turn } => {
            tx.prepare_cached(
                "INSERT INTO turns(chat, ord, turn_id, turn)
                 VALUES(?1, COALESCE((SELECT MAX(ord) FROM turns WHERE chat = ?1), 0) + 1, ?2, ?3)",
            )?
            .execute(params![&**chat, turn_id, turn])?;
        }
        StoreOp::TurnsTruncated { chat, keep_through } => match keep_through {
            Some(turn_id) => {
                tx.execute(
                    "DELETE FROM turns WHERE chat = ?1 AND ord >
                       (SELECT ord FROM turns WHERE chat = ?1 AND turn_id = ?2)",
                    params![&**chat, turn_id],
                )?;
            }
            None => {
                tx.execute("DELETE FROM turns WHERE chat = ?1", params![&**chat])?;
            }
        },
        StoreOp::IndexSession { uri, created_at, modified_at, summary } => {
            tx.prepare_cached(
                "INSERT INTO sessions(uri, created_at, modified_at, summary) VALUES(?1, ?2, ?3, ?4)
                 ON CONFLICT(uri) DO UPDATE SET modified_at = ?3, summary = ?4",
            )?
            .execute(params![&**uri, created_at, modified_at, summary])?;
        }
        StoreOp::SessionRemoved { uri, chats } => {
            tx.execute("DELETE FROM sessions WHERE uri = ?1", params![&**uri])?;
            for channel in std::iter::once(uri).chain(chats.iter()) {
                tx.execute("DELETE FROM checkpoints WHERE channel = ?1", params![&**channel])?;
                tx.execute("DELETE FROM log WHERE channel = ?1", params![&**channel])?;
            }
            for chat in chats {
                tx.execute("DELETE FROM turns WHERE chat = ?1", params![&**chat])?;
            }
        }
    }
    Ok(())
}
