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
//! Each round also runs the same agent with no host, its stdout read by a
//! bare reader, timed the same way (first pipe write → the reader has the
//! last chunk): `cat > /dev/null` (done when `cat` exits, i.e. after the
//! agent's answer to the prompt and its exit too: a slight upper bound) and
//! a thread of this process that only reads bytes (done at the read that
//! brought the last chunk's newline). Order in a round: cat, reader thread,
//! host. The host's overhead is printed over `cat` and over the reader
//! thread of the same round, as well as over the agent's sink time.
//!
//! `cargo build --release -p hangar-cli -p hangar-fake-agent -p hangar-e2e && target/release/bench-acp-stream [COUNT] [RUNS]`

#![allow(clippy::unwrap_used, reason = "a benchmark run: a step that fails ends the run with its message")]

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use hangar_e2e::acp::{fake_agent_bin, AgentCmd, Rig};
use hangar_e2e::{action_type, Launch};
use serde_json::{json, Value};

fn unix_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0
}

/// What one run measured, in ms.
struct Times {
    sink: f64,
    pipe: f64,
    /// The agent's first pipe write → the reader (or client) has all.
    from_pipe: f64,
    /// The prompt received → the reader has all, minus the sink pre-run.
    from_prompt: f64,
}

#[derive(Clone, Copy)]
enum Bare {
    Cat,
    Thread,
}

