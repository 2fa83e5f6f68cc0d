//! Changesets over a real socket: the fake agent edits files through its own
//! I/O and through a shell command (never ACP `fs/*`), and the host lists
//! every change, serves the old content, and keeps or undoes it at each
//! scope; conflicts touch nothing; everything survives `kill -9`. Needs
//! `cargo build -p hangar-cli -p hangar-fake-agent`.

use std::path::Path;

use ahp_types::state::ChangesetState;
use hangar_e2e::acp::{fake_agent_bin, file_uri, AgentCmd, Rig};
use hangar_e2e::changesets::{changeset_when, invoke, lines, names, resource, session_changeset};
use hangar_e2e::{initialized, Launch, TestHost};
use serde_json::{json, Value};

/// The first turn: edits `hello.txt` and `notes.txt` with the agent's own
/// file I/O, creates `made.txt` and deletes `old.txt` from a shell.
fn first_turn() -> Value {
    json!([
        { "writeFile": { "path": "hello.txt", "text": "hello agent\n" } },
        { "shell": "printf 'made by sh\\n' > made.txt && rm old.txt" },
        { "writeFile": { "path": "notes.txt", "text": "ONE\ntwo\nthree\nfour\nfive\nSIX\n" } },
        { "chunk": "done" },
        { "end": "end_turn" }
    ])
}

const NOTES: &str = "one\ntwo\nthree\nfour\nfive\nsix\n";

fn seed(workspace: &Path) {
    std::fs::write(workspace.join("notes.txt"), NOTES).unwrap();
    std::fs::write(workspace.join("old.txt"), "bye\n").unwrap();
}

/// A host whose agent runs [`first_turn`], on a seeded workspace.
async fn seeded_rig() -> Rig {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("ws")).unwrap();
    seed(&tmp.path().join("ws"));
    Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [first_turn()] })), Launch::InProcess, None).await
}

