//! Input requests end to end: the fake agent's `elicitation/create` becomes
//! a `chat/inputRequested` part mirrored into the session's `inputNeeded`,
//! clients answer with `chat/inputAnswerChanged` / `chat/inputCompleted`,
//! and the agent receives typed content (echoed back through `$ANSWER`).
//! Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use ahp_types::state::{ChatInputResponseKind, ResponsePart, SessionInputRequest, SessionStatus};
use ahp_types::StateAction;
use hangar_e2e::acp::{markdown, processes_with, AgentCmd, Rig};
use hangar_e2e::{action_type, wait_for_action};
use hangar_e2e::{Launch, TestHost};
use serde_json::{json, Value};

/// A form with one property of every kind (names sort in display order).
fn every_kind_schema() -> Value {
    json!({ "type": "object", "required": ["a_name", "c_count"], "properties": {
        "a_name": { "type": "string", "title": "Name", "minLength": 1 },
        "b_email": { "type": "string", "format": "email", "description": "Where to write" },
        "c_count": { "type": "integer", "minimum": 1, "maximum": 10, "default": 2 },
        "d_ratio": { "type": "number", "maximum": 1 },
        "e_agree": { "type": "boolean", "default": false },
        "f_color": { "type": "string", "oneOf": [{ "const": "red", "title": "Red" }, { "const": "green", "title": "Green" }] },
        "g_size": { "type": "string", "enum": ["s", "m", "l"], "default": "s" },
        "h_tags": { "type": "array", "items": { "type": "string", "enum": ["x", "y", "z"] } },
        "i_extra": { "type": "string" }
    } })
}

/// One turn asking the form; the agent echoes what it got.
fn asking(schema: Value) -> Value {
    json!([
        { "chunk": "Before asking." },
        { "elicit": { "message": "A few details, please", "schema": schema }, "then": {
            "accept": [{ "sleep": 1500 }, { "chunk": "got $ANSWER" }],
            "decline": [{ "chunk": "you declined" }],
            "cancel": [{ "chunk": "you cancelled" }]
        } }
    ])
}

fn submitted(value: Value) -> Value {
    json!({ "state": "submitted", "value": value })
}

fn input_part(parts: &[ResponsePart]) -> &ahp_types::state::InputRequestResponsePart {
    parts
        .iter()
        .find_map(|p| match p {
            ResponsePart::InputRequest(i) => Some(i),
            _ => None,
        })
        .expect("an input request part")
}

/// The session's status in `listSessions`.
async fn summary_status(rig: &Rig) -> u32 {
    let list: Value =
        rig.client.request("listSessions", json!({ "channel": ahp_types::ROOT_RESOURCE_URI })).await.unwrap();
    let item =
        list["items"].as_array().unwrap().iter().find(|s| s["resource"] == rig.session.as_str()).unwrap().clone();
    item["status"].as_u64().unwrap() as u32
}

/// The activity bits of a status (idle, error, in progress, input needed).
fn activity(status: u32) -> u32 {
    status & (SessionStatus::Idle.0 | SessionStatus::Error.0 | SessionStatus::InputNeeded.0)
}

