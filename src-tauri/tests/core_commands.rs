//! The command table against a real embedded host with the scripted fake
//! ACP agent, through the same `MultiHostClient` path the app uses:
//! create a session, open its chat, stream a turn, approve a tool call,
//! queue a message, rename, archive, dispose — with a second, plain AHP
//! client answering the confirmation and renaming, as another window would.
//! Then: messages typed while the agent starts (held, then sent), a failed
//! start, and lost events — dropped through the core's test seam, and a real
//! overrun of the event broadcast behind a stalled chat stream — after which
//! the mirror equals a fresh subscription's snapshot; a reconnect, after
//! which the open chat is re-snapshotted; and an archive removing a
//! worktree whose echo never comes, judged by the host's list of sessions.

#![allow(clippy::unwrap_used, clippy::panic, reason = "test code: a failed unwrap or panic is a failed test")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hangar_desktop::commands::call_wire;
use hangar_desktop::core::Sink;
use hangar_desktop::error::CoreError;
use hangar_desktop::notifications::Kind;
use hangar_desktop_protocol::StreamEvent;
use serde_json::{json, Value};

/// A command by its wire name and JSON arguments, as the UI sends it; the
/// reply as the UI receives it.
async fn call(
    core: &Arc<hangar_desktop::core::Core>,
    name: &str,
    args: Value,
    sink: Option<Sink>,
) -> Result<Value, CoreError> {
    let reply = call_wire(core, name, args, sink).await?;
    Ok(serde_json::to_value(reply).unwrap())
}

fn fake_agent() -> PathBuf {
    let bridge = hangar_e2e::desktop_bridge_bin();
    bridge.with_file_name("hangar-fake-agent")
}

#[derive(Clone, Default)]
struct Collected(Arc<Mutex<Vec<Value>>>);

impl Collected {
    fn sink(&self) -> Sink {
        let me = self.clone();
        Arc::new(move |event: StreamEvent| {
            me.0.lock().unwrap().push(serde_json::to_value(event).unwrap());
            true
        })
    }
    fn text(&self) -> String {
        serde_json::to_string(&*self.0.lock().unwrap()).unwrap()
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

/// Write a fake-agent script; returns its path.
fn write_script(dir: &std::path::Path, name: &str, script: Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, script.to_string()).unwrap();
    path.display().to_string()
}

/// A started core with its embedded host, the app stream, and a workspace.
struct TestApp {
    _tmp: tempfile::TempDir,
    started: hangar_desktop::startup::Started,
    core: Arc<hangar_desktop::core::Core>,
    app: Collected,
    folder: String,
}

impl TestApp {
    /// Start with fake agents `(id, script path)`; `None` (skipped) when
    /// the fake agent is not built.
    async fn start(agents: &[(&str, String)]) -> Option<Self> {
        if !fake_agent().exists() {
            eprintln!("skipped: {} missing (cargo build -p hangar-fake-agent)", fake_agent().display());
            return None;
        }
        Some(Self::start_in(tempfile::tempdir().unwrap(), agents).await)
    }

