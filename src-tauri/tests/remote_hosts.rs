//! The desktop core with saved remote hosts, over real processes (issue
//! 14): `hangar serve` hosts on loopback (one `wss://` with a self-signed
//! certificate) in a temporary saved-host list; the core reads the list,
//! shows each host's sessions and connection state in words, adds a host
//! the way the "Add host" dialog does, creates a session on each host in a
//! folder its picker lists on that host; a host killed and restarted goes
//! reconnecting, then connected, with the open chat intact and brought up
//! to date; a revoked device token shows "token refused"; a changed
//! certificate is refused with both fingerprints; a host that is down says
//! why and when it is tried next; a host that speaks another protocol
//! version says so. The Changes commands review and undo an edit on a
//! remote host's disk. `search` asks every host and says which did not
//! answer (down, or connected but silent past the timeout). The keyring case runs the bridge process against a real
//! Secret Service. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

#![allow(clippy::unwrap_used, clippy::panic, reason = "test code: a failed unwrap or panic is a failed test")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ahp::hosts::HostId;
use futures_util::{SinkExt, StreamExt};
use hangar_desktop::commands::call_wire;
use hangar_desktop::core::{Core, Sink};
use hangar_desktop_protocol::StreamEvent;
use hangar_e2e::acp::fake_agent_bin;
use hangar_e2e::{files_containing, hangar_bin, Launch, SecretService, TestHost};
use hangar_remote::{NewHost, Remotes, TokenStorage};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// The longest any one wait may take: a reconnect waits out a backoff
/// (exponential from 250 ms, capped at 30 s) on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(90);

