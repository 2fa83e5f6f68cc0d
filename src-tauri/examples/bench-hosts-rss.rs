//! `bench-hosts-rss`: what following many hosts costs the desktop core at
//! rest — its resident memory (RSS) with no host, then following `--hosts`
//! remote hosts of `--sessions` sessions each, once every row is shown and
//! the core has sat idle for a few seconds.
//!
//! Run (release builds):
//!   cargo build --release -p hangar-cli -p hangar-fake-agent
//!   cargo run --release -p hangar-desktop --example bench-hosts-rss -- [--hosts 10] [--sessions 50]
//!
//! Each host is a `hangar serve` process with its own HOME and data dir.
//! Its sessions are created by another client with the fake agent, then the
//! host is restarted so they are restored without running agents (as after
//! a reboot): the core follows their rows, not their agents. The RSS is
//! this process's (the core runs in it, as in the app), read from
//! `/proc/self/status`; the hosts are other processes.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a benchmark run: a step that fails ends the run with its message"
)]

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hangar_desktop::commands::call_wire;
use hangar_desktop::core::{Core, Sink};
use hangar_desktop_protocol::StreamEvent;
use hangar_e2e::acp::fake_agent_bin;
use hangar_e2e::{Launch, TestHost};
use hangar_remote::{NewHost, Remotes, TokenStorage};
use serde_json::{json, Value};

/// The session rows the app stream shows, by (host, uri).
type Rows = Arc<Mutex<HashSet<(String, String)>>>;

fn rows_sink(rows: Rows) -> Sink {
    Arc::new(move |event: StreamEvent| {
        let op = serde_json::to_value(event).unwrap();
        let key = |r: &Value| {
            (r["host"].as_str().unwrap_or_default().to_owned(), r["uri"].as_str().unwrap_or_default().to_owned())
        };
        let mut rows = rows.lock().unwrap();
        match op["op"].as_str().unwrap_or_default() {
            "snapshot" | "sessions" => *rows = op["sessions"].as_array().unwrap().iter().map(key).collect(),
            "session" => {
                rows.insert(key(&op["row"]));
            }
            _ => {}
        }
        true
    })
}

/// This process's resident memory, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// One remote machine: HOME with a `proj` folder, data dir, fixed port.
struct Machine {
    home: PathBuf,
    data: PathBuf,
    args: Vec<String>,
}

impl Machine {
    fn new(root: &std::path::Path, i: usize, agent: &str) -> Self {
        let dir = root.join(format!("m{i}"));
        let home = dir.join("home");
        std::fs::create_dir_all(home.join("proj")).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let args = vec!["--listen".to_owned(), format!("127.0.0.1:{port}"), "--agent".to_owned(), agent.to_owned()];
        Self { home: home.canonicalize().unwrap(), data: dir.join("data"), args }
    }

    fn serve(&self) -> TestHost {
        let home = self.home.display().to_string();
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        TestHost::start_in(Launch::Process(&[("HOME", home.as_str())]), &self.data, &args)
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str, default: usize| {
        args.iter().position(|a| a == name).map_or(default, |i| args[i + 1].parse().unwrap())
    };
    let (hosts, sessions) = (arg("--hosts", 10), arg("--sessions", 50));

    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("echo.json");
    std::fs::write(&script, json!({"turns": [[{"echo": true}, {"end": "end_turn"}]]}).to_string()).unwrap();
    let agent = format!("fake={} --script {}", fake_agent_bin().display(), script.display());

    let seeding = Instant::now();
    let mut running = Vec::new();
    let cfg = tmp.path().join("config");
    for i in 0..hosts {
        let machine = Machine::new(tmp.path(), i, &agent);
        let mut host = machine.serve();
        let (client, _) = hangar_e2e::initialized(&host, "seed").await;
        let folder = format!("file://{}", machine.home.join("proj").display());
        for s in 0..sessions {
            let params = json!({"channel": format!("ahp-session:/h{i}-s{s}"), "provider": "fake",
                "workingDirectories": [folder]});
            let _: Value = client.request("createSession", params).await.unwrap();
        }
        drop(client);
        assert!(host.sigterm().success());
        let host = machine.serve();
        let new = NewHost {
            name: format!("host {i}"),
            url: host.url.clone(),
            token: host.token.clone(),
            fingerprint: None,
            token_storage: TokenStorage::InsecureFile,
        };
        Remotes::at(&cfg).add(new).unwrap();
        running.push((machine, host));
    }
    println!("bench-hosts-rss: {hosts} hosts x {sessions} sessions seeded in {:.1} s", seeding.elapsed().as_secs_f64());

    let core = Core::start();
    let rows: Rows = Arc::default();
    call_wire(&core, "app.watch", json!({}), Some(rows_sink(rows.clone()))).await.unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss_kib();

    let following = Instant::now();
    core.load_saved_hosts(Remotes::at(&cfg)).await.unwrap();
    let wanted = hosts * sessions;
    let deadline = Instant::now() + Duration::from_secs(120);
    while rows.lock().unwrap().len() < wanted {
        assert!(Instant::now() < deadline, "only {} of {wanted} rows shown", rows.lock().unwrap().len());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let shown = following.elapsed();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let after = rss_kib();

    let mib = |kib: u64| kib as f64 / 1024.0;
    println!("  all {wanted} rows shown {:.0} ms after the saved list was read", shown.as_secs_f64() * 1000.0);
    println!("  core RSS with no host:            {:7.1} MiB", mib(before));
    println!("  core RSS following {hosts} x {sessions} at rest: {:7.1} MiB", mib(after));
    let per = (after.saturating_sub(before)) as f64 / wanted as f64;
    println!("  cost: {:.1} MiB in all, {per:.1} KiB per session followed", mib(after.saturating_sub(before)));
    drop(running);
}
