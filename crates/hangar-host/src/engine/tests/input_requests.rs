//! Input requests: the session's `inputNeeded` list follows the chat's open
//! requests through their lifecycle, and a client's answers must fit an open
//! request's questions.

use ahp_types::state::SessionStatus;
use serde_json::{json, Value};

use super::*;

/// What a row expects.
#[derive(Debug)]
enum Expect {
    /// Applied, with these side effects, leaving these request ids (in
    /// order) in the session's `inputNeeded`.
    Applied(&'static [&'static str], &'static [&'static str]),
    /// Rejected with a reason containing this text.
    Rejected(&'static str),
}

struct Row {
    name: &'static str,
    setup: fn(&mut Fx),
    by: By,
    action: Value,
    expect: Expect,
}

/// A form asking one question of each kind; `name` is required.
fn form() -> Value {
    json!({ "id": "r1", "message": "Tell me", "questions": [
        { "kind": "text", "id": "name", "message": "Name?", "required": true },
        { "kind": "integer", "id": "count", "message": "How many?" },
        { "kind": "number", "id": "ratio", "message": "Ratio?" },
        { "kind": "boolean", "id": "sure", "message": "Sure?" },
        { "kind": "single-select", "id": "color", "message": "Color?",
            "options": [{ "id": "red", "label": "Red" }, { "id": "blue", "label": "Blue" }] },
        { "kind": "single-select", "id": "other", "message": "Other?",
            "options": [{ "id": "x", "label": "X" }], "allowFreeformInput": true },
        { "kind": "multi-select", "id": "tags", "message": "Tags?",
            "options": [{ "id": "a", "label": "A" }, { "id": "b", "label": "B" }] }
    ] })
}

/// A second request with one optional question.
fn second() -> Value {
    json!({ "id": "r2", "questions": [{ "kind": "text", "id": "why", "message": "Why?" }] })
}

fn requested(request: Value) -> Value {
    json!({ "type": "chat/inputRequested", "request": request })
}

fn text(v: &str) -> Value {
    json!({ "kind": "text", "value": v })
}

fn number(v: f64) -> Value {
    json!({ "kind": "number", "value": v })
}

fn draft(value: Value) -> Value {
    json!({ "state": "draft", "value": value })
}

fn answer(request: &str, question: &str, value: Value) -> Value {
    json!({ "type": "chat/inputAnswerChanged", "requestId": request, "questionId": question,
        "answer": draft(value) })
}

fn completed(request: &str, response: &str, answers: Value) -> Value {
    json!({ "type": "chat/inputCompleted", "requestId": request, "response": response, "answers": answers })
}

fn asking(f: &mut Fx) {
    running(f);
    f.server(On::Chat, requested(form()));
}

fn asking_twice(f: &mut Fx) {
    asking(f);
    f.server(On::Chat, requested(second()));
}

fn asking_with_a_name_draft(f: &mut Fx) {
    asking(f);
    f.server(On::Chat, answer("r1", "name", text("Ann")));
}

fn asked_and_cancelled(f: &mut Fx) {
    asking(f);
    f.server(On::Chat, completed("r1", "cancel", Value::Null));
}

fn asked_then_turn_ended(f: &mut Fx) {
    asking(f);
    f.server(On::Chat, turn_complete(TURN));
}

fn asked_then_failed(f: &mut Fx) {
    asking(f);
    f.server(On::Chat, turn_error(TURN));
}

/// A tool call `t1` started, not yet waiting for the person.
fn tool_started(f: &mut Fx) {
    running(f);
    let [start, _] = tool_call_pending(TURN, "t1");
    f.server(On::Chat, start);
}

/// A tool call `t1` waiting for the person's confirmation.
fn confirming(f: &mut Fx) {
    running(f);
    for action in tool_call_pending(TURN, "t1") {
        f.server(On::Chat, action);
    }
}

/// A tool call waiting for confirmation and an input request, both open.
fn confirming_and_asking(f: &mut Fx) {
    confirming(f);
    f.server(On::Chat, requested(form()));
}

