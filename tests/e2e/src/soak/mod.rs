//! The soak: many clients on one host over real WebSockets, sessions whose
//! fake agents stream turns, clients dispatching, dropping and reconnecting
//! at random (seeded), checked with the official reducers as the oracle.
//!
//! Map:
//! - `mirror.rs` — a client's copy of its channels, kept with
//!   `ahp::reducers`, and the comparison with a fresh snapshot.
//! - `client.rs` — one client: its random walk and the checks on every frame.
//! - this file   — [`run`]: the host, the sessions, the clients, the memory
//!   samples, the final comparison, and the [`Report`].
//!
//! Used by `src/bin/soak.rs` (figures) and by the test suite's one-minute
//! run (`tests/suite/soak.rs`).

mod client;
mod mirror;

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::{acp, rss_kib, Launch, RawClient, TestHost};
pub use client::ClientTally;
use client::{Followed, SoakClient};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Concurrent clients.
    pub clients: usize,
    /// Sessions, each with its own fake agent.
    pub sessions: usize,
    /// How long clients dispatch.
    pub duration: Duration,
    /// Seed of every random choice.
    pub seed: u64,
    /// Sessions each client follows (with their chats).
    pub follows: usize,
}

/// What a run measured and found.
#[derive(Debug, Default)]
pub struct Report {
    /// Every client's counts and findings, summed (`lost` and `faults`
    /// must be empty); `faults` also holds mirrors that differ from the host.
    pub totals: ClientTally,
    /// Completed turns on the host at the end.
    pub turns: usize,
    /// Channels compared with a fresh snapshot at the end.
    pub compared: usize,
    /// Host RSS after setup, in KiB.
    pub rss_start_kib: u64,
    /// At the end.
    pub rss_end_kib: u64,
    /// Highest sample.
    pub rss_max_kib: u64,
    /// RSS samples (seconds since the clients started, KiB), every 2 s.
    pub rss_samples: Vec<(f64, u64)>,
    /// How long the clients ran.
    pub elapsed: Duration,
}

impl Report {
    /// RSS growth extrapolated to one hour, in KiB: the least-squares slope
    /// of the samples after the first third of the run (the first third is
    /// warm-up: caches and allocator arenas filling).
    pub fn growth_per_hour_kib(&self) -> f64 {
        let from = self.elapsed.as_secs_f64() / 3.0;
        let points: Vec<(f64, f64)> =
            self.rss_samples.iter().filter(|(t, _)| *t >= from).map(|(t, kib)| (*t, *kib as f64)).collect();
        crate::least_squares_slope(&points) * 3600.0
    }

    /// The figures, one per line.
    pub fn figures(&self) -> String {
        format!(
            "clients ran {:.0} s\n\
             actions dispatched {} (applied {}, rejected {}), envelopes delivered {}\n\
             reconnects {} (replayed {}, by snapshot {})\n\
             turns completed {}, channels compared with a fresh snapshot {}\n\
             host RSS start {} KiB, end {} KiB, max {} KiB; after warm-up it grows {:.0} KiB/hour (least squares)\n\
             lost {}, faults {}",
            self.elapsed.as_secs_f64(),
            self.totals.dispatched,
            self.totals.applied,
            self.totals.rejected,
            self.totals.envelopes,
            self.totals.reconnects,
            self.totals.replays,
            self.totals.snapshot_recoveries,
            self.turns,
            self.compared,
            self.rss_start_kib,
            self.rss_end_kib,
            self.rss_max_kib,
            self.growth_per_hour_kib(),
            self.totals.lost.len(),
            self.totals.faults.len(),
        )
    }
}

/// The fake agent every session runs: a turn streams ten chunks over about
/// a second.
fn agent_script() -> Value {
    let mut steps = Vec::new();
    for i in 0..10 {
        steps.push(json!({ "chunk": format!("part {i} ") }));
        steps.push(json!({ "sleep": 100 }));
    }
    steps.push(json!({ "end": "end_turn" }));
    json!({ "turns": [steps] })
}

