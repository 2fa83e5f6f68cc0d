//! The handshake, authentication on the upgrade, and bad input: each answered
//! with the protocol's error, while the connection (or at least the host)
//! keeps serving.

use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

const ROOT: &str = "ahp-root://";

fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error, got {reply}"))
}

/// Some traffic touching every part of the host: sessions, chats,
/// subscriptions, a rejection, listing.
async fn some_traffic(host: &TestHost) {
    let mut raw = RawClient::initialized(host, "traffic").await;
    let r = raw.request(json!(2), "createSession", json!({"channel": "ahp-session:/t"})).await;
    assert_eq!(r["result"], Value::Null, "{r}");
    let s = raw.request(json!(3), "subscribe", json!({"channel": "ahp-session:/t"})).await;
    let chat = s["result"]["snapshot"]["state"]["defaultChat"].as_str().unwrap().to_owned();
    raw.request(json!(4), "subscribe", json!({"channel": chat})).await;
    raw.send_text(
        json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": "ahp-session:/t", "clientSeq": 1,
        "action": {"type": "session/titleChanged", "title": "traffic"}}})
        .to_string(),
    )
    .await;
    raw.send_text(
        json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": chat, "clientSeq": 2,
        "action": {"type": "chat/turnCancelled", "turnId": "none", "duration": 1}}})
        .to_string(),
    )
    .await;
    let listed = raw.request(json!(5), "listSessions", json!({"channel": ROOT})).await;
    assert_eq!(listed["result"]["items"].as_array().unwrap().len(), 1, "{listed}");
    let bad = raw.request(json!(6), "noSuchMethod", json!({})).await;
    assert_eq!(error_code(&bad), -32601);
}

#[tokio::test]
async fn ready_line_is_the_only_stdout_and_has_the_documented_shape() {
    let mut host = TestHost::start(Launch::Process(&[]), &[]);
    assert!(host.ready_line.starts_with(r#"{"type":"ready","url":"ws://127.0.0.1:"#), "{}", host.ready_line);
    let ready: Value = serde_json::from_str(&host.ready_line).unwrap();
    let data_dir = std::fs::canonicalize(&host.data_dir).unwrap();
    assert_eq!(ready["dataDir"], json!(data_dir.display().to_string()));
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(host.data_dir.join("token")).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    assert!(host.token.len() >= 32, "token must carry at least 128 bits");

    some_traffic(&host).await;
    let exited = host.stop_with("TERM");
    assert!(exited.status.success(), "{:?}", exited.status);
    assert_eq!(exited.extra_stdout, Vec::<String>::new(), "nothing but the ready line on stdout");
}

#[tokio::test]
async fn ping_works_before_initialize_and_other_methods_do_not() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let mut raw = RawClient::connect(&host.authed_url()).await.unwrap();
    let pong = raw.request(json!(1), "ping", json!({"channel": ROOT})).await;
    assert_eq!(pong["result"], Value::Null);
    let early = raw.request(json!(2), "listSessions", json!({"channel": ROOT})).await;
    assert_eq!(error_code(&early), -32601);
    let early = raw.request(json!(3), "subscribe", json!({"channel": ROOT})).await;
    assert_eq!(error_code(&early), -32601);
}

#[tokio::test]
async fn a_connection_that_has_not_initialized_cannot_act_on_a_session() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let mut owner = RawClient::initialized(&host, "owner").await;
    let session = "ahp-session:/guarded";
    owner.request(json!(2), "createSession", json!({"channel": session})).await;
    let snap = owner.request(json!(3), "subscribe", json!({"channel": session})).await;
    let chat = snap["result"]["snapshot"]["state"]["defaultChat"].as_str().unwrap().to_owned();
    let mut stranger = RawClient::connect(&host.authed_url()).await.unwrap();
    for (channel, action) in [
        (session, json!({"type": "session/titleChanged", "title": "taken over"})),
        (chat.as_str(), json!({"type": "chat/toolCallConfirmed", "turnId": "t", "toolCallId": "tc", "approved": true})),
    ] {
        let frame = json!({"jsonrpc": "2.0", "method": "dispatchAction",
                           "params": {"channel": channel, "clientSeq": 1, "action": action}});
        stranger.send_text(frame.to_string()).await;
    }
    // A ping answered after the dispatches: they were read, and dropped.
    let pong = stranger.request(json!(1), "ping", json!({"channel": ROOT})).await;
    assert_eq!(pong["result"], Value::Null);
    assert_eq!(owner.next_json_within(std::time::Duration::from_millis(300)).await, None, "nothing was applied");
    let after = owner.request(json!(4), "subscribe", json!({"channel": session})).await;
    assert_eq!(after["result"]["snapshot"]["state"]["title"], "");
}

