//! Subscriptions, fan-out and the replay ring.
//!
//! Every connection has one bounded outbound queue. Committed envelopes (from
//! the store writer) are pushed to the queues of the channel's subscribers
//! whose subscription started before the envelope (`seq > from_seq`), so a
//! snapshot taken at `fromSeq` plus the envelopes after it is exact: nothing
//! lost, nothing doubled. A subscriber whose queue is full is cut off (its
//! client reconnects and catches up through `reconnect`), so one slow client
//! never slows the others. Responses go through the same queue, which keeps
//! "snapshot first, then actions" ordering per connection.
//!
//! A reply that carries a `serverSeq` or a snapshot's `fromSeq` (`initialize`,
//! `subscribe`, a `reconnect` snapshot, a rejection echo) is itself a
//! publication, released by the store writer after everything queued before
//! it: the engine's seq counts actions still waiting for their commit, and a
//! reply sent ahead of them would tell the client a seq higher than envelopes
//! it has not received yet (a `reconnect` from that seq would skip them).
//! A subscription is registered at once, with its `fromSeq`, but stays
//! *pending* until its reply is published: envelopes at or below `fromSeq`
//! are in the snapshot and skipped, later ones are queued behind the reply,
//! and ephemeral notifications queued before the reply are not sent ahead of
//! it (unless the connection already followed that channel).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{mpsc, Notify};

use crate::compat_v0_9::downgrade;
use crate::compat_v0_9::generation::ProtocolGeneration;
use crate::store::Sequenced;

/// The fewest envelopes the replay ring keeps (AHP hosts keep at least
/// 1,000 for `reconnect`).
pub const MIN_REPLAY_CAPACITY: usize = 1000;

/// The most envelopes the replay ring may be asked to keep.
pub const MAX_REPLAY_CAPACITY: usize = 1_000_000;

/// Identifies one WebSocket connection.
pub type ConnId = u64;

/// A frame queued for a connection: built once, shared by every subscriber
/// (cloning is a reference-count increment).
pub type OutFrame = tokio_tungstenite::tungstenite::Utf8Bytes;

/// What the store writer hands over after a commit.
#[derive(Debug)]
pub enum Publication {
    /// An accepted action.
    Envelope {
        /// Its `serverSeq`.
        seq: u64,
        /// Its channel.
        channel: Arc<str>,
        /// Its action type (for version filtering).
        action_type: Arc<str>,
        /// The `ActionEnvelope` JSON.
        envelope: Arc<str>,
        /// The complete `action` notification frame.
        frame: OutFrame,
    },
    /// A response for one connection that must follow everything queued
    /// before it (e.g. `fetchTurns` answers after its `chat/turnsLoaded`,
    /// `subscribe` after every action below its `fromSeq`).
    Reply {
        /// The connection.
        conn: ConnId,
        /// The response frame.
        frame: OutFrame,
        /// The pending subscriptions this reply completes, if any.
        ticket: Option<SubscribeTicket>,
    },
    /// An ephemeral notification (`root/sessionAdded`, …) for a channel's
    /// subscribers; `frame_v0_9` is the form for 0.9 clients.
    Notification {
        /// The channel whose subscribers get it.
        channel: Arc<str>,
        /// The frame for 1.x clients.
        frame: OutFrame,
        /// The frame for 0.9 clients.
        frame_v0_9: OutFrame,
    },
}

impl Sequenced for Publication {
    fn seq(&self) -> Option<u64> {
        match self {
            Publication::Envelope { seq, .. } => Some(*seq),
            Publication::Notification { .. } | Publication::Reply { .. } => None,
        }
    }
}

/// Names the subscriptions registered by one `subscribe`-like request, so
/// its reply can complete exactly those.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscribeTicket(u64);

/// One subscription of a connection.
struct Sub {
    /// Envelopes up to this seq are in the client's snapshot.
    from_seq: u64,
    /// Set until the reply carrying the snapshot is published.
    pending: Option<SubscribeTicket>,
}

struct RingEntry {
    seq: u64,
    channel: Arc<str>,
    action_type: Arc<str>,
    envelope: Arc<str>,
}

struct Conn {
    tx: mpsc::Sender<OutFrame>,
    cut_off: Arc<Notify>,
    dead: bool,
    generation: ProtocolGeneration,
    client_id: Option<String>,
    subs: HashMap<String, Sub>,
}

