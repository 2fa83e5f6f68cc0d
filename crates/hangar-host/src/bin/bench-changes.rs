//! Change-tracking benchmark: a generated working directory of FILES files
//! (default 100,000; ~650 bytes each, in 1,000 folders) and what each turn
//! costs the tracker: the first turn, later turns where the agent edited 10
//! files, and `changes.db`'s size. Each tracker runs twice in the same run:
//! as before the watcher (every scan walks and `stat`s every file, every
//! file read and kept at the first: the baseline) and as it is (a watcher's
//! dirty set between scans, git's objects for unchanged tracked files);
//! first on a plain folder, then on the same folder made a git repository
//! (`git init`, `add`, `commit`). With the watcher, also the first turn
//! as the host runs it: the folders scanned when the session is opened
//! (`Tracker::prepare`), a person's edit, then the first prompt. Baselines of the walk itself too: a bare
//! walk of the tree with `ignore`, the walk with a `stat` per file, and
//! reading every file once. Then a 20,000-line file with
//! 500 changed hunks: the time to count its lines, list its hunks and undo
//! one hunk (what opening and acting on its diff costs the host).
//!
//! `cargo build --release -p hangar-host --bin bench-changes && target/release/bench-changes [FILES]`

#![allow(clippy::unwrap_used, reason = "a benchmark run: a step that fails ends the run with its message")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hangar_host::changes::hunks::{hunks, line_stats, splice, touches};
use hangar_host::changes::tracker::ScanKind;
use hangar_host::changes::Tracker;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn tree(root: &Path, files: usize) {
    let body: String = (0..24).map(|i| format!("line {i} of some source text\n")).collect();
    for i in 0..files {
        let dir = root.join(format!("src/d{}", i % 1000));
        if i < 1000 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("f{i}.rs")), format!("// file {i}\n{body}")).unwrap();
    }
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
}

fn walk_only(root: &Path) -> usize {
    ignore::WalkBuilder::new(root).hidden(false).require_git(false).build().filter_map(Result::ok).count()
}

fn walk_and_stat(root: &Path) -> usize {
    let walker = ignore::WalkBuilder::new(root).hidden(false).require_git(false).build();
    walker.filter_map(Result::ok).filter(|e| std::fs::symlink_metadata(e.path()).is_ok()).count()
}

fn read_all(root: &Path) -> u64 {
    let mut bytes = 0;
    for e in ignore::WalkBuilder::new(root).hidden(false).require_git(false).build().filter_map(Result::ok) {
        if e.file_type().is_some_and(|t| t.is_file()) {
            bytes += std::fs::read(e.path()).map(|b| b.len() as u64).unwrap_or(0);
        }
    }
    bytes
}

