//! [`Engine::dispatch_client`]: which client actions are applied, ignored or
//! rejected (and with which reason), and what each outcome publishes.

use serde_json::{json, Value};

use super::*;

/// What a row expects of `dispatch_client`.
#[derive(Debug)]
enum Expect {
    /// Applied with the next seq, echoed with the client's origin, with
    /// these side effects.
    Applied(&'static [&'static str]),
    /// Silently ignored: no seq, no echo.
    Ignored,
    /// Rejected with a reason containing this text: echoed to the sender
    /// only, nothing changes.
    Rejected(&'static str),
}

struct Row {
    name: &'static str,
    start: Start,
    setup: fn(&mut Fx),
    from: &'static str,
    on: On,
    action: Value,
    expect: Expect,
}

fn one_turn_done(f: &mut Fx) {
    running(f);
    f.server(On::Chat, turn_complete(TURN));
}

fn failed_resumably(f: &mut Fx) {
    running(f);
    f.server(On::Chat, turn_error(TURN));
}

fn confirming(f: &mut Fx) {
    running(f);
    f.server_all(On::Chat, tool_call_pending(TURN, "tc-1"));
}

fn someone_else_active(f: &mut Fx) {
    f.server(On::Session, active_client_set("someone-else"));
}

fn me_active(f: &mut Fx) {
    f.server(On::Session, active_client_set(ME));
}

fn with_customizations(f: &mut Fx) {
    f.server(
        On::Session,
        json!({ "type": "session/customizationsChanged", "customizations": [{
            "type": "directory", "id": "directory-1", "uri": "file:///w/.claude/agents", "name": "agents",
            "enabled": true, "contents": "agent", "writable": true,
            "children": [{ "type": "agent", "id": "agent-1", "uri": "file:///w/.claude/agents/r.md", "name": "r" }],
        }] }),
    );
}

fn toggled(id: &str) -> Value {
    json!({ "type": "session/customizationToggled", "id": id,
        "enablement": [{ "kind": "workspace", "uri": "file:///w", "enabled": false }] })
}

fn active_client_set(client: &str) -> Value {
    json!({ "type": "session/activeClientSet", "activeClient": { "clientId": client, "tools": [] } })
}

fn confirmed(turn: &str, approved: bool, extra: Value) -> Value {
    let mut action =
        json!({ "type": "chat/toolCallConfirmed", "turnId": turn, "toolCallId": "tc-1", "approved": approved });
    if let (Some(action), Some(extra)) = (action.as_object_mut(), extra.as_object()) {
        action.extend(extra.clone());
    }
    action
}

fn config_changed(config: Value) -> Value {
    json!({ "type": "session/configChanged", "config": config })
}

