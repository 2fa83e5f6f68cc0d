//! The command table against a real embedded host with the scripted fake
//! ACP agent, through the same `MultiHostClient` path the app uses:
//! create a session, open its chat, stream a turn, approve a tool call,
//! queue a message, rename, archive, dispose — with a second, plain AHP
//! client answering the confirmation and renaming, as another window would.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hangar_desktop::commands::call;
use hangar_desktop::core::Sink;
use serde_json::{json, Value};

fn fake_agent() -> PathBuf {
    let bridge = PathBuf::from(env!("CARGO_BIN_EXE_hangar-desktop-bridge"));
    bridge.with_file_name("hangar-fake-agent")
}

#[derive(Clone, Default)]
struct Collected(Arc<Mutex<Vec<Value>>>);

impl Collected {
    fn sink(&self) -> Sink {
        let me = self.clone();
        Arc::new(move |v: Value| {
            me.0.lock().unwrap().push(v);
            true
        })
    }
    fn text(&self) -> String {
        serde_json::to_string(&*self.0.lock().unwrap()).unwrap()
    }
    async fn arrives(&self, needle: &str, ticks: usize) -> bool {
        for _ in 0..ticks {
            if self.text().contains(needle) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        false
    }

    async fn wait_for(&self, what: &str, needle: &str) {
        for _ in 0..800 {
            if self.text().contains(needle) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{what}: {needle:?} never arrived; got {}", self.text());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_from_creation_to_disposal() {
    let fake = fake_agent();
    if !fake.exists() {
        eprintln!("skipped: {} missing (cargo build -p hangar-fake-agent)", fake.display());
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/tests/ui/fake-agent-script.json");
    let args = vec![
        "--no-discover".to_owned(),
        "--data-dir".to_owned(),
        tmp.path().join("data").display().to_string(),
        "--agent".to_owned(),
        format!("fake={} --script {script}", fake.display()),
    ];
    let started = hangar_desktop::startup::start(&args).await.unwrap();
    let core = started.core.clone();

    let app = Collected::default();
    call(&core, "app.watch", json!({}), Some(app.sink())).await.unwrap();
    app.wait_for("host", "\"connected\":true").await;

    let folder = format!("file://{}", ws.canonicalize().unwrap().display());
    let created = call(&core, "session.create", json!({"host": "local", "agent": "fake", "folder": folder}), None).await.unwrap();
    let session = created["session"].as_str().unwrap().to_owned();
    app.wait_for("session row", &session).await;

    let chat_events = Collected::default();
    let opened = call(&core, "chat.open", json!({"host": "local", "session": session}), Some(chat_events.sink())).await.unwrap();
    let chat = opened["chat"].as_str().unwrap().to_owned();
    chat_events.wait_for("snapshot", "\"op\":\"snapshot\"").await;

    // The host refuses turns until the agent's session is ready (a
    // rejection on the app stream): send again until one is accepted.
    for attempt in 0.. {
        call(&core, "chat.send", json!({"host": "local", "chat": chat, "text": "Plan the change"}), None).await.unwrap();
        if chat_events.arrives("\"op\":\"active\"", 40).await {
            break;
        }
        assert!(attempt < 20 && app.text().contains("rejected"), "no turn and no rejection: {}", app.text());
    }
    chat_events.wait_for("streamed markdown", "language-rust").await;
    chat_events.wait_for("pending confirmation", "pending-confirmation").await;
    app.wait_for("inbox", "\"toolCallId\":\"edit-1\"").await;
    app.wait_for("needs-input status", "needs-input").await;
    assert!(chat_events.text().contains("hello hangar"), "the diff is shown before the choice");

    let state = core.chat_state(&ahp::hosts::HostId::new("local"), &chat).unwrap();
    let turn_id = state.active_turn.unwrap().id;
    // Another client (a plain AHP client on the same host) answers; the
    // card and the inbox follow.
    let transport = ahp_ws::WebSocketTransport::connect(&started.host.url).await.unwrap();
    let other = ahp::Client::connect(transport, ahp::ClientConfig::default()).await.unwrap();
    other.initialize("other-client".into(), vec!["1.0.0".into()], vec![ahp_types::ROOT_RESOURCE_URI.into()]).await.unwrap();
    let approve: ahp_types::StateAction = serde_json::from_value(json!({
        "type": "chat/toolCallConfirmed", "turnId": turn_id, "toolCallId": "edit-1", "approved": true,
        "confirmed": "user-action", "selectedOptionId": "allow"
    }))
    .unwrap();
    other.dispatch(chat.clone(), approve).await.unwrap();
    chat_events.wait_for("tool result", "Wrote 1 line to hello.txt").await;
    for i in 0.. {
        let last_inbox = app.0.lock().unwrap().iter().rev().find(|v| v["op"] == "inbox").cloned().unwrap();
        if last_inbox["items"].as_array().unwrap().is_empty() {
            break;
        }
        assert!(i < 400, "the inbox kept {last_inbox}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    chat_events.wait_for("turn done", "\"op\":\"turnDone\"").await;

    // Queue while the slow second turn runs; it becomes turn three.
    call(&core, "chat.send", json!({"host": "local", "chat": chat, "text": "Follow up"}), None).await.unwrap();
    chat_events.wait_for("second turn", "Working on the follow-up").await;
    call(&core, "chat.queue", json!({"host": "local", "chat": chat, "text": "Queued question", "kind": "queued"}), None).await.unwrap();
    chat_events.wait_for("queued", "\"queued\":[{").await;
    chat_events.wait_for("queued turn ran", "echo: Queued question").await;

    call(&core, "session.rename", json!({"host": "local", "session": session, "title": "Renamed"}), None).await.unwrap();
    app.wait_for("renamed row", "\"title\":\"Renamed\"").await;
    let rename: ahp_types::StateAction = serde_json::from_value(json!({"type": "session/titleChanged", "title": "Renamed elsewhere"})).unwrap();
    other.dispatch(session.clone(), rename).await.unwrap();
    app.wait_for("row renamed by another client", "\"title\":\"Renamed elsewhere\"").await;
    call(&core, "session.archive", json!({"host": "local", "session": session, "archived": true}), None).await.unwrap();
    app.wait_for("archived row", "\"archived\":true").await;

    let listing = call(&core, "folder.list", json!({"host": "local", "uri": folder}), None).await.unwrap();
    assert_eq!(listing["uri"], folder.as_str());

    assert!(call(&core, "chat.send", json!({"host": "local", "chat": chat, "text": "  "}), None).await.is_err(), "empty messages are refused");
    assert!(call(&core, "no.such", json!({}), None).await.is_err());

    call(&core, "session.dispose", json!({"host": "local", "session": session}), None).await.unwrap();
    app.wait_for("removed row", "sessionRemoved").await;
}
