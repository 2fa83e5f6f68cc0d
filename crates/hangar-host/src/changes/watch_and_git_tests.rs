//! The tracker with its watcher and git's objects, checked against what it
//! did before them: a turn's changes on a big git repository equal the same
//! turn's on an empty folder; a subprocess's write is seen by a scan of the
//! dirty set; an overflow falls back to a full scan; a reject restores a
//! file whose earlier content is in git, after commits and a change of
//! `HEAD` too, and says so when git no longer has it; a session prepared
//! when it is opened starts its first turn from the dirty set, and never
//! takes a turn a crash left open for the person's baseline.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::operations::{Scope, Source};
use super::scan;
use super::tracker::ScanKind;
use super::Tracker;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A git repository of `files` committed files (dated a minute back, so
/// git's index holds them unracily), with `target/` ignored.
fn repo(root: &Path, files: usize) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for i in 0..files {
        let rel = format!("src/d{}/f{i}.rs", i % 200);
        write(root, &rel, &format!("// file {i}\n"));
        std::fs::File::options().write(true).open(root.join(rel)).unwrap().set_modified(old).unwrap();
    }
    write(root, ".gitignore", "target/\n");
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "init"]);
}

/// One turn of edits, by every kind of writer: the process itself, a shell
/// command, a folder made and another renamed, an ignored build output.
fn turn_edits(root: &Path) {
    write(root, "agent.txt", "by the agent\n");
    write(root, "made/one/two.txt", "deep\n");
    write(root, "target/out.o", "build output\n");
    write(root, "moved/a.txt", "a\n");
    let status = Command::new("sh")
        .arg("-c")
        .arg("printf 'from a shell\\n' > shell.txt && mv moved renamed && rm made/one/two.txt && echo x > made/one/three.txt")
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success());
}

/// A turn's changes as (relative path, content before, content after).
type Seen = Vec<(PathBuf, Option<Vec<u8>>, Option<Vec<u8>>)>;

fn seen(tracker: &Tracker, root: &Path, changes: &[super::changes_db::FileChange]) -> Seen {
    let content = |h: &Option<String>| h.as_ref().map(|h| tracker.blob(h).unwrap().unwrap());
    changes
        .iter()
        .map(|c| (c.path.strip_prefix(root).unwrap().to_path_buf(), content(&c.before), content(&c.after)))
        .collect()
}

/// Two turns on `root`: the second's changes, and how its two scans went.
fn two_turns(root: &Path, data: &Path) -> (Seen, Vec<ScanKind>) {
    let tracker = Tracker::open(data, Vec::new()).unwrap();
    let dirs = [root.to_path_buf()];
    tracker.begin_turn("s", "t1", &dirs).unwrap();
    write(root, "first.txt", "turn one\n");
    tracker.end_turn("s", "t1", &dirs).unwrap();
    tracker.begin_turn("s", "t2", &dirs).unwrap();
    let mut kinds = vec![tracker.last_scan("s").unwrap()];
    turn_edits(root);
    write(root, "first.txt", "turn two\n");
    let delta = tracker.end_turn("s", "t2", &dirs).unwrap().unwrap();
    kinds.push(tracker.last_scan("s").unwrap());
    (seen(&tracker, root, &delta.changes), kinds)
}

#[test]
fn a_turn_on_a_20000_file_repository_changes_what_it_changes_on_an_empty_folder() {
    let (big, empty, d1, d2) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    repo(big.path(), 20_000);
    std::fs::write(empty.path().join(".gitignore"), "target/\n").unwrap();
    let (on_big, kinds) = two_turns(big.path(), d1.path());
    let (on_empty, _) = two_turns(empty.path(), d2.path());
    assert_eq!(on_big, on_empty);
    assert_eq!(on_big.len(), 5, "{on_big:?}");
    // Both scans of the second turn looked only at what changed.
    assert!(matches!(kinds[0], ScanKind::Dirty(_)), "{kinds:?}");
    assert!(matches!(kinds[1], ScanKind::Dirty(_)), "{kinds:?}");
}

