//! `bench-search`: the search index on a generated store.
//!
//! Generates `hangar.db` with `--sessions` sessions (10,000) and `--turns`
//! turns (1,000,000) spread over them — each turn a message, the agent's
//! markdown and a tool call, words drawn from a 20,000-word vocabulary with
//! a Zipf-like skew — then reports:
//! - the index build (`hangar reindex`'s code path) time, and per turn;
//! - the store's size and the index's size (pages in use, before and after);
//! - query latency p50/p99 for one-word, three-word and prefix queries
//!   (`x-hangar/search`'s code path, 20 results), with the baseline of the
//!   same run: reading one 50-turn page of a chat (`fetchTurns`' code path).
//!
//! Run (release builds): `cargo build --release -p hangar-e2e --bin
//! bench-search && target/release/bench-search`. Options: `--sessions N`,
//! `--turns N`, `--queries N` (200 per kind), `--dir PATH` (a temp dir).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::cast_precision_loss,
    reason = "a benchmark run: a step that fails ends the run with its message"
)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hangar_host::store;
use hangar_host::store::search::{open_reader, search, SearchRequest};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rusqlite::{params, Connection};
use serde_json::json;

struct Args {
    sessions: usize,
    turns: usize,
    queries: usize,
    dir: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args { sessions: 10_000, turns: 1_000_000, queries: 200, dir: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        match flag.as_str() {
            "--sessions" => a.sessions = value.parse().unwrap(),
            "--turns" => a.turns = value.parse().unwrap(),
            "--queries" => a.queries = value.parse().unwrap(),
            "--dir" => a.dir = Some(PathBuf::from(value)),
            other => panic!("unknown option {other}"),
        }
    }
    a
}

/// A pronounceable pseudo-word per index, 5–9 letters.
fn word(i: usize) -> String {
    const C: &[u8] = b"bcdfghjklmnprstvz";
    const V: &[u8] = b"aeiou";
    let mut n = i + 7919;
    let mut w = String::new();
    let len = 5 + i % 5;
    for k in 0..len {
        let set = if k % 2 == 0 { C } else { V };
        w.push(set[n % set.len()] as char);
        n /= set.len();
        n += k * 31 + i;
    }
    format!("{w}{}", i % 97)
}

/// A word index with a Zipf-like skew (a few common words, a long tail).
fn pick(rng: &mut StdRng, vocab: usize) -> usize {
    let u: f64 = rng.gen();
    ((vocab as f64).powf(u) as usize).saturating_sub(1).min(vocab - 1)
}

fn sentence(rng: &mut StdRng, words: &[String], n: usize) -> String {
    (0..n).map(|_| words[pick(rng, words.len())].as_str()).collect::<Vec<_>>().join(" ")
}