#[tokio::main]
async fn main() {
    if std::env::var_os("HANGAR_BIN").is_none() {
        // Binaries sit next to this one (target/<profile>/).
        std::env::set_var("HANGAR_BIN", std::env::current_exe().unwrap().with_file_name("hangar"));
    }
    let count: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let runs: u32 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    println!("{count} chunks per run; times in ms; (+N%) = time / agent emit into a sink - 1");
    println!();
    println!("| round | reader | agent emit, sink | agent emit, pipe | first pipe write → has all | prompt received → has all* | client turnStarted → all* | actions | host / cat | host / reader thread |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut over_cat = Vec::new();
    let mut over_thread = Vec::new();
    let mut over_sink = Vec::new();
    for round in 1..=runs {
        let cat = bare(count, Bare::Cat);
        print_row(round, "`cat > /dev/null`", &cat, "–", "–");
        let thread = bare(count, Bare::Thread);
        print_row(round, "reader thread", &thread, "–", "–");
        let (host, from_turn, actions) = run(count).await;
        let pct = |ms: f64| format!("{ms:.1} ({:+.0}%)", (ms / host.sink - 1.0) * 100.0);
        let (c, t) = (host.from_pipe / cat.from_pipe, host.from_pipe / thread.from_pipe);
        print_row(round, "host → AHP client", &host, &pct(from_turn), &format!("{actions} | **{c:.2}** | {t:.2}"));
        over_cat.push(c);
        over_thread.push(t);
        over_sink.push(host.from_pipe / host.sink);
    }
    println!();
    println!("* minus the sink pre-run, which the agent does after receiving the prompt and before streaming");
    println!();
    println!(
        "summary, first pipe write → has all, host over the same round's bare reader: over cat median {:.2} (range {}); over the reader thread median {:.2} (range {}); over the agent's sink time median {:.2} (range {}); aim: over cat ≤ 1.10",
        median(&over_cat),
        range(&over_cat),
        median(&over_thread),
        range(&over_thread),
        median(&over_sink),
        range(&over_sink),
    );
}

fn print_row(round: u32, reader: &str, t: &Times, from_turn: &str, rest: &str) {
    let pct = |ms: f64| format!("{ms:.1} ({:+.0}%)", (ms / t.sink - 1.0) * 100.0);
    let rest = if rest == "–" { "– | – | –" } else { rest };
    println!(
        "| {round} | {reader} | {:.1} | {} | {} | {} | {from_turn} | {rest} |",
        t.sink,
        pct(t.pipe),
        pct(t.from_pipe),
        pct(t.from_prompt)
    );
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

fn range(v: &[f64]) -> String {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{min:.2}–{max:.2}")
}

/// The fake agent's script: one turn, `count` one-character chunks as fast as it can.
fn flood_script(count: u64) -> Value {
    json!({ "turns": [[{ "flood": { "count": count, "text": "x" } }]] })
}

/// The agent's report (see the fake agent's `flood`) turned into [`Times`],
/// given when the reader had everything (Unix ms).
fn times(report: &std::path::Path, all_unix: f64) -> Times {
    let agent: Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap_or_default()).unwrap_or(Value::Null);
    let num = |k: &str| agent[k].as_f64().unwrap_or(f64::NAN);
    let sink = num("sinkMs");
    Times {
        sink,
        pipe: num("pipeMs"),
        from_pipe: all_unix - num("pipeStartAt"),
        // The sink pre-run sits between receiving the prompt and the first
        // pipe write; it is not part of streaming, so it is taken out.
        from_prompt: all_unix - num("promptAt") - sink,
    }
}

/// The agent with no host: this process writes `initialize`, `session/new`
/// and `session/prompt` to its stdin, then closes it (the agent exits after
/// the turn); its stdout goes to `cat > /dev/null` or to a reader thread.
fn bare(count: u64, reader: Bare) -> Times {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, flood_script(count).to_string()).unwrap();
    let report = dir.path().join("report.json");
    let mut agent = Command::new(fake_agent_bin())
        .arg("--script")
        .arg(&script)
        .env("FAKE_ACP_REPORT", &report)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = agent.stdout.take().unwrap();
    // The reader is in place before the agent has anything to write.
    let done = match reader {
        Bare::Cat => {
            let mut cat = Command::new("cat").stdin(Stdio::from(out)).stdout(Stdio::null()).spawn().unwrap();
            std::thread::spawn(move || {
                cat.wait().unwrap();
                unix_ms()
            })
        }
        Bare::Thread => std::thread::spawn(move || read_stamped(out)),
    };
    let mut stdin = agent.stdin.take().unwrap();
    let cwd = dir.path().display().to_string();
    for msg in [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": 1 } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "session/new", "params": { "cwd": cwd, "mcpServers": [] } }),
        json!({ "jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": { "sessionId": "bench", "prompt": [{ "type": "text", "text": "go" }] } }),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    drop(stdin);
    let all_unix = done.join().unwrap();
    agent.wait().unwrap();
    times(&report, all_unix)
}

/// Reads `out` to its end, stamping every read; returns the stamp (Unix
/// ms) of the read that brought the newline ending the last chunk.
fn read_stamped(mut out: impl Read) -> f64 {
    let mut data = Vec::with_capacity(1 << 20);
    let mut stamps = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = out.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
        stamps.push((data.len(), unix_ms()));
    }
    let marker = b"agent_message_chunk";
    let last = data.windows(marker.len()).rposition(|w| w == marker).unwrap();
    let end = last + data[last..].iter().position(|&b| b == b'\n').unwrap();
    stamps.iter().find(|(len, _)| *len > end).unwrap().1
}

/// The host run: returns its times, client turnStarted → all (minus the
/// sink pre-run) and how many actions carried the text.
async fn run(count: u64) -> (Times, f64, u64) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let report_path = report.path().display().to_string();
    let mut rig =
        Rig::start(AgentCmd::Script(flood_script(count)), Launch::Process(&[("FAKE_ACP_REPORT", &report_path)])).await;
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
    let t = times(report.path(), all_unix);
    let from_turn = (all_at - started).as_secs_f64() * 1000.0 - t.sink;
    let turn_state = rig.turn(&turn).await;
    assert_eq!(hangar_e2e::acp::markdown(&turn_state).len() as u64, count, "all text in state");
    assert_eq!(received, count, "all text at the client");
    (t, from_turn, actions)
}

/// Characters of text a markdown part or delta carries.
fn text_of(env: &ahp_types::ActionEnvelope) -> u64 {
    let v = serde_json::to_value(&env.action).unwrap();
    let text = v["content"].as_str().or_else(|| v["part"]["content"].as_str()).unwrap_or_default();
    text.chars().count() as u64
}