fn code(result: Result<Value, ahp::ClientError>) -> i32 {
    match result {
        Err(ahp::ClientError::Rpc(e)) => e.code,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[tokio::test]
async fn every_change_is_listed_with_its_old_content_and_undone_or_kept_at_each_scope() {
    let mut rig = seeded_rig().await;
    let ws = rig.workspace.clone();
    let catalogue = rig.session_state().await.changesets.unwrap();
    let kinds: Vec<&str> = catalogue.iter().map(|c| c.change_kind.as_str()).collect();
    assert_eq!(kinds, ["session", "turn"]);

    let turn = rig.send("edit things").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let uri = session_changeset(&rig.session);
    let state = changeset_when(&rig.client, &uri, |s| s.files.len() == 4).await;
    assert_eq!(names(&state), ["hello.txt", "made.txt", "notes.txt", "old.txt"]);
    let file = |name: &str| state.files.iter().find(|f| f.id.ends_with(&format!("/{name}"))).unwrap().clone();
    assert!(file("made.txt").edit.before.is_none() && file("made.txt").edit.after.is_some());
    assert!(file("old.txt").edit.after.is_none() && file("old.txt").edit.before.is_some());
    let notes = file("notes.txt").edit.diff.unwrap();
    assert_eq!((notes.added, notes.removed), (Some(2), Some(2)));
    // The old content is served by `resourceRead`.
    let before = file("hello.txt").edit.before.unwrap().content.uri;
    let read_back: Value =
        rig.client.request("resourceRead", json!({ "channel": rig.session, "uri": before })).await.unwrap();
    assert_eq!(read_back["data"], "hello world\n");
    // The turn's own changeset lists the same files.
    let turn_state =
        changeset_when(&rig.client, &format!("{}/changesets/turn/{turn}", rig.session), |s| s.files.len() == 4).await;
    assert_eq!(names(&turn_state), names(&state));
    // The session list shows the counts.
    let list: Value = rig.client.request("listSessions", json!({ "channel": "ahp-root://" })).await.unwrap();
    let row = list["items"].as_array().unwrap().iter().find(|r| r["resource"] == rig.session.as_str()).unwrap();
    assert_eq!(row["changes"]["files"], 4, "{row}");

    // Bad requests change nothing.
    assert_eq!(code(invoke(&rig.client, &uri, "stage", None).await), -32602);
    assert_eq!(code(invoke(&rig.client, &uri, "reject", Some(resource(&ws.join("nope.txt")))).await), -32602);
    let turn_uri = format!("{}/changesets/turn/{turn}", rig.session);
    assert_eq!(code(invoke(&rig.client, &turn_uri, "accept", Some(lines(&ws.join("notes.txt"), 0, 0))).await), -32602);
    assert_eq!(read(&ws.join("hello.txt")).as_deref(), Some("hello agent\n"));

    // Undo one hunk of notes.txt: only line 1 goes back.
    invoke(&rig.client, &uri, "reject", Some(lines(&ws.join("notes.txt"), 0, 0))).await.unwrap();
    assert_eq!(read(&ws.join("notes.txt")).as_deref(), Some("one\ntwo\nthree\nfour\nfive\nSIX\n"));
    // Undo one file; the answer names the undo's record, whose reject redoes it.
    let undone = invoke(&rig.client, &uri, "reject", Some(resource(&ws.join("hello.txt")))).await.unwrap();
    assert_eq!(read(&ws.join("hello.txt")).as_deref(), Some("hello world\n"));
    let redo = undone["followUp"]["content"]["uri"].as_str().unwrap().to_owned();
    assert!(redo.starts_with(&format!("{}/changesets/turn/undo-", rig.session)), "{undone}");
    invoke(&rig.client, &redo, "reject", None).await.unwrap();
    assert_eq!(read(&ws.join("hello.txt")).as_deref(), Some("hello agent\n"), "redone");
    invoke(&rig.client, &uri, "reject", Some(resource(&ws.join("hello.txt")))).await.unwrap();
    assert_eq!(read(&ws.join("hello.txt")).as_deref(), Some("hello world\n"));
    // Keep one file: the disk stays, the file leaves the pending set.
    invoke(&rig.client, &uri, "accept", Some(resource(&ws.join("made.txt")))).await.unwrap();
    assert_eq!(read(&ws.join("made.txt")).as_deref(), Some("made by sh\n"));
    let state = changeset_when(&rig.client, &uri, |s| s.files.len() == 2).await;
    assert_eq!(names(&state), ["notes.txt", "old.txt"]);
    // Undo the rest: the deleted file comes back, notes.txt is whole again.
    invoke(&rig.client, &uri, "reject", None).await.unwrap();
    assert_eq!(read(&ws.join("old.txt")).as_deref(), Some("bye\n"));
    assert_eq!(read(&ws.join("notes.txt")).as_deref(), Some(NOTES));
    let state = changeset_when(&rig.client, &uri, |s| s.files.is_empty()).await;
    assert!(state.files.is_empty());

    // Every decision is in the audit log, with who made it and the hashes.
    let audit: Value = rig
        .client
        .request("resourceRead", json!({ "channel": rig.session, "uri": format!("hangar-audit:{}", rig.session) }))
        .await
        .unwrap();
    let entries: Vec<Value> =
        audit["data"].as_str().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ops: Vec<(&str, bool)> =
        entries.iter().map(|e| (e["operation"].as_str().unwrap(), e["error"].is_null())).collect();
    // The unknown operation and the range on a turn's accept were refused
    // before running; the file outside the changeset ran and failed. The
    // redo and the second undo of hello.txt are rejects too.
    let rejected = ("reject", true);
    assert_eq!(ops, [("reject", false), rejected, rejected, rejected, rejected, ("accept", true), rejected]);
    assert_eq!(entries[0]["client"]["id"], "acp-tests");
    assert_eq!(entries[1]["files"][0]["before"].as_str().unwrap().len(), 64, "{}", entries[1]);
}

/// The host scans a session's folders when it is created (ahead of the
/// first prompt): a person's edit made while that scan runs is the
/// baseline, never the agent's, and the first turn lists exactly the
/// agent's changes.
#[tokio::test]
async fn an_edit_made_while_the_new_session_is_scanned_is_the_persons_not_the_first_turns() {
    let mut rig = seeded_rig().await;
    std::fs::write(rig.workspace.join("mine.txt"), "the person's\n").unwrap();
    std::fs::write(rig.workspace.join("notes.txt"), format!("{NOTES}a line of mine\n")).unwrap();
    let turn = rig.send("first").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let uri = format!("{}/changesets/turn/{turn}", rig.session);
    let state = changeset_when(&rig.client, &uri, |s| s.files.len() >= 4).await;
    assert_eq!(names(&state), ["hello.txt", "made.txt", "notes.txt", "old.txt"]);
    let notes = state.files.iter().find(|f| f.id.ends_with("/notes.txt")).unwrap();
    let before = notes.edit.before.as_ref().unwrap().content.uri.clone();
    let read: Value =
        rig.client.request("resourceRead", json!({ "channel": rig.session, "uri": before })).await.unwrap();
    assert_eq!(read["data"], format!("{NOTES}a line of mine\n"), "the turn's before is the person's edit");
}

#[tokio::test]
async fn a_reject_that_would_undo_a_later_overlapping_edit_is_refused_and_touches_nothing() {
    let mut rig = seeded_rig().await;
    let ws = rig.workspace.clone();
    let turn = rig.send("edit things").await;
    rig.wait_end(&turn).await;
    let uri = session_changeset(&rig.session);
    changeset_when(&rig.client, &uri, |s| s.files.len() == 4).await;
    // The user rewrites the agent's line, and edits another one.
    std::fs::write(ws.join("notes.txt"), "MINE\ntwo\nthree\nfour\nfive\nSIX\n").unwrap();
    let err = invoke(&rig.client, &uri, "reject", None).await;
    assert_eq!(code(err), -32011 /* conflict */);
    assert_eq!(read(&ws.join("notes.txt")).as_deref(), Some("MINE\ntwo\nthree\nfour\nfive\nSIX\n"));
    assert_eq!(read(&ws.join("hello.txt")).as_deref(), Some("hello agent\n"));
    assert_eq!(read(&ws.join("old.txt")), None);
    // An edit that does not overlap is kept by the reject.
    std::fs::write(ws.join("notes.txt"), "ONE\ntwo\nTHREE\nfour\nfive\nSIX\n").unwrap();
    invoke(&rig.client, &uri, "reject", Some(resource(&ws.join("notes.txt")))).await.unwrap();
    assert_eq!(read(&ws.join("notes.txt")).as_deref(), Some("one\ntwo\nTHREE\nfour\nfive\nsix\n"));
}

#[tokio::test]
async fn pending_changes_and_viewed_marks_survive_kill_9_and_a_touch_clears_the_mark() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(tmp.path().join("ws")).unwrap();
    seed(&tmp.path().join("ws"));
    let second = json!([
        { "writeFile": { "path": "hello.txt", "text": "hello again\n" } },
        { "end": "end_turn" }
    ]);
    // The agent after the restart is a new process: it gets the second turn's script.
    let script = |name: &str, turn: Value| {
        let path = tmp.path().join(name);
        std::fs::write(&path, json!({ "turns": [turn] }).to_string()).unwrap();
        format!("{} --script {}", fake_agent_bin().display(), path.display())
    };
    let (cmd, cmd_after) = (script("first.json", first_turn()), script("second.json", second));
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), Launch::Process(&[]), Some(&data)).await;
    let ws = rig.workspace.clone();
    let turn = rig.send("edit things").await;
    rig.wait_end(&turn).await;
    let uri = session_changeset(&rig.session);
    changeset_when(&rig.client, &uri, |s| s.files.len() == 4).await;
    let hello = file_uri(&ws.join("hello.txt"));
    let notes = file_uri(&ws.join("notes.txt"));
    let review = json!({ "type": "changeset/filesReviewChanged", "files": [hello, notes], "reviewed": true });
    rig.client.dispatch(uri.clone(), serde_json::from_value(review).unwrap()).await.unwrap();
    let reviewed = |s: &ChangesetState| s.files.iter().filter(|f| f.reviewed == Some(true)).count();
    changeset_when(&rig.client, &uri, |s| reviewed(s) == 2).await;
    rig.host.kill9();

    let spec = format!("agent={cmd_after}");
    let browse = ws.parent().unwrap().display().to_string();
    let host = TestHost::start_in(Launch::Process(&[]), &data, &["--agent", &spec, "--browse-root", &browse]);
    let (client, _) = initialized(&host, "after-restart").await;
    let state = changeset_when(&client, &uri, |s| s.files.len() == 4 && reviewed(s) == 2).await;
    assert_eq!(names(&state), ["hello.txt", "made.txt", "notes.txt", "old.txt"]);
    assert_eq!(reviewed(&state), 2, "{state:?}");
    // The agent touches hello.txt again: its mark is cleared, notes.txt keeps its own.
    let (_, mut chat_sub) = client.subscribe(rig.chat.clone()).await.unwrap();
    client.dispatch(rig.chat.clone(), hangar_e2e::actions::turn_started("again", "again")).await.unwrap();
    hangar_e2e::wait_for_action(&mut chat_sub, |e| hangar_e2e::action_type(e) == "chat/turnComplete").await;
    let state = changeset_when(&client, &uri, |s| reviewed(s) == 1).await;
    let marked: Vec<&str> = state.files.iter().filter(|f| f.reviewed == Some(true)).map(|f| f.id.as_str()).collect();
    assert_eq!(marked, [notes.as_str()]);
    // And the reject after the restart restores the first turn's "before".
    invoke(&client, &uri, "reject", Some(resource(&ws.join("hello.txt")))).await.unwrap();
    assert_eq!(read(&ws.join("hello.txt")).as_deref(), Some("hello world\n"));
}

