//! One soak client: a bare WebSocket that follows a few sessions and their
//! chats, dispatches random actions (seeded), drops its connection and
//! comes back with `reconnect`, and checks every frame it gets:
//! `serverSeq` strictly rising, each of its own actions echoed exactly once,
//! every envelope valid for the official reducers.

use std::collections::BTreeSet;
use std::time::Duration;

use ahp_types::ActionEnvelope;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::Rng;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::mirror::Mirror;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What one client counted and found wrong.
#[derive(Default, Debug, Clone)]
pub struct ClientTally {
    /// Actions dispatched.
    pub dispatched: u64,
    /// Own actions echoed as applied.
    pub applied: u64,
    /// Own actions echoed with a rejection reason.
    pub rejected: u64,
    /// Envelopes received (live and replayed).
    pub envelopes: u64,
    /// Times the connection was dropped and `reconnect`ed.
    pub reconnects: u64,
    /// Reconnects answered with a replay of what was missed.
    pub replays: u64,
    /// Reconnects answered with snapshots (the gap was older than the ring).
    pub snapshot_recoveries: u64,
    /// Actions sent while connected that never came back (must be empty).
    pub lost: Vec<String>,
    /// Anything else wrong: a falling `serverSeq`, a doubled echo, an
    /// envelope the reducers refuse, an error reply (must be empty).
    pub faults: Vec<String>,
}

impl ClientTally {
    /// Add `other`'s counts and findings to these.
    pub fn add(&mut self, other: ClientTally) {
        self.dispatched += other.dispatched;
        self.applied += other.applied;
        self.rejected += other.rejected;
        self.envelopes += other.envelopes;
        self.reconnects += other.reconnects;
        self.replays += other.replays;
        self.snapshot_recoveries += other.snapshot_recoveries;
        self.lost.extend(other.lost);
        self.faults.extend(other.faults);
    }
}

/// A channel pair a client follows.
#[derive(Clone, Debug)]
pub struct Followed {
    /// `ahp-session:` URI.
    pub session: String,
    /// Its default chat.
    pub chat: String,
}

/// One client's run.
pub struct SoakClient {
    id: String,
    url: String,
    rng: StdRng,
    follows: Vec<Followed>,
    /// The mirror of what it follows.
    pub mirror: Mirror,
    last_seq: u64,
    next_client_seq: i64,
    next_request: u64,
    /// Dispatched on the current connection, not yet echoed.
    pending: BTreeSet<i64>,
    /// Dispatched on an earlier connection and not echoed before it dropped:
    /// the replay or a live envelope may still bring them (if applied, also
    /// when the old connection's last frames are handled after the
    /// reconnect), or nothing will (if rejected: rejections go to the
    /// sender only, live).
    in_flight_at_drop: BTreeSet<i64>,
    echoed: BTreeSet<i64>,
    /// The counts and faults.
    pub tally: ClientTally,
}

/// Chance per step that the client drops its connection.
const DROP_CHANCE: f64 = 0.03;

impl SoakClient {
    /// A client named `id` on `url` (with the token) following `follows`.
    pub fn new(id: String, url: String, rng: StdRng, follows: Vec<Followed>) -> Self {
        Self {
            id,
            url,
            rng,
            follows,
            mirror: Mirror::default(),
            last_seq: 0,
            next_client_seq: 1,
            next_request: 1,
            pending: BTreeSet::new(),
            in_flight_at_drop: BTreeSet::new(),
            echoed: BTreeSet::new(),
            tally: ClientTally::default(),
        }
    }

