//! A session in a git worktree of its own (`createSession` /
//! `disposeSession` with `_meta["hangar/worktree"]`), over a real socket
//! with the fake agent and real repositories made in a temp dir: the
//! worktree is on a new branch, the repository's `.hangar/setup` ran in it
//! with a readable log, the agent's writes reach the worktree and never the
//! original folder, the session stays in its worktree across a restart,
//! requests that cannot be met fail with the reason and leave nothing
//! behind, and removal is refused while it would lose edits or commits.
//! Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use std::path::{Path, PathBuf};

use ahp_types::commands::CreateSessionParams;
use hangar_e2e::acp::{fake_agent_bin, file_uri, session_state, AgentCmd, Rig};
use hangar_e2e::git_repos::{git, read, repository, write};
use hangar_e2e::{Launch, TestHost};
use serde_json::{json, Value};

/// A setup script that says where it ran and leaves `setup-ran`.
pub const SETUP: &str = "#!/bin/sh\necho \"preparing $HANGAR_WORKTREE\"\necho done > setup-ran\n";

/// `createSession` of the fake agent on `dirs` with `_meta["hangar/worktree"]: meta`.
pub fn params(session: &str, dirs: &[&Path], meta: Value) -> CreateSessionParams {
    CreateSessionParams {
        channel: session.to_owned(),
        meta: json!({ "hangar/worktree": meta }).as_object().cloned(),
        provider: Some("agent".to_owned()),
        working_directories: Some(dirs.iter().map(|d| file_uri(d)).collect()),
        config: None,
        active_client: None,
        progress_token: None,
    }
}

/// The session's `_meta["hangar/worktree"]` and the worktree's path.
pub async fn worktree_of(rig: &Rig) -> (Value, PathBuf) {
    let state = rig.session_state().await;
    let record = state.meta.as_ref().and_then(|m| m.get("hangar/worktree")).cloned().expect("a worktree record");
    let path = PathBuf::from(record["path"].as_str().unwrap());
    (record, path)
}

/// The error message of a request that must fail with -32602.
pub async fn refused(rig: &Rig, method: &str, params: Value) -> String {
    match rig.client.request::<_, Value>(method, params).await {
        Err(ahp::ClientError::Rpc(e)) if e.code == -32602 => e.message,
        other => panic!("{method} was not refused with -32602: {other:?}"),
    }
}

/// `listSessions`' summaries.
async fn summaries(rig: &Rig) -> Vec<Value> {
    let list: Value =
        rig.client.request("listSessions", json!({ "channel": ahp_types::ROOT_RESOURCE_URI })).await.unwrap();
    list["items"].as_array().unwrap().clone()
}

