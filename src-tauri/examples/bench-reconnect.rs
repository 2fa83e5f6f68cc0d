//! `bench-reconnect`: how long after a remote host's restart the desktop core
//! shows it connected again and has re-synchronised the open chat.
//!
//! Run (release builds):
//!   cargo build --release -p hangar-cli -p hangar-fake-agent
//!   cargo run --release -p hangar-desktop --example bench-reconnect -- [--restarts 20] [--tls]
//!
//! One `hangar serve` process on a fixed loopback port (with `--tls`: a
//! self-signed `wss://` host, pinned) is saved in a temporary host list; the
//! core (`Core`, as the app runs it, with its reconnect schedule) reads the
//! list, a session with the fake agent gets one turn and its chat stays
//! open. Each round kills the host (`kill -9`), waits until the app view
//! says *reconnecting*, starts the host again on the same data and port,
//! and times from the host's ready line to (1) the app view's host state
//! `connected` and (2) the open chat's fresh `snapshot` op holding the turn.
//! Then the same with the person pressing *Retry now* right after the host
//! is ready (`host.reconnect`): the protocol's own cost without the backoff
//! wait. Prints every round, then p50 / p90 / max of each.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a benchmark run: a step that fails ends the run with its message"
)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hangar_desktop::commands::call_wire;
use hangar_desktop::core::{Core, Sink};
use hangar_desktop_protocol::StreamEvent;
use hangar_e2e::acp::fake_agent_bin;
use hangar_e2e::{Launch, TestHost};
use hangar_remote::{NewHost, Remotes, TokenStorage};
use serde_json::{json, Value};

/// When each thing the bench waits for was first seen by a sink.
#[derive(Default)]
struct Seen {
    /// The host's connection state, and since when.
    state: (String, Option<Instant>),
    /// Arrival of every chat `snapshot` op that holds the turn.
    snapshots: Vec<Instant>,
}

type Shared = Arc<Mutex<Seen>>;

fn app_sink(seen: Shared, host: String) -> Sink {
    Arc::new(move |event: StreamEvent| {
        let op = serde_json::to_value(event).unwrap();
        let state = op.get("hosts").and_then(|hosts| {
            hosts.as_array()?.iter().find(|h| h["id"] == host.as_str()).map(|h| h["connection"]["state"].clone())
        });
        if let Some(Value::String(state)) = state {
            let mut seen = seen.lock().unwrap();
            if seen.state.0 != state {
                seen.state = (state, Some(Instant::now()));
            }
        }
        true
    })
}

fn chat_sink(seen: Shared) -> Sink {
    Arc::new(move |event: StreamEvent| {
        let op = serde_json::to_value(event).unwrap();
        if op["op"] == "snapshot" && op.to_string().contains("echo: hello") {
            seen.lock().unwrap().snapshots.push(Instant::now());
        }
        true
    })
}

/// Wait (60 s at most) until `probe` yields.
async fn until<T>(what: &str, probe: impl Fn() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn percentiles(label: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() as f64 - 1.0) * p).round() as usize];
    println!("{label}: p50 {:.0} ms, p90 {:.0} ms, max {:.0} ms (n = {})", at(0.5), at(0.9), at(1.0), ms.len());
}

struct Rig {
    data: std::path::PathBuf,
    args: Vec<String>,
    home: String,
}

impl Rig {
    fn serve(&self) -> TestHost {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        TestHost::start_in(Launch::Process(&[("HOME", self.home.as_str())]), &self.data, &args)
    }
}

