//! Forking a chat from a turn, over a real socket with the fake agent: the
//! fork's folder has the files as that turn left them (the agent's later
//! edits and the person's edits since are not in it), its chat starts with
//! the transcript through that turn, its agent is told the earlier turns,
//! and the original session and folder are untouched. Needs
//! `cargo build -p hangar-cli -p hangar-fake-agent`.

use hangar_e2e::acp::{markdown, AgentCmd, Rig};
use hangar_e2e::changesets::changeset_when;
use hangar_e2e::Launch;
use serde_json::json;

fn read(path: &std::path::Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[tokio::test]
async fn a_fork_from_a_turn_has_that_turns_files_and_transcript_and_leaves_the_original_alone() {
    let script = json!({ "turns": [
        [ { "writeFile": { "path": "a.txt", "text": "a1\n" } },
          { "shell": "printf 'b1\\n' > b.txt" },
          { "echo": null }, { "end": "end_turn" } ],
        [ { "writeFile": { "path": "a.txt", "text": "a2\n" } },
          { "deleteFile": "b.txt" },
          { "chunk": "second" }, { "end": "end_turn" } ]
    ] });
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("a.txt"), "a0\n").unwrap();
    std::fs::write(ws.join("c.txt"), "c0\n").unwrap();
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(script), Launch::InProcess, None).await;
    let first = rig.send("make a and b").await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");
    // The host reads what the turn changed just after it ends: an edit
    // before that read would count as the turn's.
    let session = rig.session.clone();
    let turn_uri = |t: &str| format!("{session}/changesets/turn/{t}");
    changeset_when(&rig.client, &turn_uri(&first), |s| s.files.len() == 2).await;
    // The person edits between the turns; then the second turn.
    std::fs::write(ws.join("c.txt"), "c-user\n").unwrap();
    let second = rig.send("change a, drop b").await;
    assert_eq!(rig.wait_end(&second).await, "chat/turnComplete");
    changeset_when(&rig.client, &turn_uri(&second), |s| s.files.len() == 2).await;
    let source = (rig.session.clone(), rig.chat.clone());

    assert_eq!(rig.fork(&first).await, "session/ready");
    let state = rig.session_state().await;
    assert_eq!(state.title, "Fork: make a and b", "an untitled source is named by its first message");
    let dirs = state.working_directories.clone().unwrap();
    let copy = hangar_host::resources::uri::file_uri_to_path(&dirs[0]).unwrap();
    assert_ne!(copy, ws, "the fork works in its own folder");
    assert_eq!(read(&copy.join("a.txt")).as_deref(), Some("a1\n"));
    assert_eq!(read(&copy.join("b.txt")).as_deref(), Some("b1\n"));
    assert_eq!(read(&copy.join("c.txt")).as_deref(), Some("c0\n"), "the person's later edit is not in it");
    assert_eq!(state.meta.as_ref().unwrap()["hangar/fork"]["session"], source.0.as_str());
    // The original folder is as the second turn and the person left it.
    assert_eq!(read(&ws.join("a.txt")).as_deref(), Some("a2\n"));
    assert_eq!(read(&ws.join("b.txt")), None);
    assert_eq!(read(&ws.join("c.txt")).as_deref(), Some("c-user\n"));

    // The fork's chat: the transcript through the first turn, marked as a fork.
    let chat = rig.chat_state().await;
    let ids: Vec<&str> = chat.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, [first.as_str()]);
    let origin = serde_json::to_value(chat.origin.unwrap()).unwrap();
    assert_eq!(origin, json!({ "kind": "fork", "chat": source.1, "turnId": first }));

    // Its agent is told the earlier turns with the first prompt, once.
    let third = rig.send("go on").await;
    assert_eq!(rig.wait_end(&third).await, "chat/turnComplete");
    let echo = markdown(&rig.turn(&third).await);
    assert!(echo.contains("<user>\nmake a and b\n</user>"), "{echo}");
    assert!(echo.contains("go on"), "{echo}");
    assert!(!echo.contains("change a, drop b"), "the later turn is not part of the fork: {echo}");
    // The fork's own turn changed its folder only.
    assert_eq!(read(&ws.join("a.txt")).as_deref(), Some("a2\n"));

    // A turn that is not in the chat, or a chat that does not exist: a clear error.
    let bad =
        json!({ "channel": "ahp-session:/nope", "_meta": { "hangar/fork": { "chat": source.1, "turnId": "t-none" } } });
    let err = rig.client.request::<_, serde_json::Value>("createSession", bad).await.unwrap_err();
    assert!(matches!(&err, ahp::ClientError::Rpc(e) if e.code == -32602 && e.message.contains("t-none")), "{err:?}");
    let bad = json!({ "channel": "ahp-session:/nope", "_meta": { "hangar/fork": { "chat": "ahp-chat:/x", "turnId": first } } });
    let err = rig.client.request::<_, serde_json::Value>("createSession", bad).await.unwrap_err();
    assert!(matches!(&err, ahp::ClientError::Rpc(e) if e.code == -32602), "{err:?}");
}
