//! Faults of the machine under the host: a data directory that cannot be
//! written (a full disk, injected by the test-only switch the store writer
//! reads, `HANGAR_TEST_STORE_FULL_FLAG`), and a database file that is
//! corrupt or truncated. The host says why, refuses what it cannot keep, and
//! never loses or overwrites what it committed.

use std::time::Duration;

use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};

const ROOT: &str = "ahp-root://";
const SESSION: &str = "ahp-session:/full";

fn title(seq: i64, title: &str) -> String {
    json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": SESSION, "clientSeq": seq,
           "action": {"type": "session/titleChanged", "title": title}}})
    .to_string()
}

/// The next `session/titleChanged` envelope: its title and rejection reason.
async fn next_title(raw: &mut RawClient) -> (String, Option<String>) {
    loop {
        let msg = raw.next_json().await.expect("the connection stays open");
        if msg["method"] == "action" && msg["params"]["action"]["type"] == "session/titleChanged" {
            let p = &msg["params"];
            return (
                p["action"]["title"].as_str().unwrap().to_owned(),
                p["rejectionReason"].as_str().map(String::from),
            );
        }
    }
}

async fn stored_title(host: &TestHost) -> String {
    let mut raw = RawClient::initialized(host, "reader").await;
    let list = raw.request(json!(1), "listSessions", json!({"channel": ROOT})).await;
    list["result"]["items"][0]["title"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_full_disk_refuses_new_writes_keeps_what_waits_and_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("disk-is-full");
    let flag_str = flag.display().to_string();
    let env = [("HANGAR_TEST_STORE_FULL_FLAG", flag_str.as_str())];
    let data = dir.path().join("data");
    let mut host = TestHost::start_in(Launch::Process(&env), &data, &[]);
    let mut raw = RawClient::initialized(&host, "writer").await;
    let created = raw.request(json!(2), "createSession", json!({"channel": SESSION})).await;
    assert_eq!(created["result"], Value::Null, "{created}");
    raw.request(json!(3), "subscribe", json!({"channel": SESSION})).await;
    raw.send_text(title(1, "saved before")).await;
    assert_eq!(next_title(&mut raw).await, ("saved before".to_owned(), None));

    // The disk fills. The first write finds out: it is kept, unseen, and
    // retried; every later change is refused with the reason.
    std::fs::write(&flag, "").unwrap();
    raw.send_text(title(2, "waits for space")).await;
    // The writer tries that commit at once; a second is more than enough.
    tokio::time::sleep(Duration::from_secs(1)).await;
    raw.send_text(title(3, "refused")).await;
    let (t, reason) = next_title(&mut raw).await;
    assert_eq!(t, "refused", "nothing is published while the disk is full");
    let reason = reason.expect("a change made while the disk is full is refused");
    assert!(reason.contains("cannot save") && reason.contains("disk full"), "{reason}");
    let refused = raw.request(json!(4), "createSession", json!({"channel": "ahp-session:/other"})).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("cannot save"), "{refused}");

    // Space comes back: the waiting write is saved and published, then new
    // changes are accepted again.
    std::fs::remove_file(&flag).unwrap();
    assert_eq!(next_title(&mut raw).await, ("waits for space".to_owned(), None));
    raw.send_text(title(5, "saved after")).await;
    assert_eq!(next_title(&mut raw).await, ("saved after".to_owned(), None));

    // Full again; a write waits; the host is killed: what was committed is
    // all there, the write nobody saw is not.
    std::fs::write(&flag, "").unwrap();
    raw.send_text(title(6, "never saved")).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    host.kill9();
    std::fs::remove_file(&flag).unwrap();
    let host = TestHost::start_in(Launch::Process(&[]), &data, &[]);
    assert_eq!(stored_title(&host).await, "saved after");
}

fn start_fails(data: &std::path::Path) -> String {
    match TestHost::try_start_in(Launch::Process(&[]), data, &[]) {
        Ok(_) => panic!("the host started on a broken database"),
        Err(stderr) => stderr,
    }
}

#[tokio::test]
async fn a_corrupt_or_truncated_database_stops_the_host_with_a_message_and_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    {
        let mut host = TestHost::start_in(Launch::Process(&[]), &data, &[]);
        let mut raw = RawClient::initialized(&host, "writer").await;
        for i in 0..40 {
            let uri = format!("ahp-session:/s{i}");
            let r = raw.request(json!(i + 10), "createSession", json!({"channel": uri})).await;
            assert_eq!(r["result"], Value::Null, "{r}");
        }
        host.sigterm();
    }
    let db = data.join("hangar.db");
    let good = std::fs::read(&db).unwrap();
    assert!(good.len() > 8192, "a database of several pages: {}", good.len());

    // Garbage over the header.
    let mut garbage = good.clone();
    garbage[..100].fill(0x5a);
    std::fs::write(&db, &garbage).unwrap();
    let stderr = start_fails(&data);
    assert!(stderr.contains("hangar.db") || stderr.contains("database"), "says which file: {stderr}");
    assert_eq!(std::fs::read(&db).unwrap(), garbage, "the corrupt file is left as it was");

    // Cut in half.
    let truncated = good[..good.len() / 2].to_vec();
    std::fs::write(&db, &truncated).unwrap();
    let stderr = start_fails(&data);
    assert!(stderr.contains("database"), "{stderr}");
    assert_eq!(std::fs::read(&db).unwrap(), truncated, "the truncated file is left as it was");

    // The good bytes back: everything is there.
    std::fs::write(&db, &good).unwrap();
    let host = TestHost::start_in(Launch::Process(&[]), &data, &[]);
    let mut raw = RawClient::initialized(&host, "reader").await;
    let list = raw.request(json!(1), "listSessions", json!({"channel": ROOT})).await;
    assert_eq!(list["result"]["items"].as_array().unwrap().len(), 40, "{list}");
}
