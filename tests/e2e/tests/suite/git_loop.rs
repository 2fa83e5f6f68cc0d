//! After `commit`, over a real socket on real repositories made in a temp
//! dir (a bare repository on disk as `origin`), with the fake agent
//! editing files: the session's branch state (`_meta["hangar/git"]`) after
//! a commit and a push, `push` (with its upstream set, and refused by git
//! in its own words), `pullRequest` through a stand-in `gh` on `PATH` that
//! records what it was asked (the drafted title; kept across a restart),
//! without `gh` the exact command to run, and `mergeBack` (fast-forward, a
//! merge commit, a conflict that leaves the original folder as it was).
//! Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hangar_e2e::acp::{fake_agent_bin, AgentCmd, Rig};
use hangar_e2e::changesets::{changeset_when, invoke, session_changeset};
use hangar_e2e::git_repos::{git, read, repository, write};
use hangar_e2e::{Launch, TestHost};
use serde_json::{json, Value};

use super::worktrees::{params, refused, worktree_of, SETUP};

/// A turn of the fake agent writing `path`.
pub(super) fn writes(path: &str, text: &str) -> Value {
    json!([{ "writeFile": { "path": path, "text": text } }, { "end": "end_turn" }])
}

/// `invokeChangesetOperation` of `op` on `session`'s changeset with `meta`.
pub(super) async fn operate(rig: &Rig, op: &str, meta: Value) -> Result<Value, ahp::ClientError> {
    let params = json!({ "channel": session_changeset(&rig.session), "operationId": op, "_meta": meta });
    rig.client.request("invokeChangesetOperation", params).await
}

/// Run a turn with `prompt`, keep everything it changed, and commit it
/// with the drafted message; returns the message.
pub(super) async fn turn_and_commit(rig: &mut Rig, prompt: &str) -> String {
    let id = rig.send(prompt).await;
    assert_eq!(rig.wait_end(&id).await, "chat/turnComplete");
    let uri = session_changeset(&rig.session);
    changeset_when(&rig.client, &uri, |s| !s.files.is_empty()).await;
    invoke(&rig.client, &uri, "accept", None).await.unwrap();
    let drafted = operate(rig, "commitDraft", json!({})).await.unwrap();
    let message = drafted["_meta"]["hangar/commit"]["message"].as_str().unwrap().to_owned();
    operate(rig, "commit", json!({ "hangar/commit": { "message": message } })).await.unwrap();
    message
}

/// The session's summary `_meta["hangar/git"]` from `listSessions`.
async fn git_state(client: &ahp::Client, session: &str) -> Value {
    let list: Value = client.request("listSessions", json!({ "channel": ahp_types::ROOT_RESOURCE_URI })).await.unwrap();
    let item = list["items"].as_array().unwrap().iter().find(|i| i["resource"] == session).cloned();
    item.map(|i| i["_meta"]["hangar/git"].clone()).unwrap_or(Value::Null)
}

/// A bare repository `origin.git` beside `ws`, made `ws`'s `origin` with
/// `main` pushed.
fn bare_origin(ws: &Path) -> PathBuf {
    let bare = ws.parent().unwrap().join("origin.git");
    git(ws.parent().unwrap(), &["init", "--quiet", "--bare", "-b", "main", bare.to_str().unwrap()]);
    git(ws, &["remote", "add", "origin", bare.to_str().unwrap()]);
    git(ws, &["push", "--quiet", "-u", "origin", "main"]);
    bare
}

/// The error of a request that must fail with `code`.
pub(super) async fn failed(result: Result<Value, ahp::ClientError>, code: i32) -> ahp_types::messages::JsonRpcError {
    match result {
        Err(ahp::ClientError::Rpc(e)) if e.code == code => e,
        other => panic!("not refused with {code}: {other:?}"),
    }
}

