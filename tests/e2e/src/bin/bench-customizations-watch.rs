//! Watch-latency benchmark: how long from writing a customization file to an
//! AHP client subscribed to the session receiving the action that shows it,
//! next to the time a bare `notify` watcher on the same folder takes to see
//! the same write (the baseline, measured in the same run).
//!
//! Each round writes `.claude/agents/bench-<i>.md` (a new agent) into the
//! session's workspace and waits for the session action (an upsert of the
//! agents folder, or a full change) whose tree names `bench-<i>`.
//!
//! `cargo build --release -p hangar-cli -p hangar-fake-agent -p hangar-e2e && target/release/bench-customizations-watch [ROUNDS]`

#![allow(clippy::unwrap_used, reason = "a benchmark run: a step that fails ends the run with its message")]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use hangar_e2e::acp::{AgentCmd, Rig};
use hangar_e2e::{wait_for_action, Launch};
use notify::{RecursiveMode, Watcher};
use serde_json::json;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn agent_file(i: usize) -> String {
    format!("---\nname: bench-{i}\ndescription: benchmark agent {i}\n---\nDo the thing.\n")
}

#[tokio::main]
async fn main() {
    if std::env::var_os("HANGAR_BIN").is_none() {
        std::env::set_var("HANGAR_BIN", std::env::current_exe().unwrap().with_file_name("hangar"));
    }
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    let home = tempfile::tempdir().unwrap();
    let home_path = home.path().display().to_string();
    let script = json!({ "turns": [] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::Process(&[("HOME", &home_path)])).await;
    let agents = rig.workspace.join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    // Let the host see the new folder and watch it.
    let seen = |text: &str, name: &str| text.contains(&format!("\"name\":\"{name}\""));
    std::fs::write(agents.join("warmup.md"), agent_file(0).replace("bench-0", "warmup")).unwrap();
    wait_for_action(&mut rig.session_sub, |e| seen(&serde_json::to_string(&e.action).unwrap(), "warmup")).await;

    let mut host_ms = Vec::with_capacity(rounds);
    for i in 1..=rounds {
        let name = format!("bench-{i}");
        let started = Instant::now();
        std::fs::write(agents.join(format!("{name}.md")), agent_file(i)).unwrap();
        wait_for_action(&mut rig.session_sub, |e| seen(&serde_json::to_string(&e.action).unwrap(), &name)).await;
        host_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        // Spread the writes out: each is its own change, not one burst.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Baseline: a bare notify watcher on the same folder, no debounce.
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |e: notify::Result<notify::Event>| {
        if let Ok(e) = e {
            let _ = tx.send((Instant::now(), e.paths));
        }
    })
    .unwrap();
    watcher.watch(&agents, RecursiveMode::Recursive).unwrap();
    let mut bare_ms = Vec::with_capacity(rounds);
    for i in 1..=rounds {
        let file = agents.join(format!("bare-{i}.md"));
        while rx.try_recv().is_ok() {}
        let started = Instant::now();
        std::fs::write(&file, agent_file(i)).unwrap();
        loop {
            let (at, paths) = rx.recv_timeout(Duration::from_secs(20)).unwrap();
            if paths.iter().any(|p| p == &file) {
                bare_ms.push(at.duration_since(started).as_secs_f64() * 1000.0);
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    host_ms.sort_by(f64::total_cmp);
    bare_ms.sort_by(f64::total_cmp);
    println!("{rounds} writes of a new .claude/agents/*.md; times in ms");
    println!();
    println!("| | p50 | p99 | max |");
    println!("|---|---|---|---|");
    for (label, v) in
        [("write → subscriber has the action (hangar)", &host_ms), ("write → bare notify event (baseline)", &bare_ms)]
    {
        println!("| {label} | {:.1} | {:.1} | {:.1} |", percentile(v, 0.5), percentile(v, 0.99), v[v.len() - 1]);
    }
    println!();
    println!("The host waits for {} ms of quiet before re-discovering (watcher.rs DEBOUNCE).", 150);
}