fn pages(conn: &Connection) -> u64 {
    let count: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap();
    let size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    ((count - free) * size) as u64
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let a = args();
    let tmp = tempfile::tempdir().unwrap();
    let dir = a.dir.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("hangar.db");
    let _ = std::fs::remove_file(&db);
    let words: Vec<String> = (0..20_000).map(word).collect();
    let mut rng = StdRng::seed_from_u64(29);

    let started = Instant::now();
    let mut conn = store::open(&db).unwrap();
    {
        let tx = conn.transaction().unwrap();
        for s in 0..a.sessions {
            let uri = format!("ahp-session:/bench-{s}");
            let chat = format!("ahp-chat:/bench-{s}/main");
            let title = sentence(&mut rng, &words, 5);
            let summary = json!({"provider": "agent", "title": title, "status": 1, "resource": uri,
                "createdAt": "2026-01-01T00:00:00.000Z", "modifiedAt": "2026-01-01T00:00:00.000Z", "defaultChat": chat});
            tx.execute(
                "INSERT INTO sessions(uri, created_at, modified_at, summary) VALUES(?1, ?2, ?2, ?3)",
                params![uri, "2026-01-01T00:00:00.000Z", summary.to_string()],
            )
            .unwrap();
            tx.execute(
                "INSERT INTO checkpoints(channel, kind, parent, seq, state) VALUES(?1, 'chat', ?2, 1, '{}')",
                params![chat, uri],
            )
            .unwrap();
        }
        let mut insert = tx.prepare("INSERT INTO turns(chat, ord, turn_id, turn) VALUES(?1, ?2, ?3, ?4)").unwrap();
        for t in 0..a.turns {
            let s = t % a.sessions;
            let ord = t / a.sessions + 1;
            let chat = format!("ahp-chat:/bench-{s}/main");
            let id = format!("t{t}");
            let turn = json!({
                "id": id,
                "startedAt": format!("2026-01-{:02}T{:02}:{:02}:{:02}.000Z", 1 + t % 28, t % 24, t % 60, (t / 60) % 60),
                "message": {"text": sentence(&mut rng, &words, 12), "origin": {"kind": "user"}},
                "responseParts": [
                    {"kind": "markdown", "id": "m", "content": sentence(&mut rng, &words, 60)},
                    {"kind": "toolCall", "toolCall": {"status": "completed", "toolCallId": "c", "toolName": "read",
                        "displayName": "Read file", "invocationMessage": sentence(&mut rng, &words, 4),
                        "pastTenseMessage": "Read", "success": true, "confirmed": "not-needed"}}
                ],
                "state": "complete"
            });
            insert.execute(params![chat, ord as i64, id, turn.to_string()]).unwrap();
        }
        drop(insert);
        tx.commit().unwrap();
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    let store_bytes = pages(&conn);
    drop(conn);
    println!(
        "generated {} sessions, {} turns in {:.1} s; store {:.1} MB",
        a.sessions,
        a.turns,
        started.elapsed().as_secs_f64(),
        store_bytes as f64 / 1e6
    );

    let report = store::reindex(&db).unwrap();
    let conn = open_reader(&db).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    let with_index = pages(&conn);
    let index_bytes = with_index.saturating_sub(store_bytes);
    println!(
        "index build: {:.1} s ({} titles, {} turns; {:.0} µs per turn)",
        report.took.as_secs_f64(),
        report.titles,
        report.turns,
        report.took.as_secs_f64() * 1e6 / report.turns.max(1) as f64
    );
    println!(
        "index size: {:.1} MB against a store of {:.1} MB ({:.0}%)",
        index_bytes as f64 / 1e6,
        store_bytes as f64 / 1e6,
        index_bytes as f64 * 100.0 / store_bytes as f64
    );

    let run = |label: &str, make: &mut dyn FnMut(&mut StdRng) -> String, rng: &mut StdRng| {
        let mut times = Vec::with_capacity(a.queries);
        let mut found = 0;
        for _ in 0..a.queries {
            let q = make(rng);
            let t = Instant::now();
            let page =
                search(&conn, &SearchRequest { query: &q, limit: 20, offset: 0, sessions: None, archived: None })
                    .unwrap();
            times.push(t.elapsed());
            found += page.hits.len();
        }
        times.sort();
        println!(
            "{label:<12} p50 {:>7.2} ms  p99 {:>7.2} ms  ({} queries, {:.1} results each)",
            percentile(&times, 0.5).as_secs_f64() * 1e3,
            percentile(&times, 0.99).as_secs_f64() * 1e3,
            a.queries,
            found as f64 / a.queries as f64
        );
    };
    let w = words.clone();
    run("one word", &mut |r| w[pick(r, w.len())].clone(), &mut rng);
    run("three words", &mut |r| sentence(r, &w, 3), &mut rng);
    run("prefix", &mut |r| w[pick(r, w.len())].chars().take(4).collect(), &mut rng);

    // Baseline: one 50-turn page of a chat, read the way fetchTurns does.
    let mut times = Vec::with_capacity(a.queries);
    for i in 0..a.queries {
        let chat = format!("ahp-chat:/bench-{}/main", (i * 7919) % a.sessions);
        let t = Instant::now();
        let p = read_page(&conn, &chat);
        times.push(t.elapsed());
        assert!(p > 0);
    }
    times.sort();
    println!(
        "baseline     p50 {:>7.2} ms  p99 {:>7.2} ms  (a 50-turn page of a chat, as fetchTurns reads it)",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3
    );
}

fn read_page(conn: &Connection, chat: &str) -> usize {
    let mut stmt = conn.prepare_cached("SELECT turn FROM turns WHERE chat = ?1 ORDER BY ord DESC LIMIT 50").unwrap();
    let rows = stmt.query_map([chat], |r| r.get::<_, String>(0)).unwrap();
    let mut turns = Vec::new();
    for row in rows {
        turns.push(serde_json::from_str::<serde_json::Value>(&row.unwrap()).unwrap());
    }
    turns.len()
}