fn main() {
    let files: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let t = Instant::now();
    tree(&root, files);
    println!("tree: {files} files written in {:.0} ms", ms(t.elapsed()));
    // Files written a moment ago are "racy" (read again at the next scan,
    // git's rule): date them back so later turns show the steady state.
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    for e in ignore::WalkBuilder::new(&root).hidden(false).require_git(false).build().filter_map(Result::ok) {
        if e.file_type().is_some_and(|t| t.is_file()) {
            std::fs::File::options().write(true).open(e.path()).unwrap().set_modified(old).unwrap();
        }
    }
    let dirs: Vec<PathBuf> = vec![root.clone()];

    let walks: Vec<f64> = (0..3)
        .map(|_| {
            let t = Instant::now();
            walk_only(&root);
            ms(t.elapsed())
        })
        .collect();
    let stats: Vec<f64> = (0..3)
        .map(|_| {
            let t = Instant::now();
            walk_and_stat(&root);
            ms(t.elapsed())
        })
        .collect();
    let t = Instant::now();
    let bytes = read_all(&root);
    let read_ms = ms(t.elapsed());

    println!(
        "baseline: walk only {:.0} ms, walk and stat {:.0} ms (medians of 3); read every file once {read_ms:.0} ms ({} MiB)",
        median(walks),
        median(stats),
        bytes >> 20
    );
    let mut run = 0;
    let mut turns = |label: &str, watcher: bool| {
        run += 1;
        let data = tmp.path().join(format!("data{run}"));
        std::fs::create_dir_all(&data).unwrap();
        let tracker = Tracker::open(&data, Vec::new()).unwrap().with_watcher(watcher).with_git(watcher);
        let t = Instant::now();
        tracker.begin_turn("s", "t0", &dirs).unwrap();
        let first = ms(t.elapsed());
        let db = size(&data.join("changes.db"));
        let wal = size(&data.join("changes.db-wal"));
        tracker.end_turn("s", "t0", &dirs).unwrap();
        let mut begins = Vec::new();
        let mut ends = Vec::new();
        let mut kinds = Vec::new();
        for turn in 1..=10 {
            let id = format!("t{turn}");
            let t = Instant::now();
            tracker.begin_turn("s", &id, &dirs).unwrap();
            begins.push(ms(t.elapsed()));
            for k in 0..10 {
                let path = root.join(format!("src/d{k}/f{k}.rs"));
                std::fs::write(&path, format!("// edited in turn {turn} of run {run}\n")).unwrap();
            }
            let t = Instant::now();
            let delta = tracker.end_turn("s", &id, &dirs).unwrap().unwrap();
            ends.push(ms(t.elapsed()));
            kinds.push(tracker.last_scan("s").unwrap());
            assert_eq!(delta.changes.len(), 10);
        }
        let dirty = kinds.iter().filter(|k| matches!(k, ScanKind::Dirty(_))).count();
        if watcher {
            // As the host does it: the session's folders scanned when it is
            // created or opened, then a person's edit, then the first prompt.
            let data = tmp.path().join(format!("data{run}-prepared"));
            std::fs::create_dir_all(&data).unwrap();
            let tracker = Tracker::open(&data, Vec::new()).unwrap();
            let t = Instant::now();
            assert!(tracker.prepare("s", &dirs).unwrap());
            let prepare = ms(t.elapsed());
            std::fs::write(root.join("src/d1/f1.rs"), format!("// edited by a person before run {run}\n")).unwrap();
            let t = Instant::now();
            tracker.begin_turn("s", "t0", &dirs).unwrap();
            let wait = ms(t.elapsed());
            assert_eq!(tracker.last_scan("s"), Some(ScanKind::Dirty(1)));
            println!(
                "{label}: the session opened: its folders scanned ahead of the first prompt in {prepare:.0} ms; \
                 then the first turn's wait {wait:.1} ms"
            );
        }
        println!(
            "{label}: first turn {first:.0} ms (changes.db {:.1} MiB, its log {:.1} MiB); later turns: before the prompt {:.1} ms, \
             after the turn {:.1} ms (medians of 10; {dirty} of 10 end scans from the dirty set)",
            db as f64 / 1048576.0,
            wal as f64 / 1048576.0,
            median(begins),
            median(ends),
        );
    };
    turns("plain folder, full scans (baseline)", false);
    turns("plain folder, watcher", true);
    let t = Instant::now();
    for args in [&["init", "-q"][..], &["add", "-A"], &["commit", "-q", "-m", "tree"]] {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false"])
            .args(["-c", "gc.auto=0"])
            .args(args)
            .current_dir(&root)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }
    println!("git init, add and commit of the tree: {:.0} ms", ms(t.elapsed()));
    turns("git repository, full scans (baseline)", false);
    turns("git repository, watcher and git's objects", true);

    // A 20,000-line file with 500 hunks.
    let before: String = (0..20_000).map(|i| format!("let value_{i} = compute({i});\n")).collect();
    let after: String = before
        .lines()
        .enumerate()
        .map(|(i, l)| if i % 40 == 7 { format!("{l} // changed\n") } else { format!("{l}\n") })
        .collect();
    let mut stats = Vec::new();
    let mut listed = Vec::new();
    let mut undo = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let (added, removed) = line_stats(&before, &after);
        stats.push(ms(t.elapsed()));
        assert_eq!((added, removed), (500, 500));
        let t = Instant::now();
        let h = hunks(&before, &after);
        listed.push(ms(t.elapsed()));
        assert_eq!(h.len(), 500);
        let t = Instant::now();
        let undone = splice(&before, &after, &|r| !touches(r, 7, 7));
        undo.push(ms(t.elapsed()));
        assert_eq!(undone.len(), after.len() - " // changed".len());
    }
    println!(
        "20,000 lines, 500 hunks: line counts {:.1} ms, hunk list {:.1} ms, undo one hunk {:.1} ms (medians of 5)",
        median(stats),
        median(listed),
        median(undo)
    );
}
