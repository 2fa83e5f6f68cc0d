//! `bench-turn-memory`: the host's resident memory per turn, measured from
//! outside, over thousands of turns in one session.
//!
//! One `hangar serve` process, one session whose fake agent streams each
//! turn as 20 chunks of about 100 bytes, one client that sends the next
//! message as soon as a turn ends. The host's RSS (`/proc/PID/status`) is
//! sampled every `--every` turns; the figure is the least-squares slope
//! after the first third (warm-up), in bytes per turn, beside the size of
//! one completed turn as the store keeps it (the baseline: what each turn
//! would cost if the host kept every turn in memory).
//!
//! Run (release builds): `cargo build --release -p hangar-cli -p
//! hangar-fake-agent -p hangar-e2e && target/release/bench-turn-memory`.
//! Options: `--turns N` (5000), `--every N` (250).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a benchmark run: a step that fails ends the run with its message"
)]

use std::time::Instant;

use hangar_e2e::acp::{AgentCmd, Rig};
use hangar_e2e::{least_squares_slope, rss_kib, status_kib, Launch};
use serde_json::{json, Value};

struct Args {
    turns: usize,
    every: usize,
}

fn args() -> Args {
    let mut a = Args { turns: 5000, every: 250 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value: usize = it.next().unwrap_or_default().parse().unwrap();
        match flag.as_str() {
            "--turns" => a.turns = value,
            "--every" => a.every = value.max(1),
            other => panic!("unknown option {other}"),
        }
    }
    a
}

fn script() -> Value {
    let chunk = "Hangar keeps only the newest turns of a chat in memory; ".repeat(2);
    let mut steps: Vec<Value> = (0..20).map(|i| json!({ "chunk": format!("{i}: {chunk}") })).collect();
    steps.push(json!({ "end": "end_turn" }));
    json!({ "turns": [steps] })
}

#[tokio::main]
async fn main() {
    let a = args();
    let mut rig = Rig::start(AgentCmd::Script(script()), Launch::Process(&[])).await;
    assert_eq!(rig.created, "session/ready", "the session starts");
    let pid = rig.host.pid();
    let started = Instant::now();
    let mut samples: Vec<(f64, f64)> = vec![(0.0, rss_kib(pid) as f64)];
    let mut split = vec![(status_kib(pid, "RssAnon:"), status_kib(pid, "RssFile:"))];
    for i in 1..=a.turns {
        let id = rig.send(&format!("message {i}: tell me more")).await;
        let end = rig.wait_end(&id).await;
        assert_eq!(end, "chat/turnComplete", "turn {i} ends");
        if i % a.every == 0 {
            samples.push((i as f64, rss_kib(pid) as f64));
            split.push((status_kib(pid, "RssAnon:"), status_kib(pid, "RssFile:")));
        }
    }
    let elapsed = started.elapsed();
    let warm: Vec<(f64, f64)> = samples.iter().copied().filter(|(t, _)| *t >= a.turns as f64 / 3.0).collect();
    let per_turn = least_squares_slope(&warm) * 1024.0;

    let (snapshot, _subscription) = rig.client.subscribe(rig.chat.clone()).await.unwrap();
    let state = serde_json::to_value(snapshot.snapshot.unwrap().state).unwrap();
    let turns = state["turns"].as_array().cloned().unwrap_or_default();
    let turn_bytes = turns.last().map(|t| t.to_string().len()).unwrap_or(0);

    println!("bench-turn-memory: {} turns in one session in {:.1} s", a.turns, elapsed.as_secs_f64());
    for ((t, kib), (anon, file)) in samples.iter().zip(&split) {
        println!("  after {t:>6.0} turns: RSS {kib:>8.0} KiB (anonymous {anon:>8} KiB, files {file:>8} KiB)");
    }
    println!(
        "host RSS start {:.0} KiB, end {:.0} KiB; after warm-up it grows {per_turn:.1} bytes per turn (least squares)",
        samples[0].1,
        samples.last().map_or(0.0, |s| s.1),
    );
    println!(
        "baseline: one completed turn is {turn_bytes} bytes of JSON; kept live, {} turns would hold {:.0} KiB or more",
        a.turns,
        (turn_bytes * a.turns) as f64 / 1024.0
    );
    println!("ratio: growth per turn / turn size = {:.3}", per_turn / turn_bytes.max(1) as f64);
}