#[tokio::test]
async fn version_negotiation() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let mut raw = RawClient::connect(&host.authed_url()).await.unwrap();
    let none_fit = raw
        .request(json!(1), "initialize", json!({"channel": ROOT, "protocolVersions": ["9.0.0"], "clientId": "c"}))
        .await;
    assert_eq!(error_code(&none_fit), -32005);
    assert_eq!(none_fit["error"]["data"]["supportedVersions"], json!(["1.0.0", "0.9.0"]));
    let malformed = raw
        .request(json!(2), "initialize", json!({"channel": ROOT, "protocolVersions": ["one"], "clientId": "c"}))
        .await;
    assert_eq!(error_code(&malformed), -32602);
    let ok = raw
        .request(
            json!(3),
            "initialize",
            json!({"channel": ROOT, "protocolVersions": ["0.9.3", "1.2.0"], "clientId": "c"}),
        )
        .await;
    assert_eq!(ok["result"]["protocolVersion"], json!("1.2.0"));
    assert!(ok["result"]["serverSeq"].as_i64().unwrap() >= 1);
    let again = raw
        .request(json!(4), "initialize", json!({"channel": ROOT, "protocolVersions": ["1.0.0"], "clientId": "c"}))
        .await;
    assert_eq!(error_code(&again), -32600);
}

#[tokio::test]
async fn upgrade_needs_the_token_an_allowed_origin_and_a_loopback_host() {
    let host = TestHost::start(Launch::InProcess, &["--allow-origin", "http://localhost:5173"]);
    let status_of = |err: tokio_tungstenite::tungstenite::Error| match err {
        tokio_tungstenite::tungstenite::Error::Http(resp) => resp.status().as_u16(),
        other => panic!("expected an HTTP refusal, got {other}"),
    };
    let missing = tokio_tungstenite::connect_async(host.url.as_str()).await.unwrap_err();
    assert_eq!(status_of(missing), 401);
    let wrong = tokio_tungstenite::connect_async(format!("{}?tkn=not-the-token", host.url)).await.unwrap_err();
    assert_eq!(status_of(wrong), 403);

    let mut bearer = host.url.as_str().into_client_request().unwrap();
    bearer.headers_mut().insert("authorization", HeaderValue::from_str(&format!("Bearer {}", host.token)).unwrap());
    assert!(tokio_tungstenite::connect_async(bearer).await.is_ok(), "a bearer token is accepted");

    let with_origin = |origin: &str| {
        let mut req = host.authed_url().into_client_request().unwrap();
        req.headers_mut().insert("origin", HeaderValue::from_str(origin).unwrap());
        req
    };
    let evil = tokio_tungstenite::connect_async(with_origin("https://evil.example")).await.unwrap_err();
    assert_eq!(status_of(evil), 403);
    assert!(tokio_tungstenite::connect_async(with_origin("tauri://localhost")).await.is_ok());
    assert!(tokio_tungstenite::connect_async(with_origin("http://localhost:5173")).await.is_ok());

    let mut rebinding = host.authed_url().into_client_request().unwrap();
    rebinding.headers_mut().insert("host", HeaderValue::from_static("attacker.example"));
    let rebound = tokio_tungstenite::connect_async(rebinding).await.unwrap_err();
    assert_eq!(status_of(rebound), 403);
}