    /// Stop the app (its embedded host closes its database) and start it
    /// again on the same data directory, as a relaunch would.
    async fn restart(self, agents: &[(&str, String)]) -> Self {
        let Self { _tmp, started, core, .. } = self;
        // The old core lets go of the host (its connection holds the host
        // and with it the data directory's lock), then the host stops.
        core.multi().remove_host(&ahp::hosts::HostId::new("local")).await.unwrap();
        drop(core);
        drop(started);
        // The host lets go of its data directory once nothing holds it: an
        // active client's grace period (30 s) holds it that long.
        let lock = _tmp.path().join("data").join("hangar.lock");
        for _ in 0..2400 {
            if std::fs::OpenOptions::new().write(true).open(&lock).is_ok_and(|f| f.try_lock().is_ok()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        Self::start_in(_tmp, agents).await
    }

    async fn start_in(tmp: tempfile::TempDir, agents: &[(&str, String)]) -> Self {
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        // The workspace lives in a temp dir, outside HOME: let sessions use it.
        let mut args =
            vec!["--no-discover".to_owned(), "--data-dir".to_owned(), tmp.path().join("data").display().to_string()];
        args.extend(["--browse-root".to_owned(), tmp.path().display().to_string()]);
        for (id, script) in agents {
            args.push("--agent".to_owned());
            args.push(format!("{id}={} --script {script}", fake_agent().display()));
        }
        let options = hangar_desktop::options::AppOptions::from_args(&args).unwrap();
        let started = hangar_desktop::startup::start(&options).await.unwrap();
        let core = started.core.clone();
        let app = Collected::default();
        call(&core, "app.watch", json!({}), Some(app.sink())).await.unwrap();
        app.wait_for("host", "\"connected\":true").await;
        let folder = format!("file://{}", ws.canonicalize().unwrap().display());
        Self { _tmp: tmp, started, core, app, folder }
    }

    /// Wait until the core's mirror holds `turns` finished turns of `chat`
    /// and equals a fresh snapshot taken by `other`; false after 20 s.
    async fn mirror_matches_fresh_snapshot(&self, other: &ahp::Client, chat: &str, turns: usize) -> bool {
        let host = ahp::hosts::HostId::new("local");
        for _ in 0..800 {
            tokio::time::sleep(Duration::from_millis(25)).await;
            let Some(mine) = self.core.chat_state(&host, chat) else { continue };
            if mine.turns.len() != turns || mine.active_turn.is_some() {
                continue;
            }
            let (fresh, _) = other.subscribe(chat.to_owned()).await.unwrap();
            let Some(ahp_types::state::SnapshotState::Chat(fresh)) = fresh.snapshot.map(|s| s.state) else {
                panic!("chat snapshot")
            };
            if mine == *fresh {
                return true;
            }
        }
        false
    }

    /// A plain AHP client on the same host, as another window would be.
    async fn other_client(&self) -> ahp::Client {
        let transport = ahp_ws::WebSocketTransport::connect(&self.started.host.url).await.unwrap();
        let other = ahp::Client::connect(transport, ahp::ClientConfig::default()).await.unwrap();
        other
            .initialize("other-client".into(), vec!["1.0.0".into()], vec![ahp_types::ROOT_RESOURCE_URI.into()])
            .await
            .unwrap();
        other
    }

    /// Create a session with `agent` and open its chat: `(session, chat, chat stream)`.
    async fn open_session(&self, agent: &str) -> (String, String, Collected) {
        let created =
            call(&self.core, "session.create", json!({"host": "local", "agent": agent, "folder": self.folder}), None)
                .await
                .unwrap();
        let session = created["session"].as_str().unwrap().to_owned();
        let events = Collected::default();
        let opened = call(&self.core, "chat.open", json!({"host": "local", "session": session}), Some(events.sink()))
            .await
            .unwrap();
        (session, opened["chat"].as_str().unwrap().to_owned(), events)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_from_creation_to_disposal() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/tests/ui/fake-agent-script.json");
    let Some(t) = TestApp::start(&[("fake", script.into())]).await else { return };
    let (core, app, folder) = (&t.core, &t.app, t.folder.clone());
    let created =
        call(core, "session.create", json!({"host": "local", "agent": "fake", "folder": folder}), None).await.unwrap();
    let session = created["session"].as_str().unwrap().to_owned();
    app.wait_for("session row", &session).await;

    let chat_events = Collected::default();
    let opened =
        call(core, "chat.open", json!({"host": "local", "session": session}), Some(chat_events.sink())).await.unwrap();
    let chat = opened["chat"].as_str().unwrap().to_owned();
    chat_events.wait_for("snapshot", "\"op\":\"snapshot\"").await;

    // Sent at once: held by the core until the agent is ready, if need be.
    call(core, "chat.send", json!({"host": "local", "chat": chat, "text": "Plan the change"}), None).await.unwrap();
    chat_events.wait_for("the turn", "\"op\":\"active\"").await;
    chat_events.wait_for("streamed markdown", "language-rust").await;
    chat_events.wait_for("pending confirmation", "pending-confirmation").await;
    app.wait_for("inbox", "\"toolCallId\":\"edit-1\"").await;
    app.wait_for("needs-input status", "needs-input").await;
    assert!(chat_events.text().contains("hello hangar"), "the diff is shown before the choice");

    let state = core.chat_state(&ahp::hosts::HostId::new("local"), &chat).unwrap();
    let turn_id = state.active_turn.unwrap().id;
    // Another client (a plain AHP client on the same host) answers; the
    // card and the inbox follow.
    let other = t.other_client().await;
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
    call(core, "chat.send", json!({"host": "local", "chat": chat, "text": "Follow up"}), None).await.unwrap();
    chat_events.wait_for("second turn", "Working on the follow-up").await;
    call(core, "chat.queue", json!({"host": "local", "chat": chat, "text": "Queued question", "kind": "queued"}), None)
        .await
        .unwrap();
    chat_events.wait_for("queued", "\"queued\":[{").await;
    chat_events.wait_for("queued turn ran", "echo: Queued question").await;

    call(core, "session.rename", json!({"host": "local", "session": session, "title": "Renamed"}), None).await.unwrap();
    app.wait_for("renamed row", "\"title\":\"Renamed\"").await;
    let rename: ahp_types::StateAction =
        serde_json::from_value(json!({"type": "session/titleChanged", "title": "Renamed elsewhere"})).unwrap();
    other.dispatch(session.clone(), rename).await.unwrap();
    app.wait_for("row renamed by another client", "\"title\":\"Renamed elsewhere\"").await;
    call(core, "session.archive", json!({"host": "local", "session": session, "archived": true}), None).await.unwrap();
    app.wait_for("archived row", "\"archived\":true").await;

    let listing = call(core, "folder.list", json!({"host": "local", "uri": folder}), None).await.unwrap();
    assert_eq!(listing["uri"], folder.as_str());

    assert!(
        call(core, "chat.send", json!({"host": "local", "chat": chat, "text": "  "}), None).await.is_err(),
        "empty messages are refused"
    );
    assert!(call(core, "no.such", json!({}), None).await.is_err());

    call(core, "session.dispose", json!({"host": "local", "session": session}), None).await.unwrap();
    app.wait_for("removed row", "sessionRemoved").await;
    assert!(!app.text().contains("rejected"), "nothing was refused: {}", app.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_typed_while_the_agent_starts_become_turns() {
    let dir = tempfile::tempdir().unwrap();
    let slow = write_script(
        dir.path(),
        "slow.json",
        json!({"initDelayMs": 1500, "turns": [[{"echo": true}, {"end": "end_turn"}]]}),
    );
    let broken = write_script(dir.path(), "broken.json", json!({"failStart": "fake agent: no API key configured"}));
    let Some(t) = TestApp::start(&[("slow", slow), ("broken", broken)]).await else { return };

    let (_, chat, events) = t.open_session("slow").await;
    events.wait_for("a creating session", "\"lifecycle\":\"creating\"").await;
    let first =
        call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "First words"}), None).await.unwrap();
    assert!(first["held"].is_string(), "held while the agent starts: {first}");
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "Second words"}), None).await.unwrap();
    events.wait_for("held messages shown", "\"held\":[{").await;
    events.wait_for("the first became a turn", "echo: First words").await;
    events.wait_for("the second was queued behind it", "echo: Second words").await;
    events.wait_for("ready", "\"lifecycle\":\"ready\",\"provider\":\"slow\"").await;
    let state = t.core.chat_state(&ahp::hosts::HostId::new("local"), &chat).unwrap();
    let texts: Vec<&str> = state.turns.iter().map(|turn| turn.message.text.as_str()).collect();
    assert_eq!(texts, ["First words", "Second words"]);
    assert!(!t.app.text().contains("rejected"), "nothing was refused: {}", t.app.text());