/// The turn's system notifications, as text.
fn notices(turn: &ahp_types::state::Turn) -> Vec<String> {
    turn.response_parts
        .iter()
        .filter_map(|p| match p {
            ahp_types::state::ResponsePart::SystemNotification(n) => {
                Some(serde_json::to_value(&n.content).unwrap().as_str().unwrap_or_default().to_owned())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_approved_diff_binds_the_agents_write_and_the_decision_is_in_the_audit_log() {
    let edit = json!({ "toolCallId": "edit-1", "title": "Edit notes.txt", "kind": "edit",
        "content": [{ "type": "diff", "path": "$CWD/notes.txt", "oldText": NOTES, "newText": "approved\n" }] });
    let options = json!([{ "optionId": "allow", "name": "Allow", "kind": "allow_once" },
                         { "optionId": "reject", "name": "Reject", "kind": "reject_once" }]);
    let turn = json!([
        { "request": { "method": "session/request_permission", "params": { "toolCall": edit, "options": options } },
          "then": {
            "allow": [
              { "request": { "method": "fs/write_text_file", "params": { "path": "$CWD/notes.txt", "content": "sneaky\n" } },
                "then": { "error": [{ "chunk": "refused" }], "*": [{ "chunk": "WROTE" }] } },
              { "writeFile": { "path": "notes.txt", "text": "sneaky\n" } },
              { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "edit-1", "status": "completed" } }
            ],
            "*": [{ "chunk": "denied" }]
          } },
        { "end": "end_turn" }
    ]);
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("ws")).unwrap();
    seed(&tmp.path().join("ws"));
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [turn] })), Launch::InProcess, None).await;
    let id = rig.send("edit notes").await;
    rig.wait_confirmation().await;
    rig.confirm(&id, "edit-1", true, Some("allow")).await;
    assert_eq!(rig.wait_end(&id).await, "chat/turnComplete");
    let t = rig.turn(&id).await;
    // The ACP write of other content was refused, and the agent was told.
    assert_eq!(hangar_e2e::acp::markdown(&t), "refused");
    let said = notices(&t);
    assert!(said.iter().any(|n| n.starts_with("Refused the agent's write to")), "{said:?}");
    // The agent then wrote the file itself: reported when its tool call completed.
    assert!(said.iter().any(|n| n.contains("is not the change that was approved")), "{said:?}");

    // The decision is in the audit log: who, which option, and the approved content's hash.
    let audit: Value = rig
        .client
        .request("resourceRead", json!({ "channel": rig.session, "uri": format!("hangar-audit:{}", rig.session) }))
        .await
        .unwrap();
    let entry: Value = serde_json::from_str(audit["data"].as_str().unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(entry["kind"], "toolCallConfirmation", "{entry}");
    assert_eq!((entry["approved"].as_bool(), entry["option"].as_str()), (Some(true), Some("allow")));
    assert_eq!(entry["client"]["id"], "acp-tests");
    let approved = hangar_host::changes::scan::hash_of(b"approved\n");
    assert_eq!(entry["files"][0]["after"], approved.as_str(), "{entry}");
}

