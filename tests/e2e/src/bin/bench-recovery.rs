//! `bench-recovery`: how fast clients and the host recover.
//!
//! - A client that missed 1,000 actions reconnects: time from sending
//!   `reconnect` to its reply carrying the replay (p50/p99 over 50 tries).
//! - The same for a gap older than the replay ring (the reply carries
//!   snapshots instead).
//! - `kill -9` and restart with 1,000 sessions that have turns: spawn to the
//!   ready line, ready line to the first `listSessions` reply, and to the
//!   first chat snapshot.
//!
//! Run (release builds): `cargo build --release -p hangar-cli -p hangar-e2e
//! && target/release/bench-recovery`. Options: `--tries N` (50), `--missed N`
//! (1000), `--sessions N` (1000), `--turns N` (5 per session).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a benchmark run: a step that fails ends the run with its message"
)]

use std::time::{Duration, Instant};

use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};

const ROOT: &str = "ahp-root://";

struct Args {
    tries: usize,
    missed: usize,
    sessions: usize,
    turns: usize,
}

fn args() -> Args {
    let mut a = Args { tries: 50, missed: 1000, sessions: 1000, turns: 5 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value: usize = it.next().unwrap_or_default().parse().unwrap();
        match flag.as_str() {
            "--tries" => a.tries = value,
            "--missed" => a.missed = value,
            "--sessions" => a.sessions = value,
            "--turns" => a.turns = value,
            other => panic!("unknown option {other}"),
        }
    }
    a
}

fn dispatch(channel: &str, action: Value) -> String {
    json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": channel, "clientSeq": 0, "action": action}})
        .to_string()
}

fn title(channel: &str, text: &str) -> String {
    dispatch(channel, json!({"type": "session/titleChanged", "title": text}))
}

/// Send `n` title changes on `session` and wait until the last is echoed;
/// returns the last `serverSeq`.
async fn publish(publisher: &mut RawClient, session: &str, n: usize, tag: &str) -> u64 {
    for i in 0..n {
        publisher.send_text(title(session, &format!("{tag}-{i}"))).await;
    }
    let last = format!("{tag}-{}", n - 1);
    loop {
        let msg = publisher.next_json().await.unwrap();
        if msg["method"] == "action" && msg["params"]["action"]["title"] == last.as_str() {
            return msg["params"]["serverSeq"].as_u64().unwrap();
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Reconnect after missing `missed` actions, `tries` times: the reply times
/// and the reply's type.
async fn reconnects(host: &TestHost, tries: usize, missed: usize) -> (Vec<Duration>, String) {
    let session = "ahp-session:/recover";
    let mut publisher = RawClient::initialized(host, "publisher").await;
    let created = publisher.request(json!(2), "createSession", json!({"channel": session})).await;
    assert!(created.get("error").is_none() || created["error"]["code"] == -32003, "{created}");
    publisher.request(json!(3), "subscribe", json!({"channel": session})).await;
    let mut times = Vec::new();
    let mut kind = String::new();
    for t in 0..tries {
        let client = format!("returning-{missed}-{t}");
        let mut c = RawClient::initialized(host, &client).await;
        let snap = c.request(json!(2), "subscribe", json!({"channel": session})).await;
        let seen = snap["result"]["snapshot"]["fromSeq"].as_u64().unwrap();
        drop(c);
        publish(&mut publisher, session, missed, &format!("{client}-x")).await;
        let mut back = RawClient::connect(&host.authed_url()).await.unwrap();
        let params =
            json!({"channel": ROOT, "clientId": client, "lastSeenServerSeq": seen, "subscriptions": [session]});
        let sent = Instant::now();
        let reply = back.request(json!(1), "reconnect", params).await;
        times.push(sent.elapsed());
        kind = reply["result"]["type"].as_str().unwrap_or("error").to_owned();
        if kind == "replay" {
            assert_eq!(reply["result"]["actions"].as_array().unwrap().len(), missed, "the replay is exactly the gap");
        }
    }
    times.sort();
    (times, kind)
}

/// Fill a store with `sessions` sessions of `turns` turns each, `kill -9`,
/// restart, and time the way back.
async fn restart(sessions: usize, turns: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut a_chat = String::new();
    {
        let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
        let mut c = RawClient::initialized(&host, "filler").await;
        for s in 0..sessions {
            let uri = format!("ahp-session:/restart-{s}");
            c.request(json!(format!("c{s}")), "createSession", json!({"channel": uri})).await;
            let snap = c.request(json!(format!("s{s}")), "subscribe", json!({"channel": uri})).await;
            let chat = snap["result"]["snapshot"]["state"]["defaultChat"].as_str().unwrap().to_owned();
            c.send_text(title(&uri, &format!("session {s}"))).await;
            for t in 0..turns {
                let turn = format!("t{t}");
                let started = json!({"type": "chat/turnStarted", "turnId": turn, "startedAt": hangar_e2e::actions::now(),
                    "message": {"text": format!("message {t}: {}", "words ".repeat(40)), "origin": {"kind": "user"}}});
                c.send_text(dispatch(&chat, started)).await;
                c.send_text(dispatch(&chat, json!({"type": "chat/turnCancelled", "turnId": turn, "duration": 3})))
                    .await;
            }
            c.send_text(json!({"jsonrpc": "2.0", "method": "unsubscribe", "params": {"channel": uri}}).to_string())
                .await;
            a_chat = chat;
        }
        // Everything applied and committed: the last chat has its turns.
        loop {
            let r = c.request(json!("check"), "subscribe", json!({"channel": a_chat})).await;
            if r["result"]["snapshot"]["state"]["turns"].as_array().map_or(0, Vec::len) == turns {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        host.kill9();
    }
    let spawned = Instant::now();
    let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let ready = Instant::now();
    let mut c = RawClient::initialized(&host, "reader").await;
    let listed = c.request(json!(2), "listSessions", json!({"channel": ROOT, "limit": 50})).await;
    let listed_at = Instant::now();
    assert_eq!(listed["result"]["items"].as_array().unwrap().len(), sessions.min(50));
    let snap = c.request(json!(3), "subscribe", json!({"channel": a_chat})).await;
    let chat_at = Instant::now();
    assert_eq!(snap["result"]["snapshot"]["state"]["turns"].as_array().unwrap().len(), turns);
    println!("restart after kill -9 with {sessions} sessions × {turns} completed turns:");
    println!("  spawn -> ready line:                 {:>8.1} ms", ms(ready - spawned));
    println!("  ready line -> first listSessions:    {:>8.1} ms", ms(listed_at - ready));
    println!("  ready line -> first chat snapshot:   {:>8.1} ms", ms(chat_at - ready));
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let a = args();
    let host = TestHost::start(Launch::Process(&[]), &[]);
    for (label, missed) in [("in the ring", a.missed), ("older than the ring (4096)", 5000.max(a.missed * 5))] {
        let (times, kind) = reconnects(&host, a.tries, missed).await;
        println!(
            "reconnect after missing {missed} actions ({label}): reply type {kind}, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} tries)",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(*times.last().unwrap()),
            times.len()
        );
    }
    drop(host);
    restart(a.sessions, a.turns).await;
}
