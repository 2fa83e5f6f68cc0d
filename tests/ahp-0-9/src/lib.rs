//! # hangar-e2e-ahp-0-9 — an AHP 0.9 client against the real host
//!
//! The official 0.9.0 crates (`ahp`, `ahp-ws`, `ahp-types`, renamed
//! `ahp_0_9`, `ahp_ws_0_9`, `ahp_types_0_9`) as a second client beside the
//! 1.0 one the e2e suite uses (`hangar-e2e`, whose [`hangar_e2e::acp::Rig`]
//! starts the real `hangar` binary with the scripted fake agent). Build the
//! binaries first: `cargo build -p hangar-cli -p hangar-fake-agent`.
//!
//! - [`connect`]: a 0.9 client that offered only `0.9.0`.
//! - [`subscribe`] / [`fresh_snapshot`]: a snapshot as the host sent it (JSON).
//! - [`only_0_9`]: read JSON as a 0.9 type and check it holds nothing else.
//! - [`Mirror`]: a channel as a 0.9 client keeps it, a snapshot plus every
//!   action since through the 0.9 reducers: the oracle.
//! - [`action`], [`wait_for`]: 0.9 actions to send, envelopes to await.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test support: a helper that cannot go on fails the test that called it"
)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use ahp_0_9::{Client, ClientConfig, ReduceOutcome, SessionSubscription, SubscriptionEvent};
use ahp_types_0_9::commands::{InitializeResult, SubscribeParams};
use ahp_types_0_9::{ActionEnvelope, StateAction};
use hangar_e2e::{TestHost, WAIT};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// The version the 0.9 client offers, alone.
pub const VERSION: &str = "0.9.0";

/// Open a connection with the official 0.9 client (no handshake yet).
pub async fn open(host: &TestHost) -> Client {
    let transport = ahp_ws_0_9::WebSocketTransport::connect(&host.authed_url()).await.unwrap();
    // A deep buffer: a streaming turn must not lag the client's ring.
    let config = ClientConfig { subscription_buffer: 1 << 17, ..Default::default() };
    Client::connect(transport, config).await.unwrap()
}

/// Connect the official 0.9 client and `initialize` offering only 0.9.0.
pub async fn connect(host: &TestHost, client_id: &str) -> Client {
    let client = open(host).await;
    let init: InitializeResult =
        client.initialize(client_id.to_owned(), vec![VERSION.into()], Vec::new()).await.unwrap();
    assert_eq!(init.protocol_version, VERSION);
    client
}

/// Subscribe `client` to `uri`; the snapshot as JSON, exactly as sent.
pub async fn subscribe(client: &Client, uri: &str) -> (Value, SessionSubscription) {
    // Attached before the request, as `Client::subscribe` does: nothing
    // sent after the reply is missed.
    let sub = client.attach_subscription(uri).await;
    let params = SubscribeParams { channel: uri.to_owned(), meta: None, delivery: None, view: None };
    let result: Value = client.request("subscribe", params).await.unwrap();
    (result["snapshot"].clone(), sub)
}

/// A snapshot of `uri` taken now by a new 0.9 connection.
pub async fn fresh_snapshot(host: &TestHost, uri: &str) -> Value {
    let client = connect(host, &format!("fresh-{}", next())).await;
    let (snapshot, _) = subscribe(&client, uri).await;
    client.shutdown().await;
    snapshot
}