impl Conn {
    /// Queue `frame`; false when the connection is cut off (now or before).
    fn push(&mut self, frame: &OutFrame) -> bool {
        if self.dead {
            return false;
        }
        if self.tx.try_send(frame.clone()).is_err() {
            self.dead = true;
            self.cut_off.notify_one();
            return false;
        }
        true
    }
}

struct Inner {
    conns: HashMap<ConnId, Conn>,
    by_channel: HashMap<String, HashSet<ConnId>>,
    ring: VecDeque<RingEntry>,
    ring_capacity: usize,
    delivered_seq: u64,
    next_ticket: u64,
}

/// The fan-out hub.
pub struct Hub {
    inner: Mutex<Inner>,
}

impl Hub {
    /// A hub keeping the last `ring_capacity` envelopes for `reconnect`
    /// (held within [`MIN_REPLAY_CAPACITY`]..=[`MAX_REPLAY_CAPACITY`]);
    /// `delivered_seq` is the seq restored from the store.
    pub fn new(ring_capacity: usize, delivered_seq: u64) -> Self {
        let ring_capacity = ring_capacity.clamp(MIN_REPLAY_CAPACITY, MAX_REPLAY_CAPACITY);
        Self {
            inner: Mutex::new(Inner {
                conns: HashMap::new(),
                by_channel: HashMap::new(),
                ring: VecDeque::with_capacity(ring_capacity),
                ring_capacity,
                delivered_seq,
                next_ticket: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        crate::locks::lock(&self.inner)
    }

    /// Register a connection's outbound queue; `cut_off` is notified when the
    /// queue overflows.
    pub fn add_connection(&self, id: ConnId, tx: mpsc::Sender<OutFrame>, cut_off: Arc<Notify>) {
        self.lock().conns.insert(
            id,
            Conn {
                tx,
                cut_off,
                dead: false,
                generation: ProtocolGeneration::V1,
                client_id: None,
                subs: HashMap::new(),
            },
        );
    }

    /// Forget a connection; returns its client id and the channels it was
    /// subscribed to.
    pub fn remove_connection(&self, id: ConnId) -> (Option<String>, Vec<String>) {
        let mut inner = self.lock();
        let Some(conn) = inner.conns.remove(&id) else {
            return (None, Vec::new());
        };
        let channels: Vec<String> = conn.subs.into_keys().collect();
        for channel in &channels {
            remove_sub(&mut inner.by_channel, channel, id);
        }
        (conn.client_id, channels)
    }

    /// Record who a connection is after `initialize` / `reconnect`.
    pub fn identify(&self, id: ConnId, client_id: &str, generation: ProtocolGeneration) {
        if let Some(conn) = self.lock().conns.get_mut(&id) {
            conn.client_id = Some(client_id.to_owned());
            conn.generation = generation;
        }
    }

    /// Live connections that finished `initialize` / `reconnect`, with their client ids.
    pub fn identified_connections(&self) -> Vec<(ConnId, String)> {
        let inner = self.lock();
        inner.conns.iter().filter(|(_, c)| !c.dead).filter_map(|(id, c)| Some((*id, c.client_id.clone()?))).collect()
    }

    /// Whether any live connection carries this client id.
    pub fn client_connected(&self, client_id: &str) -> bool {
        self.lock().conns.values().any(|c| c.client_id.as_deref() == Some(client_id))
    }

    /// Queue a frame (a response, a rejection echo) for one connection.
    /// Returns false when the frame was not queued: the connection is gone
    /// (closed, never existed) or cut off.
    pub fn send(&self, id: ConnId, frame: OutFrame) -> bool {
        self.lock().conns.get_mut(&id).is_some_and(|conn| conn.push(&frame))
    }

    /// Subscribe `id` to `channels` from `from_seq`, pending until the reply
    /// holding the ticket is published (see the module doc). Call with the
    /// engine locked, `from_seq` being the seq of the snapshots in the reply,
    /// and queue the reply through the store writer before unlocking.
    pub fn subscribe_pending(&self, id: ConnId, channels: &[String], from_seq: u64) -> SubscribeTicket {
        let mut inner = self.lock();
        let Inner { conns, by_channel, next_ticket, .. } = &mut *inner;
        *next_ticket += 1;
        let ticket = SubscribeTicket(*next_ticket);
        if let Some(conn) = conns.get_mut(&id) {
            for channel in channels {
                // A channel the connection already follows keeps getting its
                // notifications; only a new one waits for its reply.
                let following = conn.subs.get(channel).is_some_and(|s| s.pending.is_none());
                let pending = if following { None } else { Some(ticket) };
                conn.subs.insert(channel.clone(), Sub { from_seq, pending });
                by_channel.entry(channel.clone()).or_default().insert(id);
            }
        }
        ticket
    }

    /// Unsubscribe; returns true when the channel has no subscriber left.
    pub fn unsubscribe(&self, id: ConnId, channel: &str) -> bool {
        let mut inner = self.lock();
        if let Some(conn) = inner.conns.get_mut(&id) {
            conn.subs.remove(channel);
        }
        remove_sub(&mut inner.by_channel, channel, id);
        !inner.by_channel.contains_key(channel)
    }

    /// Whether a channel has subscribers.
    pub fn has_subscribers(&self, channel: &str) -> bool {
        self.lock().by_channel.contains_key(channel)
    }

    /// For `reconnect`: the envelopes after `last_seen` on `channels`, and
    /// subscribe `id` to them from the last delivered seq, queuing the
    /// response built by `respond` in the same critical section. Returns
    /// `false` without subscribing when the gap is older than the ring.
    pub fn replay_and_subscribe(
        &self,
        id: ConnId,
        last_seen: u64,
        channels: &[String],
        respond: impl FnOnce(Vec<Arc<str>>) -> OutFrame,
    ) -> bool {
        let mut inner = self.lock();
        let Inner { conns, by_channel, ring, delivered_seq, .. } = &mut *inner;
        if last_seen > *delivered_seq {
            return false;
        }
        let covered = match ring.front() {
            Some(oldest) => last_seen + 1 >= oldest.seq,
            None => last_seen == *delivered_seq,
        };
        if !covered {
            return false;
        }
        let Some(conn) = conns.get_mut(&id) else {
            return false;
        };
        let wanted: HashSet<&str> = channels.iter().map(String::as_str).collect();
        let generation = conn.generation;
        let missed: Vec<Arc<str>> = ring
            .iter()
            .filter(|e| e.seq > last_seen && wanted.contains(&*e.channel))
            .filter_map(|e| match generation {
                ProtocolGeneration::V1 => Some(e.envelope.clone()),
                ProtocolGeneration::V0_9 => downgrade::envelope_json(&e.envelope, &e.action_type).map(Arc::from),
            })
            .collect();
        for channel in channels {
            conn.subs.insert(channel.clone(), Sub { from_seq: *delivered_seq, pending: None });
            by_channel.entry(channel.clone()).or_default().insert(id);
        }
        conn.push(&respond(missed));
        true
    }

    /// Fan out a committed batch (called by the store writer).
    pub fn publish(&self, batch: Vec<Publication>) {
        let mut inner = self.lock();
        let Inner { conns, by_channel, ring, ring_capacity, delivered_seq, .. } = &mut *inner;
        for publication in batch {
            match publication {
                Publication::Envelope { seq, channel, action_type, envelope, frame } => {
                    // Built for the first 0.9 subscriber, shared by the others.
                    let mut frame_v0_9: Option<Option<OutFrame>> = None;
                    if let Some(ids) = by_channel.get(&*channel) {
                        for id in ids {
                            let Some(conn) = conns.get_mut(id) else { continue };
                            let from = conn.subs.get(&*channel).map_or(u64::MAX, |s| s.from_seq);
                            if seq <= from {
                                continue;
                            }
                            match conn.generation {
                                ProtocolGeneration::V1 => {
                                    conn.push(&frame);
                                }
                                ProtocolGeneration::V0_9 => {
                                    let downgraded = frame_v0_9.get_or_insert_with(|| {
                                        downgrade::envelope_json(&envelope, &action_type).map(|e| match e {
                                            Cow::Borrowed(_) => frame.clone(),
                                            Cow::Owned(e) => downgrade::action_frame(&e).into(),
                                        })
                                    });
                                    if let Some(f) = downgraded {
                                        conn.push(f);
                                    }
                                }
                            }
                        }
                    }
                    *delivered_seq = seq;
                    if ring.len() == *ring_capacity {
                        ring.pop_front();
                    }
                    ring.push_back(RingEntry { seq, channel, action_type, envelope });
                }
                Publication::Reply { conn, frame, ticket } => {
                    if let Some(conn) = conns.get_mut(&conn) {
                        if ticket.is_some() {
                            conn.subs.values_mut().filter(|s| s.pending == ticket).for_each(|s| s.pending = None);
                        }
                        conn.push(&frame);
                    }
                }
                Publication::Notification { channel, frame, frame_v0_9 } => {
                    if let Some(ids) = by_channel.get(&*channel) {
                        for id in ids {
                            let Some(conn) = conns.get_mut(id) else { continue };
                            if conn.subs.get(&*channel).is_none_or(|s| s.pending.is_some()) {
                                continue;
                            }
                            let frame = match conn.generation {
                                ProtocolGeneration::V1 => &frame,
                                ProtocolGeneration::V0_9 => &frame_v0_9,
                            };
                            conn.push(frame);
                        }
                    }
                }
            }
        }
    }
}

fn remove_sub(by_channel: &mut HashMap<String, HashSet<ConnId>>, channel: &str, id: ConnId) {
    if let Some(ids) = by_channel.get_mut(channel) {
        ids.remove(&id);
        if ids.is_empty() {
            by_channel.remove(channel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replay_ring_keeps_at_least_1000_envelopes_whatever_it_is_asked() {
        let hub = Hub::new(4, 0);
        let (tx, _rx) = mpsc::channel(8);
        hub.add_connection(1, tx, Arc::new(Notify::new()));
        let envelope = |seq: u64| Publication::Envelope {
            seq,
            channel: "ahp-session:/ring".into(),
            action_type: "session/titleChanged".into(),
            envelope: seq.to_string().into(),
            frame: "frame".into(),
        };
        hub.publish((1..=1000).map(envelope).collect());
        let mut replayed = Vec::new();
        let covered = hub.replay_and_subscribe(1, 0, &["ahp-session:/ring".to_owned()], |missed| {
            replayed = missed;
            OutFrame::from("reply")
        });
        assert!(covered, "a gap of 1,000 envelopes is replayed, not answered with snapshots");
        assert_eq!(replayed.len(), 1000);
        assert_eq!(&*replayed[0], "1");
    }

    #[test]
    fn a_0_9_connection_gets_actions_as_0_9_defines_them_and_a_1_0_one_as_they_are() {
        let hub = Hub::new(MIN_REPLAY_CAPACITY, 0);
        let channel = "ahp-session:/two".to_owned();
        let (tx_1, mut rx_1) = mpsc::channel(8);
        let (tx_0_9, mut rx_0_9) = mpsc::channel(8);
        hub.add_connection(1, tx_1, Arc::new(Notify::new()));
        hub.add_connection(2, tx_0_9, Arc::new(Notify::new()));
        hub.identify(1, "new", ProtocolGeneration::V1);
        hub.identify(2, "old", ProtocolGeneration::V0_9);
        for id in [1, 2] {
            hub.replay_and_subscribe(id, 0, std::slice::from_ref(&channel), |_| OutFrame::from("reply"));
        }
        let publication = |seq: u64, action: serde_json::Value| {
            let action_type = action["type"].as_str().unwrap_or_default().into();
            let envelope = serde_json::json!({ "channel": channel, "action": action, "serverSeq": seq }).to_string();
            let frame = downgrade::action_frame(&envelope).into();
            Publication::Envelope {
                seq,
                channel: channel.as_str().into(),
                action_type,
                envelope: envelope.into(),
                frame,
            }
        };
        let summary = serde_json::json!({ "resource": "ahp-chat:/c", "title": "t", "status": 1, "modifiedAt": "2026-01-01T00:00:00.000Z", "movable": false });
        hub.publish(vec![
            publication(1, serde_json::json!({ "type": "session/chatsReordered", "chats": ["ahp-chat:/c"] })),
            publication(2, serde_json::json!({ "type": "session/chatAdded", "summary": summary })),
        ]);
        let frames = |rx: &mut mpsc::Receiver<OutFrame>| {
            std::iter::from_fn(|| rx.try_recv().ok())
                .filter(|f| f.as_str() != "reply")
                .map(|f| serde_json::from_str::<serde_json::Value>(&f).unwrap()["params"]["action"].clone())
                .collect::<Vec<_>>()
        };
        let new = frames(&mut rx_1);
        assert_eq!(new.len(), 2);
        assert_eq!(new[1]["summary"]["movable"], false);
        let old = frames(&mut rx_0_9);
        assert_eq!(old.len(), 1, "0.9 has no session/chatsReordered: {old:?}");
        assert_eq!(old[0]["type"], "session/chatAdded");
        assert_eq!(old[0]["summary"].get("movable"), None);
        let mut replayed = Vec::new();
        hub.replay_and_subscribe(2, 0, std::slice::from_ref(&channel), |missed| {
            replayed = missed;
            OutFrame::from("reply")
        });
        assert_eq!(replayed.len(), 1, "the replay is filtered the same way");
        assert!(!replayed[0].contains("movable"));
    }
}