fn rows() -> Vec<Row> {
    use Expect::*;
    use On::*;
    use Start::*;
    let row = |name, start, setup, on, action, expect| Row { name, start, setup, from: ME, on, action, expect };
    vec![
        row(
            "an action for a channel that does not exist is ignored",
            Ready,
            idle,
            Nowhere,
            turn_started("t-2"),
            Ignored,
        ),
        row(
            "an unknown action type is rejected",
            Ready,
            idle,
            Chat,
            json!({ "type": "chat/notYetInvented" }),
            Rejected("unknown action type"),
        ),
        row(
            "a host-only action is rejected even where it would apply",
            Ready,
            running,
            Chat,
            turn_complete(TURN),
            Rejected("may only be sent by the host"),
        ),
        row(
            "a host-only root action is rejected",
            Ready,
            idle,
            Root,
            json!({ "type": "root/agentsChanged", "agents": [] }),
            Rejected("may only be sent by the host"),
        ),
        row(
            "chat/turnStarted on an idle chat starts a turn",
            Ready,
            idle,
            Chat,
            turn_started("t-2"),
            Applied(&["TurnStarted"]),
        ),
        row(
            "chat/turnStarted on a session channel is rejected",
            Ready,
            idle,
            Session,
            turn_started("t-2"),
            Rejected("belongs on a chat channel"),
        ),
        row(
            "chat/turnStarted while a turn runs is rejected",
            Ready,
            running,
            Chat,
            turn_started("t-2"),
            Rejected("already in progress"),
        ),
        row(
            "chat/turnStarted with an empty turnId is rejected",
            Ready,
            idle,
            Chat,
            turn_started(""),
            Rejected("turnId must not be empty"),
        ),
        row(
            "chat/turnStarted with a startedAt that is not RFC 3339 is rejected",
            Ready,
            idle,
            Chat,
            json!({ "type": "chat/turnStarted", "turnId": "t-2", "startedAt": "yesterday", "message": user_message("hi") }),
            Rejected("startedAt must be an RFC 3339 timestamp"),
        ),
        row(
            "chat/turnStarted reusing a finished turn's id is rejected",
            Ready,
            one_turn_done,
            Chat,
            turn_started(TURN),
            Rejected("already used"),
        ),
        row(
            "chat/turnStarted before the session is ready is rejected",
            Creating,
            idle,
            Chat,
            turn_started("t-2"),
            Rejected("not ready"),
        ),
        row(
            "chat/turnCancelled with no turn running is rejected",
            Ready,
            idle,
            Chat,
            turn_cancelled(TURN),
            Rejected("no turn is in progress"),
        ),
        row(
            "chat/turnCancelled naming another turn is rejected",
            Ready,
            running,
            Chat,
            turn_cancelled("t-other"),
            Rejected("not the active turn"),
        ),
        row(
            "chat/turnCancelled of the running turn cancels it",
            Ready,
            running,
            Chat,
            turn_cancelled(TURN),
            Applied(&["TurnCancelled", "TurnEnded"]),
        ),
        row(
            "an approval without `confirmed` is rejected",
            Ready,
            confirming,
            Chat,
            confirmed(TURN, true, json!({})),
            Rejected("needs `confirmed`"),
        ),
        row(
            "a denial without `reason` is rejected",
            Ready,
            confirming,
            Chat,
            confirmed(TURN, false, json!({})),
            Rejected("needs `reason`"),
        ),
        row(
            "confirming a tool call that does not wait is rejected",
            Ready,
            running,
            Chat,
            confirmed(TURN, true, json!({ "confirmed": "user-action" })),
            Rejected("not waiting for confirmation"),
        ),
        row(
            "confirming a waiting tool call under another turn id is rejected",
            Ready,
            confirming,
            Chat,
            confirmed("t-other", true, json!({ "confirmed": "user-action" })),
            Rejected("not waiting for confirmation"),
        ),
        row(
            "approving a waiting tool call is applied",
            Ready,
            confirming,
            Chat,
            confirmed(TURN, true, json!({ "confirmed": "user-action" })),
            Applied(&["ToolCallConfirmed"]),
        ),
        row(
            "denying a waiting tool call is applied",
            Ready,
            confirming,
            Chat,
            confirmed(TURN, false, json!({ "reason": "denied" })),
            Applied(&["ToolCallConfirmed"]),
        ),
        row(
            "chat/truncated while a turn runs is rejected",
            Ready,
            running,
            Chat,
            json!({ "type": "chat/truncated" }),
            Rejected("a turn is in progress"),
        ),
        row(
            "chat/truncated on an idle chat is applied",
            Ready,
            one_turn_done,
            Chat,
            json!({ "type": "chat/truncated" }),
            Applied(&[]),
        ),
        row(
            "chat/turnResume while a turn runs is rejected",
            Ready,
            running,
            Chat,
            json!({ "type": "chat/turnResume", "turnId": TURN }),
            Rejected("a turn is in progress"),
        ),
        row(
            "chat/turnResume of a resumable error is applied",
            Ready,
            failed_resumably,
            Chat,
            json!({ "type": "chat/turnResume", "turnId": TURN }),
            Applied(&[]),
        ),
        row(
            "a client cannot set another client active",
            Ready,
            idle,
            Session,
            active_client_set("someone-else"),
            Rejected("can only set itself"),
        ),
        row("a client can set itself active", Ready, idle, Session, active_client_set(ME), Applied(&[])),
        row(
            "a client cannot remove another active client",
            Ready,
            someone_else_active,
            Session,
            json!({ "type": "session/activeClientRemoved", "clientId": "someone-else" }),
            Rejected("can only remove itself"),
        ),
        row(
            "a client can remove itself",
            Ready,
            me_active,
            Session,
            json!({ "type": "session/activeClientRemoved", "clientId": ME }),
            Applied(&[]),
        ),
        row(
            "session/configChanged on a session without configuration is rejected",
            Ready,
            idle,
            Session,
            config_changed(json!({ "model": "fast" })),
            Rejected("no configuration"),
        ),
        row(
            "session/configChanged to a value outside the schema's enum is rejected",
            ReadyWithConfig,
            idle,
            Session,
            config_changed(json!({ "model": "huge" })),
            Rejected("\"huge\" is not a valid model"),
        ),
        row(
            "session/configChanged to a listed value is applied",
            ReadyWithConfig,
            idle,
            Session,
            config_changed(json!({ "model": "slow" })),
            Applied(&["ConfigChanged"]),
        ),
        row(
            "session/customizationToggled of a listed child is applied and handed to the host",
            Ready,
            with_customizations,
            Session,
            toggled("agent-1"),
            Applied(&["CustomizationToggled"]),
        ),
        row(
            "session/customizationToggled of an id the session does not list is rejected",
            Ready,
            with_customizations,
            Session,
            toggled("agent-404"),
            Rejected(""),
        ),
        row(
            "client-contributed tool results are rejected",
            Ready,
            confirming,
            Chat,
            json!({ "type": "chat/toolCallComplete", "turnId": TURN, "toolCallId": "tc-1",
                "result": { "success": true, "pastTenseMessage": "ran" } }),
            Rejected("no client-contributed tools"),
        ),
        row(
            "a second working directory is rejected",
            Ready,
            idle,
            Session,
            json!({ "type": "session/workingDirectorySet", "directory": "file:///tmp" }),
            Rejected("multipleWorkingDirectories"),
        ),
        row(
            "an action the reducer finds inert is rejected",
            Ready,
            idle,
            Chat,
            json!({ "type": "chat/pendingMessageRemoved", "kind": "queued", "id": "never-queued" }),
            Rejected("no effect on the current state"),
        ),
        row(
            "a dispatchable session action passing every check is applied",
            Ready,
            idle,
            Session,
            json!({ "type": "session/titleChanged", "title": "Renamed" }),
            Applied(&[]),
        ),
    ]
}