#[tokio::test]
async fn push_sets_the_upstream_and_a_rejected_or_impossible_push_says_why_in_gits_words() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    repository(&ws, SETUP);
    let bare = bare_origin(&ws);
    let script = json!({ "turns": [writes("notes.txt", "notes\n")] });
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(script), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    assert_eq!(rig.open(params("ahp-session:/git-push", &[&ws], json!({}))).await, "session/ready");
    let (_, wt) = worktree_of(&rig).await;

    let message = turn_and_commit(&mut rig, "Add the notes file").await;
    assert!(message.ends_with("\n\n- Add the notes file"), "{message}");
    let state = git_state(&rig.client, &rig.session).await;
    assert_eq!(
        state,
        json!({ "branch": "hangar/git-push", "upstream": null, "ahead": 1, "behind": 0, "against": "main" })
    );

    let pushed = operate(&rig, "push", json!({})).await.unwrap();
    assert_eq!(
        pushed["_meta"]["hangar/push"],
        json!({ "remote": "origin", "branch": "hangar/git-push", "upstream": "origin/hangar/git-push", "setUpstream": true })
    );
    let bare_dir = format!("--git-dir={}", bare.display());
    let subject = message.lines().next().unwrap();
    assert_eq!(git(&ws, &[&bare_dir, "log", "-1", "--format=%s", "hangar/git-push"]), subject);
    assert_eq!(git(&wt, &["rev-parse", "HEAD"]), git(&ws, &[&bare_dir, "rev-parse", "hangar/git-push"]));
    let state = git_state(&rig.client, &rig.session).await;
    assert_eq!((state["upstream"].clone(), state["ahead"].clone()), (json!("origin/hangar/git-push"), json!(0)));

    // Someone else pushes to the branch; the session's next push is
    // rejected by git, which says so.
    let other = ws.parent().unwrap().join("other");
    git(ws.parent().unwrap(), &["clone", "--quiet", "-b", "hangar/git-push", bare.to_str().unwrap(), "other"]);
    write(&other.join("theirs.txt"), "theirs\n");
    git(&other, &["add", "theirs.txt"]);
    git(&other, &["commit", "--quiet", "-m", "theirs"]);
    git(&other, &["push", "--quiet"]);
    let theirs = git(&other, &["rev-parse", "HEAD"]);
    write(&wt.join("mine.txt"), "mine\n");
    git(&wt, &["add", "mine.txt"]);
    git(&wt, &["commit", "--quiet", "-m", "mine"]);
    git(&wt, &["fetch", "--quiet"]);
    let state = git_state(&rig.client, &rig.session).await;
    assert_eq!(state["ahead"], 0, "not read again until something happens in the session");
    let why = refused(
        &rig,
        "invokeChangesetOperation",
        json!({ "channel": session_changeset(&rig.session), "operationId": "push" }),
    )
    .await;
    assert!(why.contains("git push failed") && why.contains("rejected"), "{why}");
    assert_eq!(git(&ws, &[&bare_dir, "rev-parse", "hangar/git-push"]), theirs, "the remote branch is as it was");
    let state = git_state(&rig.client, &rig.session).await;
    assert_eq!((state["ahead"].clone(), state["behind"].clone()), (json!(1), json!(1)), "{state}");

    // No upstream and no origin: nothing to push to.
    git(&wt, &["branch", "--unset-upstream"]);
    git(&ws, &["remote", "remove", "origin"]);
    let why = refused(
        &rig,
        "invokeChangesetOperation",
        json!({ "channel": session_changeset(&rig.session), "operationId": "push" }),
    )
    .await;
    assert!(why.contains("no remote to push hangar/git-push to"), "{why}");
}

