//! Streaming benchmark: the fake ACP agent emits 10,000 message chunks as
//! fast as it can; prints how long until an AHP client subscribed to the
//! chat has all of them, next to the agent's own emit time in the same run.
//!
//! The agent times the same 10,000 chunks twice: into a sink that never
//! blocks (its own cost: serializing and buffering), then into the pipe to
//! the host (which includes waiting whenever the host has not read the pipe
//! yet, so it already contains host time). Wall-clock stamps (same machine)
//! give the time from the agent's first pipe write, and from its receiving
//! the prompt, until the client has all the text.
//!
//! `cargo build --release -p hangar-cli -p hangar-fake-agent -p hangar-e2e && target/release/bench-acp-stream [COUNT] [RUNS]`

#![allow(clippy::unwrap_used, reason = "a benchmark run: a step that fails ends the run with its message")]

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use hangar_e2e::acp::{AgentCmd, Rig};
use hangar_e2e::{action_type, Launch};
use serde_json::{json, Value};

fn unix_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    if std::env::var_os("HANGAR_BIN").is_none() {
        // Binaries sit next to this one (target/<profile>/).
        std::env::set_var("HANGAR_BIN", std::env::current_exe().unwrap().with_file_name("hangar"));
    }
    let count: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let runs: u32 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    println!("{count} chunks per run; times in ms; overhead = time / agent emit into a sink - 1");
    println!();
    println!("| agent emit, sink | agent emit, pipe | first pipe write → client has all | prompt received → client has all* | client turnStarted → all* | actions |");
    println!("|---|---|---|---|---|---|");
    for _ in 0..runs {
        run(count).await;
    }
    println!();
    println!("* minus the sink pre-run, which the agent does after receiving the prompt and before streaming");
}

async fn run(count: u64) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let report_path = report.path().display().to_string();
    let script = json!({ "turns": [[{ "flood": { "count": count, "text": "x" } }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::Process(&[("FAKE_ACP_REPORT", &report_path)])).await;
    assert_eq!(rig.created, "session/ready");
    let started = Instant::now();
    let turn = rig.send("go").await;
    // Each chunk is one character; the host may merge a burst of chunks
    // into one delta, so "has all of them" means all the text arrived.
    let mut actions = 0u64;
    let mut received = 0u64;
    let mut all_at = None;
    loop {
        let env = rig.wait(|_| true).await;
        let kind = action_type(&env);
        match kind.as_str() {
            "chat/responsePart" | "chat/delta" => {
                actions += 1;
                received += text_of(&env);
                if received >= count && all_at.is_none() {
                    all_at = Some((Instant::now(), unix_ms()));
                }
            }
            "chat/turnComplete" | "chat/error" | "chat/turnCancelled" => break,
            _ => {}
        }
    }
    let (all_at, all_unix) = all_at.unwrap_or_else(|| (Instant::now(), unix_ms()));
    let agent: Value =
        serde_json::from_str(&std::fs::read_to_string(report.path()).unwrap_or_default()).unwrap_or(Value::Null);
    let num = |k: &str| agent[k].as_f64().unwrap_or(f64::NAN);
    let (sink, pipe) = (num("sinkMs"), num("pipeMs"));
    let from_pipe = all_unix - num("pipeStartAt");
    // The sink pre-run sits between receiving the prompt and the first pipe
    // write; it is not part of streaming, so it is taken out.
    let from_prompt = all_unix - num("promptAt") - sink;
    let from_turn = (all_at - started).as_secs_f64() * 1000.0 - sink;
    let t = rig.turn(&turn).await;
    assert_eq!(hangar_e2e::acp::markdown(&t).len() as u64, count, "all text in state");
    assert_eq!(received, count, "all text at the client");
    let pct = |ms: f64| format!("{ms:.1} ({:+.0}%)", (ms / sink - 1.0) * 100.0);
    println!(
        "| {sink:.1} | {} | {} | {} | {} | {actions} |",
        pct(pipe),
        pct(from_pipe),
        pct(from_prompt),
        pct(from_turn)
    );
}

/// Characters of text a markdown part or delta carries.
fn text_of(env: &ahp_types::ActionEnvelope) -> u64 {
    let v = serde_json::to_value(&env.action).unwrap();
    let text = v["content"].as_str().or_else(|| v["part"]["content"].as_str()).unwrap_or_default();
    text.chars().count() as u64
}
