//! The real `hangar` binary serving an AHP 0.9 client (the official 0.9.0
//! crates) beside a 1.0 one (the official 1.0.0 crates, through
//! `hangar_e2e::acp::Rig`), with the scripted fake agent. Needs
//! `cargo build -p hangar-cli -p hangar-fake-agent`.

// Integration-test helpers are not `#[test]` functions nor in a
// `#[cfg(test)]` module, so clippy.toml's allow-*-in-tests do not reach them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a failed unwrap, expect or panic is a failed test"
)]

use ahp_0_9::reducers::apply_action_to_chat;
use ahp_0_9::{apply_action_to_session, SessionSubscription};
use ahp_types_0_9::commands::ReconnectParams;
use ahp_types_0_9::state::{ChatState, SessionState, ToolCallState, TurnState};
use ahp_types_0_9::ActionEnvelope;
use hangar_e2e::acp::{markdown, AgentCmd, Rig};
use hangar_e2e::{action_type, Launch};
use hangar_e2e_ahp_0_9::{
    approve, connect, draft_marker, fresh_snapshot, only_0_9, open, subscribe, title_marker, turn_started, wait_for,
    Mirror,
};
use serde_json::{json, Value};

/// The prompt the codex transcript answers with an edit of `hello.txt`
/// that asks for confirmation.
const EDIT: &str = "In hello.txt, replace the word world with ACP.";

/// Wait for a `chat/toolCallReady` that asks for confirmation; its JSON.
async fn confirmation_asked(sub: &mut SessionSubscription) -> Value {
    let envelope = wait_for(sub, |a| a["type"] == "chat/toolCallReady" && a.get("confirmed").is_none()).await;
    serde_json::to_value(&envelope.action).unwrap()
}

/// Wait for the end of `turn`; the ending action's type.
async fn turn_end(sub: &mut SessionSubscription, turn: &str) -> String {
    let envelope = wait_for(sub, |a| {
        matches!(a["type"].as_str(), Some("chat/turnComplete" | "chat/turnCancelled" | "chat/error"))
            && a["turnId"] == turn
    })
    .await;
    hangar_e2e_ahp_0_9::type_of(&envelope.action)
}

/// One turn of the fake agent: streamed text and thought (a part, then
/// deltas: the pauses keep the host from merging the chunks), a tool call
/// held on a permission, its result, more text.
fn streamed_turn_with_a_confirmation() -> Value {
    json!({ "turns": [[
        { "chunk": "Let me " },
        { "sleep": 100 },
        { "chunk": "edit hello.txt." },
        { "thought": "The word " },
        { "sleep": 100 },
        { "thought": "is world." },
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "edit-1", "title": "Edit hello.txt", "kind": "edit", "status": "pending" } },
        { "request": { "method": "session/request_permission", "params": {
            "toolCall": { "toolCallId": "edit-1", "title": "Edit hello.txt" },
            "options": [{ "optionId": "yes", "name": "Yes", "kind": "allow_once" }, { "optionId": "no", "name": "No", "kind": "reject_once" }] } } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "edit-1", "status": "completed",
            "content": [{ "type": "content", "content": { "type": "text", "text": "replaced 1 word" } }] } },
        { "chunk": "Done: " },
        { "sleep": 100 },
        { "chunk": "world is ACP now." }
    ]] })
}

#[tokio::test]
async fn a_0_9_snapshot_plus_every_0_9_action_since_is_the_fresh_0_9_snapshot_across_a_turn() {
    let mut rig = Rig::start(AgentCmd::Script(streamed_turn_with_a_confirmation()), Launch::Process(&[])).await;
    let old = connect(&rig.host, "vscode-0-9").await;
    let mut chat = Mirror::<ChatState>::subscribe(&old, &rig.chat, apply_action_to_chat).await;
    let mut session = Mirror::<SessionState>::subscribe(&old, &rig.session, apply_action_to_session).await;
    // The 1.0 client runs a turn whose tool call waits for the user.
    let turn = rig.send(EDIT).await;
    let ready = rig.wait_confirmation().await;
    chat.agrees_with_fresh(&rig.host, &old, draft_marker()).await;
    session.agrees_with_fresh(&rig.host, &old, title_marker()).await;
    let active = chat.state.active_turn.as_ref().expect("the turn is running");
    assert!(
        active
            .response_parts
            .iter()
            .any(|p| serde_json::to_value(p).unwrap()["toolCall"]["status"] == "pending-confirmation"),
        "the 0.9 client sees the tool call waiting: {:?}",
        active.response_parts
    );
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), true, Some("yes")).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    chat.agrees_with_fresh(&rig.host, &old, draft_marker()).await;
    session.agrees_with_fresh(&rig.host, &old, title_marker()).await;
    for kind in [
        "chat/turnStarted",
        "chat/responsePart",
        "chat/delta",
        "chat/reasoning",
        "chat/toolCallStart",
        "chat/toolCallReady",
        "chat/toolCallConfirmed",
        "chat/toolCallComplete",
        "chat/turnComplete",
    ] {
        assert!(chat.types.iter().any(|t| t == kind), "the 0.9 client got no {kind}: {:?}", chat.types);
    }
    let done = chat.state.turns.iter().find(|t| t.id == turn).expect("the turn is in the 0.9 mirror");
    assert_eq!(done.state, TurnState::Complete);
    let text = serde_json::to_string(&done.response_parts).unwrap();
    assert!(text.contains("Let me edit hello.txt.") && text.contains("Done: world is ACP now."), "{text}");
}