#[tokio::test]
async fn every_question_kind_is_answered_with_typed_content() {
    let mut rig =
        Rig::start(AgentCmd::Script(json!({ "turns": [asking(every_kind_schema())] })), Launch::InProcess).await;
    let turn = rig.send("ask me").await;
    let request = rig.wait_input_request().await;
    let kinds: Vec<String> = serde_json::to_value(request.questions.as_ref().unwrap())
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds,
        ["text", "text", "integer", "number", "boolean", "single-select", "single-select", "multi-select", "text"]
    );
    assert_eq!(request.message.as_deref(), Some("A few details, please"));

    // Pending: mirrored on the session, which needs input.
    wait_for_action(&mut rig.session_sub, |e| action_type(e) == "session/inputNeededSet").await;
    let session = rig.session_state().await;
    let needed = session.input_needed.clone().unwrap_or_default();
    assert!(
        matches!(needed.as_slice(), [SessionInputRequest::ChatInput(c)] if c.chat == rig.chat && c.request.id == request.id),
        "{needed:?}"
    );
    assert_eq!(activity(session.status), SessionStatus::InputNeeded.0);
    assert_eq!(activity(rig.chat_state().await.status), SessionStatus::InputNeeded.0);
    assert_eq!(activity(summary_status(&rig).await), SessionStatus::InputNeeded.0);

    let answers = json!({
        "a_name": submitted(json!({ "kind": "text", "value": "Ada" })),
        "b_email": submitted(json!({ "kind": "text", "value": "ada@example.com" })),
        "c_count": submitted(json!({ "kind": "number", "value": 3 })),
        "d_ratio": submitted(json!({ "kind": "number", "value": 0.25 })),
        "e_agree": submitted(json!({ "kind": "boolean", "value": true })),
        "f_color": submitted(json!({ "kind": "selected", "value": "red" })),
        "g_size": submitted(json!({ "kind": "selected", "value": "m" })),
        "h_tags": submitted(json!({ "kind": "selected-many", "value": ["x", "z"] })),
        "i_extra": { "state": "skipped" }
    });
    rig.complete_input(&request.id, ChatInputResponseKind::Accept, Some(answers)).await;

    // Answered: the mirror is gone and the session is back to working
    // while the agent goes on.
    wait_for_action(&mut rig.session_sub, |e| action_type(e) == "session/inputNeededRemoved").await;
    let session = rig.session_state().await;
    assert!(session.input_needed.is_none(), "{:?}", session.input_needed);
    assert_eq!(activity(session.status), SessionStatus::InProgress.0);
    assert_eq!(activity(rig.chat_state().await.status), SessionStatus::InProgress.0);
    assert_eq!(activity(summary_status(&rig).await), SessionStatus::InProgress.0);

    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    let expected = json!({
        "a_name": "Ada", "b_email": "ada@example.com", "c_count": 3, "d_ratio": 0.25,
        "e_agree": true, "f_color": "red", "g_size": "m", "h_tags": ["x", "z"]
    });
    assert_eq!(markdown(&t), format!("Before asking.|got {expected}"), "typed content, skipped question left out");
    let part = input_part(&t.response_parts);
    assert_eq!(part.response, Some(ChatInputResponseKind::Accept));
    assert_eq!(part.request.answers.as_ref().unwrap().len(), 9);
}

