//! `bench-search-merge`: what the desktop's `search` costs after the slowest
//! host has answered — the merge of three hosts' `x-hangar/search` answers
//! (`search_merge::merge`) — against two baselines measured in the same run:
//! decoding the three answers' JSON (which any client does on receipt), and
//! concatenating them unsorted (the least a merge could do).
//!
//! Run (release):
//!   cargo run --release -p hangar-desktop --example bench-search-merge -- [--rounds 2000]
//!
//! Answers are generated: per host `limit` items (20, the default, and 200,
//! the most a host gives) with a 200-character snippet, bm25-like scores and
//! times spread over a year. Prints p50 / p99 / max per size in microseconds;
//! the target is under 100 ms.

#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    reason = "a benchmark run: a step that fails ends the run with its message; figures are printed"
)]

use std::time::Instant;

use hangar_desktop::search_merge::{merge, HostAnswer, WireAnswer};
use serde_json::json;

/// One host's answer as JSON text, `n` items.
fn answer_json(host: usize, n: usize) -> String {
    let items: Vec<_> = (0..n)
        .map(|i| {
            let day = (i * 7 + host * 3) % 365;
            json!({
                "session": format!("ahp-session:/s-{host}-{}", i / 4),
                "chat": format!("ahp-session:/s-{host}-{}/chat", i / 4),
                "turnId": format!("turn-{host}-{i}"),
                "title": format!("Session {i} on host {host}: fix the flaky build"),
                "snippet": format!("…we looked at the «quokka» feeding schedule and then the build log {} again…", "x".repeat(120)),
                "at": format!("2026-{:02}-{:02}T{:02}:{:02}:00Z", 1 + day / 31, 1 + day % 28, i % 24, i % 60),
                "score": 12.0 - (i as f64) * 0.01 - (host as f64) * 0.003,
            })
        })
        .collect();
    json!({ "items": items, "nextCursor": "c" }).to_string()
}

fn decode(texts: &[String]) -> Vec<HostAnswer> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| HostAnswer {
            host: format!("h{i}"),
            label: format!("Host {i}"),
            answer: serde_json::from_str::<WireAnswer>(t).unwrap(),
        })
        .collect()
}

fn quantiles(mut us: Vec<f64>) -> (f64, f64, f64) {
    us.sort_by(f64::total_cmp);
    let at = |q: f64| us[((us.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99), us[us.len() - 1])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000usize);
    println!("search merge of 3 hosts' answers, {rounds} rounds each (µs: p50 / p99 / max)");
    for limit in [20usize, 200] {
        let texts: Vec<String> = (0..3).map(|h| answer_json(h, limit)).collect();
        let (mut dec, mut cat, mut mer) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = Instant::now();
            let answers = decode(&texts);
            dec.push(t.elapsed().as_secs_f64() * 1e6);

            let copy = answers.clone();
            let t = Instant::now();
            let flat: Vec<_> = copy.into_iter().flat_map(|a| a.answer.items).collect();
            cat.push(t.elapsed().as_secs_f64() * 1e6);
            std::hint::black_box(flat);

            let t = Instant::now();
            let merged = merge(answers);
            mer.push(t.elapsed().as_secs_f64() * 1e6);
            assert_eq!(merged.items.len(), 3 * limit);
            std::hint::black_box(merged);
        }
        for (what, us) in [("decode (baseline)", dec), ("concatenate (baseline)", cat), ("merge", mer)] {
            let (p50, p99, max) = quantiles(us);
            println!("  {limit:>3} per host  {what:<24} {p50:>9.1} {p99:>9.1} {max:>9.1}");
        }
    }
}