#[tokio::test]
async fn malformed_input_gets_errors_and_the_connection_stays_usable() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let mut raw = RawClient::initialized(&host, "bad-input").await;

    raw.send_text("this is not json").await;
    let parse = raw.next_json().await.unwrap();
    assert_eq!(error_code(&parse), -32700);
    assert_eq!(parse["id"], Value::Null);

    let string_id = raw.request(json!("req-7"), "ping", json!({"channel": ROOT})).await;
    assert_eq!(string_id["id"], json!("req-7"));
    assert_eq!(string_id["result"], Value::Null);

    let unknown = raw.request(json!(5), "noSuchMethod", json!({"channel": ROOT})).await;
    assert_eq!(error_code(&unknown), -32601);

    let invalid = raw.request(json!(6), "createSession", json!({"channel": 42})).await;
    assert_eq!(error_code(&invalid), -32602);
    assert!(invalid["error"]["message"].as_str().unwrap().contains("channel"), "{invalid}");

    let bad_cursor = raw.request(json!(7), "listSessions", json!({"channel": ROOT, "cursor": "garbage"})).await;
    assert_eq!(error_code(&bad_cursor), -32602);

    raw.send_text(r#"{"jsonrpc":"2.0","id":{"an":"object"},"method":"ping"}"#).await;
    let bad_id = raw.next_json().await.unwrap();
    assert_eq!(error_code(&bad_id), -32600);

    let still_fine = raw.request(json!(8), "ping", json!({"channel": ROOT})).await;
    assert_eq!(still_fine["result"], Value::Null);
}

#[tokio::test]
async fn oversize_and_deeply_nested_messages_close_only_that_connection() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let mut bystander = RawClient::initialized(&host, "bystander").await;

    let mut big = RawClient::initialized(&host, "big").await;
    let huge =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(17 * 1024 * 1024));
    // The host may close while the frame is still being written.
    if big.try_send_text(huge).await.is_ok() {
        big.expect_closed().await;
    }

    let mut deep = RawClient::initialized(&host, "deep").await;
    deep.send_text(format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))).await;
    deep.expect_closed().await;

    let alive = bystander.request(json!(2), "ping", json!({"channel": ROOT})).await;
    assert_eq!(alive["result"], Value::Null);
    let mut newcomer = RawClient::initialized(&host, "newcomer").await;
    let listed = newcomer.request(json!(2), "listSessions", json!({"channel": ROOT})).await;
    assert!(listed["result"]["items"].is_array());
}

/// Upgrade from source address `from` (any 127.x.y.z reaches a host on
/// 127.0.0.1) with `token`: the HTTP status of the refusal, or 101.
async fn upgrade_from(host: &TestHost, from: &str, token: &str) -> u16 {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let addr = host.url.trim_start_matches("ws://").trim_end_matches('/').parse().unwrap();
    let stream = socket.connect(addr).await.unwrap();
    match tokio_tungstenite::client_async(format!("{}?tkn={token}", host.url), stream).await {
        Ok(_) => 101,
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
        Err(other) => panic!("expected an HTTP answer, got {other}"),
    }
}

#[tokio::test]
async fn guessing_tokens_locks_out_only_that_address() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let mut bystander = RawClient::initialized(&host, "bystander").await;
    for i in 0..10 {
        assert_eq!(upgrade_from(&host, "127.0.0.2", &format!("guess-{i}")).await, 403);
    }
    // Locked: even the right token is refused, so a lucky guess says nothing.
    assert_eq!(upgrade_from(&host, "127.0.0.2", &host.token).await, 429);
    assert_eq!(upgrade_from(&host, "127.0.0.2", "guess-11").await, 429);
    // Everyone else goes on.
    assert_eq!(upgrade_from(&host, "127.0.0.3", &host.token).await, 101);
    assert_eq!(upgrade_from(&host, "127.0.0.1", &host.token).await, 101);
    let alive = bystander.request(json!(2), "ping", json!({"channel": ROOT})).await;
    assert_eq!(alive["result"], Value::Null);
}

#[tokio::test]
async fn a_client_locked_out_for_bad_tokens_is_told_its_token_was_refused() {
    let host = TestHost::start(Launch::InProcess, &[]);
    for _ in 0..10 {
        let refused = hangar_remote::connect(&host.url, "wrong", None).await;
        assert!(matches!(refused, Err(hangar_remote::ConnectError::TokenRefused { status: 403, .. })), "{refused:?}");
    }
    match hangar_remote::connect(&host.url, &host.token, None).await {
        Err(hangar_remote::ConnectError::TokenRefused { status: 429, reason, .. }) => {
            assert!(reason.contains("too many failed tokens"), "{reason}");
        }
        other => panic!("expected a 429 refusal, got {:?}", other.map(|_| "a connection")),
    }
}