#[tokio::test]
async fn decline_skip_and_url_mode() {
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" } } });
    let url = json!([
        { "elicit": { "message": "Sign in", "url": "https://example.com/login" }, "then": { "*": [{ "chunk": "url: $ANSWER" }] } }
    ]);
    let script = json!({ "turns": [asking(schema.clone()), asking(schema), url] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;

    let turn = rig.send("one").await;
    let request = rig.wait_input_request().await;
    rig.complete_input(&request.id, ChatInputResponseKind::Decline, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    assert_eq!(markdown(&t), "Before asking.|you declined");
    assert_eq!(input_part(&t.response_parts).response, Some(ChatInputResponseKind::Decline));

    // The form's "Skip": accept with every question skipped → cancel.
    let turn = rig.send("two").await;
    let request = rig.wait_input_request().await;
    rig.complete_input(&request.id, ChatInputResponseKind::Accept, Some(json!({ "name": { "state": "skipped" } })))
        .await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(markdown(&rig.turn(&turn).await), "Before asking.|you cancelled");

    // Url mode: a request carrying the URL and no questions.
    let turn = rig.send("three").await;
    let request = rig.wait_input_request().await;
    assert_eq!(request.url.as_deref(), Some("https://example.com/login"));
    assert!(request.questions.is_none());
    rig.complete_input(&request.id, ChatInputResponseKind::Accept, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(markdown(&rig.turn(&turn).await), "url: accept");
    assert!(rig.session_state().await.input_needed.is_none());
}

#[tokio::test]
async fn cancelling_the_turn_cancels_the_pending_elicitation() {
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" } } });
    // The agent ignores session/cancel so it waits for the elicitation's
    // answer; the next turn reports what that answer was.
    let script = json!({ "ignoreCancel": true, "turns": [asking(schema), [{ "chunk": "last answer: $ANSWER" }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("one").await;
    let request = rig.wait_input_request().await;
    wait_for_action(&mut rig.session_sub, |e| action_type(e) == "session/inputNeededSet").await;
    rig.dispatch(hangar_e2e::actions::turn_cancelled(&turn)).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnCancelled");
    wait_for_action(&mut rig.session_sub, |e| action_type(e) == "session/inputNeededRemoved").await;
    assert!(rig.session_state().await.input_needed.is_none());
    assert_eq!(activity(summary_status(&rig).await), SessionStatus::Idle.0, "the session list shows it idle");
    // A late answer is refused.
    rig.complete_input(&request.id, ChatInputResponseKind::Decline, None).await;
    let rejected = rig.wait(|e| e.rejection_reason.is_some()).await;
    assert_eq!(action_type(&rejected), "chat/inputCompleted");

    let next = rig.send("two").await;
    assert_eq!(rig.wait_end(&next).await, "chat/turnComplete");
    assert_eq!(markdown(&rig.turn(&next).await), "last answer: cancel", "the agent got `cancel`");
}

#[tokio::test]
async fn drafts_reach_a_second_client_and_count_on_accept() {
    let schema = json!({ "type": "object", "required": ["name"], "properties": {
        "name": { "type": "string" }, "size": { "type": "string", "enum": ["s", "m"], "default": "s" }
    } });
    let mut rig = Rig::start(AgentCmd::Script(json!({ "turns": [asking(schema)] })), Launch::InProcess).await;
    let (other, _) = hangar_e2e::initialized(&rig.host, "second-client").await;
    let (_, mut other_chat) = other.subscribe(rig.chat.clone()).await.unwrap();
    let turn = rig.send("ask").await;
    let request = rig.wait_input_request().await;
    let draft = ahp_types::actions::ChatInputAnswerChangedAction {
        request_id: request.id.clone(),
        question_id: "name".to_owned(),
        answer: Some(
            serde_json::from_value(json!({ "state": "draft", "value": { "kind": "text", "value": "Grace" } })).unwrap(),
        ),
    };
    rig.dispatch(StateAction::ChatInputAnswerChanged(draft)).await;
    let seen = wait_for_action(&mut other_chat, |e| action_type(e) == "chat/inputAnswerChanged").await;
    let StateAction::ChatInputAnswerChanged(seen) = seen.action else { unreachable!() };
    assert_eq!(seen.question_id, "name");
    let state = hangar_e2e::acp::chat_state(&rig.host, &rig.chat).await;
    let active = state.active_turn.unwrap();
    let answers = serde_json::to_value(&input_part(&active.response_parts).request.answers).unwrap();
    assert_eq!(answers["name"]["value"]["value"], "Grace", "the draft is in the state");
    assert_eq!(answers["size"]["value"]["value"], "s", "the default is a draft answer");
    other.shutdown().await;

    // Accept with no answers of its own: the synced drafts are the answer.
    rig.complete_input(&request.id, ChatInputResponseKind::Accept, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(markdown(&rig.turn(&turn).await), r#"Before asking.|got {"name":"Grace","size":"s"}"#);
}

#[tokio::test]
async fn bad_answers_are_rejected_with_a_reason() {
    let schema = json!({ "type": "object", "required": ["count"], "properties": {
        "count": { "type": "integer" }, "note": { "type": "string" }
    } });
    let mut rig = Rig::start(AgentCmd::Script(json!({ "turns": [asking(schema)] })), Launch::InProcess).await;
    let turn = rig.send("ask").await;
    let request = rig.wait_input_request().await;
    let cases = [
        ("no-such-request", json!({ "count": submitted(json!({ "kind": "number", "value": 1 })) })),
        (request.id.as_str(), json!({ "nope": submitted(json!({ "kind": "text", "value": "x" })) })),
        (request.id.as_str(), json!({ "count": submitted(json!({ "kind": "text", "value": "x" })) })),
        (request.id.as_str(), json!({ "count": submitted(json!({ "kind": "number", "value": 1.5 })) })),
        (
            request.id.as_str(),
            json!({ "note": submitted(json!({ "kind": "text", "value": "required count missing" })) }),
        ),
    ];
    for (id, answers) in cases {
        rig.complete_input(id, ChatInputResponseKind::Accept, Some(answers.clone())).await;
        let rejected = rig.wait(|e| e.rejection_reason.is_some()).await;
        assert_eq!(action_type(&rejected), "chat/inputCompleted", "{id} {answers}");
        assert!(!rejected.rejection_reason.unwrap().is_empty());
    }
    // Still open, and a good answer goes through.
    rig.complete_input(
        &request.id,
        ChatInputResponseKind::Accept,
        Some(json!({ "count": submitted(json!({ "kind": "number", "value": 7 })) })),
    )
    .await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(markdown(&rig.turn(&turn).await), r#"Before asking.|got {"count":7}"#);
}

#[tokio::test]
async fn the_answered_request_survives_kill_9() {
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
    let mut rig = Rig::start(AgentCmd::Script(json!({ "turns": [asking(schema)] })), Launch::Process(&[])).await;
    let turn = rig.send("ask").await;
    let request = rig.wait_input_request().await;
    rig.complete_input(
        &request.id,
        ChatInputResponseKind::Accept,
        Some(json!({ "ok": submitted(json!({ "kind": "boolean", "value": true })) })),
    )
    .await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let data = rig.host.data_dir.clone();
    rig.host.kill9();
    let host = TestHost::start_in(Launch::Process(&[]), &data, &[]);
    let state = hangar_e2e::acp::chat_state(&host, &rig.chat).await;
    let t = state.turns.iter().find(|t| t.id == turn).unwrap();
    let part = input_part(&t.response_parts);
    assert_eq!(part.response, Some(ChatInputResponseKind::Accept));
    assert_eq!(serde_json::to_value(&part.request.answers).unwrap()["ok"]["value"]["value"], true);
    assert_eq!(markdown(t), r#"Before asking.|got {"ok":true}"#);
}

#[tokio::test]
async fn the_agent_exiting_while_asked_closes_the_request() {
    let schema = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
    let tmp = tempfile::tempdir().unwrap();
    let script_path = tmp.path().join("elicit-then-die.json");
    std::fs::write(&script_path, json!({ "turns": [asking(schema)] }).to_string()).unwrap();
    let cmd = format!("{} --script {}", hangar_e2e::acp::fake_agent_bin().display(), script_path.display());
    let needle = script_path.display().to_string();
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd), Launch::InProcess, None).await;
    let turn = rig.send("ask").await;
    let request = rig.wait_input_request().await;
    wait_for_action(&mut rig.session_sub, |e| action_type(e) == "session/inputNeededSet").await;
    for pid in processes_with(&needle) {
        std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status().unwrap();
    }
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    let t = rig.turn(&turn).await;
    assert_eq!(
        input_part(&t.response_parts).response,
        Some(ChatInputResponseKind::Cancel),
        "closed before the turn ended"
    );
    assert!(rig.session_state().await.input_needed.is_none());
    // A late answer is refused.
    rig.complete_input(&request.id, ChatInputResponseKind::Decline, None).await;
    let rejected = rig.wait(|e| e.rejection_reason.is_some()).await;
    assert_eq!(action_type(&rejected), "chat/inputCompleted");
}

#[tokio::test]
async fn an_elicitation_while_the_agent_starts_is_cancelled_at_once() {
    // The agent asks before answering `session/new` (no turn to show it
    // in): it gets `cancel` at once instead of waiting out the start
    // timeout, and what it sent meanwhile still arrives.
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" } } });
    let script = json!({
        "beforeNewResponse": [
            { "elicit": { "message": "Name this session", "schema": schema } },
            { "update": { "sessionUpdate": "session_info_update", "title": "asked at start: $ANSWER" } }
        ],
        "turns": [[{ "chunk": "ok" }]]
    });
    let started = std::time::Instant::now();
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::Process(&[("HANGAR_ACP_START_TIMEOUT", "10")])).await;
    assert_eq!(rig.created, "session/ready");
    assert!(started.elapsed() < std::time::Duration::from_secs(8), "did not wait for the start timeout");
    let turn = rig.send("hi").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    // The update the agent sent before answering was held, then applied.
    assert_eq!(rig.session_state().await.title, "asked at start: cancel");
}
