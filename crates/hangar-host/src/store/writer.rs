//! The single writer thread: group commit, then publish.
//!
//! The engine queues [`StoreOp`]s and publications (envelopes and
//! notifications to fan out) in `serverSeq` order. The writer takes everything
//! queued, writes it in one transaction, commits, and only then hands the
//! publications to fan-out. Under load batches grow, so throughput stays high;
//! idle, a batch is one action and latency is one commit.

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use rusqlite::{params, Connection, Transaction};
use tracing::error;

use super::{StoreError, StoreOp};

/// Largest number of queued items written in one transaction.
const MAX_BATCH: usize = 8192;

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
}

impl<P> Clone for StoreWriter<P> {
    fn clone(&self) -> Self {
        Self { tx: self.tx.clone() }
    }
}

impl<P: Send + 'static> StoreWriter<P> {
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
/// batch's publications, in order. The thread ends when every
/// [`StoreWriter`] is dropped.
pub fn spawn_writer<P, F>(conn: Connection, after_commit: F) -> std::io::Result<(StoreWriter<P>, JoinHandle<()>)>
where
    P: Sequenced + Send + 'static,
    F: FnMut(Vec<P>) + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::Builder::new().name("hangar-store".into()).spawn(move || run(conn, rx, after_commit))?;
    Ok((StoreWriter { tx }, handle))
}

fn run<P: Sequenced, F: FnMut(Vec<P>)>(mut conn: Connection, rx: Receiver<Item<P>>, mut after_commit: F) {
    while let Ok(first) = rx.recv() {
        let mut items = vec![first];
        while items.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(item) => items.push(item),
                Err(_) => break,
            }
        }
        let mut ops = Vec::new();
        let mut publications = Vec::new();
        let mut barriers = Vec::new();
        let mut max_seq = None;
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
        if let Err(e) = commit(&mut conn, &ops, max_seq) {
            // Nothing is published that was not stored: a client must never
            // see what a restart would not bring back.
            error!("store commit failed, {} writes lost: {e}", ops.len());
        } else {
            after_commit(publications);
        }
        for done in barriers {
            let _ = done.send(());
        }
    }
}

fn commit(conn: &mut Connection, ops: &[StoreOp], max_seq: Option<u64>) -> Result<(), StoreError> {
    if ops.is_empty() && max_seq.is_none() {
        return Ok(());
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
    for (i, op) in ops.iter().enumerate() {
        if let StoreOp::IndexSession { uri, .. } = op {
            if last_index_row.get(&**uri) != Some(&i) {
                continue;
            }
        }
        apply(&tx, op)?;
    }
    if let Some(seq) = max_seq {
        tx.execute(
            "INSERT INTO meta(key, value) VALUES('server_seq', ?1)
             ON CONFLICT(key) DO UPDATE SET value = MAX(CAST(value AS INTEGER), ?1)",
            params![seq as i64],
        )?;
    }
    tx.commit()?;
    Ok(())
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
