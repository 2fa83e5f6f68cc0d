//! Discovery benchmark: a working directory with 10,000 ordinary files in
//! nested folders and ~200 customizations of every kind (the fixture of
//! `customizations::discover::fixture` plus generated ones, some under
//! home); prints the time of `discover()` (median and p90 over RUNS), next
//! to baselines from the same run: merely `stat`ing the known paths of the
//! table, reading the discovered files without parsing them, and walking
//! the whole working directory (what discovery must never do).
//!
//! `cargo build --release -p hangar-host --bin bench-customizations && target/release/bench-customizations [RUNS]`

#![allow(clippy::unwrap_used, reason = "a benchmark run: a step that fails ends the run with its message")]

use std::path::Path;
use std::time::{Duration, Instant};

use hangar_host::customizations::discover::{fixture::write_fixture_workspace, known_paths};
use hangar_host::customizations::{discover, Roots};

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// 10,000 ordinary files: `src/m<i>/p<j>/f<k>.txt`, 20 × 10 × 50.
fn ordinary_files(wd: &Path) -> usize {
    let mut count = 0;
    for i in 0..20 {
        for j in 0..10 {
            for k in 0..50 {
                write(&wd.join(format!("src/m{i}/p{j}/f{k}.txt")), "plain text\n");
                count += 1;
            }
        }
    }
    count
}

/// Generated customizations on top of the fixture's.
fn more_customizations(wd: &Path, home: &Path) {
    for i in 0..30 {
        write(
            &wd.join(format!(".claude/agents/gen/agent-{i}.md")),
            &format!("---\nname: gen-{i}\ndescription: d\n---\n"),
        );
        write(
            &wd.join(format!(".agents/skills/gen-{i}/SKILL.md")),
            &format!("---\nname: gen-{i}\ndescription: d\n---\n"),
        );
    }
    for i in 0..24 {
        write(&wd.join(format!(".github/prompts/gen-{i}.prompt.md")), "---\ndescription: d\n---\nDo.\n");
    }
    for i in 0..14 {
        write(&home.join(format!(".claude/rules/gen-{i}.md")), "---\npaths: [\"src/**\"]\n---\nRule.\n");
    }
    let hooks: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"matcher": "T{i}", "hooks": [{{"type": "command", "command": "h{i}"}}]}}"#))
        .collect();
    write(&wd.join(".github/hooks/gen.json"), &format!(r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#, hooks.join(",")));
    let servers: Vec<String> = (0..10).map(|i| format!(r#""gen-{i}": {{"command": "srv{i}"}}"#)).collect();
    write(&wd.join(".github/mcp.json"), &format!(r#"{{"mcpServers": {{{}}}}}"#, servers.join(",")));
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                count_files(&entry.path())
            } else {
                1
            }
        })
        .sum()
}

/// Median and p90 of `runs` timings of `f`.
fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[runs / 2], times[(runs * 9 / 10).min(runs - 1)])
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100).max(1);
    let dir = tempfile::tempdir().unwrap();
    let (wd, home) = (dir.path().join("work"), dir.path().join("home"));
    let ordinary = ordinary_files(&wd);
    write_fixture_workspace(&wd, &home);
    more_customizations(&wd, &home);
    let roots = Roots { working_dirs: vec![wd.clone()], home: Some(home) };

    let found = discover(&roots);
    let children: usize = found
        .tree
        .iter()
        .map(|c| match c {
            ahp_types::state::Customization::Directory(d) => d.children.as_ref().map_or(0, Vec::len),
            ahp_types::state::Customization::Plugin(p) => p.children.as_ref().map_or(0, Vec::len),
            _ => 1,
        })
        .sum();
    let known = known_paths(&roots);
    let mut files: Vec<std::path::PathBuf> = serde_json::to_value(&found.tree)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["children"].as_array().cloned().unwrap_or_else(|| vec![c.clone()]))
        .filter_map(|c| hangar_host::resources::uri::file_uri_to_path(c["uri"].as_str()?).ok())
        .collect();
    files.sort();
    files.dedup();
    println!(
        "working dir: {} files ({ordinary} ordinary); discovered {children} customizations in {} top-level entries; \
         {} known paths; {} watch points; {runs} runs",
        count_files(&wd),
        found.tree.len(),
        known.len(),
        found.watch.len(),
    );
    println!();
    println!("| what | median | p90 |");
    println!("|---|---|---|");
    let (median, p90) = time(runs, || {
        std::hint::black_box(discover(&roots));
    });
    println!("| discover() | {} | {} |", ms(median), ms(p90));
    // The same customizations in a working directory without the 10,000
    // files: equal times mean the ordinary files cost nothing.
    let bare = tempfile::tempdir().unwrap();
    let (bare_wd, bare_home) = (bare.path().join("work"), bare.path().join("home"));
    write_fixture_workspace(&bare_wd, &bare_home);
    more_customizations(&bare_wd, &bare_home);
    let bare_roots = Roots { working_dirs: vec![bare_wd], home: Some(bare_home) };
    let (median, p90) = time(runs, || {
        std::hint::black_box(discover(&bare_roots));
    });
    println!("| discover(), same customizations without the 10,000 files | {} | {} |", ms(median), ms(p90));
    let (median, p90) = time(runs, || {
        for path in &known {
            std::hint::black_box(std::fs::metadata(path).is_ok());
        }
    });
    println!("| baseline: stat the known paths | {} | {} |", ms(median), ms(p90));
    let (median, p90) = time(runs, || {
        for path in &files {
            std::hint::black_box(std::fs::read(path).is_ok());
        }
    });
    println!("| baseline: read the {} discovered files (no parsing) | {} | {} |", files.len(), ms(median), ms(p90));
    let (median, p90) = time(runs.min(20), || {
        std::hint::black_box(count_files(&wd));
    });
    println!("| for scale: walk the whole working dir | {} | {} |", ms(median), ms(p90));
}
