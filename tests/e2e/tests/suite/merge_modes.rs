//! `mergeBack`'s modes over a real socket on real repositories, with the
//! fake agent committing in its worktree session: `squash` (one commit
//! with the message asked, a refusing `pre-commit` hook leaving the folder
//! as it was), `rebase` (the session's branch rebased onto the folder's,
//! then a fast-forward; a refusing `pre-rebase` hook leaving both as they
//! were), and a conflict refused the same way in every mode with nothing
//! left behind: no file, index, ref, half-done merge, squash or rebase in
//! the folder or the session's worktree. Needs
//! `cargo build -p hangar-cli -p hangar-fake-agent`.

use std::path::Path;

use hangar_e2e::acp::{AgentCmd, Rig};
use hangar_e2e::git_repos::{git, read, repository, write};
use hangar_e2e::Launch;
use serde_json::{json, Value};

use super::git_loop::{failed, operate, snapshot, turn_and_commit, writes};
use super::worktrees::{params, worktree_of, SETUP};

/// A rig with a worktree session whose fake agent writes `turns` (each
/// `(path, text)`); the folder's `main` has a commit the session lacks
/// (`main-side.txt`, and `hello.txt` edited when `conflict`). Returns the
/// rig and the session's worktree after every turn was kept and committed.
async fn diverged(session: &str, turns: &[(&str, &str)], conflict: bool) -> (Rig, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    repository(&ws, SETUP);
    let script: Vec<Value> = turns.iter().map(|(path, text)| writes(path, text)).collect();
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": script })), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    assert_eq!(rig.open(params(session, &[&ws], json!({}))).await, "session/ready");
    let (_, wt) = worktree_of(&rig).await;
    for (path, _) in turns {
        turn_and_commit(&mut rig, &format!("write {path}")).await;
    }
    write(&ws.join("main-side.txt"), "main\n");
    git(&ws, &["add", "main-side.txt"]);
    if conflict {
        write(&ws.join("hello.txt"), "hello from main\n");
        git(&ws, &["add", "hello.txt"]);
    }
    git(&ws, &["commit", "--quiet", "-m", "main side"]);
    (rig, wt)
}

/// `mergeBack` with `_meta["hangar/mergeBack"]: asked`.
async fn merge_back(rig: &Rig, asked: Value) -> Result<Value, ahp::ClientError> {
    operate(rig, "mergeBack", json!({ "hangar/mergeBack": asked })).await
}

/// `dir`'s git has no merge, squash or rebase under way and nothing
/// uncommitted.
fn settled(dir: &Path) {
    assert_eq!(git(dir, &["status", "--porcelain"]), "", "{} is clean", dir.display());
    for state in ["MERGE_HEAD", "SQUASH_MSG", "rebase-merge", "rebase-apply"] {
        let path = dir.join(git(dir, &["rev-parse", "--git-path", state]));
        assert!(!path.exists(), "{} is left in {}", state, dir.display());
    }
}

