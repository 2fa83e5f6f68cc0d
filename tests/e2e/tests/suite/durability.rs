//! `kill -9` and restart on the same data directory lose nothing: sessions,
//! titles, flags, completed turns; `serverSeq` keeps increasing; a turn cut
//! off mid-way comes back as an error with what it had; long chats come back
//! as a tail plus a cursor, paged with `fetchTurns`; a dropped in-process
//! host has released its data directory when the drop returns.

use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};

const ROOT: &str = "ahp-root://";

fn dispatch(channel: &str, seq: i64, action: Value) -> String {
    json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": channel, "clientSeq": seq, "action": action}}).to_string()
}

fn turn_started(id: &str, text: &str) -> Value {
    json!({"type": "chat/turnStarted", "turnId": id, "startedAt": hangar_e2e::actions::now(),
           "message": {"text": text, "origin": {"kind": "user"}}})
}

/// Wait for an envelope on `channel` matching `pred`; returns its seq.
async fn wait_env(raw: &mut RawClient, pred: impl Fn(&Value) -> bool) -> i64 {
    loop {
        let msg = raw.next_json().await.expect("open");
        if msg["method"] == "action" && pred(&msg["params"]) {
            assert!(msg["params"]["rejectionReason"].is_null(), "{msg}");
            return msg["params"]["serverSeq"].as_i64().unwrap();
        }
    }
}

async fn new_session(raw: &mut RawClient, id: i64, uri: &str) -> String {
    let r = raw.request(json!(id), "createSession", json!({"channel": uri})).await;
    assert_eq!(r["result"], Value::Null, "{r}");
    let s = raw.request(json!(id + 1000), "subscribe", json!({"channel": uri})).await;
    let state = &s["result"]["snapshot"]["state"];
    if state["lifecycle"] != "ready" {
        wait_env(raw, |e| e["channel"] == uri && e["action"]["type"] == "session/ready").await;
    }
    state["defaultChat"].as_str().unwrap().to_owned()
}

/// Start and cancel `n` turns on `chat`.
async fn completed_turns(raw: &mut RawClient, chat: &str, prefix: &str, n: usize) -> i64 {
    let mut last = 0;
    for i in 0..n {
        let id = format!("{prefix}-{i}");
        raw.send_text(dispatch(chat, 0, turn_started(&id, &format!("message {i}")))).await;
        raw.send_text(dispatch(chat, 0, json!({"type": "chat/turnCancelled", "turnId": id, "duration": 3}))).await;
        last = wait_env(raw, |e| {
            e["channel"] == chat && e["action"]["type"] == "chat/turnCancelled" && e["action"]["turnId"] == id.as_str()
        })
        .await;
    }
    last
}

