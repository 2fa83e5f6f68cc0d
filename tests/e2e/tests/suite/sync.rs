//! Many clients, one state: echoes with origins, snapshot/replay parity
//! through the official reducers, rejections, queued messages.

use ahp::reducers::{apply_action_to_chat, apply_action_to_session};
use ahp_types::commands::CreateSessionParams;
use ahp_types::state::SnapshotState;
use ahp_types::StateAction;
use hangar_e2e::actions::{is_archived, is_read, queue, title, turn_cancelled, turn_started};
use hangar_e2e::{action_type, initialized, wait_for_action, Launch, RawClient, TestHost};
use serde_json::{json, Value};

const ROOT: &str = "ahp-root://";

async fn create_session(client: &ahp::Client, uri: &str) {
    let params = CreateSessionParams {
        channel: uri.to_owned(),
        meta: None,
        provider: None,
        working_directories: None,
        config: None,
        active_client: None,
        progress_token: None,
    };
    let _: Value = client.request("createSession", params).await.unwrap();
}

fn default_chat(snapshot: &SnapshotState) -> String {
    match snapshot {
        SnapshotState::Session(s) => s.default_chat.clone().expect("a default chat"),
        other => panic!("not a session: {other:?}"),
    }
}

#[tokio::test]
async fn two_clients_stay_in_sync_and_snapshots_equal_reduced_state() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let (a, _) = initialized(&host, "client-a").await;
    let (b, _) = initialized(&host, "client-b").await;
    let mut b_root = b.attach_subscription(ROOT).await;

    let session = "ahp-session:/sync-1";
    create_session(&a, session).await;
    // B learns about the session from the root channel.
    tokio::time::timeout(hangar_e2e::WAIT, async {
        loop {
            if let Some(ahp::SubscriptionEvent::SessionAdded(added)) = b_root.recv().await {
                assert_eq!(added.summary.resource, session);
                return;
            }
        }
    })
    .await
    .expect("root/sessionAdded reached client B");

    let (sa, mut a_session) = a.subscribe(session.into()).await.unwrap();
    let a_session_snapshot = sa.snapshot.unwrap();
    let chat = default_chat(&a_session_snapshot.state);
    let (ca, mut a_chat) = a.subscribe(chat.clone()).await.unwrap();
    let a_chat_snapshot = ca.snapshot.unwrap();
    let (_, mut b_session) = b.subscribe(session.into()).await.unwrap();
    // Second receivers for waiting, so `a_session`/`a_chat` keep every envelope.
    let mut wait_session = a.attach_subscription(session).await;
    let mut wait_chat = a.attach_subscription(&chat).await;

    // Wait for the session to be ready before starting turns.
    let SnapshotState::Session(mut session_state) = a_session_snapshot.state else { unreachable!() };
    let SnapshotState::Chat(mut chat_state) = a_chat_snapshot.state else { unreachable!() };
    let (a_session_from, a_chat_from) = (a_session_snapshot.from_seq, a_chat_snapshot.from_seq);
    if session_state.lifecycle != ahp_types::state::SessionLifecycle::Ready {
        wait_for_action(&mut wait_session, |e| action_type(e) == "session/ready").await;
    }

    // A's title change reaches B with A's origin.
    let handle = a.dispatch(session.into(), title("Refactor the parser")).await.unwrap();
    let seen_by_b = wait_for_action(&mut b_session, |e| action_type(e) == "session/titleChanged").await;
    let origin = seen_by_b.origin.clone().expect("an origin");
    assert_eq!(origin.client_id, "client-a");
    assert_eq!(origin.client_seq, handle.client_seq);

    // More traffic on both channels, from both clients.
    a.dispatch(chat.clone(), turn_started("t1", "hello")).await.unwrap();
    // B queues only once t1 runs (from another connection it could arrive
    // first, and a message queued on an idle chat starts at once).
    wait_for_action(&mut wait_chat, |e| action_type(e) == "chat/turnStarted").await;
    b.dispatch(chat.clone(), queue("q1", "and then this")).await.unwrap();
    a.dispatch(chat.clone(), turn_cancelled("t1")).await.unwrap();
    b.dispatch(session.into(), is_read(true)).await.unwrap();
    b.dispatch(session.into(), is_archived(true)).await.unwrap();
    // The queued message starts as a turn when t1 ends; cancel that one too.
    let started = wait_for_action(
        &mut wait_chat,
        |e| matches!(&e.action, StateAction::ChatTurnStarted(t) if t.queued_message_id.as_deref() == Some("q1")),
    )
    .await;
    let StateAction::ChatTurnStarted(t2) = &started.action else { unreachable!() };
    a.dispatch(chat.clone(), turn_cancelled(&t2.turn_id)).await.unwrap();
    b.dispatch(session.into(), title("Final title")).await.unwrap();
    wait_for_action(
        &mut b_session,
        |e| matches!(&e.action, StateAction::SessionTitleChanged(t) if t.title == "Final title"),
    )
    .await;

    // Replay everything A saw (chat + session) from its snapshots through the
    // official reducers; it must equal fresh snapshots taken by a new client.
    let chat_envs = drain(&mut a_chat).await;
    let session_envs = drain(&mut a_session).await;
    assert!(!chat_envs.is_empty() && !session_envs.is_empty());
    for env in &chat_envs {
        assert!(env.rejection_reason.is_none(), "unexpected rejection: {env:?}");
        assert!(env.server_seq as i64 > a_chat_from, "every envelope comes after the snapshot's fromSeq");
        apply_action_to_chat(&mut chat_state, &env.action);
    }
    for env in &session_envs {
        assert!(env.server_seq as i64 > a_session_from);
        apply_action_to_session(&mut session_state, &env.action);
    }
    for w in chat_envs.windows(2).chain(session_envs.windows(2)) {
        assert!(w[0].server_seq < w[1].server_seq, "serverSeq strictly increases");
    }
    let mut seqs: Vec<u64> = chat_envs.iter().chain(&session_envs).map(|e| e.server_seq).collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), chat_envs.len() + session_envs.len(), "no envelope delivered twice");
    let last_seq = *seqs.last().unwrap() as i64;

    let (c, _) = initialized(&host, "client-c").await;
    let fresh_session = c.subscribe(session.into()).await.unwrap().0.snapshot.unwrap();
    let fresh_chat = c.subscribe(chat.clone()).await.unwrap().0.snapshot.unwrap();
    assert!(fresh_chat.from_seq >= last_seq);
    assert_eq!(fresh_chat.state, SnapshotState::Chat(chat_state.clone()));
    assert_eq!(fresh_session.state, SnapshotState::Session(session_state.clone()));
    assert_eq!(chat_state.turns.len(), 2, "both turns ended and are kept");
    assert_eq!(session_state.title, "Final title");
}

