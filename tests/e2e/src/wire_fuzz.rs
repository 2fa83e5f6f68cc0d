//! The raw-socket fuzzer: mutated frames from real ones (bytes flipped,
//! inserted, cut, repeated, spliced, JSON values swapped for hostile ones)
//! sent over several connections to a running host, while a bystander
//! pings it. Counts frames, connections the host closed, and the bystander's
//! slowest answer; checks the host process is alive and its memory bounded.
//!
//! The host runs with `HOME` in a temporary folder and no agents, so no
//! mutation can reach the user's files or start a program.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use crate::{rss_kib, Launch, RawClient, TestHost};

/// What to send.
#[derive(Clone, Debug)]
pub struct Options {
    /// Frames in all.
    pub frames: u64,
    /// Stop after this long even if not all frames went.
    pub max_time: Duration,
    /// Connections sending at once.
    pub connections: usize,
    /// Seed of every mutation.
    pub seed: u64,
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Frames sent.
    pub frames: u64,
    /// Frames the host answered (responses and errors).
    pub answers: u64,
    /// Connections the host closed (oversize, too deep, binary junk…).
    pub closed_by_host: u64,
    /// Sync pings on a fuzzing connection not answered within the test
    /// wait (must be 0: the host hung on something).
    pub stalls: u64,
    /// How long the sending took.
    pub elapsed: Duration,
    /// Bystander pings answered, and the slowest and 99th percentile.
    pub pings: usize,
    /// Slowest ping.
    pub slowest_ping: Duration,
    /// 99th percentile ping.
    pub p99_ping: Duration,
    /// Pings that failed (must be 0).
    pub failed_pings: usize,
    /// Whether the host process was still running at the end.
    pub host_alive: bool,
    /// Host RSS before and after, KiB.
    pub rss_start_kib: u64,
    /// After.
    pub rss_end_kib: u64,
}

impl Report {
    /// The figures, one per line.
    pub fn figures(&self) -> String {
        format!(
            "frames sent {} in {:.1} s ({:.0}/s), answers {}, connections closed by the host {}\n\
             bystander pings {} (failed {}), slowest {:.1} ms, p99 {:.1} ms\n\
             host alive {}, crashes {}, stalls {}, RSS {} KiB before, {} KiB after",
            self.frames,
            self.elapsed.as_secs_f64(),
            self.frames as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.answers,
            self.closed_by_host,
            self.pings,
            self.failed_pings,
            self.slowest_ping.as_secs_f64() * 1e3,
            self.p99_ping.as_secs_f64() * 1e3,
            self.host_alive,
            u8::from(!self.host_alive),
            self.stalls,
            self.rss_start_kib,
            self.rss_end_kib,
        )
    }
}

/// Frames sent between two sync pings on one connection.
const SYNC_EVERY: u32 = 64;

/// Real frames the mutations start from.
fn seeds(session: &str) -> Vec<String> {
    let root = ahp_types::ROOT_RESOURCE_URI;
    [
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"channel": root}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "listSessions", "params": {"channel": root, "limit": 5}}),
        json!({"jsonrpc": "2.0", "id": "s", "method": "subscribe", "params": {"channel": session}}),
        json!({"jsonrpc": "2.0", "method": "unsubscribe", "params": {"channel": session}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "createSession", "params": {"channel": "ahp-session:/fz"}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "fetchTurns", "params": {"channel": session, "limit": 2}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "reconnect",
               "params": {"channel": root, "clientId": "fz", "lastSeenServerSeq": 1, "subscriptions": [session]}}),
        json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": session, "clientSeq": 1,
               "action": {"type": "session/titleChanged", "title": "fuzz"}}}),
        json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": session, "clientSeq": 2,
               "action": {"type": "chat/turnStarted", "turnId": "t", "startedAt": "2026-01-01T00:00:00Z",
                          "message": {"text": "hi", "origin": {"kind": "user"}}}}}),
        json!({"jsonrpc": "2.0", "id": 6, "result": null}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "initialize",
               "params": {"channel": root, "protocolVersions": ["1.0.0", "0.9.0"], "clientId": "fz2"}}),
    ]
    .iter()
    .map(ToString::to_string)
    .collect()
}