#[tokio::test]
async fn a_0_9_client_runs_a_turn_and_approves_its_tool_call() {
    let mut rig = Rig::start(AgentCmd::Transcript("codex.jsonl"), Launch::Process(&[])).await;
    let old = connect(&rig.host, "vscode-0-9").await;
    let (snapshot, mut sub) = subscribe(&old, &rig.chat).await;
    let _: ChatState = only_0_9(&snapshot["state"]);
    old.dispatch(rig.chat.clone(), turn_started("t-0-9", EDIT)).await.unwrap();
    let ready = confirmation_asked(&mut sub).await;
    assert_eq!(ready["turnId"], "t-0-9");
    let tool_call = ready["toolCallId"].as_str().unwrap();
    old.dispatch(rig.chat.clone(), approve("t-0-9", tool_call, None)).await.unwrap();
    assert_eq!(turn_end(&mut sub, "t-0-9").await, "chat/turnComplete");
    // The 1.0 client saw the 0.9 client's approval, as the 0.9 client sent it.
    let confirmed = rig.wait_type("chat/toolCallConfirmed").await;
    assert_eq!(confirmed.origin.map(|o| o.client_id).as_deref(), Some("vscode-0-9"));
    let fresh: ChatState = only_0_9(&fresh_snapshot(&rig.host, &rig.chat).await["state"]);
    let turn = fresh.turns.iter().find(|t| t.id == "t-0-9").expect("the turn is kept");
    assert_eq!(turn.state, TurnState::Complete);
    let calls: Vec<&ToolCallState> = turn
        .response_parts
        .iter()
        .filter_map(|p| match p {
            ahp_types_0_9::state::ResponsePart::ToolCall(t) => Some(&t.tool_call),
            _ => None,
        })
        .collect();
    assert!(!calls.is_empty());
    for call in calls {
        let ToolCallState::Completed(done) = call else { panic!("not completed: {call:?}") };
        assert!(done.success);
    }
    let text = serde_json::to_string(&turn.response_parts).unwrap();
    assert!(text.contains("Done: replaced 'world' with 'ACP' in hello.txt."), "{text}");
}

