//! Session lifecycle: create (`creating` → `ready`, a default chat,
//! `root/sessionAdded`), duplicates, dispose, paged `listSessions`, summary
//! notifications, and active clients removed after their grace period.

use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};

const ROOT: &str = "ahp-root://";

/// Read messages until one matches; returns it.
async fn until(raw: &mut RawClient, pred: impl Fn(&Value) -> bool) -> Value {
    loop {
        let msg = raw.next_json().await.expect("open");
        if pred(&msg) {
            return msg;
        }
    }
}

#[tokio::test]
async fn create_list_page_and_dispose() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let mut watcher = RawClient::initialized(&host, "watcher").await;
    watcher.request(json!(2), "subscribe", json!({"channel": ROOT})).await;
    let mut raw = RawClient::initialized(&host, "maker").await;

    for i in 0..7 {
        let r = raw.request(json!(10 + i), "createSession", json!({"channel": format!("ahp-session:/s{i}")})).await;
        assert_eq!(r["result"], Value::Null, "{r}");
        let added = until(&mut watcher, |m| m["method"] == "root/sessionAdded").await;
        assert_eq!(added["params"]["summary"]["resource"], format!("ahp-session:/s{i}"));
        assert!(added["params"]["summary"]["defaultChat"].as_str().unwrap().starts_with("ahp-chat:/"));
    }
    let dup = raw.request(json!(30), "createSession", json!({"channel": "ahp-session:/s3"})).await;
    assert_eq!(dup["error"]["code"], -32003);
    let unknown_agent =
        raw.request(json!(31), "createSession", json!({"channel": "ahp-session:/x", "provider": "nope"})).await;
    assert_eq!(unknown_agent["error"]["code"], -32002);
    let not_a_dir = raw
        .request(
            json!(32),
            "createSession",
            json!({"channel": "ahp-session:/y", "workingDirectories": ["file:///definitely/not/here"]}),
        )
        .await;
    assert_eq!(not_a_dir["error"]["code"], -32602);

    // The session starts creating, then is ready, with a default chat.
    let snap = raw.request(json!(33), "subscribe", json!({"channel": "ahp-session:/s6"})).await;
    let state = &snap["result"]["snapshot"]["state"];
    assert_eq!(state["lifecycle"], "ready");
    assert_eq!(state["chats"].as_array().unwrap().len(), 1);

    // Touch s2 so it becomes the most recently modified: start and cancel a turn.
    let chat2 = raw.request(json!(34), "subscribe", json!({"channel": "ahp-session:/s2"})).await["result"]["snapshot"]
        ["state"]["defaultChat"]
        .as_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    raw.send_text(json!({"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":chat2,"clientSeq":1,"action":{
        "type":"chat/turnStarted","turnId":"t","startedAt":hangar_e2e::actions::now(),"message":{"text":"hi","origin":{"kind":"user"}}}}}).to_string()).await;
    let changed = until(&mut watcher, |m| {
        m["method"] == "root/sessionSummaryChanged" && m["params"]["session"] == "ahp-session:/s2"
    })
    .await;
    assert!(changed["params"]["changes"].is_object());

    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for round in 0..10 {
        let mut params = json!({"channel": ROOT, "limit": 3});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let page = raw.request(json!(40 + round), "listSessions", params).await["result"].clone();
        pages.extend(page["items"].as_array().unwrap().iter().map(|s| s["resource"].as_str().unwrap().to_owned()));
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages.len(), 7, "{pages:?}");
    assert_eq!(pages[0], "ahp-session:/s2", "most recently modified first: {pages:?}");
    let mut sorted = pages.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 7, "no session twice across pages");

    let r = raw.request(json!(60), "disposeSession", json!({"channel": "ahp-session:/s4"})).await;
    assert_eq!(r["result"], Value::Null);
    let removed = until(&mut watcher, |m| m["method"] == "root/sessionRemoved").await;
    assert_eq!(removed["params"]["session"], "ahp-session:/s4");
    let again = raw.request(json!(61), "disposeSession", json!({"channel": "ahp-session:/s4"})).await;
    assert_eq!(again["error"]["code"], -32001);
    let gone = raw.request(json!(62), "subscribe", json!({"channel": "ahp-session:/s4"})).await;
    assert!(gone.get("error").is_some());
}

#[tokio::test]
async fn an_active_client_that_leaves_is_removed_after_the_grace_period() {
    let host = TestHost::start(Launch::InProcess, &["--active-client-grace-secs", "0.3"]);
    let mut watcher = RawClient::initialized(&host, "watcher").await;
    let mut leaver = RawClient::initialized(&host, "leaver").await;
    let r = leaver
        .request(
            json!(2),
            "createSession",
            json!({"channel": "ahp-session:/active", "activeClient": {"clientId": "leaver", "tools": []}}),
        )
        .await;
    assert_eq!(r["result"], Value::Null, "{r}");
    let snap = watcher.request(json!(2), "subscribe", json!({"channel": "ahp-session:/active"})).await;
    assert_eq!(snap["result"]["snapshot"]["state"]["activeClients"][0]["clientId"], "leaver");
    drop(leaver);
    let removed = until(&mut watcher, |m| {
        m["method"] == "action" && m["params"]["action"]["type"] == "session/activeClientRemoved"
    })
    .await;
    assert_eq!(removed["params"]["action"]["clientId"], "leaver");

    // A client that comes back within the grace period stays active.
    let mut stayer = RawClient::initialized(&host, "stayer").await;
    stayer
        .send_text(
            json!({"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/active","clientSeq":1,
        "action":{"type":"session/activeClientSet","activeClient":{"clientId":"stayer","tools":[]}}}})
            .to_string(),
        )
        .await;
    until(&mut watcher, |m| m["params"]["action"]["type"] == "session/activeClientSet").await;
    drop(stayer);
    let mut back = RawClient::connect(&host.authed_url()).await.unwrap();
    let r = back
        .request(
            json!(1),
            "reconnect",
            json!({"channel": ROOT, "clientId": "stayer", "lastSeenServerSeq": 0, "subscriptions": []}),
        )
        .await;
    assert!(r.get("result").is_some(), "{r}");
    let late = watcher.next_json_within(std::time::Duration::from_millis(800)).await;
    assert!(late.as_ref().is_none_or(|m| m["params"]["action"]["type"] != "session/activeClientRemoved"), "{late:?}");
}