fn tool_confirmed(approved: bool) -> Value {
    let mut action = json!({ "type": "chat/toolCallConfirmed", "turnId": TURN, "toolCallId": "t1",
        "approved": approved });
    if approved {
        action["confirmed"] = json!("user-action");
    } else {
        action["reason"] = json!("denied");
    }
    action
}

fn rows() -> Vec<Row> {
    use By::*;
    use Expect::*;
    let row = |name, setup, by, action, expect| Row { name, setup, by, action, expect };
    let not_fit = "does not fit the question's kind";
    vec![
        // The session's `inputNeeded` mirror.
        row("an open request is listed on the session", running, Server, requested(form()), Applied(&[], &["r1"])),
        row(
            "a second request is listed after the first",
            asking,
            Server,
            requested(second()),
            Applied(&[], &["r1", "r2"]),
        ),
        row("a request asked again is listed once", asking, Server, requested(form()), Applied(&[], &["r1"])),
        row(
            "a completed request is unlisted, the other stays",
            asking_twice,
            Client,
            completed("r2", "decline", Value::Null),
            Applied(&["InputCompleted"], &["r1"]),
        ),
        row("a completed turn unlists its requests", asking, Server, turn_complete(TURN), Applied(&["TurnEnded"], &[])),
        row(
            "a cancelled turn unlists its requests",
            asking,
            Client,
            turn_cancelled(TURN),
            Applied(&["TurnCancelled", "TurnEnded"], &[]),
        ),
        row("a failed turn unlists its requests", asking, Server, turn_error(TURN), Applied(&["TurnEnded"], &[])),
        row(
            "a resumed turn lists its still-open request again",
            asked_then_failed,
            Client,
            json!({ "type": "chat/turnResume", "turnId": TURN }),
            Applied(&[], &["r1"]),
        ),
        // Tool calls waiting for a confirmation are mirrored too (AHP 1.0.0:
        // a client following only the session must see it needs a person).
        row(
            "a tool call waiting for confirmation is listed on the session",
            tool_started,
            Server,
            tool_call_pending(TURN, "t1")[1].clone(),
            Applied(&[], &["tool:t1"]),
        ),
        row(
            "an approved tool call is unlisted",
            confirming,
            Client,
            tool_confirmed(true),
            Applied(&["ToolCallConfirmed"], &[]),
        ),
        row(
            "a denied tool call is unlisted",
            confirming,
            Client,
            tool_confirmed(false),
            Applied(&["ToolCallConfirmed"], &[]),
        ),
        row(
            "a cancelled turn unlists its pending tool call",
            confirming,
            Client,
            turn_cancelled(TURN),
            Applied(&["TurnCancelled", "TurnEnded"], &[]),
        ),
        row(
            "answering a request leaves the pending tool call listed",
            confirming_and_asking,
            Client,
            completed("r1", "decline", Value::Null),
            Applied(&["InputCompleted"], &["tool:t1"]),
        ),
        // Preconditions of a client's answers.
        row(
            "an answer with no request open is rejected",
            running,
            Client,
            answer("r1", "name", text("Ann")),
            Rejected("no open input request r1"),
        ),
        row(
            "an answer to a completed request is rejected",
            asked_and_cancelled,
            Client,
            answer("r1", "name", text("Ann")),
            Rejected("no open input request r1"),
        ),
        row(
            "an answer to a request of an ended turn is rejected",
            asked_then_turn_ended,
            Client,
            answer("r1", "name", text("Ann")),
            Rejected("no open input request r1"),
        ),
        row(
            "an answer to a question the request lacks is rejected",
            asking,
            Client,
            answer("r1", "age", number(3.0)),
            Rejected("has no question age"),
        ),
        row(
            "a number for a text question is rejected",
            asking,
            Client,
            answer("r1", "name", number(3.0)),
            Rejected(not_fit),
        ),
        row(
            "a fraction for an integer question is rejected",
            asking,
            Client,
            answer("r1", "count", number(1.5)),
            Rejected(not_fit),
        ),
        row(
            "a whole number for an integer question is kept",
            asking,
            Client,
            answer("r1", "count", number(3.0)),
            Applied(&[], &["r1"]),
        ),
        row(
            "a fraction for a number question is kept",
            asking,
            Client,
            answer("r1", "ratio", number(0.5)),
            Applied(&[], &["r1"]),
        ),
        row(
            "text for a boolean question is rejected",
            asking,
            Client,
            answer("r1", "sure", text("yes")),
            Rejected(not_fit),
        ),
        row(
            "an option the single-select does not offer is rejected",
            asking,
            Client,
            answer("r1", "color", json!({ "kind": "selected", "value": "green" })),
            Rejected(not_fit),
        ),
        row(
            "free text where the single-select allows it is kept",
            asking,
            Client,
            answer("r1", "other", json!({ "kind": "selected", "value": "anything" })),
            Applied(&[], &["r1"]),
        ),
        row(
            "a value the multi-select does not offer is rejected",
            asking,
            Client,
            answer("r1", "tags", json!({ "kind": "selected-many", "value": ["a", "z"] })),
            Rejected(not_fit),
        ),
        row(
            "free values in a multi-select that allows none are rejected",
            asking,
            Client,
            answer("r1", "tags", json!({ "kind": "selected-many", "value": ["a"], "freeformValues": ["z"] })),
            Rejected(not_fit),
        ),
        row(
            "offered values in a multi-select are kept",
            asking,
            Client,
            answer("r1", "tags", json!({ "kind": "selected-many", "value": ["a", "b"] })),
            Applied(&[], &["r1"]),
        ),
        row(
            "clearing a draft is kept",
            asking_with_a_name_draft,
            Client,
            json!({ "type": "chat/inputAnswerChanged", "requestId": "r1", "questionId": "name" }),
            Applied(&[], &["r1"]),
        ),
        row(
            "an accept that leaves a required question out is rejected",
            asking,
            Client,
            completed("r1", "accept", json!({ "count": draft(number(3.0)) })),
            Rejected("question name is required"),
        ),
        row(
            "an accept that skips a required question is rejected",
            asking,
            Client,
            completed("r1", "accept", json!({ "count": draft(number(3.0)), "name": { "state": "skipped" } })),
            Rejected("question name is required"),
        ),
        row(
            "an accept whose answer does not fit is rejected",
            asking,
            Client,
            completed("r1", "accept", json!({ "name": draft(number(3.0)) })),
            Rejected(not_fit),
        ),
        row(
            "an accept answering nothing is the form's skip",
            asking,
            Client,
            completed("r1", "accept", Value::Null),
            Applied(&["InputCompleted"], &[]),
        ),
        row(
            "an accept counts the required answer drafted before",
            asking_with_a_name_draft,
            Client,
            completed("r1", "accept", json!({ "count": draft(number(3.0)) })),
            Applied(&["InputCompleted"], &[]),
        ),
        row(
            "a decline needs no answers",
            asking,
            Client,
            completed("r1", "decline", Value::Null),
            Applied(&["InputCompleted"], &[]),
        ),
    ]
}