async fn session_uris(rig: &Rig) -> Vec<String> {
    summaries(rig).await.iter().map(|i| i["resource"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_worktree_session_works_on_its_own_branch_after_setup_and_keeps_it_across_a_restart() {
    let script = json!({ "turns": [[
        { "writeFile": { "path": "new.txt", "text": "from the agent\n" } },
        { "writeFile": { "path": "tracked.txt", "text": "changed\n" } },
        { "end": "end_turn" } ]] });
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let worktrees = tmp.path().join("hangar-worktrees");
    repository(&tmp.path().join("ws"), SETUP);
    let script_path = tmp.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let cmd = format!("{} --script {}", fake_agent_bin().display(), script_path.display());
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), Launch::Process(&[]), Some(&data)).await;
    let ws = rig.workspace.clone();

    // The folder asked for is a subfolder: the session works in the same
    // subfolder of the worktree.
    let session = "ahp-session:/wt-one";
    assert_eq!(rig.open(params(session, &[&ws.join("sub")], json!({}))).await, "session/ready");
    let (record, path) = worktree_of(&rig).await;
    assert!(path.starts_with(worktrees.canonicalize().unwrap()), "{path:?} is beside the data dir");
    assert_eq!(record["branch"], "hangar/wt-one");
    assert_eq!(record["base"], "main");
    assert_eq!(record["repository"], ws.display().to_string());
    assert_eq!(rig.session_state().await.working_directories, Some(vec![file_uri(&path.join("sub"))]));
    assert_eq!(git(&path, &["branch", "--show-current"]), "hangar/wt-one");
    assert_eq!(git(&path, &["rev-parse", "HEAD"]), git(&ws, &["rev-parse", "main"]));

    // Setup ran in the worktree; its log is readable.
    assert_eq!(read(&path.join("setup-ran")).as_deref(), Some("done\n"));
    assert!(!ws.join("setup-ran").exists(), "setup did not run in the original folder");
    assert_eq!((record["setup"]["ok"].clone(), record["setup"]["exitCode"].clone()), (json!(true), json!(0)));
    let log = PathBuf::from(record["setup"]["log"].as_str().unwrap());
    assert!(log.starts_with(&data), "{log:?} is in the data dir");
    assert_eq!(read(&log), Some(format!("preparing {}\n", path.display())));

    // The summary says it is in a worktree too.
    let item = summaries(&rig).await.into_iter().find(|i| i["resource"] == session).unwrap();
    assert_eq!(item["_meta"]["hangar/worktree"]["branch"], "hangar/wt-one");

    // The agent's writes reach the worktree, never the original folder.
    let turn = rig.send("edit").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(read(&path.join("sub/new.txt")).as_deref(), Some("from the agent\n"));
    assert_eq!(read(&path.join("sub/tracked.txt")).as_deref(), Some("changed\n"));
    assert_eq!(read(&ws.join("sub/new.txt")), None);
    assert_eq!(read(&ws.join("sub/tracked.txt")).as_deref(), Some("original\n"));
    assert_eq!(git(&ws, &["status", "--porcelain"]), "", "the original folder is untouched");
    assert_eq!(git(&ws, &["branch", "--show-current"]), "main");

    // A new host on the same data dir: the session is still in its worktree.
    assert!(rig.host.sigterm().success());
    let spec = format!("agent={cmd}");
    let host = TestHost::start_in(Launch::Process(&[]), &data, &["--agent", &spec]);
    let state = session_state(&host, session).await;
    assert_eq!(state.working_directories, Some(vec![file_uri(&path.join("sub"))]));
    assert_eq!(state.meta.unwrap()["hangar/worktree"], record);
    assert_eq!(git(&path, &["branch", "--show-current"]), "hangar/wt-one");
    // ... and it still knows its worktree: the agent's edits are not
    // committed, so removing it is refused.
    let (client, _) = hangar_e2e::initialized(&host, "after-restart").await;
    let dispose = json!({ "channel": session, "_meta": { "hangar/worktree": { "remove": true } } });
    match client.request::<_, Value>("disposeSession", dispose).await {
        Err(ahp::ClientError::Rpc(e)) => assert!(e.message.contains("uncommitted changes"), "{}", e.message),
        other => panic!("removal was not refused: {other:?}"),
    }
    assert!(path.join("sub/new.txt").exists());
}

#[tokio::test]
async fn worktree_requests_that_cannot_be_met_fail_with_the_reason_and_leave_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    repository(&tmp.path().join("ws"), SETUP);
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let worktrees = tmp.path().join("hangar-worktrees");
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [] })), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    let ask = |dirs: &[&Path], meta: Value| serde_json::to_value(params("ahp-session:/wt-no", dirs, meta)).unwrap();

    let why = refused(&rig, "createSession", ask(&[&plain], json!({}))).await;
    assert!(why.contains("not in a git repository"), "{why}");
    let why = refused(&rig, "createSession", ask(&[&ws], json!({ "branch": "bad..name" }))).await;
    assert!(why.contains("bad..name"), "{why}");
    let why = refused(&rig, "createSession", ask(&[&ws], json!({ "branch": "main" }))).await;
    assert!(why.contains("branch main already exists"), "{why}");
    let why = refused(&rig, "createSession", ask(&[&ws, &plain], json!({}))).await;
    assert!(why.contains("exactly one working directory"), "{why}");
    let why = refused(&rig, "createSession", ask(&[&ws], json!({ "branch": 7 }))).await;
    assert!(why.contains("hangar/worktree"), "{why}");

    assert_eq!(session_uris(&rig).await, [rig.session.clone()], "no session was made");
    let left: Vec<_> =
        std::fs::read_dir(&worktrees).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "nothing is left in the worktrees folder: {left:?}");
    assert_eq!(git(&ws, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1);
    assert_eq!(git(&ws, &["branch", "--list", "--format=%(refname:short)"]), "main");

    // A default branch name that is taken gets a number.
    git(&ws, &["branch", "hangar/wt-dup"]);
    assert_eq!(rig.open(params("ahp-session:/wt-dup", &[&ws], json!({}))).await, "session/ready");
    assert_eq!(worktree_of(&rig).await.0["branch"], "hangar/wt-dup-2");
}