#[tokio::test]
async fn kill_9_then_restart_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "durable").await;
    let chat1 = new_session(&mut raw, 2, "ahp-session:/d1").await;
    let _chat2 = new_session(&mut raw, 3, "ahp-session:/d2").await;
    let chat3 = new_session(&mut raw, 4, "ahp-session:/d3").await;
    raw.request(json!(5), "subscribe", json!({"channel": chat1})).await;
    raw.request(json!(6), "subscribe", json!({"channel": chat3})).await;
    completed_turns(&mut raw, &chat1, "a", 3).await;
    raw.send_text(dispatch(
        "ahp-session:/d1",
        0,
        json!({"type": "session/titleChanged", "title": "Fix the flaky test"}),
    ))
    .await;
    raw.send_text(dispatch("ahp-session:/d2", 0, json!({"type": "session/isArchivedChanged", "isArchived": true})))
        .await;
    raw.send_text(dispatch("ahp-session:/d1", 0, json!({"type": "session/isReadChanged", "isRead": true}))).await;
    raw.send_text(dispatch(
        &chat3,
        0,
        json!({"type": "chat/draftChanged", "draft": {"text": "half a thought", "origin": {"kind": "user"}}}),
    ))
    .await;
    // A turn that is still running when the host dies.
    raw.send_text(dispatch(&chat3, 0, turn_started("interrupted", "long task"))).await;
    let last_seq =
        wait_env(&mut raw, |e| e["channel"] == chat3.as_str() && e["action"]["type"] == "chat/turnStarted").await;

    let before = raw.request(json!(7), "listSessions", json!({"channel": ROOT})).await["result"]["items"].clone();
    let chat1_before =
        raw.request(json!(8), "subscribe", json!({"channel": chat1})).await["result"]["snapshot"]["state"].clone();
    host.kill9();

    let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::connect(&host.authed_url()).await.unwrap();
    let init = raw
        .request(json!(1), "initialize", json!({"channel": ROOT, "protocolVersions": ["1.0.0"], "clientId": "after"}))
        .await;
    assert!(init["result"]["serverSeq"].as_i64().unwrap() > last_seq, "serverSeq keeps increasing: {init}");

    let after = raw.request(json!(2), "listSessions", json!({"channel": ROOT})).await["result"]["items"].clone();
    let mut titles = after.as_array().unwrap().iter().map(|s| s["title"].as_str().unwrap());
    assert!(titles.any(|t| t == "Fix the flaky test"), "{after}");
    assert_eq!(after.as_array().unwrap().len(), 3);
    let uris = |v: &Value| {
        let mut u: Vec<String> =
            v.as_array().unwrap().iter().map(|s| s["resource"].as_str().unwrap().to_owned()).collect();
        u.sort();
        u
    };
    assert_eq!(uris(&after), uris(&before));
    let d2 = after.as_array().unwrap().iter().find(|s| s["resource"] == "ahp-session:/d2").unwrap();
    assert_ne!(d2["status"].as_u64().unwrap() & 64, 0, "archived flag survived");
    let summary =
        |list: &Value, uri: &str| list.as_array().unwrap().iter().find(|s| s["resource"] == uri).unwrap().clone();
    assert_ne!(summary(&before, "ahp-session:/d1")["status"].as_u64().unwrap() & 32, 0, "d1 was marked read");
    // Sessions untouched by the restart come back exactly (read and archived
    // flags, title, times); d3's interrupted turn changes its summary.
    for uri in ["ahp-session:/d1", "ahp-session:/d2"] {
        assert_eq!(summary(&after, uri), summary(&before, uri), "{uri}'s summary survived kill -9");
    }

    let chat1_after =
        raw.request(json!(3), "subscribe", json!({"channel": chat1})).await["result"]["snapshot"]["state"].clone();
    assert_eq!(chat1_after["turns"], chat1_before["turns"], "completed turns survived exactly");
    assert_eq!(chat1_after["turns"].as_array().unwrap().len(), 3);

    let chat3_after =
        raw.request(json!(4), "subscribe", json!({"channel": chat3})).await["result"]["snapshot"]["state"].clone();
    assert_eq!(chat3_after["draft"]["text"], "half a thought");
    assert!(chat3_after.get("activeTurn").is_none(), "{chat3_after}");
    let last_turn = chat3_after["turns"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last_turn["id"], "interrupted");
    assert_eq!(last_turn["state"], "error");
    assert_eq!(last_turn["message"]["text"], "long task");

    // New actions continue the sequence.
    raw.request(json!(5), "subscribe", json!({"channel": "ahp-session:/d1"})).await;
    raw.send_text(dispatch("ahp-session:/d1", 0, json!({"type": "session/titleChanged", "title": "after restart"})))
        .await;
    let new_seq = wait_env(&mut raw, |e| e["action"]["title"] == "after restart").await;
    assert!(new_seq > last_seq);
}