    /// Dispatch and drop at random until `until`, then read until nothing
    /// has come for `quiet`; returns the client with its mirror and tally.
    pub async fn run(mut self, until: Instant, quiet: Duration) -> Self {
        let (mut tx, mut rx) = match self.open(true).await {
            Some(ws) => ws,
            None => return self,
        };
        let mut next_step = Instant::now() + self.step_gap();
        while Instant::now() < until {
            tokio::select! {
                frame = rx.next() => match frame {
                    Some(Ok(Message::Text(t))) => self.handle_text(&t),
                    Some(Ok(_)) => {}
                    _ => {
                        self.tally.faults.push(format!("{}: the host closed the connection", self.id));
                        return self;
                    }
                },
                () = tokio::time::sleep_until(next_step) => {
                    next_step = Instant::now() + self.step_gap();
                    if self.rng.gen_bool(DROP_CHANCE) {
                        let _ = tx.close().await;
                        self.in_flight_at_drop.extend(std::mem::take(&mut self.pending));
                        tokio::time::sleep(Duration::from_millis(self.rng.gen_range(0..400))).await;
                        (tx, rx) = match self.open(false).await {
                            Some(ws) => ws,
                            None => return self,
                        };
                    } else {
                        let frame = self.random_action();
                        if tx.send(Message::text(frame)).await.is_err() {
                            self.tally.faults.push(format!("{}: a dispatch could not be sent", self.id));
                            return self;
                        }
                    }
                }
            }
        }
        // Settle: everything in flight comes back.
        while let Ok(Some(frame)) = tokio::time::timeout(quiet, rx.next()).await {
            match frame {
                Ok(Message::Text(t)) => self.handle_text(&t),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        for cs in &self.pending {
            self.tally.lost.push(format!("{} clientSeq {cs}", self.id));
        }
        let _ = tx.close().await;
        self
    }

    fn step_gap(&mut self) -> Duration {
        Duration::from_millis(self.rng.gen_range(50..400))
    }

    /// Connect and either initialize and subscribe (`fresh`) or reconnect.
    async fn open(&mut self, fresh: bool) -> Option<(SplitSink<Ws, Message>, SplitStream<Ws>)> {
        let ws = match tokio_tungstenite::connect_async(self.url.as_str()).await {
            Ok((ws, _)) => ws,
            Err(e) => {
                self.tally.faults.push(format!("{}: connect failed: {e}", self.id));
                return None;
            }
        };
        let (mut tx, mut rx) = ws.split();
        if fresh {
            let init =
                json!({"channel": ahp_types::ROOT_RESOURCE_URI, "protocolVersions": ["1.0.0"], "clientId": self.id});
            self.request(&mut tx, &mut rx, "initialize", init).await?;
            let channels: Vec<String> = self.follows.iter().flat_map(|f| [f.session.clone(), f.chat.clone()]).collect();
            for channel in channels {
                let reply = self.request(&mut tx, &mut rx, "subscribe", json!({"channel": channel})).await?;
                self.take_snapshot(&reply["snapshot"]);
            }
        } else {
            self.tally.reconnects += 1;
            let subscriptions: Vec<String> = self.mirror.uris().cloned().collect();
            let params = json!({"channel": ahp_types::ROOT_RESOURCE_URI, "clientId": self.id, "lastSeenServerSeq": self.last_seq, "subscriptions": subscriptions});
            let reply = self.request(&mut tx, &mut rx, "reconnect", params).await?;
            match reply["type"].as_str() {
                Some("replay") => {
                    self.tally.replays += 1;
                    for action in reply["actions"].as_array().into_iter().flatten() {
                        self.handle_envelope(action);
                    }
                }
                Some("snapshot") => {
                    self.tally.snapshot_recoveries += 1;
                    for snapshot in reply["snapshots"].as_array().into_iter().flatten() {
                        self.take_snapshot(snapshot);
                    }
                }
                _ => self.tally.faults.push(format!("{}: reconnect answered {reply}", self.id)),
            }
        }
        Some((tx, rx))
    }

    /// Send a request and read (handling everything else) until its answer.
    async fn request(
        &mut self,
        tx: &mut SplitSink<Ws, Message>,
        rx: &mut SplitStream<Ws>,
        method: &str,
        params: Value,
    ) -> Option<Value> {
        let id = self.next_request;
        self.next_request += 1;
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if tx.send(Message::text(frame.to_string())).await.is_err() {
            self.tally.faults.push(format!("{}: {method} could not be sent", self.id));
            return None;
        }
        loop {
            let frame = match tokio::time::timeout(crate::WAIT, rx.next()).await {
                Ok(Some(Ok(Message::Text(t)))) => t,
                Ok(Some(Ok(_))) => continue,
                _ => {
                    self.tally.faults.push(format!("{}: no answer to {method}", self.id));
                    return None;
                }
            };
            let Ok(msg) = serde_json::from_str::<Value>(&frame) else {
                self.tally.faults.push(format!("{}: a frame that is not JSON", self.id));
                continue;
            };
            if msg.get("method").is_none() && msg["id"] == json!(id) {
                if let Some(result) = msg.get("result") {
                    return Some(result.clone());
                }
                self.tally.faults.push(format!("{}: {method} failed: {msg}", self.id));
                return None;
            }
            self.handle(&msg);
        }
    }

    fn take_snapshot(&mut self, snapshot: &Value) {
        let uri = snapshot["resource"].as_str().unwrap_or_default().to_owned();
        if let Err(e) = self.mirror.snapshot(&uri, &snapshot["state"]) {
            self.tally.faults.push(format!("{}: {e}", self.id));
        }
        self.last_seq = self.last_seq.max(snapshot["fromSeq"].as_u64().unwrap_or(0));
    }

    fn handle_text(&mut self, text: &str) {
        match serde_json::from_str::<Value>(text) {
            Ok(msg) => self.handle(&msg),
            Err(_) => self.tally.faults.push(format!("{}: a frame that is not JSON", self.id)),
        }
    }

    fn handle(&mut self, msg: &Value) {
        if msg["method"] == "action" {
            self.handle_envelope(&msg["params"]);
        }
    }

    fn handle_envelope(&mut self, raw: &Value) {
        let envelope: ActionEnvelope = match serde_json::from_value(raw.clone()) {
            Ok(e) => e,
            Err(e) => {
                self.tally.faults.push(format!("{}: an envelope did not decode: {e}", self.id));
                return;
            }
        };
        self.tally.envelopes += 1;
        let rejected = envelope.rejection_reason.is_some();
        if let Some(origin) = envelope.origin.as_ref().filter(|o| o.client_id == self.id) {
            let cs = origin.client_seq;
            let expected = self.pending.remove(&cs) | self.in_flight_at_drop.remove(&cs);
            if !self.echoed.insert(cs) {
                self.tally.faults.push(format!("{}: clientSeq {cs} echoed twice", self.id));
            } else if !expected {
                self.tally.faults.push(format!("{}: an echo of clientSeq {cs}, never sent", self.id));
            }
            if rejected {
                self.tally.rejected += 1;
            } else {
                self.tally.applied += 1;
            }
        }
        if rejected {
            // A rejection changes nothing and carries the current seq.
            return;
        }
        if envelope.server_seq <= self.last_seq {
            self.tally.faults.push(format!(
                "{}: serverSeq {} after {} on {}",
                self.id, envelope.server_seq, self.last_seq, envelope.channel
            ));
        }
        self.last_seq = self.last_seq.max(envelope.server_seq);
        if let Err(e) = self.mirror.apply(&envelope) {
            self.tally.faults.push(format!("{}: {e}", self.id));
        }
    }

    /// A random action on a followed session or chat, as a frame.
    fn random_action(&mut self) -> String {
        let cs = self.next_client_seq;
        self.next_client_seq += 1;
        self.pending.insert(cs);
        self.tally.dispatched += 1;
        let target = self.follows[self.rng.gen_range(0..self.follows.len())].clone();
        let roll = self.rng.gen_range(0..100);
        let (channel, action) = if roll < 40 {
            let action = json!({"type": "chat/turnStarted", "turnId": format!("{}-{cs}", self.id),
                "startedAt": crate::actions::now(),
                "message": {"text": format!("message {cs} from {}", self.id), "origin": {"kind": "user"}}});
            (target.chat, action)
        } else if roll < 65 {
            (target.session, json!({"type": "session/titleChanged", "title": format!("title {cs} by {}", self.id)}))
        } else if roll < 80 {
            (target.session, json!({"type": "session/isReadChanged", "isRead": self.rng.gen_bool(0.5)}))
        } else {
            let draft = json!({"text": format!("draft {cs}"), "origin": {"kind": "user"}});
            (target.chat, json!({"type": "chat/draftChanged", "draft": draft}))
        };
        json!({"jsonrpc": "2.0", "method": "dispatchAction",
               "params": {"channel": channel, "clientSeq": cs, "action": action}})
        .to_string()
    }
}