#[tokio::test]
async fn a_git_working_directory_also_gets_an_uncommitted_changeset_against_head() {
    let git = |dir: &std::path::Path, args: &[&str]| {
        std::process::Command::new("git").arg("-C").arg(dir).args(args).status().is_ok_and(|s| s.success())
    };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    seed(&ws);
    std::fs::write(ws.join("hello.txt"), "hello world\n").unwrap();
    std::fs::write(ws.join("user.txt"), "committed\n").unwrap();
    if !git(&ws, &["init", "-q"]) {
        eprintln!("skipped: no git");
        return;
    }
    assert!(git(&ws, &["add", "."]));
    assert!(git(&ws, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base"]));
    // The person's own edit, before any turn: uncommitted, but not the agent's.
    std::fs::write(ws.join("user.txt"), "edited by hand\n").unwrap();
    let mut rig =
        Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [first_turn()] })), Launch::InProcess, None).await;
    let turn = rig.send("edit things").await;
    rig.wait_end(&turn).await;
    let pending = changeset_when(&rig.client, &session_changeset(&rig.session), |s| s.files.len() == 4).await;
    assert_eq!(names(&pending), ["hello.txt", "made.txt", "notes.txt", "old.txt"]);
    let catalogue = rig.session_state().await.changesets.unwrap();
    let entry = catalogue.iter().find(|c| c.change_kind == "uncommitted").expect("an uncommitted changeset");
    let state = changeset_when(&rig.client, &entry.uri_template, |s| s.files.len() == 5).await;
    assert_eq!(names(&state), ["hello.txt", "made.txt", "notes.txt", "old.txt", "user.txt"]);
    let user = state.files.iter().find(|f| f.id.ends_with("/user.txt")).unwrap();
    let before = &user.edit.before.as_ref().unwrap().content.uri;
    let read: Value =
        rig.client.request("resourceRead", json!({ "channel": rig.session, "uri": before })).await.unwrap();
    assert_eq!(read["data"], "committed\n");
    // It offers no operations (a read-only view).
    assert_eq!(code(invoke(&rig.client, &entry.uri_template, "reject", None).await), -32602);
}