/// One round: kill, wait for *reconnecting*, restart; `retry_now` presses
/// "Retry now" once the host is ready. Returns (ms to connected, ms to the
/// fresh snapshot), from the ready line.
async fn round(
    core: &Arc<Core>,
    rig: &Rig,
    host: &mut TestHost,
    id: &str,
    seen: &Shared,
    retry_now: bool,
) -> (f64, f64) {
    let snapshots_before = seen.lock().unwrap().snapshots.len();
    host.kill9();
    until("reconnecting", || (seen.lock().unwrap().state.0 == "reconnecting").then_some(())).await;
    *host = rig.serve();
    let ready = Instant::now();
    if retry_now {
        call_wire(core, "host.reconnect", json!({"host": id}), None).await.unwrap();
    }
    let connected = until("connected", || {
        let seen = seen.lock().unwrap();
        (seen.state.0 == "connected").then_some(seen.state.1).flatten()
    })
    .await;
    let resynced = until("a fresh snapshot", || seen.lock().unwrap().snapshots.get(snapshots_before).copied()).await;
    let ms = |t: Instant| t.saturating_duration_since(ready).as_secs_f64() * 1000.0;
    (ms(connected), ms(resynced))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let restarts: usize = args.iter().position(|a| a == "--restarts").map_or(20, |i| args[i + 1].parse().unwrap());
    let tls = args.iter().any(|a| a == "--tls");

    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join("proj")).unwrap();
    let script = tmp.path().join("echo.json");
    std::fs::write(&script, json!({"turns": [[{"echo": true}, {"end": "end_turn"}]]}).to_string()).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut serve_args = vec![
        "--listen".to_owned(),
        format!("127.0.0.1:{port}"),
        "--agent".to_owned(),
        format!("fake={} --script {}", fake_agent_bin().display(), script.display()),
    ];
    if tls {
        serve_args.push("--tls-self-signed".to_owned());
    }
    let rig = Rig { data: tmp.path().join("data"), args: serve_args, home: home.display().to_string() };
    let mut host = rig.serve();
    let fingerprint = tls.then(|| {
        let ready: Value = serde_json::from_str(&host.ready_line).unwrap();
        ready["tlsFingerprint"].as_str().unwrap().parse().unwrap()
    });
    let cfg = tmp.path().join("config");
    let new = NewHost {
        name: "box".into(),
        url: host.url.clone(),
        token: host.token.clone(),
        fingerprint,
        token_storage: TokenStorage::InsecureFile,
    };
    let id = Remotes::at(&cfg).add(new).unwrap().id;

    let core = Core::start();
    core.load_saved_hosts(Remotes::at(&cfg)).await.unwrap();
    let seen: Shared = Arc::default();
    call_wire(&core, "app.watch", json!({}), Some(app_sink(seen.clone(), id.clone()))).await.unwrap();
    until("connected", || (seen.lock().unwrap().state.0 == "connected").then_some(())).await;
    let folder = format!("file://{}", home.join("proj").canonicalize().unwrap().display());
    let created =
        call_wire(&core, "session.create", json!({"host": id, "agent": "fake", "folder": folder}), None).await.unwrap();
    let session = serde_json::to_value(created).unwrap()["session"].as_str().unwrap().to_owned();
    let opened = call_wire(&core, "chat.open", json!({"host": id, "session": session}), Some(chat_sink(seen.clone())))
        .await
        .unwrap();
    let chat = serde_json::to_value(opened).unwrap()["chat"].as_str().unwrap().to_owned();
    call_wire(&core, "chat.send", json!({"host": id, "chat": chat, "text": "hello"}), None).await.unwrap();
    let host_id = ahp::hosts::HostId::new(id.as_str());
    until("the first turn", || core.chat_state(&host_id, &chat).filter(|c| c.turns.len() == 1).map(|_| ())).await;

    println!(
        "bench-reconnect: {restarts} restarts of a {} host, kill -9 each time",
        if tls { "wss://" } else { "ws://" }
    );
    for retry_now in [false, true] {
        let (mut connected, mut resynced) = (Vec::new(), Vec::new());
        for i in 0..restarts {
            let (c, r) = round(&core, &rig, &mut host, &id, &seen, retry_now).await;
            println!("  {} round {i:2}: connected {c:6.0} ms, chat resynchronised {r:6.0} ms", label(retry_now));
            connected.push(c);
            resynced.push(r);
        }
        percentiles(&format!("{}: ready line -> connected", label(retry_now)), connected);
        percentiles(&format!("{}: ready line -> chat resynchronised", label(retry_now)), resynced);
    }
}

fn label(retry_now: bool) -> &'static str {
    if retry_now {
        "retry now"
    } else {
        "backoff  "
    }
}