#[tokio::test]
async fn a_long_chat_restarts_as_a_tail_and_pages_in_with_fetch_turns() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "pager").await;
    let chat = new_session(&mut raw, 2, "ahp-session:/long").await;
    raw.request(json!(3), "subscribe", json!({"channel": chat})).await;
    completed_turns(&mut raw, &chat, "p", 120).await;
    // Live, too, a snapshot is a bounded tail with a cursor.
    let live =
        raw.request(json!(4), "subscribe", json!({"channel": chat})).await["result"]["snapshot"]["state"].clone();
    assert_eq!(live["turns"].as_array().unwrap().len(), 50);
    assert!(live["turnsNextCursor"].is_string());
    let small = raw.request(json!(5), "subscribe", json!({"channel": chat, "view": {"turns": 5}})).await;
    assert_eq!(small["result"]["snapshot"]["state"]["turns"].as_array().unwrap().len(), 5, "view.turns sets the tail");
    let status = host.sigterm();
    assert!(status.success());

    let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "pager-2").await;
    let snap =
        raw.request(json!(2), "subscribe", json!({"channel": chat})).await["result"]["snapshot"]["state"].clone();
    let tail = snap["turns"].as_array().unwrap();
    assert!(tail.len() < 120, "a snapshot is a tail, not the whole history");
    assert_eq!(tail.last().unwrap()["id"], "p-119");
    let mut cursor = snap["turnsNextCursor"].as_str().expect("a cursor for older turns").to_owned();
    let mut loaded = tail.len();

    let bad = raw.request(json!(3), "fetchTurns", json!({"channel": chat, "cursor": "not-a-cursor"})).await;
    assert_eq!(bad["error"]["code"], -32602);

    let mut id = 10;
    loop {
        id += 1;
        raw.send_text(
            json!({"jsonrpc": "2.0", "id": id, "method": "fetchTurns", "params": {"channel": chat, "cursor": cursor}})
                .to_string(),
        )
        .await;
        // chat/turnsLoaded arrives before the response.
        let first = raw.next_json().await.unwrap();
        assert_eq!(first["method"], "action", "turnsLoaded precedes the reply: {first}");
        assert_eq!(first["params"]["action"]["type"], "chat/turnsLoaded");
        let turns = first["params"]["action"]["turns"].as_array().unwrap();
        let expected_last = format!("p-{}", 119 - loaded);
        assert_eq!(turns.last().unwrap()["id"], expected_last.as_str(), "pages are contiguous and in order");
        loaded += turns.len();
        let reply = raw.next_json().await.unwrap();
        assert_eq!(reply["id"], id);
        match first["params"]["action"]["turnsNextCursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
    }
    assert_eq!(loaded, 120);
    // A large view shows every turn: the live tail, the rest read from the store.
    let full = raw.request(json!(99), "subscribe", json!({"channel": chat, "view": {"turns": 1000}})).await["result"]
        ["snapshot"]["state"]
        .clone();
    let ids: Vec<String> =
        full["turns"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap().to_owned()).collect();
    let expected: Vec<String> = (0..120).map(|i| format!("p-{i}")).collect();
    assert_eq!(ids, expected);
    assert!(full.get("turnsNextCursor").is_none());
}

/// The active clients listed in a session snapshot.
async fn active_clients(raw: &mut RawClient, id: i64, session: &str) -> Vec<String> {
    let snap = raw.request(json!(id), "subscribe", json!({"channel": session})).await;
    let clients = snap["result"]["snapshot"]["state"]["activeClients"].as_array().cloned().unwrap_or_default();
    clients.iter().map(|c| c["clientId"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn active_clients_restored_after_kill_9_are_removed_unless_they_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut gone = RawClient::initialized(&host, "gone").await;
    let r = gone
        .request(
            json!(2),
            "createSession",
            json!({"channel": "ahp-session:/owned", "activeClient": {"clientId": "gone", "tools": []}}),
        )
        .await;
    assert_eq!(r["result"], Value::Null, "{r}");
    let mut back = RawClient::initialized(&host, "back").await;
    back.request(json!(2), "subscribe", json!({"channel": "ahp-session:/owned"})).await;
    back.send_text(dispatch(
        "ahp-session:/owned",
        1,
        json!({"type": "session/activeClientSet", "activeClient": {"clientId": "back", "tools": []}}),
    ))
    .await;
    wait_env(&mut back, |e| e["action"]["type"] == "session/activeClientSet").await;
    host.kill9();

    // Both come back from the store; only "back" reconnects within the grace period.
    let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &["--active-client-grace-secs", "5"]);
    let _back = RawClient::initialized(&host, "back").await;
    let mut watcher = RawClient::initialized(&host, "watcher").await;
    let listed = active_clients(&mut watcher, 2, "ahp-session:/owned").await;
    if listed.iter().any(|c| c == "gone") {
        let removed = wait_env(&mut watcher, |e| e["action"]["type"] == "session/activeClientRemoved").await;
        assert!(removed > 0);
    }
    // Both grace periods started together; give the other one time to (wrongly) fire.
    let late = watcher.next_json_within(std::time::Duration::from_secs(2)).await;
    assert!(late.as_ref().is_none_or(|m| m["params"]["action"]["clientId"] != "back"), "{late:?}");
    assert_eq!(active_clients(&mut watcher, 3, "ahp-session:/owned").await, vec!["back".to_owned()]);
}

/// A dropped in-process host has let go of its data directory (lock,
/// database, writer thread), even with a client still connected to it: a
/// host started on the same directory right away opens it.
#[tokio::test]
async fn a_dropped_in_process_host_releases_its_data_dir_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = TestHost::start_in(Launch::InProcess, dir.path(), &[]);
    for round in 0..20 {
        let (client, _) = hangar_e2e::initialized(&host, "still-connected").await;
        drop(host);
        let next = TestHost::try_start_in(Launch::InProcess, dir.path(), &[]);
        drop(client);
        host = next.unwrap_or_else(|e| panic!("round {round}: the data dir was still held: {e}"));
    }
}