#[test]
fn client_actions_are_applied_ignored_or_rejected_by_rule() {
    for row in rows() {
        let name = row.name;
        let mut f = Fx::for_row(row.start, row.setup);
        let seq = f.engine.seq();
        let chat_before = serde_json::to_value(f.chat_state()).unwrap();
        let session_before = serde_json::to_value(f.session_state()).unwrap();
        let result = f.client(row.from, row.on, &row.action);
        match (&row.expect, result) {
            (Expect::Applied(effects), Ok(Some(applied_at))) => {
                assert_eq!(applied_at, seq + 1, "{name}: takes the next serverSeq");
                assert_eq!(f.effects(), *effects, "{name}: side effects");
                let echo = f.published().into_iter().next();
                let echo = echo.unwrap_or_else(|| panic!("{name}: nothing was published"));
                assert_eq!(echo.kind, row.action["type"], "{name}: the action is published first");
                assert_eq!(echo.origin, json!({ "clientId": row.from, "clientSeq": 7 }), "{name}: with its origin");
            }
            (Expect::Ignored, Ok(None)) => {
                assert_eq!(f.engine.seq(), seq, "{name}: takes no seq");
                assert!(f.published().is_empty(), "{name}: publishes nothing");
            }
            (Expect::Rejected(why), Err(rejection)) => {
                assert!(rejection.reason.contains(why), "{name}: reason {:?} should say {why:?}", rejection.reason);
                let frame: Value = serde_json::from_str(&rejection.frame).unwrap();
                assert_eq!(frame["method"], "action", "{name}: the echo is an action notification");
                let envelope = &frame["params"];
                assert_eq!(envelope["rejectionReason"], rejection.reason.as_str(), "{name}: echo carries the reason");
                assert_eq!(envelope["origin"], json!({ "clientId": row.from, "clientSeq": 7 }), "{name}: echo origin");
                assert_eq!(envelope["serverSeq"], seq, "{name}: echo at the current seq");
                assert_eq!(envelope["action"], row.action, "{name}: echo carries the action");
                assert_eq!(f.engine.seq(), seq, "{name}: a rejection takes no seq");
                assert!(f.published().is_empty(), "{name}: a rejection is published to nobody else");
                assert!(f.effects().is_empty(), "{name}: a rejection has no side effect");
                assert_eq!(serde_json::to_value(f.chat_state()).unwrap(), chat_before, "{name}: chat unchanged");
                assert_eq!(
                    serde_json::to_value(f.session_state()).unwrap(),
                    session_before,
                    "{name}: session unchanged"
                );
            }
            (expect, got) => panic!("{name}: expected {expect:?}, got {got:?}"),
        }
    }
}