#[test]
fn a_subprocess_write_just_before_the_turn_ends_is_in_the_turn() {
    let (ws, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = ws.path().to_path_buf();
    write(&root, "a.txt", "a\n");
    let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
    let dirs = [root.clone()];
    tracker.begin_turn("s", "t1", &dirs).unwrap();
    tracker.end_turn("s", "t1", &dirs).unwrap();
    for n in 0..20 {
        let turn = format!("t{}", n + 2);
        tracker.begin_turn("s", &turn, &dirs).unwrap();
        // Not through this process: a child writes, exits, and the scan
        // starts at once.
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("echo {n} > a.txt; echo {n} > b{n}.txt"))
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(status.success());
        let delta = tracker.end_turn("s", &turn, &dirs).unwrap().unwrap();
        assert_eq!(tracker.last_scan("s"), Some(ScanKind::Dirty(2)), "turn {n}");
        let names: Vec<String> =
            delta.changes.iter().map(|c| c.path.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.txt".to_owned(), format!("b{n}.txt")], "turn {n}");
    }
}

#[test]
fn after_an_overflow_or_a_restart_the_next_scan_is_a_full_one() {
    let (ws, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = ws.path().to_path_buf();
    write(&root, "a.txt", "a\n");
    let dirs = [root.clone()];
    {
        let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
        tracker.begin_turn("s", "t1", &dirs).unwrap();
        assert!(matches!(tracker.last_scan("s"), Some(ScanKind::Full(_))));
        tracker.end_turn("s", "t1", &dirs).unwrap();
        assert_eq!(tracker.last_scan("s"), Some(ScanKind::Dirty(0)));
        tracker.begin_turn("s", "t2", &dirs).unwrap();
        write(&root, "a.txt", "b\n");
        let overflow = notify::Event::new(notify::EventKind::Other).set_flag(notify::event::Flag::Rescan);
        tracker.feed_watcher("s", Ok(overflow));
        let delta = tracker.end_turn("s", "t2", &dirs).unwrap().unwrap();
        assert!(matches!(tracker.last_scan("s"), Some(ScanKind::Full(r)) if r.contains("overflowed")));
        assert_eq!(delta.changes.len(), 1);
        // Watched again from that full scan on.
        tracker.begin_turn("s", "t3", &dirs).unwrap();
        assert_eq!(tracker.last_scan("s"), Some(ScanKind::Dirty(0)));
        // The host dies mid-turn (t3 stays open); a file changes meanwhile.
    }
    write(&root, "a.txt", "c\n");
    let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
    let closed = tracker.begin_turn("s", "t4", &dirs).unwrap().unwrap();
    assert_eq!((closed.turn.as_str(), closed.changes.len()), ("t3", 1));
    assert!(matches!(tracker.last_scan("s"), Some(ScanKind::Dirty(_))), "the close was the full scan");
}

#[test]
fn a_clean_checkout_is_named_by_git_and_a_reject_restores_from_it_after_commits_and_checkouts() {
    let (ws, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = ws.path().canonicalize().unwrap();
    repo(&root, 50);
    write(&root, "untracked.txt", "mine\n");
    let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
    let dirs = [root.clone()];
    tracker.begin_turn("s", "t1", &dirs).unwrap();
    let file = root.join("src/d7/f7.rs");
    std::fs::write(&file, "// rewritten by the agent\n").unwrap();
    std::fs::write(root.join("untracked.txt"), "changed\n").unwrap();
    let delta = tracker.end_turn("s", "t1", &dirs).unwrap().unwrap();
    let before = |p: &Path| delta.changes.iter().find(|c| c.path == p).unwrap().before.clone().unwrap();
    // The tracked file's base is its blob, not a copy; the untracked one's is a copy.
    assert!(before(&file).starts_with("git:"), "{}", before(&file));
    assert_eq!(before(&root.join("untracked.txt")), scan::hash_of(b"mine\n"));
    let blobs: i64 = rusqlite::Connection::open(data.path().join("changes.db"))
        .unwrap()
        .query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 3, "mine, changed and the agent's version: no copy of the 50 committed files");
    // The user commits the agent's change and moves HEAD elsewhere.
    git(&root, &["commit", "-qam", "agent"]);
    git(&root, &["checkout", "-q", "-b", "other", "HEAD~1"]);
    std::fs::write(&file, "// rewritten by the agent\n").unwrap();
    tracker.reject("s", &Source::Session, &Scope::File(file.clone()), "undo-1").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "// file 7\n");
    assert_eq!(tracker.pending("s").unwrap().len(), 1, "the restored file is no longer pending");
}

#[test]
fn a_reject_whose_git_object_is_gone_says_so_and_writes_nothing() {
    let (ws, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = ws.path().canonicalize().unwrap();
    repo(&root, 3);
    let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
    let dirs = [root.clone()];
    tracker.begin_turn("s", "t1", &dirs).unwrap();
    let file = root.join("src/d1/f1.rs");
    std::fs::write(&file, "// agent\n").unwrap();
    let delta = tracker.end_turn("s", "t1", &dirs).unwrap().unwrap();
    let id = delta.changes[0].before.clone().unwrap().trim_start_matches("git:").to_owned();
    std::fs::remove_file(root.join(".git/objects").join(&id[..2]).join(&id[2..])).unwrap();
    let err = tracker.reject("s", &Source::Session, &Scope::File(file.clone()), "undo-1").unwrap_err();
    assert!(err.to_string().contains(&format!("git blob {id}")), "{err}");
    assert!(err.to_string().contains("no longer in the repository"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "// agent\n");
}

#[test]
fn a_session_prepared_when_opened_starts_its_first_turn_from_the_dirty_set_and_loses_nothing() {
    let (ws, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = ws.path().canonicalize().unwrap();
    repo(&root, 200);
    let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
    let dirs = [root.clone()];
    assert!(tracker.prepare("s", &dirs).unwrap(), "the first prepare scans");
    assert!(matches!(tracker.last_scan("s"), Some(ScanKind::Full(_))));
    assert!(!tracker.prepare("s", &dirs).unwrap(), "a watched session is not scanned again");
    // The person edits before the first prompt: that edit is the baseline,
    // not the turn's.
    write(&root, "src/d3/f3.rs", "// the person's\n");
    tracker.begin_turn("s", "t1", &dirs).unwrap();
    assert_eq!(tracker.last_scan("s"), Some(ScanKind::Dirty(1)));
    write(&root, "src/d3/f3.rs", "// the agent's\n");
    write(&root, "new.txt", "new\n");
    let delta = tracker.end_turn("s", "t1", &dirs).unwrap().unwrap();
    let got = seen(&tracker, &root, &delta.changes);
    let want: Seen = vec![
        ("new.txt".into(), None, Some(b"new\n".to_vec())),
        ("src/d3/f3.rs".into(), Some(b"// the person's\n".to_vec()), Some(b"// the agent's\n".to_vec())),
    ];
    assert_eq!(got, want);
}

#[test]
fn prepare_leaves_a_turn_a_crash_left_open_to_the_next_turn() {
    let (ws, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = ws.path().to_path_buf();
    write(&root, "a.txt", "a\n");
    let dirs = [root.clone()];
    Tracker::open(data.path(), Vec::new()).unwrap().begin_turn("s", "t1", &dirs).unwrap();
    // The host dies mid-turn; the agent's write lands; the host restarts
    // and a client opens the session.
    write(&root, "a.txt", "by the agent\n");
    let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
    assert!(!tracker.prepare("s", &dirs).unwrap());
    let closed = tracker.begin_turn("s", "t2", &dirs).unwrap().unwrap();
    assert_eq!((closed.turn.as_str(), closed.changes.len()), ("t1", 1), "the open turn keeps its change");
}