#[tokio::test]
async fn without_git_a_worktree_session_is_refused_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    repository(&tmp.path().join("ws"), SETUP);
    let launch = Launch::Process(&[("PATH", "/nonexistent")]);
    let rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [] })), launch, None).await;
    let ask = serde_json::to_value(params("ahp-session:/wt-nogit", &[&rig.workspace], json!({}))).unwrap();
    let why = refused(&rig, "createSession", ask).await;
    assert!(why.contains("git is not available on this host"), "{why}");
    assert_eq!(git(&rig.workspace, &["branch", "--list", "--format=%(refname:short)"]), "main");
}

#[tokio::test]
async fn a_detached_head_is_branched_from_its_commit_and_a_failing_setup_is_reported_with_the_worktree_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    repository(&ws, "#!/bin/sh\necho 'setup broke' >&2\nexit 3\n");
    git(&ws, &["checkout", "--quiet", "--detach"]);
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [] })), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    let commit = git(&ws, &["rev-parse", "HEAD"]);

    let ask = params("ahp-session:/wt-detached", &[&ws], json!({ "branch": "feature/x" }));
    assert_eq!(rig.open(ask).await, "session/ready");
    let (record, path) = worktree_of(&rig).await;
    assert_eq!((record["branch"].as_str(), record["base"].as_str()), (Some("feature/x"), Some(commit.as_str())));
    assert_eq!(git(&path, &["branch", "--show-current"]), "feature/x");
    assert_eq!(git(&path, &["rev-parse", "HEAD"]), commit);
    let setup = &record["setup"];
    assert_eq!((setup["ok"].clone(), setup["exitCode"].clone()), (json!(false), json!(3)), "{setup}");
    assert_eq!(read(Path::new(setup["log"].as_str().unwrap())).as_deref(), Some("setup broke\n"));
    assert!(path.join("hello.txt").exists(), "the worktree stays after a failed setup");
    assert_eq!(git(&ws, &["rev-parse", "--abbrev-ref", "HEAD"]), "HEAD", "the original stays detached");
}

#[tokio::test]
async fn removing_a_worktree_with_the_session_is_refused_while_it_would_lose_edits_or_commits() {
    let tmp = tempfile::tempdir().unwrap();
    repository(&tmp.path().join("ws"), SETUP);
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [] })), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    let plain_session = rig.session.clone();
    let dispose = |session: &str, meta: Value| json!({ "channel": session, "_meta": { "hangar/worktree": meta } });

    let why = refused(&rig, "disposeSession", dispose(&plain_session, json!({ "remove": true }))).await;
    assert!(why.contains("does not work in a worktree"), "{why}");

    let busy = "ahp-session:/wt-busy";
    assert_eq!(rig.open(params(busy, &[&ws], json!({}))).await, "session/ready");
    let (_, busy_path) = worktree_of(&rig).await;
    write(&busy_path.join("wip.txt"), "work in progress\n");
    let why = refused(&rig, "disposeSession", dispose(busy, json!({ "remove": true }))).await;
    assert!(why.contains("uncommitted changes (wip.txt)"), "{why}");
    git(&busy_path, &["add", "wip.txt"]);
    git(&busy_path, &["commit", "--quiet", "-m", "wip"]);
    let why = refused(&rig, "disposeSession", dispose(busy, json!({ "remove": true }))).await;
    assert!(why.contains("hangar/wt-busy has 1 commit(s) not merged into main"), "{why}");
    assert!(session_uris(&rig).await.contains(&busy.to_owned()), "a refused removal keeps the session");
    assert!(busy_path.join("wip.txt").exists());

    // Forced: the worktree goes, the branch with its commit stays.
    let _: Value =
        rig.client.request("disposeSession", dispose(busy, json!({ "remove": true, "force": true }))).await.unwrap();
    assert!(!session_uris(&rig).await.contains(&busy.to_owned()));
    assert!(!busy_path.exists());
    assert_eq!(git(&ws, &["log", "-1", "--format=%s", "hangar/wt-busy"]), "wip");

    // A clean worktree goes with its branch; a plain dispose leaves one be.
    let clean = "ahp-session:/wt-clean";
    assert_eq!(rig.open(params(clean, &[&ws], json!({}))).await, "session/ready");
    let (_, clean_path) = worktree_of(&rig).await;
    let _: Value = rig.client.request("disposeSession", dispose(clean, json!({ "remove": true }))).await.unwrap();
    assert!(!clean_path.exists());
    assert_eq!(git(&ws, &["branch", "--list", "hangar/wt-clean"]), "");
    let kept = "ahp-session:/wt-kept";
    assert_eq!(rig.open(params(kept, &[&ws], json!({}))).await, "session/ready");
    let (_, kept_path) = worktree_of(&rig).await;
    let _: Value = rig.client.request("disposeSession", json!({ "channel": kept })).await.unwrap();
    assert!(kept_path.join("hello.txt").exists(), "disposing without remove keeps the worktree");
    assert_eq!(git(&ws, &["status", "--porcelain"]), "", "the original folder is untouched");
}