/// A stand-in `gh` in `dir/bin` that appends its arguments (NUL-separated,
/// one invocation per record) to `dir/gh.log`, answers `auth status` with
/// `auth`'s exit code, prints a PR address for `pr create` and its JSON
/// for `pr view` (its state is what `dir/pr-state` says, else `OPEN`).
/// Returns the `bin` folder.
fn stand_in_gh(dir: &Path, auth: i32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    let log = dir.join("gh.log");
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\" >> '{log}'; done\nprintf '::end::\\0' >> '{log}'\n\
         case \"$1 $2\" in\n\
         'auth status') exit {auth} ;;\n\
         'pr create') echo 'Creating pull request...' >&2; echo 'https://github.com/o/r/pull/7' ;;\n\
         'pr view') s=$(cat '{state}' 2>/dev/null || echo OPEN); \
         printf '{{\"url\":\"https://github.com/o/r/pull/7\",\"number\":7,\"state\":\"%s\"}}\\n' \"$s\" ;;\n\
         esac\n",
        log = log.display(),
        state = dir.join("pr-state").display()
    );
    write(&bin.join("gh"), &script);
    std::fs::set_permissions(bin.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// What the stand-in `gh` was asked, one argument list per call.
fn gh_calls(dir: &Path) -> Vec<Vec<String>> {
    let log = std::fs::read(dir.join("gh.log")).unwrap_or_default();
    let Some(log) = log.strip_suffix(b"\0") else { return Vec::new() };
    let args: Vec<String> = log.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    args.split(|a| a == "::end::").filter(|c| !c.is_empty()).map(<[String]>::to_vec).collect()
}

/// `PATH` with `bin` first.
fn path_with(bin: &Path) -> String {
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

#[tokio::test]
async fn a_pull_request_is_opened_through_gh_with_the_drafted_title_and_kept_across_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    repository(&ws, SETUP);
    let bare = bare_origin(&ws);
    let bin = stand_in_gh(tmp.path(), 0);
    let path = path_with(&bin);
    let data = tmp.path().join("data");
    let script_path = tmp.path().join("script.json");
    std::fs::write(&script_path, json!({ "turns": [writes("pr.txt", "for review\n")] }).to_string()).unwrap();
    let cmd = format!("{} --script {}", fake_agent_bin().display(), script_path.display());
    let gh_dir = tmp.path().to_path_buf();
    let launch = Launch::Process(&[("PATH", path.as_str())]);
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), launch, Some(&data)).await;
    let ws = rig.workspace.clone();
    let session = "ahp-session:/git-pr";
    assert_eq!(rig.open(params(session, &[&ws], json!({}))).await, "session/ready");
    turn_and_commit(&mut rig, "Review the pr file").await;

    let drafted = operate(&rig, "pullRequestDraft", json!({})).await.unwrap()["_meta"]["hangar/pullRequest"].clone();
    let title = rig.session_state().await.title;
    assert!(!title.is_empty());
    assert_eq!(drafted["title"], title.as_str(), "the title is the session's");
    assert_eq!((drafted["base"].as_str(), drafted["head"].as_str()), (Some("main"), Some("hangar/git-pr")));
    let body = drafted["body"].as_str().unwrap();
    assert!(body.contains("- Review the pr file") && body.contains("## Commits"), "{body}");
    assert!(gh_calls(&gh_dir).is_empty(), "a draft asks nothing of gh");

    let opened = operate(&rig, "pullRequest", json!({})).await.unwrap();
    let pr = json!({ "url": "https://github.com/o/r/pull/7", "number": 7, "state": "OPEN" });
    let meta = &opened["_meta"]["hangar/pullRequest"];
    assert_eq!(
        (meta["url"].clone(), meta["number"].clone(), meta["title"].clone()),
        (pr["url"].clone(), json!(7), drafted["title"].clone())
    );
    let calls = gh_calls(&gh_dir);
    assert_eq!(calls[0], ["auth", "status"]);
    let create: Vec<&str> = calls[1].iter().map(String::as_str).collect();
    assert_eq!(
        create,
        ["pr", "create", "--title", &title, "--body", body, "--base", "main", "--head", "hangar/git-pr"]
    );
    assert_eq!(calls[2], ["pr", "view", "https://github.com/o/r/pull/7", "--json", "url,number,state"]);
    // It pushed first: the branch is on the remote.
    let bare_dir = format!("--git-dir={}", bare.display());
    let (_, wt) = worktree_of(&rig).await;
    assert_eq!(git(&ws, &[&bare_dir, "rev-parse", "hangar/git-pr"]), git(&wt, &["rev-parse", "HEAD"]));
    assert_eq!(git_state(&rig.client, session).await["pullRequest"], pr);

    // Closed on GitHub: the next refresh of the branch state (here, a client
    // subscribing to the session changeset) reads it again with gh.
    std::fs::write(gh_dir.join("pr-state"), "CLOSED\n").unwrap();
    rig.client.subscribe(session_changeset(session)).await.unwrap();
    let closed = pull_request_when(&rig.client, session, "CLOSED").await;
    assert_eq!(closed["pullRequest"]["state"], "CLOSED", "{closed}");
    let view = ["pr", "view", "7", "--json", "state,url,number"];
    assert!(gh_calls(&gh_dir).iter().any(|c| c == &view), "{:?}", gh_calls(&gh_dir));

    // A new host on the same data dir still shows the pull request once the
    // session is looked at.
    assert!(rig.host.sigterm().success());
    let spec = format!("agent={cmd}");
    let host = TestHost::start_in(
        Launch::Process(&[("PATH", path.as_str())]),
        &data,
        &["--agent", &spec, "--pull-request-refresh-secs", "1"],
    );
    let (client, _) = hangar_e2e::initialized(&host, "after-restart").await;
    client.subscribe(session.to_owned()).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let state = loop {
        let state = git_state(&client, session).await;
        if !state["pullRequest"].is_null() || tokio::time::Instant::now() > deadline {
            break state;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let closed_pr = json!({ "url": "https://github.com/o/r/pull/7", "number": 7, "state": "CLOSED" });
    assert_eq!(state["pullRequest"], closed_pr, "{state}");
    assert_eq!(state["upstream"], "origin/hangar/git-pr");

    // Merged on GitHub while the client watches: the timer (1 s here, 60 s
    // by default) reads it again with nothing else happening.
    std::fs::write(gh_dir.join("pr-state"), "MERGED\n").unwrap();
    let merged = pull_request_when(&client, session, "MERGED").await;
    assert_eq!(merged["pullRequest"]["state"], "MERGED", "{merged}");
}

/// The session's `hangar/git` once its pull request's state is `want` (or
/// as it is after 30 s).
async fn pull_request_when(client: &ahp::Client, session: &str, want: &str) -> Value {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let state = git_state(client, session).await;
        if state["pullRequest"]["state"] == want || tokio::time::Instant::now() > deadline {
            return state;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn without_gh_a_pull_request_fails_with_the_exact_command_to_run_and_nothing_is_pushed() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    repository(&ws, SETUP);
    let bare = bare_origin(&ws);
    // Only git on PATH: no gh.
    let only_git = tmp.path().join("only-git");
    std::fs::create_dir_all(&only_git).unwrap();
    for program in ["git", "sh"] {
        let found = std::process::Command::new("sh").args(["-c", &format!("command -v {program}")]).output().unwrap();
        let found = String::from_utf8(found.stdout).unwrap();
        std::os::unix::fs::symlink(found.trim(), only_git.join(program)).unwrap();
    }
    let path = only_git.display().to_string();
    let script = json!({ "turns": [writes("pr.txt", "it's $HOME\n")] });
    let gh_dir = tmp.path().join("gh");
    let bin = stand_in_gh(&gh_dir, 0);
    let mut rig =
        Rig::start_with(tmp, AgentCmd::Script(script), Launch::Process(&[("PATH", path.as_str())]), None).await;
    let ws = rig.workspace.clone();
    assert_eq!(rig.open(params("ahp-session:/git-nogh", &[&ws], json!({}))).await, "session/ready");
    turn_and_commit(&mut rig, "Don't lose $HOME `here`").await;

    let asked = json!({ "hangar/pullRequest": { "body": "Line one\nit's \"quoted\" $HOME `x`" } });
    let e = failed(operate(&rig, "pullRequest", asked).await, -32602).await;
    assert!(e.message.contains("gh (the GitHub CLI) is not installed"), "{}", e.message);
    let command = e.data.as_ref().unwrap()["_meta"]["hangar/pullRequest"]["command"].as_str().unwrap().to_owned();
    assert!(command.starts_with("gh pr create --title "), "{command}");
    let bare_dir = format!("--git-dir={}", bare.display());
    assert_eq!(git(&ws, &[&bare_dir, "branch", "--list", "hangar/git-nogh"]), "", "nothing was pushed");

    // Run as given by a shell, it asks gh for exactly the draft.
    let ran = std::process::Command::new("sh").arg("-c").arg(&command).env("PATH", path_with(&bin)).status().unwrap();
    assert!(ran.success());
    let drafted = operate(&rig, "pullRequestDraft", json!({})).await.unwrap()["_meta"]["hangar/pullRequest"].clone();
    let title = drafted["title"].as_str().unwrap();
    assert_eq!(
        gh_calls(&gh_dir)[0],
        [
            "pr",
            "create",
            "--title",
            title,
            "--body",
            "Line one\nit's \"quoted\" $HOME `x`",
            "--base",
            "main",
            "--head",
            "hangar/git-nogh"
        ]
    );
}

/// Every file under `dir` with its bytes, `.git` included (its index, refs,
/// `HEAD`, no `MERGE_HEAD`) but for its object store, where git may add
/// objects no ref names.
pub(super) fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.ends_with(".git/objects") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    out
}

#[tokio::test]
async fn merge_back_fast_forwards_makes_a_merge_commit_and_never_forces_a_conflict() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    repository(&ws, SETUP);
    let turns = json!({ "turns": [
        writes("first.txt", "first\n"),
        writes("second.txt", "second\n"),
        writes("hello.txt", "hello from the session\n"),
    ] });
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(turns), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    let plain = rig.session.clone();
    assert_eq!(rig.open(params("ahp-session:/git-merge", &[&ws], json!({}))).await, "session/ready");
    let (_, wt) = worktree_of(&rig).await;

    // Fast-forward.
    turn_and_commit(&mut rig, "first").await;
    let merged = operate(&rig, "mergeBack", json!({})).await.unwrap();
    let tip = git(&wt, &["rev-parse", "HEAD"]);
    let expected = json!({ "into": "main", "repository": ws.display().to_string(), "commit": tip, "fastForward": true, "how": "fast-forward" });
    assert_eq!(merged["_meta"]["hangar/mergeBack"], expected);
    assert_eq!(git(&ws, &["rev-parse", "main"]), tip);
    assert_eq!(read(&ws.join("first.txt")).as_deref(), Some("first\n"));
    assert_eq!(git(&ws, &["status", "--porcelain"]), "");
    let why = refused(
        &rig,
        "invokeChangesetOperation",
        json!({ "channel": session_changeset(&rig.session), "operationId": "mergeBack" }),
    )
    .await;
    assert!(why.contains("nothing to merge"), "{why}");

    // Diverged: ff-only is refused, the default makes a merge commit.
    write(&ws.join("main-side.txt"), "main\n");
    git(&ws, &["add", "main-side.txt"]);
    git(&ws, &["commit", "--quiet", "-m", "main side"]);
    turn_and_commit(&mut rig, "second").await;
    let ff_only = json!({ "hangar/mergeBack": { "mode": "ff-only" } });
    let e = failed(operate(&rig, "mergeBack", ff_only).await, -32602).await;
    assert!(e.message.contains("have diverged"), "{}", e.message);
    let e =
        failed(operate(&rig, "mergeBack", json!({ "hangar/mergeBack": { "mode": "sideways" } })).await, -32602).await;
    assert!(e.message.contains("hangar/mergeBack"), "{}", e.message);
    let merged = operate(&rig, "mergeBack", json!({})).await.unwrap();
    assert_eq!(merged["_meta"]["hangar/mergeBack"]["fastForward"], false);
    assert_eq!(merged["_meta"]["hangar/mergeBack"]["how"], "merge");
    let head = git(&ws, &["rev-parse", "main"]);
    assert_eq!(merged["_meta"]["hangar/mergeBack"]["commit"], head.as_str());
    assert_eq!(git(&ws, &["rev-list", "--parents", "-n", "1", "main"]).split(' ').count(), 3, "a merge commit");
    assert_eq!(read(&ws.join("second.txt")).as_deref(), Some("second\n"));

    // A conflict: refused with the file named, the original folder exactly
    // as it was (every byte, .git included).
    write(&ws.join("hello.txt"), "hello from main\n");
    git(&ws, &["commit", "--quiet", "-am", "main edits hello"]);
    turn_and_commit(&mut rig, "third").await;
    let before = snapshot(&ws);
    let e = failed(operate(&rig, "mergeBack", json!({})).await, -32011).await;
    let data = e.data.clone().unwrap();
    assert_eq!(data["conflicts"], json!(["hello.txt"]), "{}", e.message);
    assert!(e.message.contains("hello.txt"), "{}", e.message);
    // Each file's conflicting blocks, both sides: ours is the folder's branch, theirs the session's.
    let branch = worktree_of(&rig).await.0["branch"].clone();
    assert_eq!((data["ours"].clone(), data["theirs"].clone()), (json!("main"), branch));
    let hunks = json!([{ "line": 1, "ours": ["hello from main"], "theirs": ["hello from the session"] }]);
    assert_eq!(data["files"], json!([{ "path": "hello.txt", "hunks": hunks }]), "{data}");
    let after = snapshot(&ws);
    let changed: Vec<_> = after.keys().chain(before.keys()).filter(|p| after.get(*p) != before.get(*p)).collect();
    assert!(changed.is_empty(), "the original folder is untouched: {changed:?}");

    // Uncommitted changes in the original folder: refused, named.
    write(&ws.join("scratch.txt"), "wip\n");
    let e = failed(operate(&rig, "mergeBack", json!({})).await, -32602).await;
    assert!(e.message.contains("uncommitted changes (scratch.txt)"), "{}", e.message);

    // A session without a worktree has nothing to merge back.
    changeset_when(&rig.client, &session_changeset(&plain), |_| true).await;
    let e = failed(
        rig.client
            .request::<_, Value>(
                "invokeChangesetOperation",
                json!({ "channel": session_changeset(&plain), "operationId": "mergeBack" }),
            )
            .await,
        -32602,
    )
    .await;
    assert!(e.message.contains("worktree of its own"), "{}", e.message);
}

