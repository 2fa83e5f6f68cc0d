//! `x-hangar/search` against a real `hangar serve`: every word must match,
//! the last word is a prefix, quoted phrases, accents and case ignored,
//! best first then newest, `«»` snippets, `turnId` (null for a title),
//! limit/cursor paging, `-32602` errors, the `sessions` and `archived`
//! filters; findable as soon as a turn ends (the agent's markdown and tool
//! titles too), after a restart, after `kill -9`, after the index is
//! dropped (rebuilt at start) and after `hangar reindex`; a disposed
//! session's turns gone. And the automatic title, which an agent's title
//! replaces and a person's rename outlives.

use std::time::Duration;

use hangar_e2e::acp::{AgentCmd, Rig};
use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};

const ROOT: &str = "ahp-root://";

fn dispatch(channel: &str, action: Value) -> String {
    json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": channel, "clientSeq": 0, "action": action}}).to_string()
}

async fn wait_env(raw: &mut RawClient, pred: impl Fn(&Value) -> bool) {
    loop {
        let msg = raw.next_json().await.expect("open");
        if msg["method"] == "action" && pred(&msg["params"]) {
            assert!(msg["params"]["rejectionReason"].is_null(), "{msg}");
            return;
        }
    }
}

/// `query`'s items once `done` holds for them, asking again for up to 5 s:
/// a session's index row (its title document, its archived flag) is
/// committed just after the action that changed it is published, so a
/// search right after the action's echo may not see it yet.
async fn items_once(raw: &mut RawClient, params: Value, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    for _ in 0..100 {
        let r = search(raw, params.clone()).await;
        let found = r["result"]["items"].as_array().cloned().unwrap_or_default();
        if done(&found) {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{params} never gave the expected items")
}

async fn new_session(raw: &mut RawClient, uri: &str) -> String {
    let r = raw.request(json!("c"), "createSession", json!({"channel": uri})).await;
    assert_eq!(r["result"], Value::Null, "{r}");
    let s = raw.request(json!("s"), "subscribe", json!({"channel": uri})).await;
    let state = &s["result"]["snapshot"]["state"];
    if state["lifecycle"] != "ready" {
        wait_env(raw, |e| e["channel"] == uri && e["action"]["type"] == "session/ready").await;
    }
    let chat = state["defaultChat"].as_str().unwrap().to_owned();
    raw.request(json!("sc"), "subscribe", json!({"channel": chat})).await;
    chat
}

/// A turn with `text` as its message, ended (cancelled) at once.
async fn turn(raw: &mut RawClient, chat: &str, id: &str, text: &str) {
    let started = json!({"type": "chat/turnStarted", "turnId": id, "startedAt": hangar_e2e::actions::now(),
                         "message": {"text": text, "origin": {"kind": "user"}}});
    raw.send_text(dispatch(chat, started)).await;
    raw.send_text(dispatch(chat, json!({"type": "chat/turnCancelled", "turnId": id, "duration": 1}))).await;
    wait_env(raw, |e| {
        e["channel"] == chat && e["action"]["type"] == "chat/turnCancelled" && e["action"]["turnId"] == id
    })
    .await;
    // Distinct start times, so "newest first" has something to order.
    tokio::time::sleep(Duration::from_millis(3)).await;
}

async fn search(raw: &mut RawClient, params: Value) -> Value {
    raw.request(json!("q"), "x-hangar/search", params).await
}

async fn items(raw: &mut RawClient, query: &str) -> Vec<Value> {
    let r = search(raw, json!({"query": query})).await;
    r["result"]["items"].as_array().unwrap_or_else(|| panic!("{query:?}: {r}")).clone()
}

/// The turns found, in order (title matches left out).
fn turn_ids(items: &[Value]) -> Vec<String> {
    items.iter().filter_map(|i| i["turnId"].as_str().map(str::to_owned)).collect()
}

/// The sessions whose title matched, in order.
fn title_hits(items: &[Value]) -> Vec<String> {
    items.iter().filter(|i| i["turnId"].is_null()).map(|i| i["session"].as_str().unwrap().to_owned()).collect()
}

async fn list_titles(raw: &mut RawClient) -> Vec<(String, String)> {
    let r = raw.request(json!("l"), "listSessions", json!({"channel": ROOT})).await;
    r["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["resource"].as_str().unwrap().to_owned(), s["title"].as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
async fn the_search_contract_holds() {
    let host = TestHost::start(Launch::Process(&[]), &[]);
    let mut raw = RawClient::initialized(&host, "searcher").await;
    let a = new_session(&mut raw, "ahp-session:/a").await;
    let b = new_session(&mut raw, "ahp-session:/b").await;
    let c = new_session(&mut raw, "ahp-session:/c").await;
    turn(&mut raw, &a, "a1", "The quokka jumped over the fence").await;
    turn(&mut raw, &a, "a2", "Crème brûlée for dinner").await;
    turn(&mut raw, &b, "b1", "a red panda met a QUOKKAS crowd").await;
    turn(&mut raw, &b, "b2", "panda, red and sleepy").await;
    turn(&mut raw, &c, "c1", "quokka quokka quokka").await;

    // Prefix on the last word; case ignored; best first (bm25).
    let found = items(&mut raw, "quok").await;
    assert_eq!(found[0]["session"], "ahp-session:/c", "the densest match first: {found:?}");
    assert_eq!(turn_ids(&found)[0], "c1", "the densest match first: {found:?}");
    let mut ids = turn_ids(&found);
    ids.sort();
    assert_eq!(ids, ["a1", "b1", "c1"]);
    // Each first message titled its session, and each title has a quokka too.
    let mut titled = title_hits(&found);
    titled.sort();
    assert_eq!(titled, ["ahp-session:/a", "ahp-session:/b", "ahp-session:/c"]);
    assert!(found.iter().all(|i| i["score"].as_f64().unwrap() > 0.0));
    for w in found.windows(2) {
        assert!(w[0]["score"].as_f64() >= w[1]["score"].as_f64(), "best first: {found:?}");
    }
    // Every word must match.
    assert_eq!(turn_ids(&items(&mut raw, "QUOKKA fence").await), ["a1"]);
    assert!(items(&mut raw, "quokka dinner").await.is_empty());
    // Accents ignored both ways.
    assert_eq!(turn_ids(&items(&mut raw, "creme brulee").await), ["a2"]);
    assert_eq!(turn_ids(&items(&mut raw, "DÎNNER").await), ["a2"]);
    // A quoted phrase is a phrase; unquoted, the words in any order.
    assert_eq!(turn_ids(&items(&mut raw, "\"red panda\"").await), ["b1"]);
    let mut both = turn_ids(&items(&mut raw, "red panda").await);
    both.sort();
    assert_eq!(both, ["b1", "b2"]);

    // The item's shape and snippet.
    let fence = items(&mut raw, "fence").await;
    let hit = fence.iter().find(|i| i["turnId"] == "a1").unwrap();
    assert_eq!(hit["session"], "ahp-session:/a");
    assert_eq!(hit["chat"], a.as_str());
    assert_eq!(hit["turnId"], "a1");
    assert!(hit["snippet"].as_str().unwrap().contains("«fence»"), "{hit}");
    assert!(hit["at"].as_str().unwrap().ends_with('Z'), "{hit}");
    // The first message titled the session (auto title).
    assert_eq!(hit["title"], "The quokka jumped over the fence");

    // Newest first among equals.
    let d = new_session(&mut raw, "ahp-session:/d").await;
    turn(&mut raw, &d, "old", "identical wording here").await;
    turn(&mut raw, &d, "new", "identical wording here").await;
    assert_eq!(turn_ids(&items(&mut raw, "identical wording").await), ["new", "old"]);

    // A title match: turnId null, found as soon as the title changes.
    raw.send_text(dispatch("ahp-session:/c", json!({"type": "session/titleChanged", "title": "Zebra migration plan"})))
        .await;
    wait_env(&mut raw, |e| e["action"]["title"] == "Zebra migration plan").await;
    let zebra = items_once(&mut raw, json!({"query": "zebra"}), |found| !found.is_empty()).await;
    assert!(
        !title_hits(&items(&mut raw, "quokka").await).contains(&"ahp-session:/c".to_owned()),
        "the old title is gone"
    );
    assert_eq!(zebra.len(), 1, "{zebra:?}");
    assert_eq!(zebra[0]["turnId"], Value::Null);
    assert_eq!(zebra[0]["session"], "ahp-session:/c");
    assert_eq!(zebra[0]["title"], "Zebra migration plan");
    assert_eq!(zebra[0]["snippet"], "«Zebra» migration plan");
    // Paging: limit and cursor.
    let e = new_session(&mut raw, "ahp-session:/e").await;
    for i in 0..25 {
        turn(&mut raw, &e, &format!("w{i}"), &format!("wombat number {i}")).await;
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut params = json!({"query": "wombat", "limit": 10});
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let r = search(&mut raw, params).await;
        let page = r["result"]["items"].as_array().unwrap().clone();
        pages += 1;
        seen.extend(turn_ids(&page));
        match r["result"]["nextCursor"].as_str() {
            Some(next) => {
                assert_eq!(page.len(), 10);
                cursor = Some(next.to_owned());
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 25);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 25, "no result twice across pages");
    assert_eq!(items(&mut raw, "wombat").await.len(), 20, "limit defaults to 20");
    let r = search(&mut raw, json!({"query": "wombat", "limit": 200})).await;
    assert_eq!(r["result"]["items"].as_array().unwrap().len(), 26, "25 turns and e's title");
    assert!(r["result"].get("nextCursor").is_none());

    // Errors: -32602 with the reason.
    let first_cursor = {
        let r = search(&mut raw, json!({"query": "wombat", "limit": 5})).await;
        r["result"]["nextCursor"].as_str().unwrap().to_owned()
    };
    for (params, reason) in [
        (json!({"query": ""}), "empty"),
        (json!({"query": "   "}), "empty"),
        (json!({"query": "- * :"}), "no letters"),
        (json!({"query": "x", "limit": 0}), "limit"),
        (json!({"query": "x", "limit": 201}), "limit"),
        (json!({"query": "x", "cursor": "not-a-cursor"}), "cursor"),
        (json!({"query": "quokka", "cursor": first_cursor}), "another search"),
    ] {
        let r = search(&mut raw, params.clone()).await;
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains(reason), "{params}: {message}");
    }
    // Hostile input is words, never FTS5 syntax.
    for q in
        ["\"", "quokka\"", "NEAR(quokka fence)", "-quokka", "body:quokka", "quokka OR", "a) OR (b", "*quokka*", "^"]
    {
        let r = search(&mut raw, json!({"query": q})).await;
        assert!(r.get("result").is_some() || r["error"]["code"] == -32602, "{q:?}: {r}");
    }
    // As operators these would find a1 and a2, or everything but a2.
    assert!(items(&mut raw, "fence OR dinner").await.is_empty(), "OR is a word to find");
    assert_eq!(turn_ids(&items(&mut raw, "-dinner").await), ["a2"], "- is not NOT");
    assert!(items(&mut raw, "body:fence").await.is_empty(), "the words body and fence, not a column filter");

    // Filters: sessions, archived.
    let r = search(&mut raw, json!({"query": "quokka", "sessions": ["ahp-session:/a", "ahp-session:/b"]})).await;
    let mut ids = turn_ids(r["result"]["items"].as_array().unwrap());
    ids.sort();
    assert_eq!(ids, ["a1", "b1"]);
    raw.send_text(dispatch("ahp-session:/b", json!({"type": "session/isArchivedChanged", "isArchived": true}))).await;
    wait_env(&mut raw, |e| e["action"]["type"] == "session/isArchivedChanged").await;
    let archived = items_once(&mut raw, json!({"query": "quokka", "archived": true}), |f| !f.is_empty()).await;
    assert_eq!(turn_ids(&archived), ["b1"]);
    let r = search(&mut raw, json!({"query": "quokka", "archived": false})).await;
    let mut ids = turn_ids(r["result"]["items"].as_array().unwrap());
    ids.sort();
    assert_eq!(ids, ["a1", "c1"]);

    // A disposed session's turns are gone.
    let r = raw.request(json!("x"), "disposeSession", json!({"channel": "ahp-session:/a"})).await;
    assert!(r.get("error").is_none(), "{r}");
    assert!(items(&mut raw, "fence").await.is_empty());
    assert!(!turn_ids(&items(&mut raw, "quokka").await).contains(&"a1".to_owned()));
}

/// The index file gone (it is rebuilt from the store at start).
fn drop_index(data_dir: &std::path::Path) {
    for name in ["search.db", "search.db-wal", "search.db-shm"] {
        let path = data_dir.join(name);
        if path.exists() {
            std::fs::remove_file(path).unwrap();
        }
    }
    assert!(!data_dir.join("search.db").exists());
}

#[tokio::test]
async fn found_after_restart_kill_9_a_dropped_index_and_reindex() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "durable-search").await;
    let chat = new_session(&mut raw, "ahp-session:/k").await;
    turn(&mut raw, &chat, "k1", "the capybara survived a restart").await;
    assert!(host.sigterm().success());

    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "after-restart").await;
    assert_eq!(turn_ids(&items(&mut raw, "capybara").await), ["k1"]);
    raw.request(json!("sc"), "subscribe", json!({"channel": chat})).await;
    // Found right after the turn ended, then the host killed.
    turn(&mut raw, &chat, "k2", "the narwhal survived kill -9").await;
    assert_eq!(turn_ids(&items(&mut raw, "narwhal").await), ["k2"], "findable as soon as the turn ended");
    host.kill9();

    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "after-kill").await;
    assert_eq!(turn_ids(&items(&mut raw, "narwhal").await), ["k2"]);
    assert_eq!(turn_ids(&items(&mut raw, "capybara").await), ["k1"]);
    assert!(host.sigterm().success());

    // The index dropped: rebuilt at start, nothing lost.
    drop_index(dir.path());
    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "after-drop").await;
    let mut ids = turn_ids(&items(&mut raw, "survived").await);
    ids.sort();
    assert_eq!(ids, ["k1", "k2"]);
    assert_eq!(turn_ids(&items(&mut raw, "capybara restart").await), ["k1"]);
    assert!(host.sigterm().success());

    // `hangar reindex --data-dir D`, and refused while a host serves D.
    drop_index(dir.path());
    let out = std::process::Command::new(hangar_e2e::hangar_bin())
        .args(["reindex", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 turns"), "{}", String::from_utf8_lossy(&out.stdout));
    let db = rusqlite::Connection::open(dir.path().join("search.db")).unwrap();
    let n: i64 =
        db.query_row("SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH 'narwhal'", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
    drop(db);
    let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let busy = std::process::Command::new(hangar_e2e::hangar_bin())
        .args(["reindex", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!busy.status.success());
    assert!(String::from_utf8_lossy(&busy.stderr).contains("stop it first"));
    drop(host);
}

#[tokio::test]
async fn agent_text_is_found_and_titles_follow_the_rules() {
    let script = json!({ "turns": [
        [ { "chunk": "The axolotl regrows its limbs." },
          { "update": { "sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read pangolin notes", "kind": "read", "status": "completed" } },
          { "end": "end_turn" } ],
        [ { "update": { "sessionUpdate": "session_info_update", "title": "Agent says: axolotl facts" } },
          { "chunk": "ok" }, { "end": "end_turn" } ],
        [ { "update": { "sessionUpdate": "session_info_update", "title": "Agent tries again" } },
          { "chunk": "ok" }, { "end": "end_turn" } ]
    ]});
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let mut raw = RawClient::initialized(&rig.host, "agent-search").await;
    raw.request(json!("s"), "subscribe", json!({"channel": rig.session})).await;
    let long = format!(
        "{} tail\nsecond line",
        "Tell me about axolotls and their remarkable regeneration abilities in the wild today"
    );
    let t1 = rig.send(&long).await;
    // The automatic title, as soon as the message is sent.
    let auto = "Tell me about axolotls and their remarkable regeneration abilities in the wild";
    wait_env(&mut raw, |e| e["action"]["type"] == "session/titleChanged" && e["action"]["title"] == auto).await;
    assert_eq!(rig.wait_end(&t1).await, "chat/turnComplete");
    // Findable at once: the agent's markdown, the tool call's title.
    let hit = &items(&mut raw, "regrows limbs").await[0];
    assert_eq!(hit["turnId"], t1.as_str());
    assert!(hit["snippet"].as_str().unwrap().contains("«regrows»"), "{hit}");
    assert_eq!(turn_ids(&items(&mut raw, "pangolin").await), std::slice::from_ref(&t1));
    assert_eq!(hit["title"], auto);

    // The agent's title replaces the automatic one.
    let t2 = rig.send("more").await;
    rig.wait_end(&t2).await;
    let titles = list_titles(&mut raw).await;
    assert_eq!(titles, [(rig.session.clone(), "Agent says: axolotl facts".to_owned())]);
    assert_eq!(items(&mut raw, "agent says").await[0]["turnId"], Value::Null);

    // A person's rename is never overwritten by the agent.
    raw.send_text(dispatch(&rig.session, json!({"type": "session/titleChanged", "title": "My axolotl notes"}))).await;
    wait_env(&mut raw, |e| e["action"]["title"] == "My axolotl notes").await;
    let t3 = rig.send("again").await;
    rig.wait_end(&t3).await;
    let titles = list_titles(&mut raw).await;
    assert_eq!(titles, [(rig.session.clone(), "My axolotl notes".to_owned())]);
    assert!(items(&mut raw, "tries again").await.is_empty(), "the agent's refused title is not indexed");
}