/// GitHub's "Squash and merge" of `branch` into the folder's `main`, then
/// `main` pulled: the branch's changes as one new commit on `main`.
fn squash_merge(ws: &Path, branch: &str) {
    git(ws, &["merge", "--quiet", "--squash", branch]);
    git(ws, &["commit", "--quiet", "-m", &format!("{branch} (squashed)")]);
}

/// Wait (with a deadline) until `path` is gone.
async fn gone(path: &Path) -> bool {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while path.exists() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    !path.exists()
}

#[tokio::test]
async fn a_squash_merged_branch_is_removed_with_its_worktree_without_force_and_one_with_more_work_is_refused() {
    use super::git_loop::{archive, archived};
    let tmp = tempfile::tempdir().unwrap();
    repository(&tmp.path().join("ws"), SETUP);
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [] })), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    let dispose = |session: &str| json!({ "channel": session, "_meta": { "hangar/worktree": { "remove": true } } });
    let commit = |dir: &Path, file: &str| {
        write(&dir.join(file), &format!("{file}\n"));
        git(dir, &["add", file]);
        git(dir, &["commit", "--quiet", "-m", file]);
    };

    // Two commits, squashed onto main as one after main moved on: disposed
    // with its worktree and branch, no force needed.
    let squashed = "ahp-session:/wt-squashed";
    assert_eq!(rig.open(params(squashed, &[&ws], json!({}))).await, "session/ready");
    let (_, squashed_path) = worktree_of(&rig).await;
    commit(&squashed_path, "one.txt");
    commit(&squashed_path, "two.txt");
    let why = refused(&rig, "disposeSession", dispose(squashed)).await;
    assert!(why.contains("hangar/wt-squashed has 2 commit(s) not merged into main"), "{why}");
    commit(&ws, "main.txt");
    squash_merge(&ws, "hangar/wt-squashed");
    let _: Value = rig.client.request("disposeSession", dispose(squashed)).await.unwrap();
    assert!(!session_uris(&rig).await.contains(&squashed.to_owned()));
    assert!(!squashed_path.exists());
    assert_eq!(git(&ws, &["branch", "--list", "hangar/wt-squashed"]), "", "every change is in main: the branch goes");

    // Squashed, then one commit more: refused, nothing touched.
    let more = "ahp-session:/wt-more";
    assert_eq!(rig.open(params(more, &[&ws], json!({}))).await, "session/ready");
    let (_, more_path) = worktree_of(&rig).await;
    commit(&more_path, "three.txt");
    squash_merge(&ws, "hangar/wt-more");
    commit(&more_path, "four.txt");
    let why = refused(&rig, "disposeSession", dispose(more)).await;
    assert!(why.contains("hangar/wt-more has 1 commit(s) not merged into main"), "{why}");
    assert!(session_uris(&rig).await.contains(&more.to_owned()));
    assert!(more_path.join("four.txt").exists());

    // Archiving with removal (what the app's Archive → Remove sends): the
    // same, once the extra commit is squashed in too.
    squash_merge(&ws, "hangar/wt-more");
    rig.client.notify("dispatchAction", archive(more, 900_001, false)).await.unwrap();
    assert!(gone(&more_path).await, "the worktree is removed");
    assert!(archived(&rig.client, more).await);
    assert_eq!(git(&ws, &["branch", "--list", "hangar/wt-more"]), "");
    assert_eq!(git(&ws, &["status", "--porcelain"]), "", "the original folder is clean");
}