/// Run the soak (see the module docs).
pub async fn run(options: &Options) -> Report {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = tmp.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let script = tmp.path().join("agent.json");
    std::fs::write(&script, agent_script().to_string()).unwrap();
    let spec = format!("fake={} --script {}", acp::fake_agent_bin().display(), script.display());
    let browse = tmp.path().display().to_string();
    let host = TestHost::start_in(
        Launch::Process(&[]),
        &tmp.path().join("data"),
        &["--agent", &spec, "--browse-root", &browse],
    );

    let sessions = create_sessions(&host, options.sessions, &acp::file_uri(&workspace)).await;
    let mut report = Report { rss_start_kib: rss_kib(host.pid()), ..Report::default() };

    let started = Instant::now();
    let until = started + options.duration;
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut tasks = Vec::new();
    for i in 0..options.clients {
        let picked = rand::seq::index::sample(&mut rng, sessions.len(), options.follows.min(sessions.len()));
        let follows: Vec<Followed> = picked.iter().map(|k| sessions[k].clone()).collect();
        let client = SoakClient::new(format!("soak-{i}"), host.authed_url(), StdRng::seed_from_u64(rng.gen()), follows);
        tasks.push(tokio::spawn(client.run(until, Duration::from_secs(3))));
    }
    let pid = host.pid();
    let sampler = tokio::spawn(async move {
        let mut samples = Vec::new();
        while Instant::now() < until {
            samples.push((started.elapsed().as_secs_f64(), rss_kib(pid)));
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
        samples
    });
    let mut clients = Vec::new();
    for task in tasks {
        clients.push(task.await.unwrap());
    }
    report.elapsed = started.elapsed();
    report.rss_samples = sampler.await.unwrap_or_default();
    report.rss_end_kib = rss_kib(pid);
    report.rss_max_kib = report.rss_samples.iter().map(|s| s.1).max().unwrap_or(0).max(report.rss_end_kib);

    compare(&host, &sessions, &clients, &mut report).await;
    for c in clients {
        report.totals.add(c.tally);
    }
    report
}

async fn create_sessions(host: &TestHost, n: usize, workspace: &str) -> Vec<Followed> {
    let mut setup = RawClient::initialized(host, "soak-setup").await;
    let mut sessions = Vec::new();
    for i in 0..n {
        let uri = format!("ahp-session:/soak-{i}");
        let params = json!({"channel": uri, "provider": "fake", "workingDirectories": [workspace]});
        let created = setup.request(json!(format!("c{i}")), "createSession", params).await;
        assert!(created.get("error").is_none(), "{created}");
        let sub = setup.request(json!(format!("s{i}")), "subscribe", json!({"channel": uri})).await;
        let state = &sub["result"]["snapshot"]["state"];
        if state["lifecycle"] != "ready" {
            loop {
                let msg = setup.next_json().await.expect("the setup connection stays open");
                let a = &msg["params"];
                if msg["method"] == "action" && a["channel"] == uri.as_str() {
                    match a["action"]["type"].as_str() {
                        Some("session/ready") => break,
                        Some("session/creationFailed") => panic!("session {uri} failed: {msg}"),
                        _ => {}
                    }
                }
            }
        }
        let chat = state["defaultChat"].as_str().unwrap().to_owned();
        sessions.push(Followed { session: uri, chat });
    }
    sessions
}

/// Every client's mirror against a fresh snapshot of the same channel.
async fn compare(host: &TestHost, sessions: &[Followed], clients: &[SoakClient], report: &mut Report) {
    let mut fresh = RawClient::initialized(host, "soak-oracle").await;
    for (i, f) in sessions.iter().enumerate() {
        for (j, uri) in [&f.session, &f.chat].into_iter().enumerate() {
            let params = json!({"channel": uri, "view": {"turns": 1_000_000}});
            let reply = fresh.request(json!(format!("f{i}-{j}")), "subscribe", params).await;
            let state = reply["result"]["snapshot"]["state"].clone();
            if uri == &f.chat {
                report.turns += state["turns"].as_array().map_or(0, Vec::len);
            }
            for c in clients {
                if let Some(diff) = c.mirror.differs(uri, &state) {
                    report.totals.faults.push(format!("a mirror of {uri} differs from the host: {diff}"));
                }
                if c.mirror.uris().any(|u| u == uri) {
                    report.compared += 1;
                }
            }
        }
    }
}