/// Hostile fragments spliced into frames.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    "\\u0000",
    "\\ud800",
    "null",
    "-1",
    "1e999",
    "18446744073709551616",
    "-9223372036854775809",
    "0.0000001",
    "\"../../../../etc/passwd\"",
    "\"file:///proc/self/mem\"",
    "\"ahp-root://\"",
    "\"\u{202e}\"",
    ",",
    ":",
    "true",
    "\u{fffd}",
];

/// One mutated frame.
fn mutate(rng: &mut StdRng, seeds: &[String]) -> String {
    let mut frame = seeds[rng.gen_range(0..seeds.len())].as_bytes().to_vec();
    for _ in 0..rng.gen_range(1..4) {
        let at = rng.gen_range(0..=frame.len());
        match rng.gen_range(0..7) {
            0 if !frame.is_empty() => {
                let i = rng.gen_range(0..frame.len());
                frame[i] ^= 1 << rng.gen_range(0..8);
            }
            1 => {
                let junk: Vec<u8> = (0..rng.gen_range(1..8)).map(|_| rng.gen()).collect();
                frame.splice(at..at, junk);
            }
            2 => frame.truncate(at),
            3 => {
                let end = rng.gen_range(at..=frame.len());
                let copy = frame[at..end].to_vec();
                for _ in 0..rng.gen_range(1..50) {
                    frame.extend_from_slice(&copy);
                }
            }
            4 => {
                let other = seeds[rng.gen_range(0..seeds.len())].as_bytes();
                let from = rng.gen_range(0..other.len());
                frame.splice(at..at, other[from..].iter().copied());
            }
            5 => {
                let token = TOKENS[rng.gen_range(0..TOKENS.len())].as_bytes();
                let end = rng.gen_range(at..=frame.len().min(at + 12));
                frame.splice(at..end, token.iter().copied());
            }
            _ => {
                let end = rng.gen_range(at..=frame.len());
                frame.drain(at..end);
            }
        }
    }
    String::from_utf8_lossy(&frame).into_owned()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
        .unwrap_or(false)
}