/// A `dispatchAction` archiving `session`, asking for its worktree's
/// removal in the params' `_meta`.
pub fn archive(session: &str, seq: i64, force: bool) -> Value {
    json!({
        "channel": session,
        "clientSeq": seq,
        "action": { "type": "session/isArchivedChanged", "isArchived": true },
        "_meta": { "hangar/worktree": { "remove": true, "force": force } },
    })
}

/// Whether the summary of `session` says it is archived.
pub async fn archived(client: &ahp::Client, session: &str) -> bool {
    let list: Value = client.request("listSessions", json!({ "channel": ahp_types::ROOT_RESOURCE_URI })).await.unwrap();
    let item = list["items"].as_array().unwrap().iter().find(|i| i["resource"] == session).cloned().unwrap();
    item["status"].as_u64().unwrap() as u32 & ahp_types::state::SessionStatus::IsArchived.0 != 0
}

#[tokio::test]
async fn archiving_with_remove_is_refused_while_commits_are_unmerged_and_forced_removes_the_worktree() {
    let tmp = tempfile::tempdir().unwrap();
    repository(&tmp.path().join("ws"), SETUP);
    let script = json!({ "turns": [writes("kept.txt", "kept\n")] });
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(script), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    let session = "ahp-session:/git-archive";
    assert_eq!(rig.open(params(session, &[&ws], json!({}))).await, "session/ready");
    let (_, wt) = worktree_of(&rig).await;
    turn_and_commit(&mut rig, "keep a file").await;
    let tip = git(&wt, &["rev-parse", "HEAD"]);

    rig.client.notify("dispatchAction", archive(session, 900_001, false)).await.unwrap();
    let rejected = hangar_e2e::wait_for_action(&mut rig.session_sub, |e| e.rejection_reason.is_some()).await;
    let why = rejected.rejection_reason.unwrap();
    assert!(why.contains("hangar/git-archive has 1 commit(s) not merged into main"), "{why}");
    assert!(!archived(&rig.client, session).await, "a refused removal does not archive");
    assert!(wt.join("kept.txt").exists());

    rig.client.notify("dispatchAction", archive(session, 900_002, true)).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while wt.exists() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(!wt.exists(), "the worktree is removed");
    assert!(archived(&rig.client, session).await);
    assert_eq!(git(&ws, &["rev-parse", "hangar/git-archive"]), tip, "the branch and its commit are kept");
}