/// The request ids listed in the session's `inputNeeded`, in order.
fn listed(f: &Fx) -> Vec<String> {
    let prefix = format!("{}#", f.chat);
    let list = serde_json::to_value(&f.session_state().input_needed).unwrap();
    let ids = list.as_array().cloned().unwrap_or_default();
    ids.iter().map(|r| r["id"].as_str().unwrap_or_default().trim_start_matches(&prefix).to_owned()).collect()
}

#[test]
fn input_requests_follow_the_chat_and_answers_fit_their_questions() {
    for row in rows() {
        let name = row.name;
        let mut f = Fx::for_row(Start::Ready, row.setup);
        match (&row.expect, f.apply(row.by, On::Chat, &row.action)) {
            (Expect::Applied(effects, input_needed), Ok(_)) => {
                assert_eq!(f.effects(), *effects, "{name}: side effects");
                assert_eq!(listed(&f), *input_needed, "{name}: the session's inputNeeded");
                let blocked = SessionStatus(f.session_state().status).contains(SessionStatus::InputNeeded);
                assert_eq!(blocked, !input_needed.is_empty(), "{name}: the session's input-needed status");
            }
            (Expect::Rejected(why), Err(reason)) => {
                assert!(reason.contains(why), "{name}: reason {reason:?} should say {why:?}");
            }
            (expect, got) => panic!("{name}: expected {expect:?}, got {got:?}"),
        }
    }
}