    let (_, chat, events) = t.open_session("broken").await;
    events.wait_for("a failed start", "\"lifecycle\":\"failed\"").await;
    events.wait_for("the reason", "no API key configured").await;
    let refused =
        call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "hello?"}), None).await.unwrap_err();
    assert!(refused.to_string().contains("did not start"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_events_are_noticed_and_the_mirror_resynchronised() {
    let dir = tempfile::tempdir().unwrap();
    let mut steps: Vec<Value> =
        (0..20).flat_map(|i| [json!({"chunk": format!("word{i} ")}), json!({"sleep": 20})]).collect();
    steps.push(json!({"end": "end_turn", "usage": {"inputTokens": 7, "outputTokens": 20}}));
    let script = write_script(dir.path(), "stream.json", json!({"turns": [steps]}));
    let Some(t) = TestApp::start(&[("fake", script)]).await else { return };
    let (_, chat, events) = t.open_session("fake").await;
    events.wait_for("ready", "\"lifecycle\":\"ready\"").await;
    let host = ahp::hosts::HostId::new("local");

    // The turn's first envelopes (its start among them) never reach the
    // pump, as when the event broadcast overruns; the next one shows the gap.
    t.core.lose_next_envelopes(3);
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "Stream please"}), None).await.unwrap();
    let other = t.other_client().await;
    let equal = t.mirror_matches_fresh_snapshot(&other, &chat, 1).await;
    assert!(equal, "the mirror equals a fresh snapshot: {:?}", t.core.chat_state(&host, &chat));
    assert!(t.core.resync_count() >= 1, "the gap was noticed");
    let state = t.core.chat_state(&host, &chat).unwrap();
    assert!(state.turns[0].response_parts.iter().any(|p| serde_json::to_string(p).unwrap().contains("word19")));
    let snapshots = events.0.lock().unwrap().iter().filter(|v| v["op"] == "snapshot").count();
    assert!(snapshots >= 2, "the open chat was sent a fresh snapshot");
    events.wait_for("the finished turn in the view", "word19").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn a_real_overrun_of_the_event_broadcast_is_repaired() {
    let dir = tempfile::tempdir().unwrap();
    // Usage updates, each with a new count: the host merges text chunks
    // that queue up behind each other (more of them the busier the machine),
    // never usage updates, so these are 3,000 envelopes on any machine, well
    // over the 1,024 the fan-in holds. Then the text the view must show.
    let mut steps: Vec<Value> = (0..3000)
        .flat_map(|i| {
            let usage = json!({"sessionUpdate": "usage_update", "used": i + 1, "size": 200_000});
            [json!({"update": usage}), json!({"sleep": 1})]
        })
        .collect();
    steps.push(json!({"chunk": "2999 "}));
    steps.push(json!({"end": "end_turn"}));
    let script = write_script(dir.path(), "spaced.json", json!({"turns": [steps]}));
    let Some(t) = TestApp::start(&[("fake", script)]).await else { return };
    let (session, chat, events) = t.open_session("fake").await;
    events.wait_for("ready", "\"lifecycle\":\"ready\"").await;
    let other = t.other_client().await;
    let (_, mut watch) = other.subscribe(chat.clone()).await.unwrap();
    // A second stream on the chat that stalls, as a busy UI would: when the
    // turn starts the pump waits in it until another client has seen the
    // turn end (at most 60 s: on a loaded machine the 3,000 updates take
    // over 20 s, and a stall that ended first let the pump keep up), so the
    // turn's envelopes overrun the event broadcast and the ones the pump
    // missed are skipped without a word.
    let turn_over = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (over, stalled) = (turn_over.clone(), std::sync::atomic::AtomicBool::new(false));
    let slow: Sink = Arc::new(move |event: StreamEvent| {
        let v = serde_json::to_value(event).unwrap();
        if v.to_string().contains("\"op\":\"active\"") && !stalled.swap(true, std::sync::atomic::Ordering::SeqCst) {
            for _ in 0..2400 {
                if over.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
        }
        true
    });
    call(&t.core, "chat.open", json!({"host": "local", "session": session}), Some(slow)).await.unwrap();
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "Spaced chunks"}), None).await.unwrap();
    while let Some(event) = watch.recv().await {
        if matches!(&event, ahp::SubscriptionEvent::Action(env) if hangar_desktop::core::action_type(&env.action) == "chat/turnComplete")
        {
            break;
        }
    }
    turn_over.store(true, std::sync::atomic::Ordering::SeqCst);
    // Without the resync the mirror misses the envelopes the broadcast
    // skipped and never matches.
    assert!(t.mirror_matches_fresh_snapshot(&other, &chat, 1).await, "the mirror equals a fresh snapshot");
    assert!(t.core.resync_count() >= 1, "the overrun was noticed");
    events.wait_for("the last chunk in the view", "2999").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_resynchronises_the_open_chats() {
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(dir.path(), "echo.json", json!({"turns": [[{"echo": true}, {"end": "end_turn"}]]}));
    let Some(t) = TestApp::start(&[("fake", script)]).await else { return };
    let (_, chat, events) = t.open_session("fake").await;
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "before"}), None).await.unwrap();
    events.wait_for("first turn", "echo: before").await;
    let host = ahp::hosts::HostId::new("local");
    t.core.multi().reconnect_host(&host).await.unwrap();
    for i in 0.. {
        if t.core.resync_count() >= 1 {
            break;
        }
        assert!(i < 800, "no resync after the reconnect");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let snapshots = events.0.lock().unwrap().iter().filter(|v| v["op"] == "snapshot").count();
    assert!(snapshots >= 2, "the open chat was sent a fresh snapshot");
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "after"}), None).await.unwrap();
    events.wait_for("a turn on the new connection", "echo: after").await;
    let other = t.other_client().await;
    assert!(t.mirror_matches_fresh_snapshot(&other, &chat, 2).await, "the mirror equals a fresh snapshot");
}