/// Every action envelope that arrives until the subscription is quiet.
async fn drain(sub: &mut ahp::SessionSubscription) -> Vec<ahp_types::ActionEnvelope> {
    let mut envs = Vec::new();
    while let Ok(Some(ev)) = tokio::time::timeout(std::time::Duration::from_millis(500), sub.recv()).await {
        if let ahp::SubscriptionEvent::Action(env) = ev {
            envs.push(env);
        }
    }
    envs
}

#[tokio::test]
async fn rejected_actions_are_echoed_to_the_sender_only_and_change_nothing() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let (a, _) = initialized(&host, "owner").await;
    let session = "ahp-session:/reject-1";
    create_session(&a, session).await;
    let session_snapshot = a.subscribe(session.into()).await.unwrap().0.snapshot.unwrap();
    let chat = default_chat(&session_snapshot.state);

    let mut raw = RawClient::initialized(&host, "raw-rejects").await;
    let sub = raw.request(json!(2), "subscribe", json!({"channel": chat})).await;
    let before = sub["result"]["snapshot"]["state"].clone();
    assert!(before.is_object(), "{sub}");

    let cases = [
        json!({"type": "chat/delta", "turnId": "x", "partId": "p", "content": "spoofed"}),
        json!({"type": "chat/turnCancelled", "turnId": "nothing-running", "duration": 1}),
        json!({"type": "x-made-up/action", "value": 1}),
        json!({"type": "chat/turnComplete", "turnId": "x", "duration": 1}),
    ];
    for (i, action) in cases.iter().enumerate() {
        raw.send_text(json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": chat, "clientSeq": i + 1, "action": action}}).to_string()).await;
        let echo = raw.next_json().await.unwrap();
        assert_eq!(echo["method"], "action", "{echo}");
        assert!(echo["params"]["rejectionReason"].as_str().is_some_and(|r| !r.is_empty()), "case {i}: {echo}");
        assert_eq!(echo["params"]["origin"]["clientSeq"], json!(i + 1));
    }
    // Setting someone else as the active client is refused too.
    raw.send_text(
        json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": session, "clientSeq": 9,
        "action": {"type": "session/activeClientSet", "activeClient": {"clientId": "owner", "tools": []}}}})
        .to_string(),
    )
    .await;
    let echo = raw.next_json().await.unwrap();
    assert!(echo["params"]["rejectionReason"].is_string(), "{echo}");

    // An action for a channel that does not exist is ignored: no echo.
    raw.send_text(
        json!({"jsonrpc": "2.0", "method": "dispatchAction", "params": {"channel": "ahp-chat:/nope", "clientSeq": 10,
        "action": {"type": "chat/draftChanged"}}})
        .to_string(),
    )
    .await;
    assert!(raw.next_json_within(std::time::Duration::from_millis(400)).await.is_none());

    let after = raw.request(json!(3), "subscribe", json!({"channel": chat})).await;
    assert_eq!(after["result"]["snapshot"]["state"], before, "rejections changed nothing");
}

