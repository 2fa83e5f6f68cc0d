//! Queued and steering messages: a queued message starts as a turn as soon
//! as the chat is idle (and its session ready), first in the queue's order;
//! removed ones never start; a steering message stays with the running turn.
//! When the agent fails to start, queued messages become turns that end
//! with its start error.

use ahp_types::state::{ResponsePart, TurnState};
use serde_json::{json, Value};

use super::*;

struct Row {
    name: &'static str,
    start: Start,
    setup: fn(&mut Fx),
    /// Applied in order; each must apply.
    acts: Vec<(By, On, Value)>,
    /// The running turn afterwards: the queued message id it started from
    /// and its text; `None` when the chat is idle or runs its first turn.
    started: Option<(&'static str, &'static str)>,
    /// Queued message ids left, in order.
    queued: &'static [&'static str],
    /// The steering message id left.
    steering: Option<&'static str>,
    /// The texts of the turns that ended with the agent's start error.
    failed: &'static [&'static str],
    /// Side effects of the acts.
    effects: &'static [&'static str],
}

/// A turn runs with `q1` ("one") and `q2` ("two") queued behind it.
fn running_with_two_queued(f: &mut Fx) {
    running(f);
    f.server(On::Chat, queued("q1", "one"));
    f.server(On::Chat, queued("q2", "two"));
}

/// The agent did not start.
fn creation_failed() -> Value {
    json!({ "type": "session/creationFailed", "error": { "errorType": "agentStartFailed", "message": START_ERROR } })
}

const START_ERROR: &str = "spawn nope: not found";

fn start_failed(f: &mut Fx) {
    f.server(On::Session, creation_failed());
}

fn queued(id: &str, text: &str) -> Value {
    pending_message("queued", id, text)
}

fn rows() -> Vec<Row> {
    use By::*;
    use On::*;
    use Start::*;
    vec![
        Row {
            name: "a message queued on an idle chat starts at once",
            start: Ready,
            setup: idle,
            acts: vec![(Client, Chat, queued("q1", "one"))],
            started: Some(("q1", "one")),
            queued: &[],
            steering: None,
            failed: &[],
            effects: &["TurnStarted"],
        },
        Row {
            name: "a message queued behind a running turn waits",
            start: Ready,
            setup: running,
            acts: vec![(Client, Chat, queued("q1", "one"))],
            started: None,
            queued: &["q1"],
            steering: None,
            failed: &[],
            effects: &[],
        },
        Row {
            name: "a message queued before the session is ready waits for it",
            start: Creating,
            setup: idle,
            acts: vec![(Client, Chat, queued("q1", "one"))],
            started: None,
            queued: &["q1"],
            steering: None,
            failed: &[],
            effects: &[],
        },
        Row {
            name: "a message queued before the session is ready starts once it is",
            start: Creating,
            setup: idle,
            acts: vec![(Client, Chat, queued("q1", "one")), (Server, Session, json!({ "type": "session/ready" }))],
            started: Some(("q1", "one")),
            queued: &[],
            steering: None,
            failed: &[],
            effects: &["TurnStarted"],
        },
        Row {
            name: "messages queued while the agent starts end with its start error when it fails to",
            start: Creating,
            setup: idle,
            acts: vec![
                (Client, Chat, queued("q1", "one")),
                (Client, Chat, queued("q2", "two")),
                (Server, Session, creation_failed()),
            ],
            started: None,
            queued: &[],
            steering: None,
            failed: &["one", "two"],
            effects: &["TurnEnded", "TurnEnded"],
        },
        Row {
            name: "a message queued after the agent failed to start ends with its start error",
            start: Creating,
            setup: start_failed,
            acts: vec![(Client, Chat, queued("q1", "one"))],
            started: None,
            queued: &[],
            steering: None,
            failed: &["one"],
            effects: &["TurnEnded"],
        },
        Row {
            name: "the first queued message starts when the turn completes",
            start: Ready,
            setup: running_with_two_queued,
            acts: vec![(Server, Chat, turn_complete(TURN))],
            started: Some(("q1", "one")),
            queued: &["q2"],
            steering: None,
            failed: &[],
            effects: &["TurnEnded", "TurnStarted"],
        },
        Row {
            name: "the first queued message starts when the turn is cancelled",
            start: Ready,
            setup: running_with_two_queued,
            acts: vec![(Client, Chat, turn_cancelled(TURN))],
            started: Some(("q1", "one")),
            queued: &["q2"],
            steering: None,
            failed: &[],
            effects: &["TurnCancelled", "TurnEnded", "TurnStarted"],
        },
        Row {
            name: "the first queued message starts when the turn fails",
            start: Ready,
            setup: running_with_two_queued,
            acts: vec![(Server, Chat, turn_error(TURN))],
            started: Some(("q1", "one")),
            queued: &["q2"],
            steering: None,
            failed: &[],
            effects: &["TurnEnded", "TurnStarted"],
        },
        Row {
            name: "a reordered queue starts its new first",
            start: Ready,
            setup: running_with_two_queued,
            acts: vec![
                (Client, Chat, json!({ "type": "chat/queuedMessagesReordered", "order": ["q2", "q1"] })),
                (Server, Chat, turn_complete(TURN)),
            ],
            started: Some(("q2", "two")),
            queued: &["q1"],
            steering: None,
            failed: &[],
            effects: &["TurnEnded", "TurnStarted"],
        },
        Row {
            name: "a removed message never starts",
            start: Ready,
            setup: running_with_two_queued,
            acts: vec![
                (Client, Chat, json!({ "type": "chat/pendingMessageRemoved", "kind": "queued", "id": "q1" })),
                (Server, Chat, turn_complete(TURN)),
            ],
            started: Some(("q2", "two")),
            queued: &[],
            steering: None,
            failed: &[],
            effects: &["TurnEnded", "TurnStarted"],
        },
        Row {
            name: "a queued message set again keeps its place with its new text",
            start: Ready,
            setup: running_with_two_queued,
            acts: vec![(Client, Chat, queued("q1", "uno")), (Server, Chat, turn_complete(TURN))],
            started: Some(("q1", "uno")),
            queued: &["q2"],
            steering: None,
            failed: &[],
            effects: &["TurnEnded", "TurnStarted"],
        },
        Row {
            name: "an empty queue starts nothing when the turn completes",
            start: Ready,
            setup: running,
            acts: vec![(Server, Chat, turn_complete(TURN))],
            started: None,
            queued: &[],
            steering: None,
            failed: &[],
            effects: &["TurnEnded"],
        },
        Row {
            name: "a steering message goes to the running turn, not the queue",
            start: Ready,
            setup: running_with_two_queued,
            acts: vec![(Client, Chat, pending_message("steering", "s1", "also this"))],
            started: None,
            queued: &["q1", "q2"],
            steering: Some("s1"),
            failed: &[],
            effects: &["SteeringSet"],
        },
    ]
}