#[tokio::test]
async fn a_slow_upgrade_is_dropped_and_others_are_served_meanwhile() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = TestHost::start(Launch::InProcess, &[]);
    let addr = host.url.trim_start_matches("ws://").trim_end_matches('/');
    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    let started = std::time::Instant::now();
    let trickle = async {
        // One header byte a second, never finishing the request.
        for _ in 0..30 {
            if slow.write_all(b"X").await.is_err() {
                return;
            }
            let mut buf = [0u8; 64];
            let read = tokio::time::timeout(std::time::Duration::from_secs(1), slow.read(&mut buf)).await;
            if let Ok(Ok(0) | Err(_)) = read {
                return;
            }
        }
        panic!("a request trickled for 30 s and the host kept it open");
    };
    let meanwhile = async {
        let mut other = RawClient::initialized(&host, "other").await;
        assert_eq!(other.request(json!(2), "ping", json!({"channel": ROOT})).await["result"], Value::Null);
    };
    tokio::join!(trickle, meanwhile);
    let waited = started.elapsed();
    assert!(waited >= std::time::Duration::from_secs(9), "dropped after the 10 s allowance, not before: {waited:?}");
}

#[test]
fn a_second_host_on_the_same_data_dir_refuses_to_start() {
    let first = TestHost::start(Launch::Process(&[]), &[]);
    let err = match TestHost::try_start_in(Launch::Process(&[]), &first.data_dir, &[]) {
        Ok(_) => panic!("a second host started on the same data dir"),
        Err(stderr) => stderr,
    };
    assert!(err.contains("already using"), "{err}");
}

#[test]
fn a_lock_released_a_moment_later_does_not_stop_the_start() {
    // What a child of a host killed with `kill -9` does between its fork and
    // its exec: it holds the data directory's lock for a moment.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path()).unwrap();
    let lock = std::fs::File::create(dir.path().join("hangar.lock")).unwrap();
    lock.lock().unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(400));
        drop(lock);
    });
    let host = TestHost::try_start_in(Launch::Process(&[]), dir.path(), &[]);
    release.join().unwrap();
    assert!(host.is_ok(), "{:?}", host.err());
}

#[test]
fn sigterm_exits_cleanly() {
    let mut host = TestHost::start(Launch::Process(&[]), &[]);
    let status = host.sigterm();
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn sigint_exits_cleanly_and_keeps_what_was_done() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    some_traffic(&host).await;
    let exited = host.stop_with("INT");
    assert!(exited.status.success(), "{:?}", exited.status);
    let host = TestHost::start_in(Launch::Process(&[]), dir.path(), &[]);
    let mut raw = RawClient::initialized(&host, "after").await;
    let listed = raw.request(json!(2), "listSessions", json!({"channel": ROOT})).await;
    assert_eq!(listed["result"]["items"][0]["title"], "traffic", "{listed}");
}

#[tokio::test]
async fn the_token_never_reaches_stderr_even_at_trace_level() {
    let dir = tempfile::tempdir().unwrap();
    let mut host =
        TestHost::try_start_in(Launch::Process(&[("RUST_LOG", "trace")]), dir.path(), &["--log", "trace"]).unwrap();
    // On the URL …
    some_traffic(&host).await;
    // … in a header …
    let mut bearer = host.url.as_str().into_client_request().unwrap();
    bearer.headers_mut().insert("authorization", HeaderValue::from_str(&format!("Bearer {}", host.token)).unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(bearer).await.unwrap();
    futures_util::SinkExt::send(
        &mut ws,
        tokio_tungstenite::tungstenite::Message::text(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
    )
    .await
    .unwrap();
    futures_util::StreamExt::next(&mut ws).await.unwrap().unwrap();
    // … and nearly right.
    let almost = format!("{}?tkn={}x", host.url, host.token);
    assert!(tokio_tungstenite::connect_async(almost).await.is_err());
    let exited = host.stop_with("TERM");
    assert!(exited.status.success(), "{:?}", exited.status);
    assert!(exited.stderr.lines().count() > 10, "trace logging is on: {}", exited.stderr);
    assert!(!exited.stderr.contains(&host.token), "the token was logged");
}