/// Run the fuzzer (see the module docs).
pub async fn run(options: &Options) -> Report {
    let home = tempfile::tempdir().unwrap();
    let home_str = home.path().display().to_string();
    let host = TestHost::start(Launch::Process(&[("HOME", &home_str)]), &[]);
    let pid = host.pid();
    let mut setup = RawClient::initialized(&host, "fuzz-setup").await;
    let session = "ahp-session:/fuzz-target";
    let created = setup.request(json!(2), "createSession", json!({"channel": session})).await;
    assert!(created.get("error").is_none(), "{created}");
    let seeds = seeds(session);

    let mut report = Report { rss_start_kib: rss_kib(pid), ..Report::default() };
    let sent = Arc::new(AtomicU64::new(0));
    let answers = Arc::new(AtomicU64::new(0));
    let closed = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let stalls = Arc::new(AtomicU64::new(0));
    let started = Instant::now();

    let mut senders = Vec::new();
    for c in 0..options.connections {
        let (url, seeds) = (host.authed_url(), seeds.clone());
        let (sent, answers, closed, done) = (sent.clone(), answers.clone(), closed.clone(), done.clone());
        let stalls = stalls.clone();
        let (budget, max_time) = (options.frames, options.max_time);
        let mut rng = StdRng::seed_from_u64(options.seed.wrapping_add(c as u64));
        senders.push(tokio::spawn(async move {
            'connections: while !done.load(Ordering::Relaxed) {
                let Ok((ws, _)) = tokio_tungstenite::connect_async(url.as_str()).await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let (mut tx, mut rx) = ws.split();
                let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"channel": ahp_types::ROOT_RESOURCE_URI, "protocolVersions": ["1.0.0"], "clientId": format!("fz-{c}")}});
                if tx.send(Message::text(init.to_string())).await.is_err() {
                    continue;
                }
                // The reader counts answers and hands over the sync pings'
                // answers: every `SYNC_EVERY` frames the sender waits for
                // one, so the host has handled what was sent before more goes.
                let counted = answers.clone();
                let (synced_tx, mut synced) = tokio::sync::mpsc::unbounded_channel::<u64>();
                let reader = tokio::spawn(async move {
                    while let Some(Ok(m)) = rx.next().await {
                        if let Message::Text(t) = m {
                            counted.fetch_add(1, Ordering::Relaxed);
                            if let Some(n) = t.split("\"id\":\"sync-").nth(1).and_then(|r| r.split('"').next()) {
                                let _ = synced_tx.send(n.parse().unwrap_or(0));
                            }
                        }
                    }
                });
                let mut since_sync = 0;
                let mut sync = 0u64;
                loop {
                    let n = sent.fetch_add(1, Ordering::Relaxed);
                    if n >= budget || started.elapsed() >= max_time {
                        sent.fetch_sub(1, Ordering::Relaxed);
                        done.store(true, Ordering::Relaxed);
                        let _ = tx.close().await;
                        let _ = reader.await;
                        break 'connections;
                    }
                    let message = if rng.gen_ratio(1, 200) {
                        Message::binary(mutate(&mut rng, &seeds).into_bytes())
                    } else {
                        Message::text(mutate(&mut rng, &seeds))
                    };
                    if tx.send(message).await.is_err() || reader.is_finished() {
                        closed.fetch_add(1, Ordering::Relaxed);
                        reader.abort();
                        continue 'connections;
                    }
                    since_sync += 1;
                    if since_sync == SYNC_EVERY {
                        since_sync = 0;
                        sync += 1;
                        let ping = json!({"jsonrpc": "2.0", "id": format!("sync-{sync}"), "method": "ping",
                            "params": {"channel": ahp_types::ROOT_RESOURCE_URI}});
                        if tx.send(Message::text(ping.to_string())).await.is_err() {
                            closed.fetch_add(1, Ordering::Relaxed);
                            reader.abort();
                            continue 'connections;
                        }
                        let answered = tokio::time::timeout(crate::WAIT, async {
                            while let Some(n) = synced.recv().await {
                                if n == sync {
                                    return true;
                                }
                            }
                            false
                        })
                        .await;
                        match answered {
                            Ok(true) => {}
                            Ok(false) => {
                                // The host closed this connection (a frame
                                // too large or too deep): open another.
                                closed.fetch_add(1, Ordering::Relaxed);
                                continue 'connections;
                            }
                            Err(_) => {
                                stalls.fetch_add(1, Ordering::Relaxed);
                                reader.abort();
                                continue 'connections;
                            }
                        }
                    }
                }
            }
        }));
    }

    // The bystander: a ping every 50 ms, timed.
    let mut bystander = RawClient::initialized(&host, "bystander").await;
    let mut latencies = Vec::new();
    let mut id = 100;
    while !done.load(Ordering::Relaxed) && started.elapsed() < options.max_time + Duration::from_secs(5) {
        id += 1;
        let t = Instant::now();
        let frame =
            json!({"jsonrpc": "2.0", "id": id, "method": "ping", "params": {"channel": ahp_types::ROOT_RESOURCE_URI}});
        if bystander.try_send_text(frame.to_string()).await.is_err() {
            report.failed_pings += 1;
            break;
        }
        let answered = tokio::time::timeout(crate::WAIT, async {
            loop {
                match bystander.next_json_within(crate::WAIT).await {
                    Some(m) if m["id"] == json!(id) => return m.get("result").is_some(),
                    Some(_) => {}
                    None => return false,
                }
            }
        })
        .await
        .unwrap_or(false);
        if answered {
            latencies.push(t.elapsed());
        } else {
            report.failed_pings += 1;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for s in senders {
        let _ = s.await;
    }
    report.elapsed = started.elapsed();
    report.frames = sent.load(Ordering::Relaxed);
    report.answers = answers.load(Ordering::Relaxed);
    report.closed_by_host = closed.load(Ordering::Relaxed);
    report.stalls = stalls.load(Ordering::Relaxed);
    latencies.sort();
    report.pings = latencies.len();
    report.slowest_ping = latencies.last().copied().unwrap_or_default();
    report.p99_ping = latencies.get(latencies.len().saturating_sub(1) * 99 / 100).copied().unwrap_or_default();
    report.host_alive = alive(pid);
    report.rss_end_kib = rss_kib(pid);
    // The host still serves a newcomer.
    let mut newcomer = RawClient::initialized(&host, "after-the-fuzz").await;
    let listed = newcomer.request(json!(1), "listSessions", json!({"channel": ahp_types::ROOT_RESOURCE_URI})).await;
    if listed["result"]["items"].as_array().is_none() {
        report.failed_pings += 1;
    }
    report
}
