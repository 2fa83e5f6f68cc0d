//! Streaming benchmark: the fake ACP agent emits 10,000 message chunks as
//! fast as it can; prints how long until an AHP client subscribed to the
//! chat has all of them, next to the agent's own emit time in the same run.
//!
//! `cargo build --release -p hangar-cli -p hangar-fake-agent && cargo run --release -p hangar-e2e --bin bench-acp-stream [COUNT]`

#![allow(clippy::unwrap_used)]

use std::time::Instant;

use hangar_e2e::acp::{AgentCmd, Rig};
use hangar_e2e::action_type;
use serde_json::json;

#[tokio::main]
async fn main() {
    if std::env::var_os("HANGAR_BIN").is_none() {
        // Binaries sit next to this one (target/<profile>/).
        std::env::set_var("HANGAR_BIN", std::env::current_exe().unwrap().with_file_name("hangar"));
    }
    let count: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let report = tempfile::NamedTempFile::new().unwrap();
    let report_path = report.path().display().to_string();
    let script = json!({ "turns": [[{ "flood": { "count": count, "text": "x" } }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), &[("FAKE_ACP_REPORT", &report_path)]).await;
    assert_eq!(rig.created, "session/ready");
    let started = Instant::now();
    let turn = rig.send("go").await;
    // Each chunk is one character; the host may merge a burst of chunks
    // into one delta, so "has all of them" means all the text arrived.
    let mut actions = 0u64;
    let mut received = 0u64;
    let mut first = None;
    let mut all_at = None;
    loop {
        let env = rig.wait(|_| true).await;
        let kind = action_type(&env);
        match kind.as_str() {
            "chat/responsePart" | "chat/delta" => {
                actions += 1;
                received += text_of(&env);
                first.get_or_insert_with(Instant::now);
                if received >= count && all_at.is_none() {
                    all_at = Some(Instant::now());
                }
            }
            "chat/turnComplete" | "chat/error" | "chat/turnCancelled" => break,
            _ => {}
        }
    }
    let all_at = all_at.unwrap_or_else(Instant::now);
    let emit_ms: f64 = std::fs::read_to_string(report.path()).unwrap_or_default().trim().parse().unwrap_or(f64::NAN);
    let t = rig.turn(&turn).await;
    let text_len = hangar_e2e::acp::markdown(&t).len() as u64;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    println!("chunks emitted by the agent:           {count}");
    println!("text received by the AHP client:       {received} chars in {actions} actions (text length in state: {text_len})");
    println!("agent emit time (first→last write):    {emit_ms:.1} ms");
    println!("client: turnStarted → all chunks:       {:.1} ms", ms(all_at - started));
    println!("client: first chunk → all chunks:       {:.1} ms", ms(all_at - first.unwrap_or(started)));
    println!("throughput at the client:              {:.0} chunks/s", received as f64 / (all_at - first.unwrap_or(started)).as_secs_f64());
    println!("overhead (turnStarted → all, vs emit):  {:.0}%", (ms(all_at - started) / emit_ms - 1.0) * 100.0);
}

/// Characters of text a markdown part or delta carries.
fn text_of(env: &ahp_types::ActionEnvelope) -> u64 {
    let v = serde_json::to_value(&env.action).unwrap();
    let text = v["content"].as_str().or_else(|| v["part"]["content"].as_str()).unwrap_or_default();
    text.chars().count() as u64
}
