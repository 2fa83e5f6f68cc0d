//! Queued messages and cancels against the fake agent: a cancelled prompt
//! that is still running holds the next turn back (its late chunks never
//! reach the new turn), the queue's order and removals decide what starts,
//! an agent that ignores a cancel is stopped, and a message queued on a
//! session whose agent could not start ends as a turn with the start error.
//! Needs `cargo build -p
//! hangar-cli -p hangar-fake-agent`.

use ahp_types::actions::{ChatPendingMessageRemovedAction, ChatQueuedMessagesReorderedAction};
use ahp_types::state::PendingMessageKind;
use ahp_types::StateAction;
use hangar_e2e::acp::{error_message, markdown, processes_with, AgentCmd, Rig};
use hangar_e2e::action_type;
use hangar_e2e::actions::turn_cancelled;
use hangar_e2e::Launch;
use serde_json::{json, Value};

/// Wait for the next `chat/turnStarted`; returns (turn id, queued message id).
async fn next_started(rig: &mut Rig) -> (String, Option<String>) {
    let env = rig.wait_type("chat/turnStarted").await;
    let v = serde_json::to_value(&env.action).unwrap();
    (v["turnId"].as_str().unwrap().to_owned(), v["queuedMessageId"].as_str().map(str::to_owned))
}

#[tokio::test]
async fn a_queued_message_waits_for_the_cancelled_prompt_to_return() {
    // After `session/cancel` the agent takes a while, sends one more chunk,
    // then answers `cancelled`.
    let script = json!({
        "onCancel": [{ "sleep": 700 }, { "chunk": "LATE" }],
        "turns": [[{ "chunk": "old" }, { "sleep": 30000 }], [{ "echo": true }]]
    });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let first = rig.send("first").await;
    rig.wait(|e| action_type(e) == "chat/responsePart").await;
    rig.pending(PendingMessageKind::Queued, "q1", "second").await;
    rig.dispatch(turn_cancelled(&first)).await;
    let (second, queued) = next_started(&mut rig).await;
    assert_eq!(queued.as_deref(), Some("q1"));
    assert_eq!(rig.wait_end(&second).await, "chat/turnComplete");
    let old = rig.turn(&first).await;
    assert_eq!(old.state, ahp_types::state::TurnState::Cancelled);
    assert_eq!(markdown(&old), "old", "the late chunk is dropped");
    assert_eq!(
        markdown(&rig.turn(&second).await),
        "echo: second",
        "nothing of the cancelled prompt lands in the new turn"
    );
}

#[tokio::test]
async fn reordered_and_removed_queued_messages() {
    // The first turn waits on a permission until the queue is arranged.
    let gate = json!({ "request": { "method": "session/request_permission", "params": {
        "toolCall": { "toolCallId": "gate", "title": "Gate" },
        "options": [{ "optionId": "go", "name": "Go", "kind": "allow_once" }] } } });
    let script = json!({ "turns": [[gate, { "echo": true }], [{ "echo": true }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let first = rig.send("first").await;
    let ready = rig.wait_confirmation().await;
    rig.pending(PendingMessageKind::Queued, "q1", "one").await;
    rig.pending(PendingMessageKind::Queued, "q2", "two").await;
    rig.pending(PendingMessageKind::Queued, "q3", "three").await;
    rig.dispatch(StateAction::ChatQueuedMessagesReordered(ChatQueuedMessagesReorderedAction {
        order: vec!["q2".into(), "q1".into(), "q3".into()],
    }))
    .await;
    rig.dispatch(StateAction::ChatPendingMessageRemoved(ChatPendingMessageRemovedAction {
        kind: PendingMessageKind::Queued,
        id: "q1".into(),
    }))
    .await;
    // Dispatches are notifications: the snapshot (on another connection)
    // shows them once the host has echoed the last one back.
    rig.wait_type("chat/pendingMessageRemoved").await;
    let queue: Vec<String> =
        rig.chat_state().await.queued_messages.unwrap_or_default().into_iter().map(|m| m.id).collect();
    assert_eq!(queue, vec!["q2", "q3"]);
    rig.confirm(&first, ready["toolCallId"].as_str().unwrap(), true, Some("go")).await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");
    let mut started = Vec::new();
    for _ in 0..2 {
        let (turn, queued) = next_started(&mut rig).await;
        assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
        started.push((queued.unwrap(), markdown(&rig.turn(&turn).await)));
    }
    assert_eq!(started, vec![("q2".to_owned(), "echo: two".to_owned()), ("q3".to_owned(), "echo: three".to_owned())]);
    let chat = rig.chat_state().await;
    assert!(chat.queued_messages.unwrap_or_default().is_empty());
    let all = serde_json::to_string(&chat.turns).unwrap();
    assert!(!all.contains("\"one\"") && !all.contains("echo: one"), "the removed message never started");
}

#[tokio::test]
async fn an_agent_that_ignores_cancel_is_stopped_and_the_next_turn_gets_a_fresh_one() {
    let tmp = tempfile::tempdir().unwrap();
    let script_path = tmp.path().join("stubborn.json");
    let script =
        json!({ "ignoreCancel": true, "turns": [[{ "chunk": "busy" }, { "sleep": 60000 }, { "chunk": "TOO LATE" }]] });
    std::fs::write(&script_path, script.to_string()).unwrap();
    let cmd = format!("{} --script {}", hangar_e2e::acp::fake_agent_bin().display(), script_path.display());
    let mut rig = Rig::start(AgentCmd::Command(cmd), Launch::Process(&[("HANGAR_ACP_CANCEL_TIMEOUT", "1")])).await;
    let needle = script_path.display().to_string();
    let first = rig.send("first").await;
    rig.wait(|e| action_type(e) == "chat/responsePart").await;
    let before = processes_with(&needle);
    assert_eq!(before.len(), 1);
    rig.pending(PendingMessageKind::Queued, "q1", "again").await;
    rig.dispatch(turn_cancelled(&first)).await;
    let (second, _) = next_started(&mut rig).await;
    // The stubborn agent is stopped after the cancel timeout; the queued
    // turn runs on a fresh process (which is busy again).
    rig.wait(|e| action_type(e) == "chat/responsePart").await;
    let after = processes_with(&needle);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(before, after, "a fresh agent process");
    assert_eq!(markdown(&rig.turn(&first).await), "busy");
    rig.dispatch(turn_cancelled(&second)).await;
    let _: Value = rig.client.request("disposeSession", json!({ "channel": rig.session })).await.unwrap();
}

#[tokio::test]
async fn a_message_queued_on_a_session_whose_agent_did_not_start_ends_with_the_start_error() {
    let script = json!({ "failStart": "error: no API key configured" });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    assert_eq!(rig.created, "session/creationFailed");
    rig.pending(PendingMessageKind::Queued, "q1", "hello").await;
    let (turn, queued) = next_started(&mut rig).await;
    assert_eq!(queued.as_deref(), Some("q1"));
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    let turn = rig.turn(&turn).await;
    assert_eq!(turn.message.text, "hello", "the message stays in the history");
    assert!(error_message(&turn).is_some_and(|m| m.contains("no API key configured")), "{turn:?}");
    assert!(rig.chat_state().await.queued_messages.unwrap_or_default().is_empty());
}