/// Poll `probe` every 25 ms until it yields, at most [`PATIENCE`].
async fn until<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(tokio::time::Instant::now() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Every host's view, every session row by `(host, uri)`, the inbox.
type Held = (Vec<Value>, BTreeMap<(String, String), Value>, Vec<Value>);

/// The app stream as the UI holds it.
#[derive(Clone, Default)]
struct AppView(Arc<Mutex<Held>>);

impl AppView {
    fn sink(&self) -> Sink {
        let me = self.clone();
        Arc::new(move |event: StreamEvent| {
            let op = serde_json::to_value(event).unwrap();
            let mut view = me.0.lock().unwrap();
            let (hosts, rows, inbox) = &mut *view;
            let key = |r: &Value| (r["host"].as_str().unwrap().to_owned(), r["uri"].as_str().unwrap().to_owned());
            if let Some(h) = op.get("hosts") {
                *hosts = h.as_array().unwrap().clone();
            }
            if let Some(items) = op.get("inbox").or_else(|| op.get("items")) {
                *inbox = items.as_array().unwrap().clone();
            }
            match op["op"].as_str().unwrap() {
                "snapshot" | "sessions" => {
                    *rows = op["sessions"].as_array().unwrap().iter().map(|r| (key(r), r.clone())).collect();
                }
                "session" => {
                    rows.insert(key(&op["row"]), op["row"].clone());
                }
                "sessionRemoved" => {
                    rows.remove(&(op["host"].as_str().unwrap().to_owned(), op["uri"].as_str().unwrap().to_owned()));
                }
                _ => {}
            }
            true
        })
    }

    fn host(&self, id: &str) -> Option<Value> {
        self.0.lock().unwrap().0.iter().find(|h| h["id"] == id).cloned()
    }

    /// The host's `connection` once its `state` is `state`.
    async fn state(&self, id: &str, state: &str) -> Value {
        until(&format!("host {id} {state}"), || {
            self.host(id).map(|h| h["connection"].clone()).filter(|c| c["state"] == state)
        })
        .await
    }

    fn rows_of(&self, host: &str) -> Vec<Value> {
        self.0.lock().unwrap().1.values().filter(|r| r["host"] == host).cloned().collect()
    }
}

/// The `snapshot` ops a chat stream received, in order.
#[derive(Clone, Default)]
struct Snapshots(Arc<Mutex<Vec<Value>>>);

impl Snapshots {
    fn sink(&self) -> Sink {
        let me = self.clone();
        Arc::new(move |event: StreamEvent| {
            let op = serde_json::to_value(event).unwrap();
            if op["op"] == "snapshot" {
                me.0.lock().unwrap().push(op);
            }
            true
        })
    }

    fn all(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
    }
}

async fn call(core: &Arc<Core>, name: &str, args: Value) -> Result<Value, String> {
    match call_wire(core, name, args, None).await {
        Ok(reply) => Ok(serde_json::to_value(reply).unwrap()),
        Err(e) => Err(e.to_string()),
    }
}

/// A fake-agent spec for `hangar serve --agent`: it echoes every prompt.
fn echo_agent(dir: &Path) -> String {
    let script = dir.join("echo.json");
    std::fs::write(&script, json!({"turns": [[{"echo": true}, {"end": "end_turn"}]]}).to_string()).unwrap();
    format!("fake={} --script {}", fake_agent_bin().display(), script.display())
}

/// A remote machine: its HOME (with a `proj` folder), data dir and agent.
struct Machine {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    data: PathBuf,
    agent: String,
    listen: String,
}

impl Machine {
    fn new() -> Self {
        Self::with_agent(None)
    }

    /// A machine whose fake agent runs `turn` (each prompt), else echoes.
    fn with_agent(turn: Option<Value>) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join("proj")).unwrap();
        let data = tmp.path().join("data");
        let agent = match turn {
            None => echo_agent(tmp.path()),
            Some(turn) => {
                let script = tmp.path().join("agent.json");
                std::fs::write(&script, json!({ "turns": [turn] }).to_string()).unwrap();
                format!("fake={} --script {}", fake_agent_bin().display(), script.display())
            }
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Self { home: home.canonicalize().unwrap(), data, agent, listen: format!("127.0.0.1:{port}"), _tmp: tmp }
    }

    /// `hangar serve` on this machine's fixed address (`extra`: e.g. `--tls-self-signed`).
    fn serve(&self, extra: &[&str]) -> TestHost {
        let home = self.home.display().to_string();
        let mut args = vec!["--listen", self.listen.as_str(), "--agent", self.agent.as_str()];
        args.extend(extra);
        TestHost::start_in(Launch::Process(&[("HOME", home.as_str())]), &self.data, &args)
    }

    /// `hangar token create NAME` on this machine's data dir (the host may be stopped).
    fn device_token(&self, name: &str) -> String {
        let out = std::process::Command::new(hangar_bin())
            .args(["token", "create", name, "--data-dir", &self.data.display().to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    fn revoke(&self, name: &str) {
        let out = std::process::Command::new(hangar_bin())
            .args(["token", "revoke", name, "--data-dir", &self.data.display().to_string()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    fn home_uri(&self) -> String {
        format!("file://{}", self.home.display())
    }
}

fn fingerprint_of(host: &TestHost) -> String {
    let ready: Value = serde_json::from_str(&host.ready_line).unwrap();
    ready["tlsFingerprint"].as_str().unwrap().to_owned()
}

/// Save a host in `cfg`'s list (token in a 0600 file: the keyring is not the point here).
fn save(cfg: &Path, name: &str, url: &str, token: &str, fingerprint: Option<&str>) -> String {
    let new = NewHost {
        name: name.into(),
        url: url.into(),
        token: token.into(),
        fingerprint: fingerprint.map(|f| f.parse().unwrap()),
        token_storage: TokenStorage::InsecureFile,
    };
    Remotes::at(cfg).add(new).unwrap().id
}

/// A core that read the saved list in `cfg`, and its app stream.
async fn desktop(cfg: &Path) -> (Arc<Core>, AppView) {
    let core = Core::start();
    core.load_saved_hosts(Remotes::at(cfg)).await.unwrap();
    let app = AppView::default();
    call_wire(&core, "app.watch", json!({}), Some(app.sink())).await.unwrap();
    (core, app)
}

/// Create a session with the fake agent in `folder` on `host`, open its
/// chat, send `text` and wait for the echo: `(session, chat, its snapshots)`.
async fn session_with_a_turn(core: &Arc<Core>, host: &str, folder: &str, text: &str) -> (String, String, Snapshots) {
    let created = call(core, "session.create", json!({"host": host, "agent": "fake", "folder": folder})).await.unwrap();
    let session = created["session"].as_str().unwrap().to_owned();
    let ops = Snapshots::default();
    let opened = call_wire(core, "chat.open", json!({"host": host, "session": session}), Some(ops.sink())).await;
    let chat = serde_json::to_value(opened.unwrap()).unwrap()["chat"].as_str().unwrap().to_owned();
    call(core, "chat.send", json!({"host": host, "chat": chat, "text": text})).await.unwrap();
    finished_turns(core, host, &chat, 1).await;
    (session, chat, ops)
}

/// The chat's mirrored state once it has `n` finished turns; their texts.
async fn finished_turns(core: &Arc<Core>, host: &str, chat: &str, n: usize) -> Vec<String> {
    let id = HostId::new(host);
    until(&format!("{n} turns on {chat}"), || {
        let state = core.chat_state(&id, chat)?;
        (state.turns.len() >= n && state.active_turn.is_none())
            .then(|| state.turns.iter().map(|t| t.message.text.clone()).collect())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_saved_hosts_their_sessions_a_new_session_on_each_and_a_restart() {
    let (plain_machine, tls_machine) = (Machine::new(), Machine::new());
    let plain = plain_machine.serve(&[]);
    let mut tls = tls_machine.serve(&["--tls-self-signed"]);
    let pinned = fingerprint_of(&tls);
    let cfg = tempfile::tempdir().unwrap();

    // A session made on the plain host before the app starts, by another client.
    let (other, _) = hangar_e2e::initialized(&plain, "other-device").await;
    let before = json!({"channel": "ahp-session:/made-elsewhere", "provider": "fake",
        "workingDirectories": [format!("{}/proj", plain_machine.home_uri())]});
    let _: Value = other.request("createSession", before).await.unwrap();

    // The plain host is in the saved list at launch; the TLS one is added as the dialog does.
    let plain_id = save(cfg.path(), "plain", &plain.url, &plain.token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&plain_id, "connected").await;
    until("the other client's session in the sidebar", || {
        app.rows_of(&plain_id).into_iter().find(|r| r["uri"] == "ahp-session:/made-elsewhere")
    })
    .await;
    let plain_view = app.host(&plain_id).unwrap();
    assert_eq!(plain_view["label"], "plain");
    assert_eq!(plain_view["remote"]["url"], plain.url.as_str());

    let probed = call(&core, "host.probe", json!({"url": tls.url})).await.unwrap();
    assert_eq!(probed, json!({"secure": true, "fingerprint": pinned}), "the certificate to trust");
    let token = tls_machine.device_token("desk");
    let add = |token: &str, fingerprint: &str| json!({"name": "tls", "url": tls.url, "token": token, "fingerprint": fingerprint, "insecureTokenFile": true});
    let refused = call(&core, "host.add", add("not-the-token", &pinned)).await.unwrap_err();
    assert!(refused.contains("refused the token"), "{refused}");
    assert_eq!(Remotes::at(cfg.path()).list().unwrap().len(), 1, "a refused token saves nothing");
    let added = call(&core, "host.add", add(&token, &pinned)).await.unwrap();
    let tls_id = added["host"].as_str().unwrap().to_owned();
    app.state(&tls_id, "connected").await;
    assert_eq!(app.host(&tls_id).unwrap()["remote"]["fingerprint"], pinned.as_str());

    // Each host's folder picker starts at that host's home, and a session starts there.
    let mut chats = Vec::new();
    for (id, machine) in [(&plain_id, &plain_machine), (&tls_id, &tls_machine)] {
        let listed = call(&core, "folder.list", json!({"host": id})).await.unwrap();
        assert_eq!(listed["uri"], machine.home_uri(), "the remote host's home, not this one's");
        let proj = listed["entries"].as_array().unwrap().iter().find(|e| e["name"] == "proj").unwrap()["uri"].clone();
        let (session, chat, ops) = session_with_a_turn(&core, id, proj.as_str().unwrap(), "hello").await;
        until("the new session's row", || app.rows_of(id).into_iter().find(|r| r["uri"] == session.as_str())).await;
        chats.push((chat, ops));
    }
    let agents = &app.host(&tls_id).unwrap()["agents"];
    assert_eq!(agents[0]["provider"], "fake", "the remote host's agents: {agents}");

    // The TLS host dies: reconnecting, the chat still shown; back: connected and resynchronised.
    let (tls_chat, tls_ops) = &chats[1];
    let snapshots_before = tls_ops.all().len();
    tls.kill9();
    let lost = app.state(&tls_id, "reconnecting").await;
    assert!(lost["attempt"].is_u64(), "{lost}");
    assert_eq!(finished_turns(&core, &tls_id, tls_chat, 1).await, ["hello"], "the chat is kept while down");
    let _tls = tls_machine.serve(&["--tls-self-signed"]);
    app.state(&tls_id, "connected").await;
    let resynced = until("a fresh snapshot of the open chat", || {
        let snapshots = tls_ops.all();
        (snapshots.len() > snapshots_before).then(|| snapshots.last().cloned().unwrap())
    })
    .await;
    assert!(resynced.to_string().contains("echo: hello"), "the chat is intact after the restart: {resynced}");
    assert!(
        tls_ops.all()[snapshots_before..].iter().all(|s| !s["turns"].as_array().unwrap().is_empty()),
        "no snapshot since the restart blanked the chat"
    );
    call(&core, "chat.send", json!({"host": tls_id, "chat": tls_chat, "text": "after"})).await.unwrap();
    assert_eq!(finished_turns(&core, &tls_id, tls_chat, 2).await, ["hello", "after"]);
    assert_eq!(app.host(&plain_id).unwrap()["connection"]["state"], "connected", "the other host was not disturbed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_changes_of_a_session_on_a_remote_host_are_reviewed_and_undone_there() {
    let machine = Machine::with_agent(Some(json!([
        { "writeFile": { "path": "notes.txt", "text": "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n" } },
        { "end": "end_turn" }
    ])));
    let notes = machine.home.join("proj/notes.txt");
    std::fs::write(&notes, "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n").unwrap();
    let host = machine.serve(&[]);
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "box", &host.url, &host.token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&id, "connected").await;
    let folder = format!("{}/proj", machine.home_uri());
    let (session, chat, _) = session_with_a_turn(&core, &id, &folder, "edit notes").await;

    // The row's counts arrive with the session summary.
    until("the row's pending counts", || {
        app.rows_of(&id).into_iter().find(|r| r["uri"] == session.as_str() && r["changes"]["files"] == 1)
    })
    .await;
    let listed = call(&core, "changes.list", json!({"host": id, "session": session, "turn": null})).await.unwrap();
    assert_eq!(listed["files"][0]["path"], "notes.txt", "{listed}");
    let file = listed["files"][0]["id"].as_str().unwrap().to_owned();
    let diff =
        call(&core, "changes.diff", json!({"host": id, "session": session, "turn": null, "file": file})).await.unwrap();
    let hunks = diff["hunks"].as_array().unwrap();
    assert_eq!(hunks.len(), 2, "{diff}");
    // Undo the second hunk only: the remote machine's file changes there.
    let (first, last) = (hunks[1]["firstLine"].clone(), hunks[1]["lastLine"].clone());
    let undo = json!({"host": id, "session": session, "turn": null, "operation": "reject", "file": file,
        "lines": [first, last]});
    call(&core, "changes.invoke", undo).await.unwrap();
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n");
    // Keep the rest: nothing is pending, the disk stays.
    let keep =
        json!({"host": id, "session": session, "turn": null, "operation": "accept", "file": null, "lines": null});
    call(&core, "changes.invoke", keep).await.unwrap();
    let listed = call(&core, "changes.list", json!({"host": id, "session": session, "turn": null})).await.unwrap();
    assert_eq!(listed["files"], json!([]));
    assert!(std::fs::read_to_string(&notes).unwrap().starts_with("ONE\n"));

    // Fork from the turn: on the remote machine, a new session in a copy of
    // the folder as the turn left it (the undone hunk is back there).
    let turn = core.chat_state(&HostId::new(&id), &chat).unwrap().turns[0].id.clone();
    let forked = call(&core, "session.fork", json!({"host": id, "chat": chat, "turnId": turn})).await.unwrap();
    let fork = forked["session"].as_str().unwrap().to_owned();
    let row = until("the fork's row", || app.rows_of(&id).into_iter().find(|r| r["uri"] == fork.as_str())).await;
    assert_eq!(row["title"], "Fork: edit notes", "{row}");
    let copy = row["folder"].as_str().unwrap().strip_prefix("file://").unwrap().to_owned();
    assert!(copy.contains("hangar-worktrees"), "{copy}");
    let copied = std::fs::read_to_string(std::path::Path::new(&copy).join("notes.txt")).unwrap();
    assert_eq!(copied, "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_device_token_shows_token_refused() {
    let machine = Machine::new();
    let host = machine.serve(&[]);
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "box", &host.url, &machine.device_token("laptop"), None);
    let (_core, app) = desktop(cfg.path()).await;
    app.state(&id, "connected").await;
    machine.revoke("laptop");
    let refused = app.state(&id, "tokenRefused").await;
    assert_eq!(refused["status"], 403, "{refused}");
    assert!(refused["reason"].as_str().unwrap().contains("hangar token create"), "says what to do: {refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_certificate_is_refused_with_both_fingerprints() {
    let machine = Machine::new();
    let mut host = machine.serve(&["--tls-self-signed"]);
    let pinned = fingerprint_of(&host);
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "box", &host.url, &host.token, Some(&pinned));
    let (_core, app) = desktop(cfg.path()).await;
    app.state(&id, "connected").await;
    host.kill9();
    std::fs::remove_dir_all(machine.data.join("tls")).unwrap();
    let renewed = machine.serve(&["--tls-self-signed"]);
    let changed = app.state(&id, "certificateChanged").await;
    assert_eq!(changed["expected"], pinned.as_str());
    assert_eq!(changed["found"], fingerprint_of(&renewed).as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_is_down_says_why_and_when_and_retry_now_connects() {
    let machine = Machine::new();
    let token = machine.device_token("laptop");
    let cfg = tempfile::tempdir().unwrap();
    let url = format!("ws://{}/", machine.listen);
    let id = save(cfg.path(), "box", &url, &token, None);
    let (core, app) = desktop(cfg.path()).await;
    let down = until("a scheduled retry", || {
        app.host(&id).map(|h| h["connection"].clone()).filter(|c| c["nextAttemptAt"].is_u64())
    })
    .await;
    assert_eq!(down["state"], "unreachable", "{down}");
    assert!(down["reason"].as_str().unwrap().contains(&machine.listen), "{down}");
    let _host = machine.serve(&[]);
    call(&core, "host.reconnect", json!({"host": id})).await.unwrap();
    app.state(&id, "connected").await;
}

/// `search` asks every host at once: a turn on a connected host is found
/// (tagged with its host, its match marked), a saved host that is down is
/// listed as not connected with why, the next page is asked with that
/// host's cursor, and bad input is refused with the reason (the core's own
/// checks, and a query every answering host refuses with -32602).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_asks_every_host_merges_and_says_which_did_not_answer() {
    let (up, down) = (Machine::new(), Machine::new());
    let host = up.serve(&[]);
    let token = down.device_token("laptop");
    let cfg = tempfile::tempdir().unwrap();
    let box_id = save(cfg.path(), "box", &format!("ws://{}/", up.listen), &host.token, None);
    let desk_id = save(cfg.path(), "desk", &format!("ws://{}/", down.listen), &token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&box_id, "connected").await;
    session_with_a_turn(&core, &box_id, &up.home_uri(), "the quokka eats leaves").await;

    // The turn and the session's title (its first message) both match.
    let mut found = Value::Null;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while tokio::time::Instant::now() < deadline {
        found = call(&core, "search", json!({"query": "quok"})).await.unwrap();
        if found["items"].as_array().unwrap().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let items = found["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{found}");
    for item in items {
        assert_eq!(item["host"], box_id.as_str(), "{item}");
        assert_eq!(item["hostLabel"], "box", "{item}");
        assert!(item["snippet"].as_str().unwrap().contains("«quokka»"), "{item}");
    }
    let status = |id: &str| found["hosts"].as_array().unwrap().iter().find(|h| h["host"] == id).cloned().unwrap();
    let (answered, silent) = (status(&box_id), status(&desk_id));
    assert_eq!((answered["state"].as_str(), answered["count"].as_u64()), (Some("answered"), Some(2)), "{found}");
    assert_eq!(silent["state"], "notConnected", "{silent}");
    let why = silent["detail"].as_str().unwrap();
    assert!(why.starts_with("not reachable") && why.contains(&down.listen), "{silent}");

    // One at a time: the first page hands back box's cursor, the second is the other item.
    let first = call(&core, "search", json!({"query": "quok", "limit": 1})).await.unwrap();
    let cursor = first["cursors"][box_id.as_str()].clone();
    assert!(cursor.is_string(), "{first}");
    let next = call(&core, "search", json!({"query": "quok", "limit": 1, "cursors": {box_id.as_str(): cursor}}))
        .await
        .unwrap();
    let asked: Vec<&Value> = next["hosts"].as_array().unwrap().iter().map(|h| &h["host"]).collect();
    assert_eq!(asked, [&json!(box_id)], "only the host with a cursor is asked: {next}");
    let turn = |v: &Value| v["items"][0]["turnId"].clone();
    assert_ne!(turn(&first), turn(&next), "{first} then {next}");

    for (args, reason) in [
        (json!({"query": "  "}), "the query is empty"),
        (json!({"query": "quok", "limit": 0}), "limit must be between 1 and 200"),
        (json!({"query": "«»"}), "no letters or digits"),
    ] {
        let e = call(&core, "search", args.clone()).await.unwrap_err();
        assert!(e.contains(reason), "{args}: {e}");
    }
}

/// A loopback proxy in front of `upstream` (a real host, reached with
/// `token`) that passes every frame both ways but swallows the client's
/// `x-hangar/search` requests: a host that is connected yet never answers
/// a search. Returns the proxy's URL.
async fn host_that_never_answers_a_search(upstream: String, token: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let target = format!("{upstream}?tkn={token}");
            tokio::spawn(async move {
                let Ok(client) = tokio_tungstenite::accept_async(tcp).await else { return };
                let Ok((host, _)) = tokio_tungstenite::connect_async(target).await else { return };
                let (mut to_client, mut from_client) = client.split();
                let (mut to_host, mut from_host) = host.split();
                let up = async move {
                    while let Some(Ok(m)) = from_client.next().await {
                        let search = m.to_text().is_ok_and(|t| t.contains("\"x-hangar/search\""));
                        if !search && to_host.send(m).await.is_err() {
                            break;
                        }
                    }
                };
                let down = async move {
                    while let Some(Ok(m)) = from_host.next().await {
                        if to_client.send(m).await.is_err() {
                            break;
                        }
                    }
                };
                tokio::join!(up, down);
            });
        }
    });
    url
}

/// A connected host that does not answer a search in time is listed as
/// timed out, and the other host's results still come back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_does_not_answer_a_search_in_time_is_listed_as_timed_out() {
    let (quick, slow) = (Machine::new(), Machine::new());
    let quick_host = quick.serve(&[]);
    let slow_host = slow.serve(&[]);
    let proxy = host_that_never_answers_a_search(format!("ws://{}/", slow.listen), slow_host.token.clone()).await;
    let cfg = tempfile::tempdir().unwrap();
    let quick_id = save(cfg.path(), "box", &format!("ws://{}/", quick.listen), &quick_host.token, None);
    let slow_id = save(cfg.path(), "lab", &proxy, "unused", None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&quick_id, "connected").await;
    app.state(&slow_id, "connected").await;
    session_with_a_turn(&core, &quick_id, &quick.home_uri(), "a wombat digs").await;
    let mut found = Value::Null;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while tokio::time::Instant::now() < deadline {
        found = call(&core, "search", json!({"query": "wombat"})).await.unwrap();
        if !found["items"].as_array().unwrap().is_empty() {
            break;
        }
    }
    assert!(found["items"].as_array().unwrap().iter().all(|i| i["host"] == quick_id.as_str()), "{found}");
    assert!(!found["items"].as_array().unwrap().is_empty(), "{found}");
    let lab = found["hosts"].as_array().unwrap().iter().find(|h| h["host"] == slow_id.as_str()).cloned().unwrap();
    assert_eq!(lab["state"], "timedOut", "{found}");
    assert_eq!(lab["detail"], "did not answer within 5 s", "{found}");
    assert!(found["timing"]["slowestMs"].as_f64().unwrap() >= 5000.0, "{found}");
}

/// A WebSocket server on loopback that answers every `initialize` the way a
/// host that speaks only protocol 2.0.0 would.
async fn future_host() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else { return };
                while let Some(Ok(Message::Text(text))) = ws.next().await {
                    let request: Value = serde_json::from_str(&text).unwrap();
                    let error = json!({"code": -32005, "message": "no offered protocol version is supported",
                        "data": {"supportedVersions": ["2.0.0"]}});
                    let reply = json!({"jsonrpc": "2.0", "id": request["id"], "error": error});
                    let _ = ws.send(Message::text(reply.to_string())).await;
                }
            });
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_speaking_another_protocol_version_says_so() {
    let url = future_host().await;
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "future", &url, "any-token", None);
    let (_core, app) = desktop(cfg.path()).await;
    let refused = app.state(&id, "protocolUnsupported").await;
    let reason = refused["reason"].as_str().unwrap();
    assert!(reason.contains("2.0.0") && reason.contains(ahp_types::PROTOCOL_VERSION), "{reason}");
}

/// The bridge process (the desktop core behind its loopback socket).
struct Bridge {
    child: std::process::Child,
    url: String,
}

impl Bridge {
    fn start(home: &Path, cfg: &Path, keyring: &SecretService) -> Self {
        use std::io::BufRead;
        let mut cmd = std::process::Command::new(hangar_e2e::desktop_bridge_bin());
        cmd.args(["--no-discover", "--data-dir", &home.join("data").display().to_string()])
            .args(["--config-dir", &cfg.display().to_string()])
            .env("HOME", home)
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .stdout(std::process::Stdio::piped());
        for (k, v) in keyring.env() {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.trim().strip_prefix("listening http://").unwrap_or_else(|| panic!("bridge said {line:?}"));
        Self { child, url: format!("ws://{addr}/ipc") }
    }

    /// Run one command over the bridge's socket; its `ok` or `err`, and the
    /// first stream event if it opened a stream.
    async fn call(&self, cmd: &str, args: Value, stream: bool) -> (Value, Option<Value>) {
        let (mut ws, _) = tokio_tungstenite::connect_async(self.url.as_str()).await.unwrap();
        let request = json!({"id": 1, "cmd": cmd, "args": args, "stream": stream});
        ws.send(Message::text(request.to_string())).await.unwrap();
        let (mut reply, mut event) = (None, None);
        while reply.is_none() || (stream && event.is_none()) {
            let Some(Ok(Message::Text(text))) = ws.next().await else { panic!("the bridge closed") };
            let frame: Value = serde_json::from_str(&text).unwrap();
            if frame.get("stream").is_some() {
                event = Some(frame["event"].clone());
            } else {
                reply = Some(frame);
            }
        }
        (reply.unwrap(), event)
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_keeps_an_added_hosts_token_in_the_keyring_and_finds_it_at_the_next_launch() {
    let Some(keyring) = SecretService::start() else { return };
    let machine = Machine::new();
    let host = machine.serve(&["--tls-self-signed"]);
    let token = machine.device_token("desk");
    let (home, cfg) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = json!({"name": "box", "url": host.url, "token": token, "fingerprint": fingerprint_of(&host)});
    let (reply, _) = Bridge::start(home.path(), cfg.path(), &keyring).call("host.add", args, false).await;
    let id = reply["ok"]["host"].as_str().unwrap_or_else(|| panic!("host.add: {reply}")).to_owned();
    let saved = Remotes::at(cfg.path()).list().unwrap();
    assert_eq!(saved[0].token_storage, TokenStorage::Keyring);
    for dir in [cfg.path(), home.path(), keyring.home()] {
        assert_eq!(files_containing(dir, &token), Vec::<String>::new(), "token in plain text under {}", dir.display());
    }

    // The next launch reads the list and the token from the keyring.
    let bridge = Bridge::start(home.path(), cfg.path(), &keyring);
    let mut state = Value::Null;
    for _ in 0..400 {
        let (_, snapshot) = bridge.call("app.watch", json!({}), true).await;
        let hosts = snapshot.unwrap()["hosts"].clone();
        state = hosts.as_array().unwrap().iter().find(|h| h["id"] == id.as_str()).unwrap()["connection"].clone();
        if state["state"] == "connected" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(state["state"], "connected", "{state}");
}

/// Every op a chat stream received, as JSON.
fn recording_sink(ops: Arc<Mutex<Vec<Value>>>) -> Sink {
    Arc::new(move |event: StreamEvent| {
        ops.lock().unwrap().push(serde_json::to_value(event).unwrap());
        true
    })
}

/// The texts an outbox file holds.
fn outbox_texts(cfg: &Path) -> Vec<String> {
    let file: Value = serde_json::from_slice(&std::fs::read(cfg.join("outbox.json")).unwrap()).unwrap();
    file["entries"].as_array().unwrap().iter().map(|e| e["message"]["text"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_typed_while_the_host_is_down_are_kept_on_disk_and_sent_once() {
    let machine = Machine::new();
    let mut host = machine.serve(&[]);
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "box", &host.url, &host.token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&id, "connected").await;
    let folder = format!("{}/proj", machine.home_uri());
    let (session, chat, _) = session_with_a_turn(&core, &id, &folder, "hello").await;
    let ops: Arc<Mutex<Vec<Value>>> = Arc::default();
    call_wire(&core, "chat.open", json!({"host": id, "session": session}), Some(recording_sink(ops.clone())))
        .await
        .unwrap();

    // The host goes down; two messages are typed: both kept on disk and shown as not sent yet.
    host.kill9();
    app.state(&id, "reconnecting").await;
    for text in ["typed offline 1", "typed offline 2"] {
        let sent = call(&core, "chat.send", json!({"host": id, "chat": chat, "text": text})).await.unwrap();
        assert!(sent["held"].is_string(), "{sent}");
    }
    let unknown = call(&core, "chat.send", json!({"host": "no-such-host", "chat": chat, "text": "lost?"})).await;
    assert!(unknown.unwrap_err().contains("not found"), "a host the app does not know is an error, not a wait");
    let queued = call(&core, "chat.queue", json!({"host": id, "chat": chat, "text": "queued offline"})).await.unwrap();
    assert!(queued["clientSeq"].is_null() && queued["id"].is_string(), "kept, not dispatched: {queued}");
    assert_eq!(
        outbox_texts(cfg.path()),
        ["typed offline 1", "typed offline 2", "queued offline"],
        "on disk before the answer"
    );
    until("the chat lists both as unsent", || {
        let ops = ops.lock().unwrap();
        let last = ops.iter().rev().find_map(|op| op.to_string().contains("\"unsent\"").then(|| op.to_string()))?;
        (last.contains("typed offline 1") && last.contains("typed offline 2")).then_some(())
    })
    .await;

    // Back: sent once each, in order, and the outbox is empty.
    host = machine.serve(&[]);
    app.state(&id, "connected").await;
    let turns = finished_turns(&core, &id, &chat, 4).await;
    assert_eq!(turns, ["hello", "typed offline 1", "typed offline 2", "queued offline"]);
    until("the outbox emptied", || outbox_texts(cfg.path()).is_empty().then_some(())).await;

    // Another restart of the host sends nothing again.
    host.kill9();
    app.state(&id, "reconnecting").await;
    let _host = machine.serve(&[]);
    app.state(&id, "connected").await;
    call(&core, "chat.send", json!({"host": id, "chat": chat, "text": "later"})).await.unwrap();
    let turns = finished_turns(&core, &id, &chat, 5).await;
    assert_eq!(turns, ["hello", "typed offline 1", "typed offline 2", "queued offline", "later"], "nothing sent twice");

    // The app restarted with an outbox on disk: an entry the chat already
    // holds (its turn id is there) is dropped, the other is sent once.
    let hello_turn = core.chat_state(&HostId::new(id.as_str()), &chat).unwrap().turns[0].id.clone();
    let cfg2 = tempfile::tempdir().unwrap();
    let id2 = save(cfg2.path(), "box", &_host.url, &_host.token, None);
    let mut outbox = hangar_desktop::outbox::Outbox::open(cfg2.path());
    let entry = |id: &str, turn_id: &str, text: &str| hangar_desktop::outbox::OutboxEntry {
        id: id.into(),
        turn_id: turn_id.into(),
        host: id2.clone(),
        chat: chat.clone(),
        message: serde_json::from_value(json!({"text": text, "origin": {"kind": "user"}})).unwrap(),
    };
    outbox.add(entry("old", &hello_turn, "already delivered")).unwrap();
    outbox.add(entry("new", "turn-from-disk", "from disk")).unwrap();
    let (core2, app2) = desktop(cfg2.path()).await;
    app2.state(&id2, "connected").await;
    until("the outbox of the restarted app emptied", || outbox_texts(cfg2.path()).is_empty().then_some(())).await;
    let turns = finished_turns(&core2, &id2, &chat, 6).await;
    assert_eq!(turns, ["hello", "typed offline 1", "typed offline 2", "queued offline", "later", "from disk"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_back_from_a_restart_says_which_sessions_resumed_and_which_need_you() {
    let machine = Machine::new();
    let slow_script = machine.home.join("slow.json");
    std::fs::write(&slow_script, json!({"turns": [[{"sleep": 600000}, {"end": "end_turn"}]]}).to_string()).unwrap();
    let slow = format!("slow={} --script {}", fake_agent_bin().display(), slow_script.display());
    let mut host = machine.serve(&["--agent", &slow]);
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "box", &host.url, &host.token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&id, "connected").await;
    let folder = format!("{}/proj", machine.home_uri());
    let (done, _, _) = session_with_a_turn(&core, &id, &folder, "hello").await;
    let created = call(&core, "session.create", json!({"host": id, "agent": "slow", "folder": folder})).await.unwrap();
    let cut = created["session"].as_str().unwrap().to_owned();
    let opened = call_wire(&core, "chat.open", json!({"host": id, "session": cut}), Some(Snapshots::default().sink()));
    let chat = serde_json::to_value(opened.await.unwrap()).unwrap()["chat"].as_str().unwrap().to_owned();
    call(&core, "chat.send", json!({"host": id, "chat": chat, "text": "take your time"})).await.unwrap();
    until("the slow turn running", || {
        app.rows_of(&id).into_iter().find(|r| r["uri"] == cut.as_str() && r["status"] == "working")
    })
    .await;
    assert!(app.host(&id).unwrap()["back"].is_null(), "no report before any return");

    host.kill9();
    app.state(&id, "reconnecting").await;
    let _host = machine.serve(&["--agent", &slow]);
    app.state(&id, "connected").await;
    let back = until("the return report", || app.host(&id).map(|h| h["back"].clone()).filter(|b| !b.is_null())).await;
    let uris = |list: &Value| {
        list.as_array().unwrap().iter().map(|s| s["uri"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    assert_eq!(uris(&back["resumed"]), [done], "{back}");
    assert_eq!(uris(&back["needYou"]), [cut], "the turn cut off by the restart needs the person: {back}");
    assert_eq!(back["needYou"][0]["status"], "error", "{back}");

    call(&core, "host.dismissReport", json!({"host": id})).await.unwrap();
    until("the report dismissed", || app.host(&id).filter(|h| h["back"].is_null())).await;
}

/// An agent that asks to run a tool before answering.
fn asking_agent(dir: &Path) -> String {
    let ask = json!({"request": {"method": "session/request_permission", "params": {"sessionId": "$SID",
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "reject", "name": "Reject", "kind": "reject_once"}],
        "toolCall": {"toolCallId": "ask-1", "title": "Run ls", "kind": "execute"}}},
        "then": {"*": [{"chunk": "answered"}]}});
    let script = dir.join("ask.json");
    std::fs::write(&script, json!({"turns": [[ask, {"end": "end_turn"}]]}).to_string()).unwrap();
    format!("ask={} --script {}", fake_agent_bin().display(), script.display())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_inbox_for_every_host_and_each_answer_goes_to_its_host() {
    let (m1, m2) = (Machine::new(), Machine::new());
    let (a1, a2) = (asking_agent(&m1.home), asking_agent(&m2.home));
    let (h1, h2) = (m1.serve(&["--agent", &a1]), m2.serve(&["--agent", &a2]));
    let cfg = tempfile::tempdir().unwrap();
    let id1 = save(cfg.path(), "one", &h1.url, &h1.token, None);
    let id2 = save(cfg.path(), "two", &h2.url, &h2.token, None);
    let (core, app) = desktop(cfg.path()).await;
    let mut chats = Vec::new();
    for (id, machine) in [(&id1, &m1), (&id2, &m2)] {
        app.state(id, "connected").await;
        let folder = format!("{}/proj", machine.home_uri());
        let created =
            call(&core, "session.create", json!({"host": id, "agent": "ask", "folder": folder})).await.unwrap();
        let session = created["session"].as_str().unwrap().to_owned();
        let opened =
            call_wire(&core, "chat.open", json!({"host": id, "session": session}), Some(Snapshots::default().sink()));
        let chat = serde_json::to_value(opened.await.unwrap()).unwrap()["chat"].as_str().unwrap().to_owned();
        call(&core, "chat.send", json!({"host": id, "chat": chat, "text": format!("ask on {id}")})).await.unwrap();
        chats.push((id.clone(), chat));
    }
    let inbox = until("both confirmations in the one inbox", || {
        let inbox = app.0.lock().unwrap().2.clone();
        (inbox.len() == 2).then_some(inbox)
    })
    .await;
    for (id, chat) in &chats {
        let item =
            inbox.iter().find(|i| i["host"] == id.as_str()).unwrap_or_else(|| panic!("no item of {id}: {inbox:?}"));
        assert_eq!(item["chat"], chat.as_str(), "the item names its host's chat");
        assert_eq!(item["confirmation"], true, "a tool call: Allow and Deny in the inbox");
        // Answered from the inbox item alone, as its Allow button does.
        let confirm = json!({"host": item["host"], "chat": item["chat"], "turnId": item["turnId"],
            "toolCallId": item["toolCallId"], "approved": true, "optionId": "allow"});
        call(&core, "chat.confirm", confirm).await.unwrap();
    }
    for (id, chat) in &chats {
        assert_eq!(finished_turns(&core, id, chat, 1).await, [format!("ask on {id}")], "{id} went on after its answer");
    }
    until("the inbox emptied", || app.0.lock().unwrap().2.is_empty().then_some(())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_customization_file_on_a_remote_host_is_edited_there_and_a_stale_save_is_refused() {
    let machine = Machine::new();
    let agents = machine.home.join("proj/.claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    let original = "---\nname: reviewer\ndescription: Reviews\n---\nBody.\n";
    std::fs::write(agents.join("reviewer.md"), original).unwrap();
    let host = machine.serve(&[]);
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "box", &host.url, &host.token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&id, "connected").await;
    let folder = format!("{}/proj", machine.home_uri());
    let created = call(&core, "session.create", json!({"host": id, "agent": "fake", "folder": folder})).await.unwrap();
    let session = created["session"].as_str().unwrap().to_owned();
    let uri = format!("{folder}/.claude/agents/reviewer.md");
    let file = json!({"host": id, "session": session, "uri": uri});
    let read = call(&core, "customizations.read", file.clone()).await.unwrap();
    assert_eq!(read["text"], original);
    let etag = read["etag"].clone();
    assert!(etag.is_string(), "{read}");

    // Saved over the version read: the remote machine's file changes.
    let edited = original.replace("Reviews", "Reviews kindly");
    let save_args = |text: &str, etag: &Value, create: bool| json!({"host": id, "session": session, "uri": uri, "text": text, "etag": etag, "create": create});
    let saved = call(&core, "customizations.save", save_args(&edited, &etag, false)).await.unwrap();
    assert_eq!(saved["outcome"], "saved", "{saved}");
    assert_eq!(std::fs::read_to_string(agents.join("reviewer.md")).unwrap(), edited);
    // A save from the old version is refused, with the disk's text, and writes nothing.
    let stale = call(&core, "customizations.save", save_args("mine\n", &etag, false)).await.unwrap();
    assert_eq!((stale["outcome"].as_str(), stale["disk"].as_str()), (Some("conflict"), Some(edited.as_str())));
    assert_eq!(std::fs::read_to_string(agents.join("reviewer.md")).unwrap(), edited);

    // A new file is created there; the same name again is refused.
    let helper = json!({"host": id, "session": session, "uri": format!("{folder}/.claude/agents/helper.md"),
        "text": "---\nname: helper\n---\n", "etag": null, "create": true});
    let made = call(&core, "customizations.save", helper.clone()).await.unwrap();
    assert_eq!(made["outcome"], "saved", "{made}");
    assert!(agents.join("helper.md").is_file());
    let again = call(&core, "customizations.save", helper).await.unwrap();
    assert_eq!(again["outcome"], "exists");
}

#[tokio::test]
async fn a_remote_hosts_hook_is_tried_there_its_agent_restarted_and_its_home_listed() {
    let machine = Machine::new();
    std::fs::create_dir_all(machine.home.join("proj")).unwrap();
    // A user-level MCP server under the remote machine's home.
    let home_servers = json!({"mcpServers": {"homeserver": {"command": "home-mcp"}}});
    std::fs::write(machine.home.join(".claude.json"), home_servers.to_string()).unwrap();
    let host = machine.serve(&[]);
    let cfg = tempfile::tempdir().unwrap();
    let id = save(cfg.path(), "box", &host.url, &host.token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&id, "connected").await;
    let folder = format!("{}/proj", machine.home_uri());
    let created = call(&core, "session.create", json!({"host": id, "agent": "fake", "folder": folder})).await.unwrap();
    let session = created["session"].as_str().unwrap().to_owned();

    // The hook runs on the remote machine, in the session's folder, with the event on stdin.
    let hook = json!({"host": id, "session": session, "timeoutSecs": 10,
        "command": "grep -q rm && { pwd; echo 'no rm here' >&2; exit 2; }", "input": "{\"tool_input\":{\"command\":\"rm -rf x\"}}"});
    let ran = call(&core, "customizations.testHook", hook).await.unwrap();
    assert_eq!(ran["exitCode"], 2, "{ran}");
    assert_eq!(ran["stdout"].as_str().map(str::trim), Some(machine.home.join("proj").to_str().unwrap()));
    assert_eq!(ran["stderr"].as_str().map(str::trim), Some("no rm here"));

    // The host's own customizations under home, with no session.
    let listed = call(&core, "host.customizations", json!({"host": id})).await.unwrap();
    let fake = listed["agents"].as_array().unwrap().iter().find(|a| a["agent"] == "fake").expect("the fake agent");
    let containers = fake["view"]["containers"].as_array().unwrap();
    assert!(containers.iter().any(|c| c["item"]["name"] == "homeserver"), "{listed}");

    // Restart agent: answered by the remote host, the session goes on.
    let restarted = call(&core, "session.restartAgent", json!({"host": id, "session": session})).await.unwrap();
    assert!(restarted["stopped"].is_boolean(), "{restarted}");
}

/// A fake-agent turn asking to run `npm test -- --watch` (Claude's `Bash`
/// shape), going on when allowed.
fn asks_to_run_npm_test() -> Value {
    json!([
        {"request": {"method": "session/request_permission", "params": {"sessionId": "$SID",
            "options": [{"optionId": "once", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "no", "name": "Reject", "kind": "reject_once"}],
            "toolCall": {"toolCallId": "run-1", "title": "npm test -- --watch", "kind": "execute",
                         "rawInput": {"command": "npm test -- --watch"}}}},
         "then": {"once": [{"chunk": "ran"}], "*": [{"chunk": "told $RESULT"}]}},
        {"end": "end_turn"}
    ])
}

/// The tool-call views named `id` in `ops` (any depth) that `pick` takes.
fn tool_call_views(ops: &[Value], id: &str, pick: &dyn Fn(&Value) -> bool) -> Vec<Value> {
    fn walk(v: &Value, id: &str, pick: &dyn Fn(&Value) -> bool, found: &mut Vec<Value>) {
        match v {
            Value::Object(o) => {
                if o.get("toolCallId").is_some_and(|t| t == id) && pick(v) {
                    found.push(v.clone());
                }
                o.values().for_each(|c| walk(c, id, pick, found));
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, id, pick, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    ops.iter().for_each(|op| walk(op, id, pick, &mut found));
    found
}

/// `rules.*` ask the host named: a rule made from a confirmation's
/// suggestion on one host answers that host's next request (the tool call
/// names the rule), counts a hit, is not on the other host, and goes; a
/// refused rule and a host that is down say why in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_hosts_rules_are_listed_saved_and_deleted_there_and_answer_its_confirmations() {
    let (m1, m2) = (Machine::with_agent(Some(asks_to_run_npm_test())), Machine::new());
    std::fs::create_dir_all(m1.home.join("proj/.claude")).unwrap();
    let claude = json!({"permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]}});
    std::fs::write(m1.home.join("proj/.claude/settings.json"), claude.to_string()).unwrap();
    let (h1, mut h2) = (m1.serve(&[]), m2.serve(&[]));
    let cfg = tempfile::tempdir().unwrap();
    let id1 = save(cfg.path(), "one", &h1.url, &h1.token, None);
    let id2 = save(cfg.path(), "two", &h2.url, &h2.token, None);
    let (core, app) = desktop(cfg.path()).await;
    app.state(&id1, "connected").await;
    app.state(&id2, "connected").await;
    let listed = call(&core, "rules.list", json!({"host": id1})).await.unwrap();
    assert_eq!(listed["rules"], json!([]), "{listed}");
    assert_eq!(listed["agentRules"], json!([]), "no folder: only the host user's own settings: {listed}");
    // The agents' own rules of a folder, with the file each lives in.
    let project = format!("{}/proj", m1.home_uri());
    let listed = call(&core, "rules.list", json!({"host": id1, "folder": project})).await.unwrap();
    let own: Vec<String> = listed["agentRules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r["decision"].as_str().unwrap(), r["rule"].as_str().unwrap(), r["scope"]))
        .collect();
    assert_eq!(own, ["allow Bash(npm test:*) \"project\"", "deny Read(./.env) \"project\""], "{listed}");
    assert!(listed["agentRules"][0]["file"].as_str().unwrap().ends_with("proj/.claude/settings.json"), "{listed}");

    // A rule the host refuses comes back as the host's reason alone.
    let empty = json!({"scope": {"kind": "host"}, "tool": "shell", "pattern": "  ", "decision": "allow"});
    let refused = call(&core, "rules.save", json!({"host": id1, "rule": empty})).await.unwrap_err();
    assert!(refused.contains("empty") && !refused.contains("-32602"), "{refused}");

    // The confirmation offers `npm test`; the rule is saved from it and the
    // confirmation answered with the agent's allow option.
    let folder = format!("{}/proj", m1.home_uri());
    let created = call(&core, "session.create", json!({"host": id1, "agent": "fake", "folder": folder})).await.unwrap();
    let session = created["session"].as_str().unwrap().to_owned();
    let ops = Arc::new(Mutex::new(Vec::new()));
    let opened =
        call_wire(&core, "chat.open", json!({"host": id1, "session": session}), Some(recording_sink(ops.clone())));
    let chat = serde_json::to_value(opened.await.unwrap()).unwrap()["chat"].as_str().unwrap().to_owned();
    call(&core, "chat.send", json!({"host": id1, "chat": chat, "text": "first"})).await.unwrap();
    let pending = until("the confirmation with its suggestion", || {
        let all = ops.lock().unwrap().clone();
        tool_call_views(&all, "run-1", &|v| !v["ruleSuggestion"].is_null()).pop()
    })
    .await;
    assert_eq!(pending["ruleSuggestion"], json!({"tool": "shell", "pattern": "npm test"}), "{pending}");
    let rule = json!({"scope": {"kind": "folder", "uri": folder}, "tool": "shell",
        "pattern": pending["ruleSuggestion"]["pattern"], "decision": "allow"});
    let saved = call(&core, "rules.save", json!({"host": id1, "rule": rule})).await.unwrap();
    let rule_id = saved["id"].as_str().unwrap().to_owned();
    let turn_id =
        until("the pending turn", || core.chat_state(&HostId::new(id1.as_str()), &chat)?.active_turn).await.id;
    let confirm = json!({"host": id1, "chat": chat, "turnId": turn_id, "toolCallId": "run-1", "approved": true,
        "optionId": "once"});
    call(&core, "chat.confirm", confirm).await.unwrap();
    finished_turns(&core, &id1, &chat, 1).await;

    // The next matching request is answered by the rule, and says so.
    call(&core, "chat.send", json!({"host": id1, "chat": chat, "text": "second"})).await.unwrap();
    finished_turns(&core, &id1, &chat, 2).await;
    let answered = until("the tool call naming its rule", || {
        let all = ops.lock().unwrap().clone();
        tool_call_views(&all, "run-1", &|v| !v["rule"].is_null()).pop()
    })
    .await;
    assert_eq!(answered["rule"], rule_id.as_str(), "{answered}");
    let listed = call(&core, "rules.list", json!({"host": id1})).await.unwrap();
    assert_eq!(listed["rules"][0]["id"], rule_id.as_str(), "{listed}");
    assert_eq!(listed["rules"][0]["hits"], 1, "{listed}");
    assert!(listed["rules"][0]["createdBy"].as_str().unwrap().contains("Hangar app"), "{listed}");
    let other = call(&core, "rules.list", json!({"host": id2})).await.unwrap();
    assert_eq!(other["rules"], json!([]), "the other host has its own rules: {other}");

    // Deleted there; an unknown id is the host's reason.
    call(&core, "rules.delete", json!({"host": id1, "id": rule_id})).await.unwrap();
    let listed = call(&core, "rules.list", json!({"host": id1})).await.unwrap();
    assert_eq!(listed["rules"], json!([]), "{listed}");
    let gone = call(&core, "rules.delete", json!({"host": id1, "id": rule_id})).await.unwrap_err();
    assert!(gone.contains(&rule_id), "{gone}");

    // A host that is down says so.
    h2.kill9();
    app.state(&id2, "reconnecting").await;
    let down = call(&core, "rules.list", json!({"host": id2})).await.unwrap_err();
    assert!(down.contains("two is not connected"), "{down}");
}