#[tokio::test]
async fn a_message_queued_while_idle_starts_a_turn_at_once() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let (a, _) = initialized(&host, "queuer").await;
    let session = "ahp-session:/queue-1";
    create_session(&a, session).await;
    let (s, mut session_sub) = a.subscribe(session.into()).await.unwrap();
    if let SnapshotState::Session(st) = &s.snapshot.as_ref().unwrap().state {
        if st.lifecycle != ahp_types::state::SessionLifecycle::Ready {
            wait_for_action(&mut session_sub, |e| action_type(e) == "session/ready").await;
        }
    }
    let chat = default_chat(&s.snapshot.unwrap().state);
    let (_, mut chat_sub) = a.subscribe(chat.clone()).await.unwrap();
    a.dispatch(chat.clone(), queue("q-idle", "run me now")).await.unwrap();
    let set = wait_for_action(&mut chat_sub, |e| action_type(e) == "chat/pendingMessageSet").await;
    let removed = wait_for_action(&mut chat_sub, |e| action_type(e) == "chat/pendingMessageRemoved").await;
    let started = wait_for_action(&mut chat_sub, |e| action_type(e) == "chat/turnStarted").await;
    assert!(set.server_seq < removed.server_seq && removed.server_seq < started.server_seq);
    let StateAction::ChatTurnStarted(t) = &started.action else { unreachable!() };
    assert_eq!(t.queued_message_id.as_deref(), Some("q-idle"));
    assert_eq!(t.message.text, "run me now");
    assert!(started.origin.is_none(), "the host started it");
}

/// Action envelopes `raw` receives until one on `marker` arrives.
async fn actions_until_marker(raw: &mut RawClient, marker: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let msg = raw.next_json().await.expect("connection open");
        if msg["method"] != "action" {
            continue;
        }
        if msg["params"]["channel"] == marker {
            return seen;
        }
        seen.push(msg["params"].clone());
    }
}

#[tokio::test]
async fn after_unsubscribe_no_more_envelopes_arrive_for_that_channel() {
    let host = TestHost::start(Launch::InProcess, &[]);
    let (writer, _) = initialized(&host, "writer").await;
    let (session, marker) = ("ahp-session:/unsub-1", "ahp-session:/unsub-marker");
    create_session(&writer, session).await;
    create_session(&writer, marker).await;
    let snapshot = writer.subscribe(session.into()).await.unwrap().0.snapshot.unwrap();
    let chat = default_chat(&snapshot.state);

    let mut reader = RawClient::initialized(&host, "reader").await;
    for (i, channel) in [session, chat.as_str(), marker].into_iter().enumerate() {
        let r = reader.request(json!(10 + i), "subscribe", json!({"channel": channel})).await;
        assert!(r["result"]["snapshot"].is_object(), "{r}");
    }
    let touch_all = |round: &str| {
        let round = round.to_owned();
        let (writer, chat) = (&writer, chat.clone());
        async move {
            writer.dispatch(session.into(), title(&format!("title {round}"))).await.unwrap();
            let draft = json!({"type": "chat/draftChanged", "draft": {"text": format!("draft {round}"), "origin": {"kind": "user"}}});
            writer.dispatch(chat, serde_json::from_value(draft).unwrap()).await.unwrap();
            writer.dispatch(marker.into(), title(&format!("marker {round}"))).await.unwrap();
        }
    };

    // Subscribed: both channels' envelopes arrive before the marker's.
    touch_all("one").await;
    let seen = actions_until_marker(&mut reader, marker).await;
    let channels: Vec<&str> = seen.iter().map(|e| e["channel"].as_str().unwrap()).collect();
    assert!(channels.contains(&session) && channels.contains(&chat.as_str()), "{seen:?}");

    for channel in [session, chat.as_str()] {
        reader
            .send_text(json!({"jsonrpc": "2.0", "method": "unsubscribe", "params": {"channel": channel}}).to_string())
            .await;
    }
    // The connection handles frames in order: once ping is answered, both
    // unsubscribes have been applied.
    let pong = reader.request(json!(20), "ping", json!({})).await;
    assert_eq!(pong["result"], Value::Null);

    touch_all("two").await;
    let seen = actions_until_marker(&mut reader, marker).await;
    assert!(seen.iter().all(|e| e["channel"] != session && e["channel"] != chat.as_str()), "{seen:?}");
}