#[test]
fn queued_messages_start_in_order_when_the_chat_is_idle() {
    for row in rows() {
        let name = row.name;
        let mut f = Fx::for_row(row.start, row.setup);
        for (by, on, action) in &row.acts {
            let result = f.apply(*by, *on, action);
            assert!(result.is_ok(), "{name}: {action} was not applied: {result:?}");
        }
        assert_eq!(f.effects(), row.effects, "{name}: side effects");
        let published = f.published();
        let chat = f.chat_state();
        let from_queue = chat.active_turn.as_ref().filter(|t| t.id != TURN).map(|t| t.message.text.as_str());
        let started_by = published.iter().rev().find(|p| p.kind == "chat/turnStarted").map(|p| &p.body);
        match row.started {
            Some((id, text)) => {
                assert_eq!(from_queue, Some(text), "{name}: the turn runs the queued message");
                let started_by = started_by.unwrap_or_else(|| panic!("{name}: no chat/turnStarted published"));
                assert_eq!(started_by["queuedMessageId"], id, "{name}: the turn names the queued message");
                let removed =
                    published.iter().position(|p| p.kind == "chat/pendingMessageRemoved" && p.body["id"] == id);
                let started = published.iter().position(|p| p.kind == "chat/turnStarted");
                assert!(
                    removed.is_some() && removed < started,
                    "{name}: the message is removed before its turn starts"
                );
            }
            None => {
                assert_eq!(from_queue, None, "{name}: no queued message started");
                let starts = published.iter().filter(|p| p.kind == "chat/turnStarted").count();
                assert_eq!(starts, row.failed.len(), "{name}: no turn started but those that failed");
            }
        }
        let queued: Vec<&str> = chat.queued_messages.iter().flatten().map(|m| m.id.as_str()).collect();
        assert_eq!(queued, row.queued, "{name}: the queue left");
        assert_eq!(chat.steering_message.as_ref().map(|m| m.id.as_str()), row.steering, "{name}: steering");
        let failed: Vec<&str> = chat
            .turns
            .iter()
            .filter(|t| t.state == TurnState::Error)
            .filter(|t| {
                t.response_parts.iter().any(|p| {
                    matches!(p, ResponsePart::Error(e) if e.error.error_type == "agentStartFailed" && e.error.message == START_ERROR)
                })
            })
            .map(|t| t.message.text.as_str())
            .collect();
        assert_eq!(failed, row.failed, "{name}: turns ended with the start error");
    }
}