/// Wait until `chat` on the core's mirror has `turns` finished turns.
async fn finished_turns(core: &hangar_desktop::core::Core, chat: &str, turns: usize) -> ahp_types::state::ChatState {
    let host = ahp::hosts::HostId::new("local");
    for _ in 0..800 {
        if let Some(state) = core.chat_state(&host, chat) {
            if state.turns.len() >= turns && state.active_turn.is_none() {
                return state;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{chat} never had {turns} finished turns: {:?}", core.chat_state(&host, chat));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_picked_mention_attaches_its_file_to_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(dir.path(), "echo.json", json!({"turns": [[{"echo": true}, {"end": "end_turn"}]]}));
    let Some(t) = TestApp::start(&[("fake", script)]).await else { return };
    let file = t._tmp.path().join("ws").join("notes.md");
    std::fs::write(&file, "# Notes\n").unwrap();
    let (_, chat, events) = t.open_session("fake").await;
    events.wait_for("ready", "\"lifecycle\":\"ready\"").await;

    let typed = "Read @note";
    let offered = call(
        &t.core,
        "chat.completions",
        json!({"host": "local", "chat": chat, "text": typed, "offset": typed.len()}),
        None,
    )
    .await
    .unwrap();
    let item = offered["items"].as_array().unwrap().iter().find(|i| i["insertText"] == "@notes.md").cloned();
    let item = item.unwrap_or_else(|| panic!("no @notes.md among {offered}"));
    let attachment = item["attachment"].clone();
    assert_eq!(attachment["type"], "resource");
    assert!(attachment["uri"].as_str().unwrap().ends_with("/ws/notes.md"), "{attachment}");

    let refused = call(
        &t.core,
        "chat.send",
        json!({"host": "local", "chat": chat, "text": "x", "attachments": ["notes.md"]}),
        None,
    )
    .await;
    assert!(refused.unwrap_err().to_string().contains("attachments"), "a malformed attachment is refused");
    let sent =
        json!({"host": "local", "chat": chat, "text": "Read @notes.md please", "attachments": [attachment.clone()]});
    call(&t.core, "chat.send", sent, None).await.unwrap();
    let mine = finished_turns(&t.core, &chat, 1).await;
    assert_eq!(json!(mine.turns[0].message.attachments), json!([attachment.clone()]), "the core's mirror");
    events.wait_for("the attachment in the chat view", "\"attachments\":[{\"label\":\"notes.md\"").await;
    // On the host: a fresh subscription by another client sees it too.
    let other = t.other_client().await;
    let (fresh, _) = other.subscribe(chat.clone()).await.unwrap();
    let Some(ahp_types::state::SnapshotState::Chat(fresh)) = fresh.snapshot.map(|s| s.state) else {
        panic!("chat snapshot")
    };
    assert_eq!(json!(fresh.turns[0].message.attachments), json!([attachment]), "the host's turn");
}

/// A notifier that records what it would show; `focused` plays the window.
#[derive(Default)]
struct RecordingNotifier {
    focused: std::sync::atomic::AtomicBool,
    shown: Mutex<Vec<(Kind, String)>>,
}

impl hangar_desktop::core::Notifier for RecordingNotifier {
    fn window_focused(&self) -> bool {
        self.focused.load(std::sync::atomic::Ordering::SeqCst)
    }
    fn notify(&self, kind: Kind, _title: &str, body: &str) {
        self.shown.lock().unwrap().push((kind, body.to_owned()));
    }
}

impl RecordingNotifier {
    fn of(&self, kind: Kind) -> Vec<String> {
        self.shown.lock().unwrap().iter().filter(|(k, _)| *k == kind).map(|(_, b)| b.clone()).collect()
    }

    /// Wait (up to 20 s) until `n` notifications of `kind` were shown.
    async fn wait_for(&self, kind: Kind, n: usize) {
        for _ in 0..800 {
            if self.of(kind).len() >= n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("no {n} {kind:?} notifications: {:?}", self.shown.lock().unwrap());
    }
}

/// Each turn asks for a permission, then ends.
fn asking_script(dir: &std::path::Path) -> String {
    let ask = json!({"request": {"method": "session/request_permission", "params": {"sessionId": "$SID",
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}, {"optionId": "reject", "name": "Reject", "kind": "reject_once"}],
        "toolCall": {"toolCallId": "ask-1", "title": "Run ls", "kind": "execute"}}},
        "then": {"*": [{"chunk": "answered"}]}});
    write_script(dir, "ask.json", json!({"turns": [[ask, {"end": "end_turn"}]]}))
}

/// Send `text`, wait for its confirmation, answer it, wait for the turn to end.
async fn ask_and_answer(
    t: &TestApp,
    chat: &str,
    text: &str,
    turns: usize,
    asked: impl std::future::Future<Output = ()>,
) {
    let host = ahp::hosts::HostId::new("local");
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": text}), None).await.unwrap();
    asked.await;
    let turn_id = 'found: {
        for _ in 0..800 {
            let pending = t
                .core
                .chat_state(&host, chat)
                .and_then(|s| s.active_turn)
                .filter(|a| serde_json::to_string(a).unwrap().contains("ask-1"));
            if let Some(active) = pending {
                break 'found active.id;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{text}: no confirmation asked");
    };
    let confirm = json!({"host": "local", "chat": chat, "turnId": turn_id, "toolCallId": "ask-1", "approved": true, "optionId": "allow"});
    call(&t.core, "chat.confirm", confirm, None).await.unwrap();
    finished_turns(&t.core, chat, turns).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_for_approvals_and_finished_turns_not_at_launch_and_as_settings_allow() {
    let dir = tempfile::tempdir().unwrap();
    let Some(t) = TestApp::start(&[("fake", asking_script(dir.path()))]).await else { return };
    let (session, chat, _events) = t.open_session("fake").await;
    call(&t.core, "session.rename", json!({"host": "local", "session": session, "title": "Asker"}), None)
        .await
        .unwrap();
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "first"}), None).await.unwrap();
    t.app.wait_for("waiting before the second app starts", "needs-input").await;

    // A second app starts while the session already waits: no notification.
    let core = hangar_desktop::core::Core::start();
    let notifier = Arc::new(RecordingNotifier::default());
    core.set_notifier(notifier.clone());
    let app = Collected::default();
    call(&core, "app.watch", json!({}), Some(app.sink())).await.unwrap();
    core.add_host("local", "Local", t.started.host.url.clone()).await.unwrap();
    // The inbox item comes from the chat the core subscribes for the
    // waiting session (before it decides what a wait is).
    app.wait_for("the waiting session's inbox item", "\"toolCallId\":\"ask-1\"").await;
    assert_eq!(*notifier.shown.lock().unwrap(), [], "nothing at launch for a session already waiting");

    // Answered: the turn's end is told.
    let host = ahp::hosts::HostId::new("local");
    let turn_id = t.core.chat_state(&host, &chat).unwrap().active_turn.unwrap().id;
    let confirm = json!({"host": "local", "chat": chat, "turnId": turn_id, "toolCallId": "ask-1", "approved": true, "optionId": "allow"});
    call(&t.core, "chat.confirm", confirm, None).await.unwrap();
    finished_turns(&t.core, &chat, 1).await;
    notifier.wait_for(Kind::FinishedTurn, 1).await;
    assert_eq!(notifier.of(Kind::FinishedTurn), ["Asker (Local) finished its turn"]);

    // The next turn asks again while the window is not focused: one approval.
    ask_and_answer(&t, &chat, "second", 2, notifier.wait_for(Kind::Approval, 1)).await;
    notifier.wait_for(Kind::FinishedTurn, 2).await;
    assert_eq!(
        notifier.of(Kind::Approval),
        ["Asker (Local) is waiting for your approval"],
        "exactly one notification for one wait"
    );
    assert_eq!(notifier.of(Kind::Question), Vec::<String>::new(), "a confirmation is an approval, not a question");

    // Approvals switched off in Settings: the next wait is not shown, the
    // turn's end still is.
    let mut off = call(&core, "settings.get", json!({}), None).await.unwrap()["settings"].clone();
    off["notify"]["approvals"] = json!(false);
    let saved = call(&core, "settings.save", off, None).await.unwrap();
    assert_eq!(saved["settings"]["notify"]["approvals"], json!(false));
    app.0.lock().unwrap().clear();
    ask_and_answer(&t, &chat, "third", 3, app.wait_for("waiting again", "needs-input")).await;
    notifier.wait_for(Kind::FinishedTurn, 3).await;
    assert_eq!(notifier.of(Kind::Approval).len(), 1, "approvals are off");

    // With the window focused, nothing is shown.
    notifier.focused.store(true, std::sync::atomic::Ordering::SeqCst);
    let before = notifier.shown.lock().unwrap().len();
    app.0.lock().unwrap().clear();
    ask_and_answer(&t, &chat, "fourth", 4, app.wait_for("waiting again", "needs-input")).await;
    app.wait_for("the wait over", "\"status\":\"idle\"").await;
    assert_eq!(notifier.shown.lock().unwrap().len(), before, "no notification while focused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn older_turns_are_paged_in_from_the_host_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let agents =
        [("fake", write_script(dir.path(), "echo.json", json!({"turns": [[{"echo": true}, {"end": "end_turn"}]]})))];
    let Some(t) = TestApp::start(&agents).await else { return };
    let (session, chat, _) = t.open_session("fake").await;
    const TURNS: usize = 55;
    for i in 0..TURNS {
        call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": format!("turn {i}")}), None)
            .await
            .unwrap();
        finished_turns(&t.core, &chat, i + 1).await;
    }

    // Relaunched, the host holds the newest turns in memory and the rest in
    // its database; the chat snapshot carries the newest page.
    let t = t.restart(&agents).await;
    let events = Collected::default();
    let opened =
        call(&t.core, "chat.open", json!({"host": "local", "session": session}), Some(events.sink())).await.unwrap();
    assert_eq!(opened["chat"], chat.as_str());
    events.wait_for("snapshot", "\"op\":\"snapshot\"").await;
    let snapshot = events.0.lock().unwrap().iter().find(|v| v["op"] == "snapshot").cloned().unwrap();
    let first_sent = snapshot["turns"][0]["message"]["text"].as_str().unwrap().to_owned();
    let missing: usize = first_sent.trim_start_matches("turn ").parse().unwrap();
    assert!(
        missing > 0 && snapshot["turns"].as_array().unwrap().len() == TURNS - missing,
        "the snapshot is the newest page: {first_sent}"
    );
    assert!(
        t.core.chat_state(&ahp::hosts::HostId::new("local"), &chat).unwrap().turns.len() < TURNS,
        "the rest is on the host only"
    );

    let more = call(&t.core, "chat.fetchOlder", json!({"host": "local", "chat": chat}), None).await.unwrap();
    assert_eq!(more["more"], true, "a page was asked for");
    events.wait_for("older page", "\"op\":\"older\"").await;
    let older = events
        .0
        .lock()
        .unwrap()
        .iter()
        .flat_map(|v| v["ops"].as_array().cloned().unwrap_or_default())
        .find(|op| op["op"] == "older")
        .unwrap();
    let texts: Vec<String> = older["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["message"]["text"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = (0..missing).map(|i| format!("turn {i}")).collect();
    assert_eq!(texts, expected, "the older page holds the turns before the snapshot, oldest first");
    assert_eq!(older["more"], false, "nothing older than turn 0");
    let more = call(&t.core, "chat.fetchOlder", json!({"host": "local", "chat": chat}), None).await.unwrap();
    assert_eq!(more["more"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chosen_model_goes_with_the_message() {
    let dir = tempfile::tempdir().unwrap();
    // The agent offers two models in its `session/new` answer.
    let models = json!({"currentModelId": "fast", "availableModels": [
        {"modelId": "fast", "name": "Fast"}, {"modelId": "deep", "name": "Deep thinker"}]});
    let script = json!({"newSession": {"models": models}, "turns": [[{"echo": true}, {"end": "end_turn"}]]});
    let Some(t) = TestApp::start(&[("fake", write_script(dir.path(), "models.json", script))]).await else { return };
    let (_, chat, events) = t.open_session("fake").await;
    events.wait_for("ready", "\"lifecycle\":\"ready\"").await;
    // The host lists them on the agent, which is where the composer's model menu comes from.
    t.app.wait_for("models offered", "\"name\":\"Deep thinker\"").await;

    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "think hard", "model": "deep"}), None)
        .await
        .unwrap();
    let state = finished_turns(&t.core, &chat, 1).await;
    assert_eq!(state.turns[0].message.model.as_ref().map(|m| m.id.as_str()), Some("deep"), "message.model on the turn");
    events.wait_for("the agent answered with the chosen model", "[model=deep]").await;
    call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": "default please"}), None).await.unwrap();
    let state = finished_turns(&t.core, &chat, 2).await;
    assert!(state.turns[1].message.model.is_none(), "no choice, no model on the message");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_no_stream_shows_keeps_only_the_hosts_tail_in_the_mirror() {
    let dir = tempfile::tempdir().unwrap();
    let agents =
        [("fake", write_script(dir.path(), "echo.json", json!({"turns": [[{"echo": true}, {"end": "end_turn"}]]})))];
    let Some(t) = TestApp::start(&agents).await else { return };
    let created = call(&t.core, "session.create", json!({"host": "local", "agent": "fake", "folder": t.folder}), None)
        .await
        .unwrap();
    let session = created["session"].as_str().unwrap().to_owned();
    let events = Collected::default();
    let opened =
        call(&t.core, "chat.open", json!({"host": "local", "session": session}), Some(events.sink())).await.unwrap();
    let chat = opened["chat"].as_str().unwrap().to_owned();
    call(&t.core, "stream.close", json!({"streamId": opened["streamId"]}), None).await.unwrap();

    const TURNS: usize = 130;
    let host = ahp::hosts::HostId::new("local");
    let mut most = 0;
    for i in 0..TURNS {
        call(&t.core, "chat.send", json!({"host": "local", "chat": chat, "text": format!("turn {i}")}), None)
            .await
            .unwrap();
        let last = format!("turn {i}");
        for _ in 0..800 {
            let state = t.core.chat_state(&host, &chat).unwrap();
            if state.active_turn.is_none() && state.turns.last().is_some_and(|turn| turn.message.text == last) {
                most = most.max(state.turns.len());
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let mine = t.core.chat_state(&host, &chat).unwrap();
    assert_eq!(mine.turns.last().unwrap().message.text, format!("turn {}", TURNS - 1), "every turn arrived");
    assert!(most <= hangar_desktop::core::MIRROR_TURNS + 2, "the mirror held {most} turns at most");
    assert!(mine.turns.len() < TURNS, "older turns left the mirror: it holds {}", mine.turns.len());
    let other = t.other_client().await;
    let (fresh, _) = other.subscribe(chat.clone()).await.unwrap();
    let Some(ahp_types::state::SnapshotState::Chat(fresh)) = fresh.snapshot.map(|s| s.state) else { panic!("chat") };
    let tail = &mine.turns[mine.turns.len() - fresh.turns.len()..];
    assert_eq!(tail, &fresh.turns[..], "the mirror's newest turns are the host's");
    assert!(mine.turns_next_cursor.is_some(), "with the host's cursor for the rest");

    // Opened again, the chat pages the rest in from the host.
    let events = Collected::default();
    call(&t.core, "chat.open", json!({"host": "local", "session": session}), Some(events.sink())).await.unwrap();
    events.wait_for("snapshot", "\"op\":\"snapshot\"").await;
    let more = call(&t.core, "chat.fetchOlder", json!({"host": "local", "chat": chat}), None).await.unwrap();
    assert_eq!(more["more"], true);
}

/// Run git in `dir`; panics with git's words when it fails.
fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The session's archived flag as the host's own `listSessions` says it.
async fn archived_on_host(t: &TestApp, session: &str) -> bool {
    let other = t.other_client().await;
    let page: ahp_types::commands::ListSessionsResult =
        other.request("listSessions", json!({ "channel": ahp_types::ROOT_RESOURCE_URI })).await.unwrap();
    let summary = page.items.iter().find(|s| s.resource == session).unwrap();
    ahp_types::state::SessionStatus::from_bits(summary.status).contains(ahp_types::state::SessionStatus::IsArchived)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_whose_echo_never_comes_is_judged_by_the_hosts_list_of_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let script = write_script(dir.path(), "idle.json", json!({"turns": [[{"chunk": "ok"}, {"end": "end_turn"}]]}));
    let Some(t) = TestApp::start(&[("idle", script)]).await else { return };
    let repo = PathBuf::from(t.folder.trim_start_matches("file://"));
    std::fs::write(repo.join("notes.txt"), "line 1\n").unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.email", "test@example.com"],
        &["config", "user.name", "Test"],
        &["add", "."],
        &["commit", "-q", "-m", "start"],
    ] {
        git(&repo, args);
    }
    // The echo of the archive is lost: the core never hears it and reads
    // the host's list of sessions instead.
    t.core.set_archive_echo_wait(Duration::ZERO);
    let make = || async {
        let created = call(
            &t.core,
            "session.create",
            json!({"host": "local", "agent": "idle", "folder": t.folder, "worktree": true}),
            None,
        )
        .await
        .unwrap();
        let session = created["session"].as_str().unwrap().to_owned();
        let info = call(&t.core, "session.worktree", json!({"host": "local", "session": session}), None).await.unwrap();
        (session, PathBuf::from(info["path"].as_str().unwrap()))
    };
    let archive = |session: String| {
        call(
            &t.core,
            "session.archive",
            json!({"host": "local", "session": session, "archived": true, "worktree": {"force": false}}),
            None,
        )
    };

    // The host archived it: done, and the worktree goes.
    let (clean, clean_path) = make().await;
    assert!(clean_path.exists(), "{}", clean_path.display());
    archive(clean.clone()).await.unwrap();
    assert!(archived_on_host(&t, &clean).await, "the host archived it");
    for i in 0.. {
        if !clean_path.exists() {
            break;
        }
        assert!(i < 400, "the worktree {} was not removed", clean_path.display());
        tokio::time::sleep(Duration::from_millis(25)).await;
    }

    // The host refused it (an edit not committed): the command fails saying
    // the host did not answer and the worktree stays, never taken as done.
    let (dirty, dirty_path) = make().await;
    std::fs::write(dirty_path.join("notes.txt"), "line 1\nan edit\n").unwrap();
    let err = archive(dirty.clone()).await.unwrap_err().to_string();
    assert!(err.contains("did not answer") && err.contains("not archived"), "{err}");
    assert!(!archived_on_host(&t, &dirty).await, "the host did not archive it");
    assert!(dirty_path.join("notes.txt").exists(), "the worktree is where it was");
}