/// Make `hook` of the repository at `ws` (shared by its worktrees) print
/// `says` and refuse.
fn refusing_hook(ws: &Path, hook: &str, says: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = ws.join(".git/hooks").join(hook);
    write(&path, &format!("#!/bin/sh\necho '{says}' >&2\nexit 1\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[tokio::test]
async fn squash_merges_the_branch_as_one_commit_with_the_message_asked() {
    let (rig, wt) =
        diverged("ahp-session:/squash", &[("first.txt", "first\n"), ("second.txt", "second\n")], false).await;
    let ws = rig.workspace.clone();
    let branch_tip = git(&wt, &["rev-parse", "HEAD"]);
    let main_before = git(&ws, &["rev-parse", "main"]);

    let e = failed(merge_back(&rig, json!({ "mode": "squash", "message": "  " })).await, -32602).await;
    assert!(e.message.contains("needs a commit message"), "{}", e.message);
    let e = failed(merge_back(&rig, json!({ "mode": "merge", "message": "x" })).await, -32602).await;
    assert!(e.message.contains("only for mode \"squash\""), "{}", e.message);

    // A pre-commit hook that says no: its words, and the folder as it was.
    let hook = refusing_hook(&ws, "pre-commit", "no squash today");
    let e = failed(merge_back(&rig, json!({ "mode": "squash", "message": "Both files" })).await, -32602).await;
    assert!(e.message.contains("no squash today"), "{}", e.message);
    assert_eq!(git(&ws, &["rev-parse", "main"]), main_before);
    assert_eq!(read(&ws.join("first.txt")), None);
    settled(&ws);
    std::fs::remove_file(hook).unwrap();

    let merged = merge_back(&rig, json!({ "mode": "squash", "message": "Both files\n\nfrom the session" })).await;
    let merged = merged.unwrap()["_meta"]["hangar/mergeBack"].clone();
    let head = git(&ws, &["rev-parse", "main"]);
    assert_eq!((merged["how"].clone(), merged["fastForward"].clone()), (json!("squash"), json!(false)));
    assert_eq!(merged["commit"], head.as_str());
    assert_eq!(git(&ws, &["rev-list", "--parents", "-n", "1", "main"]), format!("{head} {main_before}"), "one parent");
    assert_eq!(git(&ws, &["log", "-1", "--format=%B", "main"]), "Both files\n\nfrom the session");
    assert_eq!(read(&ws.join("first.txt")).as_deref(), Some("first\n"));
    assert_eq!(read(&ws.join("second.txt")).as_deref(), Some("second\n"));
    assert_eq!(git(&wt, &["rev-parse", "HEAD"]), branch_tip, "the session's branch is left as it is");
    settled(&ws);
}

#[tokio::test]
async fn squash_without_a_message_takes_the_drafted_commit_message() {
    let (rig, _wt) = diverged("ahp-session:/squash-draft", &[("first.txt", "first\n")], false).await;
    let ws = rig.workspace.clone();
    let drafted = operate(&rig, "commitDraft", json!({})).await.unwrap();
    let drafted = drafted["_meta"]["hangar/commit"]["message"].as_str().unwrap().to_owned();
    merge_back(&rig, json!({ "mode": "squash" })).await.unwrap();
    assert_eq!(git(&ws, &["log", "-1", "--format=%B", "main"]), drafted);
}

#[tokio::test]
async fn rebase_replays_the_branch_onto_the_folders_then_fast_forwards() {
    let (rig, wt) =
        diverged("ahp-session:/rebase", &[("first.txt", "first\n"), ("second.txt", "second\n")], false).await;
    let ws = rig.workspace.clone();
    let main_before = git(&ws, &["rev-parse", "main"]);
    let branch_before = git(&wt, &["rev-parse", "HEAD"]);

    // A pre-rebase hook that says no: both places as they were.
    let hook = refusing_hook(&ws, "pre-rebase", "not on a Saturday");
    let e = failed(merge_back(&rig, json!({ "mode": "rebase" })).await, -32602).await;
    assert!(e.message.contains("not on a Saturday"), "{}", e.message);
    assert_eq!(
        (git(&ws, &["rev-parse", "main"]), git(&wt, &["rev-parse", "HEAD"])),
        (main_before.clone(), branch_before)
    );
    settled(&ws);
    settled(&wt);
    std::fs::remove_file(hook).unwrap();

    let merged = merge_back(&rig, json!({ "mode": "rebase" })).await.unwrap()["_meta"]["hangar/mergeBack"].clone();
    let head = git(&ws, &["rev-parse", "main"]);
    assert_eq!((merged["how"].clone(), merged["fastForward"].clone()), (json!("rebase"), json!(true)));
    assert_eq!(merged["commit"], head.as_str());
    assert_eq!(git(&wt, &["rev-parse", "HEAD"]), head, "the session's branch is the folder's tip");
    assert_eq!(git(&ws, &["rev-list", "--merges", "main"]), "", "no merge commit");
    assert_eq!(git(&ws, &["rev-list", "--count", &format!("{main_before}..main")]), "2", "both commits replayed");
    assert_eq!(git(&ws, &["log", "-2", "--format=%s", "main"]).lines().count(), 2);
    assert_eq!(read(&ws.join("second.txt")).as_deref(), Some("second\n"));
    assert_eq!(read(&wt.join("main-side.txt")).as_deref(), Some("main\n"));
    settled(&ws);
    settled(&wt);
}

#[tokio::test]
async fn a_conflict_is_refused_alike_in_every_mode_and_leaves_nothing_behind() {
    let turns = [("first.txt", "first\n"), ("hello.txt", "hello from the session\n")];
    let (rig, wt) = diverged("ahp-session:/conflicts", &turns, true).await;
    let ws = rig.workspace.clone();
    let branch = worktree_of(&rig).await.0["branch"].clone();
    let branch_tip = git(&wt, &["rev-parse", "HEAD"]);
    let before = snapshot(&ws);
    let hunks = json!([{ "line": 1, "ours": ["hello from main"], "theirs": ["hello from the session"] }]);
    let expected = json!({ "conflicts": ["hello.txt"], "ours": "main", "theirs": branch,
        "files": [{ "path": "hello.txt", "hunks": hunks }] });
    for mode in [None, Some("merge"), Some("squash"), Some("rebase")] {
        let asked = mode.map_or_else(|| json!({}), |m| json!({ "mode": m }));
        let e = failed(merge_back(&rig, asked).await, -32011).await;
        assert_eq!(e.data.clone().unwrap(), expected, "mode {mode:?}: {}", e.message);
        let after = snapshot(&ws);
        let changed: Vec<_> = after.keys().chain(before.keys()).filter(|p| after.get(*p) != before.get(*p)).collect();
        assert!(changed.is_empty(), "mode {mode:?}: the original folder is untouched: {changed:?}");
        assert_eq!(git(&wt, &["rev-parse", "HEAD"]), branch_tip, "mode {mode:?}: the session's branch is as it was");
        settled(&ws);
        settled(&wt);
    }
}
