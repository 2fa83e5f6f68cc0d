//! The session changeset's `commit` operation over a real socket, in a
//! worktree session on a real repository: the fake agent edits four files,
//! the person keeps one hunk and undoes the other, keeps one new file,
//! undoes another and leaves one pending; the commit (read back with
//! `git show`) holds exactly what was kept, the pending file stays in the
//! working tree uncommitted; an empty message, nothing kept, a refusing
//! hook and a detached `HEAD` fail with the reason. Needs
//! `cargo build -p hangar-cli -p hangar-fake-agent`.

use hangar_e2e::acp::{AgentCmd, Rig};
use hangar_e2e::changesets::{changeset_when, invoke, lines, resource, session_changeset};
use hangar_e2e::git_repos::{git, read, repository, write};
use hangar_e2e::Launch;
use serde_json::{json, Value};

use super::worktrees::{params, refused, worktree_of, SETUP};

fn commit(channel: &str, message: &str) -> Value {
    json!({ "channel": channel, "operationId": "commit", "_meta": { "hangar/commit": { "message": message } } })
}

#[tokio::test]
async fn commit_takes_exactly_the_kept_hunks_and_files_and_refuses_with_the_reason() {
    let turn = json!([
        { "writeFile": { "path": "notes.txt", "text": "a\nB\nc\nd\ne\nF\n" } },
        { "writeFile": { "path": "kept.txt", "text": "kept\n" } },
        { "writeFile": { "path": "undone.txt", "text": "undone\n" } },
        { "writeFile": { "path": "pending.txt", "text": "pending\n" } },
        { "end": "end_turn" }
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    write(&ws.join("notes.txt"), "a\nb\nc\nd\ne\nf\n");
    repository(&ws, SETUP);
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [turn] })), Launch::InProcess, None).await;
    let ws = rig.workspace.clone();
    assert_eq!(rig.open(params("ahp-session:/commit-one", &[&ws], json!({}))).await, "session/ready");
    let (_, wt) = worktree_of(&rig).await;
    let start = git(&wt, &["rev-parse", "HEAD"]);
    let id = rig.send("edit four files").await;
    assert_eq!(rig.wait_end(&id).await, "chat/turnComplete");
    let uri = session_changeset(&rig.session);
    changeset_when(&rig.client, &uri, |s| s.files.len() == 4).await;

    // Keep notes.txt's first hunk, undo its second; keep kept.txt, undo
    // undone.txt; pending.txt stays pending.
    let notes = wt.join("notes.txt");
    invoke(&rig.client, &uri, "accept", Some(lines(&notes, 1, 1))).await.unwrap();
    invoke(&rig.client, &uri, "reject", Some(lines(&notes, 5, 5))).await.unwrap();
    invoke(&rig.client, &uri, "accept", Some(resource(&wt.join("kept.txt")))).await.unwrap();
    invoke(&rig.client, &uri, "reject", Some(resource(&wt.join("undone.txt")))).await.unwrap();
    let pending = changeset_when(&rig.client, &uri, |s| s.files.len() == 1).await;
    assert!(pending.operations.unwrap().iter().any(|o| o.id == "commit"), "the session changeset offers commit");

    let why = refused(&rig, "invokeChangesetOperation", commit(&uri, "  ")).await;
    assert!(why.contains("a commit needs a message"), "{why}");

    let done: Value = rig.client.request("invokeChangesetOperation", commit(&uri, "Keep B")).await.unwrap();
    let id = done["_meta"]["hangar/commit"]["id"].as_str().unwrap().to_owned();
    assert_eq!(git(&wt, &["rev-parse", "HEAD"]), id);
    assert_eq!(git(&wt, &["rev-parse", "HEAD~1"]), start);
    assert_eq!(git(&wt, &["show", "-s", "--format=%s", &id]), "Keep B");
    assert_eq!(git(&wt, &["diff-tree", "--no-commit-id", "--name-status", "-r", &id]), "A\tkept.txt\nM\tnotes.txt");
    assert_eq!(git(&wt, &["show", &format!("{id}:notes.txt")]), "a\nB\nc\nd\ne\nf");
    assert_eq!(git(&wt, &["show", &format!("{id}:kept.txt")]), "kept");
    // The pending file is still in the working tree, uncommitted.
    assert_eq!(read(&wt.join("pending.txt")).as_deref(), Some("pending\n"));
    assert_eq!(git(&wt, &["status", "--porcelain"]), "?? pending.txt");
    assert_eq!(git(&ws, &["rev-parse", "main"]), start, "the original branch did not move");

    let why = refused(&rig, "invokeChangesetOperation", commit(&uri, "again")).await;
    assert!(why.contains("nothing kept to commit"), "{why}");

    // The repository's hooks run on commit: one that says no stops it.
    let hooks = wt.join(git(&wt, &["rev-parse", "--git-common-dir"])).join("hooks");
    write(&hooks.join("pre-commit"), "#!/bin/sh\necho 'no commits today' >&2\nexit 1\n");
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(hooks.join("pre-commit"), executable).unwrap();
    invoke(&rig.client, &uri, "accept", Some(resource(&wt.join("pending.txt")))).await.unwrap();
    let why = refused(&rig, "invokeChangesetOperation", commit(&uri, "blocked")).await;
    assert!(why.contains("no commits today"), "{why}");
    assert_eq!(git(&wt, &["rev-parse", "HEAD"]), id, "no commit was made");

    // A detached HEAD has no branch to commit on.
    std::fs::remove_file(hooks.join("pre-commit")).unwrap();
    git(&wt, &["checkout", "--quiet", "--detach"]);
    let why = refused(&rig, "invokeChangesetOperation", commit(&uri, "detached")).await;
    assert!(why.contains("HEAD is detached"), "{why}");
}
