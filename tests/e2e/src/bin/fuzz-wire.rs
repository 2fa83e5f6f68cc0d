//! `fuzz-wire`: a million mutated frames (or `--frames N`) at a running host
//! over several connections while a bystander pings it; prints the figures
//! `docs/reliability.md` quotes. Exits 1 if the host died or the bystander
//! went unanswered.
//!
//! Run (release builds of the host and this binary):
//!   cargo build --release -p hangar-cli -p hangar-e2e
//!   target/release/fuzz-wire
//! Options: `--frames N` (1000000), `--minutes M` (10: the time bound),
//! `--connections N` (4), `--seed S` (1).

#![allow(clippy::unwrap_used, clippy::panic, reason = "a fuzz run: a step that fails ends the run with its message")]

use std::time::Duration;

use hangar_e2e::wire_fuzz::{run, Options};

fn options() -> Options {
    let mut o = Options { frames: 1_000_000, max_time: Duration::from_secs(600), connections: 4, seed: 1 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--frames" => o.frames = value.parse().unwrap(),
            "--minutes" => o.max_time = Duration::from_secs_f64(value.parse::<f64>().unwrap() * 60.0),
            "--connections" => o.connections = value.parse().unwrap(),
            "--seed" => o.seed = value.parse().unwrap(),
            other => panic!("unknown option {other}"),
        }
    }
    o
}

#[tokio::main]
async fn main() {
    let o = options();
    println!("fuzz-wire: {} frames over {} connections, seed {}", o.frames, o.connections, o.seed);
    let report = run(&o).await;
    println!("{}", report.figures());
    if !report.host_alive || report.failed_pings > 0 || report.stalls > 0 {
        std::process::exit(1);
    }
}