#[tokio::test]
async fn a_1_0_and_a_0_9_client_on_one_session_see_the_same_turns_and_each_others_actions() {
    // Two turns, each held on a permission the other client answers.
    let gate = |id: &str| {
        json!({ "request": { "method": "session/request_permission", "params": {
            "toolCall": { "toolCallId": id, "title": "Gate" },
            "options": [{ "optionId": "go", "name": "Go", "kind": "allow_once" }] } } })
    };
    let script = json!({ "turns": [[gate("g1"), { "echo": true }], [gate("g2"), { "echo": true }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::Process(&[])).await;
    let old = connect(&rig.host, "vscode-0-9").await;
    let mut chat = Mirror::<ChatState>::subscribe(&old, &rig.chat, apply_action_to_chat).await;
    let (_, mut old_session) = subscribe(&old, &rig.session).await;
    let (_, mut old_chat) = subscribe(&old, &rig.chat).await;

    // Turn 1: the 0.9 client starts it, the 1.0 client approves.
    old.dispatch(rig.chat.clone(), turn_started("from-0-9", "first")).await.unwrap();
    let ready = rig.wait_confirmation().await;
    assert_eq!(ready["turnId"], "from-0-9");
    rig.confirm("from-0-9", ready["toolCallId"].as_str().unwrap(), true, Some("go")).await;
    assert_eq!(rig.wait_end("from-0-9").await, "chat/turnComplete");
    assert_eq!(turn_end(&mut old_chat, "from-0-9").await, "chat/turnComplete");

    // Turn 2: the 1.0 client starts it, the 0.9 client approves.
    let second = rig.send("second").await;
    let ready = confirmation_asked(&mut old_chat).await;
    assert_eq!(ready["turnId"], second.as_str());
    old.dispatch(rig.chat.clone(), approve(&second, ready["toolCallId"].as_str().unwrap(), Some("go"))).await.unwrap();
    assert_eq!(turn_end(&mut old_chat, &second).await, "chat/turnComplete");
    assert_eq!(rig.wait_end(&second).await, "chat/turnComplete");

    // A rename from either client reaches the other.
    old.dispatch(
        rig.session.clone(),
        hangar_e2e_ahp_0_9::action(json!({ "type": "session/titleChanged", "title": "named by 0.9" })),
    )
    .await
    .unwrap();
    // (The first message titled the session already: that change is skipped.)
    let renamed = hangar_e2e::wait_for_action(&mut rig.session_sub, |e| {
        action_type(e) == "session/titleChanged"
            && serde_json::to_value(&e.action).is_ok_and(|a| a["title"] == "named by 0.9")
    })
    .await;
    assert_eq!(renamed.origin.map(|o| o.client_id).as_deref(), Some("vscode-0-9"));
    rig.client.dispatch(rig.session.clone(), hangar_e2e::actions::title("named by 1.0")).await.unwrap();
    let renamed = wait_for(&mut old_session, |a| a["title"] == "named by 1.0").await;
    assert_eq!(renamed.origin.map(|o| o.client_id).as_deref(), Some("acp-tests"));

    // The turns the 0.9 client reduced are the turns the 1.0 host holds.
    chat.agrees_with_fresh(&rig.host, &old, draft_marker()).await;
    let held = rig.chat_state().await;
    assert_eq!(serde_json::to_value(&chat.state.turns).unwrap(), serde_json::to_value(&held.turns).unwrap());
    let ids: Vec<&str> = held.turns.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["from-0-9", second.as_str()]);
    assert_eq!(markdown(&held.turns[0]), "echo: first");
    assert_eq!(markdown(&held.turns[1]), "echo: second");
}

#[tokio::test]
async fn what_only_1_0_defines_stays_between_the_host_and_1_0_clients() {
    let rig = Rig::start(AgentCmd::Script(json!({ "turns": [] })), Launch::Process(&[])).await;
    let old = connect(&rig.host, "vscode-0-9").await;
    let mut chat = Mirror::<ChatState>::subscribe(&old, &rig.chat, apply_action_to_chat).await;
    // The 1.0 client marks the chat read: 0.9 has no action for it.
    let read = json!({ "type": "chat/isReadChanged", "isRead": true });
    rig.client.dispatch(rig.chat.clone(), serde_json::from_value(read.clone()).unwrap()).await.unwrap();
    let held = rig.chat_state().await;
    assert_eq!(held.status & 32, 32, "the host applied it for 1.0 clients");
    chat.agrees_with_fresh(&rig.host, &old, draft_marker()).await;
    assert!(!chat.types.iter().any(|t| t.contains("isReadChanged")), "{:?}", chat.types);
    assert_eq!(chat.state.status & 32, 0, "a 0.9 chat never carries the 1.0-only read bit");
    // A 0.9 client sending it (a raw frame: its crate cannot) is refused.
    let mut sub = old.attach_subscription(&rig.chat).await;
    let refused = json!({ "channel": rig.chat, "clientSeq": 900, "action": read });
    old.notify("dispatchAction", refused).await.unwrap();
    old.dispatch(rig.chat.clone(), draft_marker()).await.unwrap();
    let echo = wait_for(&mut sub, |a| a["type"] == "chat/isReadChanged" || a["type"] == "chat/draftChanged").await;
    let reason = echo.rejection_reason.expect("refused, with a reason");
    assert!(reason.contains("0.9"), "{reason}");
}

#[tokio::test]
async fn a_0_9_client_that_reconnects_gets_a_0_9_replay_that_brings_it_to_the_fresh_snapshot() {
    let mut rig = Rig::start(AgentCmd::Script(streamed_turn_with_a_confirmation()), Launch::Process(&[])).await;
    let first = connect(&rig.host, "vscode-0-9").await;
    let (snapshot, _) = subscribe(&first, &rig.chat).await;
    let last_seen = snapshot["fromSeq"].as_i64().unwrap();
    let kept: ChatState = only_0_9(&snapshot["state"]);
    first.shutdown().await;
    // While it is away, the 1.0 client marks the chat read (an action 0.9
    // lacks: the replay must leave it out) and runs a turn.
    let read = json!({ "type": "chat/isReadChanged", "isRead": true });
    rig.client.dispatch(rig.chat.clone(), serde_json::from_value(read).unwrap()).await.unwrap();
    rig.wait_type("chat/isReadChanged").await;
    let turn = rig.send(EDIT).await;
    let ready = rig.wait_confirmation().await;
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), true, Some("yes")).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let again = open(&rig.host).await;
    let sub = again.attach_subscription(&rig.chat).await;
    let params = ReconnectParams {
        channel: ahp_types_0_9::ROOT_RESOURCE_URI.to_owned(),
        meta: None,
        client_id: "vscode-0-9".to_owned(),
        last_seen_server_seq: last_seen,
        subscriptions: vec![rig.chat.clone()],
    };
    let replay: Value = again.request("reconnect", params).await.unwrap();
    assert_eq!(replay["type"], "replay", "{replay}");
    let actions: Vec<ActionEnvelope> = replay["actions"].as_array().unwrap().iter().map(only_0_9).collect();
    let mut chat = Mirror::resume(kept, &rig.chat, sub, apply_action_to_chat);
    chat.apply_replay(&actions);
    assert!(chat.types.iter().any(|t| t == "chat/turnComplete"), "{:?}", chat.types);
    chat.agrees_with_fresh(&rig.host, &again, draft_marker()).await;
}