/// Read `json` as the 0.9 type `T`, checking it holds nothing 0.9 does not
/// define: written back by the 0.9 type, it is the same JSON.
pub fn only_0_9<T: DeserializeOwned + Serialize>(json: &Value) -> T {
    let typed: T = serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("not AHP 0.9: {e}: {json}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(&back, json, "holds what AHP 0.9 does not define");
    typed
}

/// A 0.9 action from its JSON (one 0.9 defines: not `Unknown`).
pub fn action(json: Value) -> StateAction {
    let action: StateAction = serde_json::from_value(json).unwrap();
    assert!(!matches!(action, StateAction::Unknown(_)), "not an AHP 0.9 action: {action:?}");
    action
}

/// The wire `type` of a 0.9 action.
pub fn type_of(action: &StateAction) -> String {
    serde_json::to_value(action).unwrap()["type"].as_str().unwrap_or_default().to_owned()
}

/// The next action envelope on `sub` (notifications skipped).
pub async fn next_envelope(sub: &mut SessionSubscription) -> ActionEnvelope {
    tokio::time::timeout(WAIT, async {
        loop {
            match sub.recv().await {
                Some(SubscriptionEvent::Action(envelope)) => return envelope,
                Some(_) => {}
                None => panic!("subscription {} closed", sub.uri()),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("timed out waiting for an action on {}", sub.uri()))
}

/// Wait for an envelope whose action (as JSON) matches `pred`.
pub async fn wait_for(sub: &mut SessionSubscription, pred: impl Fn(&Value) -> bool) -> ActionEnvelope {
    loop {
        let envelope = next_envelope(sub).await;
        if pred(&serde_json::to_value(&envelope.action).unwrap()) {
            return envelope;
        }
    }
}

/// A unique number (client ids, marker texts).
pub fn next() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed) + u64::from(std::process::id()) * 1000
}

/// One channel as a 0.9 client keeps it: its snapshot plus every action
/// received since, reduced by the official 0.9 reducers.
pub struct Mirror<S> {
    /// The reduced state.
    pub state: S,
    /// Every action type received, in order.
    pub types: Vec<String>,
    uri: String,
    sub: SessionSubscription,
    reduce: fn(&mut S, &StateAction) -> ReduceOutcome,
    /// Received, not yet applied (past the seq last compared).
    ahead: VecDeque<ActionEnvelope>,
}

impl<S: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug> Mirror<S> {
    /// Subscribe `client` to `uri`; the snapshot must be pure 0.9.
    pub async fn subscribe(client: &Client, uri: &str, reduce: fn(&mut S, &StateAction) -> ReduceOutcome) -> Self {
        let (snapshot, sub) = subscribe(client, uri).await;
        let state = only_0_9(&snapshot["state"]);
        Self { state, types: Vec::new(), uri: uri.to_owned(), sub, reduce, ahead: VecDeque::new() }
    }

    /// A mirror of a state the client kept from an earlier connection,
    /// followed on this one through `sub`.
    pub fn resume(
        state: S,
        uri: &str,
        sub: SessionSubscription,
        reduce: fn(&mut S, &StateAction) -> ReduceOutcome,
    ) -> Self {
        Self { state, types: Vec::new(), uri: uri.to_owned(), sub, reduce, ahead: VecDeque::new() }
    }

    /// Apply envelopes the client got in a `reconnect` replay.
    pub fn apply_replay(&mut self, envelopes: &[ActionEnvelope]) {
        envelopes.iter().for_each(|envelope| self.apply(envelope));
    }

    /// Take a fresh 0.9 snapshot on a new connection, then bring the mirror
    /// to its `fromSeq` and compare: equal, or the test fails. `marker`, an
    /// action `client` dispatches on the channel after the snapshot, is
    /// what tells that every envelope up to `fromSeq` has arrived.
    pub async fn agrees_with_fresh(&mut self, host: &TestHost, client: &Client, marker: StateAction) {
        let fresh = fresh_snapshot(host, &self.uri).await;
        let from_seq = fresh["fromSeq"].as_u64().unwrap();
        let expected: S = only_0_9(&fresh["state"]);
        client.dispatch(self.uri.clone(), marker).await.unwrap();
        self.advance_to(from_seq).await;
        assert_eq!(
            self.state, expected,
            "{}: the 0.9 snapshot plus the 0.9 actions since is not the fresh one",
            self.uri
        );
    }

    /// Apply every envelope up to `seq`; keep the first one after it.
    async fn advance_to(&mut self, seq: u64) {
        loop {
            let envelope = match self.ahead.pop_front() {
                Some(envelope) => envelope,
                None => next_envelope(&mut self.sub).await,
            };
            if envelope.server_seq > seq {
                self.ahead.push_front(envelope);
                return;
            }
            self.apply(&envelope);
        }
    }

    fn apply(&mut self, envelope: &ActionEnvelope) {
        let kind = type_of(&envelope.action);
        if envelope.rejection_reason.is_some() {
            // An echo to this client of its own refused action: no change.
            self.types.push(format!("rejected {kind}"));
            return;
        }
        assert!(!matches!(envelope.action, StateAction::Unknown(_)), "a 0.9 client got an action 0.9 lacks: {kind}");
        let outcome = (self.reduce)(&mut self.state, &envelope.action);
        assert!(matches!(outcome, ReduceOutcome::Applied | ReduceOutcome::NoOp), "{kind} on {}: {outcome:?}", self.uri);
        self.types.push(kind);
    }
}

/// A 0.9 `chat/draftChanged` with a unique text (a marker that always
/// changes the chat).
pub fn draft_marker() -> StateAction {
    action(
        json!({ "type": "chat/draftChanged", "draft": { "text": format!("draft {}", next()), "origin": { "kind": "user" } } }),
    )
}

/// A 0.9 `session/titleChanged` with a unique title (a marker).
pub fn title_marker() -> StateAction {
    action(json!({ "type": "session/titleChanged", "title": format!("title {}", next()) }))
}

/// A 0.9 `chat/turnStarted` with a user message.
pub fn turn_started(turn_id: &str, text: &str) -> StateAction {
    action(json!({
        "type": "chat/turnStarted",
        "turnId": turn_id,
        "startedAt": hangar_e2e::actions::now(),
        "message": { "text": text, "origin": { "kind": "user" } }
    }))
}

/// A 0.9 `chat/toolCallConfirmed` approving a tool call, with the option
/// the user picked, if any.
pub fn approve(turn_id: &str, tool_call_id: &str, option: Option<&str>) -> StateAction {
    let mut approve = json!({
        "type": "chat/toolCallConfirmed",
        "turnId": turn_id,
        "toolCallId": tool_call_id,
        "approved": true,
        "confirmed": "user-action"
    });
    if let Some(option) = option {
        approve["selectedOptionId"] = json!(option);
    }
    action(approve)
}