/// A second turn after [`first_turn`]: `hello.txt` again through the agent's
/// I/O; from a shell, a new folder two deep and a rename.
fn second_turn() -> Value {
    json!([
        { "writeFile": { "path": "hello.txt", "text": "hello again\n" } },
        { "shell": "mkdir -p d/e && printf 'deep\\n' > d/e/f.txt && mv made.txt moved.txt" },
        { "chunk": "done" },
        { "end": "end_turn" }
    ])
}

/// Each turn's changes on a folder: (path in the folder, lines added and
/// removed, content before, content after), after two turns there.
async fn two_turns_on(seed_more: impl FnOnce(&Path)) -> Vec<Vec<(String, Option<i64>, Option<i64>, Value, Value)>> {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("hello.txt"), "hello world\n").unwrap();
    seed(&ws);
    seed_more(&ws);
    let script = json!({ "turns": [first_turn(), second_turn()] });
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(script), Launch::InProcess, None).await;
    let prefix = format!("{}/", file_uri(&rig.workspace));
    let mut turns = Vec::new();
    for (text, files) in [("first", 4), ("second", 4)] {
        let turn = rig.send(text).await;
        assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
        let uri = format!("{}/changesets/turn/{turn}", rig.session);
        let state = changeset_when(&rig.client, &uri, |s| s.files.len() == files).await;
        let mut seen = Vec::new();
        for f in &state.files {
            let content = |side: &Option<ahp_types::state::FileEditSide>| {
                let rig = &rig;
                let uri = side.as_ref().map(|s| s.content.uri.clone());
                async move {
                    let Some(uri) = uri else { return Value::Null };
                    let read: Value = rig
                        .client
                        .request("resourceRead", json!({ "channel": rig.session, "uri": uri }))
                        .await
                        .unwrap();
                    read["data"].clone()
                }
            };
            let diff = f.edit.diff.clone();
            let (added, removed) = (diff.as_ref().and_then(|d| d.added), diff.as_ref().and_then(|d| d.removed));
            let path = f.id.strip_prefix(&prefix).unwrap_or(&f.id).to_owned();
            seen.push((path, added, removed, content(&f.edit.before).await, content(&f.edit.after).await));
        }
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        turns.push(seen);
    }
    turns
}

#[tokio::test]
async fn a_turn_on_a_20000_file_git_repository_changes_what_it_changes_on_an_almost_empty_folder() {
    let on_empty = two_turns_on(|_| {}).await;
    let on_big = two_turns_on(|ws| {
        for i in 0..20_000 {
            let dir = ws.join(format!("src/d{}", i % 200));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("f{i}.rs")), format!("// file {i}\n")).unwrap();
        }
        for args in [&["init", "-q"][..], &["add", "-A"], &["commit", "-q", "-m", "tree"]] {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "gc.auto=0"])
                .args(args)
                .current_dir(ws)
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        }
    })
    .await;
    assert_eq!(on_big, on_empty);
    let names: Vec<Vec<&str>> = on_big.iter().map(|t| t.iter().map(|f| f.0.as_str()).collect()).collect();
    assert_eq!(
        names,
        [
            vec!["hello.txt", "made.txt", "notes.txt", "old.txt"],
            vec!["d/e/f.txt", "hello.txt", "made.txt", "moved.txt"]
        ]
    );
    assert_eq!(on_big[1][1].3, "hello agent\n", "the second turn's before is the first turn's after");
}
