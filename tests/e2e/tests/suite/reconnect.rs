//! `reconnect`: exactly the missed envelopes from the replay ring, snapshots
//! when the gap is older than the ring, and gone channels in `missing`.

use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};

const ROOT: &str = "ahp-root://";

async fn create(raw: &mut RawClient, id: i64, uri: &str) {
    let r = raw.request(json!(id), "createSession", json!({"channel": uri})).await;
    assert_eq!(r["result"], Value::Null, "{r}");
}

fn dispatch(channel: &str, seq: i64, action: Value) -> String {
    json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": channel, "clientSeq": seq, "action": action}}).to_string()
}

/// Collect every action envelope B sees until `until` returns true.
async fn collect_until(raw: &mut RawClient, until: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let msg = raw.next_json().await.expect("connection open");
        if msg["method"] == "action" {
            let env = msg["params"].clone();
            let done = until(&env);
            seen.push(env);
            if done {
                return seen;
            }
        }
    }
}

#[tokio::test]
async fn reconnect_replays_exactly_what_was_missed_and_lists_gone_channels() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let keep = "ahp-session:/rc-keep";
    let doomed = "ahp-session:/rc-doomed";

    let mut a = RawClient::initialized(&host, "rc-a").await;
    create(&mut a, 2, keep).await;
    create(&mut a, 3, doomed).await;
    let s1 = a.request(json!(4), "subscribe", json!({"channel": keep})).await;
    let s2 = a.request(json!(5), "subscribe", json!({"channel": doomed})).await;
    let root = a.request(json!(6), "subscribe", json!({"channel": ROOT})).await;
    let last_seen =
        [&s1, &s2, &root].iter().map(|r| r["result"]["snapshot"]["fromSeq"].as_i64().unwrap()).max().unwrap();
    drop(a);

    // While A is away, B changes things on all three channels.
    let mut b = RawClient::initialized(&host, "rc-b").await;
    for (i, ch) in [keep, ROOT].iter().enumerate() {
        let r = b.request(json!(10 + i), "subscribe", json!({"channel": ch})).await;
        assert!(r["result"]["snapshot"]["fromSeq"].as_i64().unwrap() >= last_seen);
    }
    b.send_text(dispatch(keep, 1, json!({"type": "session/titleChanged", "title": "one"}))).await;
    b.send_text(dispatch(keep, 2, json!({"type": "session/titleChanged", "title": "two"}))).await;
    // Sent without waiting for its answer, so no envelope is skipped over.
    b.send_text(
        json!({"jsonrpc": "2.0", "id": 20, "method": "disposeSession", "params": {"channel": doomed}}).to_string(),
    )
    .await;
    b.send_text(dispatch(keep, 3, json!({"type": "session/titleChanged", "title": "three"}))).await;
    let missed = collect_until(&mut b, |env| env["action"]["title"] == "three").await;

    let mut a2 = RawClient::connect(&host.authed_url()).await.unwrap();
    let reply = a2
        .request(
            json!(1),
            "reconnect",
            json!({"channel": ROOT, "clientId": "rc-a", "lastSeenServerSeq": last_seen, "subscriptions": [ROOT, keep, doomed]}),
        )
        .await;
    let result = &reply["result"];
    assert_eq!(result["type"], "replay", "{reply}");
    let replayed: Vec<Value> = result["actions"].as_array().unwrap().clone();
    let expected: Vec<Value> = missed.into_iter().filter(|e| e["serverSeq"].as_i64().unwrap() > last_seen).collect();
    assert_eq!(replayed, expected, "exactly the missed envelopes, in order");
    assert_eq!(result["missing"], json!([doomed]));

    // And A is live again on the channels it kept.
    b.send_text(dispatch(keep, 4, json!({"type": "session/titleChanged", "title": "four"}))).await;
    let live = collect_until(&mut a2, |env| env["action"]["title"] == "four").await;
    assert_eq!(live.last().unwrap()["origin"]["clientId"], "rc-b");
}

#[tokio::test]
async fn a_gap_older_than_the_ring_gets_snapshots_and_unknown_clients_an_error() {
    // The smallest ring allowed: AHP hosts keep at least 1,000 envelopes.
    let host = TestHost::start(Launch::InProcess, &["--replay-capacity", "1000"]);
    let session = "ahp-session:/rc-old";
    let mut a = RawClient::initialized(&host, "old-a").await;
    create(&mut a, 2, session).await;
    let sub = a.request(json!(3), "subscribe", json!({"channel": session})).await;
    let last_seen = sub["result"]["snapshot"]["fromSeq"].as_i64().unwrap();
    drop(a);

    let mut b = RawClient::initialized(&host, "old-b").await;
    b.request(json!(2), "subscribe", json!({"channel": session})).await;
    for i in 0..1010 {
        b.send_text(dispatch(session, i, json!({"type": "session/titleChanged", "title": format!("t{i}")}))).await;
    }
    collect_until(&mut b, |env| env["action"]["title"] == "t1009").await;

    let mut a2 = RawClient::connect(&host.authed_url()).await.unwrap();
    let reply = a2
        .request(
            json!(1),
            "reconnect",
            json!({"channel": ROOT, "clientId": "old-a", "lastSeenServerSeq": last_seen, "subscriptions": [session]}),
        )
        .await;
    assert_eq!(reply["result"]["type"], "snapshot", "{reply}");
    let snap = &reply["result"]["snapshots"][0];
    assert_eq!(snap["resource"], session);
    assert_eq!(snap["state"]["title"], "t1009");

    let mut stranger = RawClient::connect(&host.authed_url()).await.unwrap();
    let reply = stranger
        .request(
            json!(1),
            "reconnect",
            json!({"channel": ROOT, "clientId": "never-seen", "lastSeenServerSeq": 0, "subscriptions": []}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32008, "{reply}");
}

#[test]
fn a_replay_buffer_below_1000_envelopes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["999", "4", "0", "-1", "many"] {
        let refused = TestHost::try_start_in(Launch::Process(&[]), dir.path(), &[&format!("--replay-capacity={bad}")]);
        let stderr = refused.err().unwrap_or_else(|| panic!("started with --replay-capacity {bad}"));
        assert!(stderr.contains("--replay-capacity"), "{stderr}");
    }
    drop(TestHost::start_in(Launch::Process(&[]), dir.path(), &["--replay-capacity", "1000"]));
}
