//! `soak`: many clients on one host for a while, checked with the official
//! reducers; prints the figures `docs/reliability.md` quotes.
//!
//! Run (release builds of the host, the fake agent and this binary):
//!   cargo build --release -p hangar-cli -p hangar-fake-agent -p hangar-e2e
//!   target/release/soak --clients 50 --sessions 20 --minutes 10
//! Options: `--clients N` (50), `--sessions N` (20), `--minutes M` (10; a
//! fraction is fine), `--seed S` (1), `--follows N` (3 sessions per client).
//! Exits 1 when an action was lost or anything else was wrong.

#![allow(clippy::unwrap_used, clippy::panic, reason = "a soak run: a step that fails ends the run with its message")]

use std::time::Duration;

use hangar_e2e::soak::{run, Options};

fn options() -> Options {
    let mut o = Options { clients: 50, sessions: 20, duration: Duration::from_secs(600), seed: 1, follows: 3 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--clients" => o.clients = value.parse().unwrap(),
            "--sessions" => o.sessions = value.parse().unwrap(),
            "--minutes" => o.duration = Duration::from_secs_f64(value.parse::<f64>().unwrap() * 60.0),
            "--seed" => o.seed = value.parse().unwrap(),
            "--follows" => o.follows = value.parse().unwrap(),
            other => panic!("unknown option {other}"),
        }
    }
    o
}

#[tokio::main]
async fn main() {
    let o = options();
    println!(
        "soak: {} clients, {} sessions, {:.1} minutes, seed {}",
        o.clients,
        o.sessions,
        o.duration.as_secs_f64() / 60.0,
        o.seed
    );
    let report = run(&o).await;
    println!("{}", report.figures());
    for line in report.totals.lost.iter().chain(&report.totals.faults).filter(|l| !l.starts_with("a mirror")).take(20) {
        println!("  {line}");
    }
    if !report.totals.lost.is_empty() || !report.totals.faults.is_empty() {
        std::process::exit(1);
    }
}
