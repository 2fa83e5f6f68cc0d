//! The ACP bridge against the scripted fake agent (`hangar-fake-agent`):
//! replayed real-agent transcripts and scripts for every mapping rule and
//! quirk. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use ahp_types::state::{PendingMessageKind, ResponsePart, SessionLifecycle, ToolCallState, ToolResultContent};
use hangar_e2e::acp::{error_message, gone, markdown, processes_with, tool_calls, tool_status, AgentCmd, Rig};
use hangar_e2e::{action_type, wait_for_action};
use hangar_e2e::{Launch, TestHost};
use serde_json::{json, Value};

fn data_uri_text(uri: &str) -> String {
    use std::io::Read;
    let b64 = uri.split_once("base64,").unwrap().1;
    // Tiny base64 decoder (no extra dependency).
    let table = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            _ => 63,
        }
    };
    let clean: Vec<u8> = b64.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= table(*c) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    let mut s = String::new();
    out.as_slice().read_to_string(&mut s).unwrap();
    s
}

#[tokio::test]
async fn codex_transcript_approve_with_uuid_permission_id() {
    let mut rig = Rig::start(AgentCmd::Transcript("codex.jsonl"), Launch::InProcess).await;
    assert_eq!(rig.created, "session/ready");
    let turn = rig.send("In hello.txt, replace the word world with ACP.").await;
    let ready = rig.wait_confirmation().await;
    let options = ready["options"].as_array().unwrap();
    assert_eq!(options.len(), 2, "{ready}");
    assert_eq!(options[0]["id"], "approved");
    assert_eq!(options[0]["kind"], "approve");
    assert_eq!(options[1]["id"], "abort");
    assert_eq!(options[1]["kind"], "deny");
    // The edit preview is exactly the agent's diff.
    let edit = &ready["edits"]["items"][0];
    assert!(edit["after"]["uri"].as_str().unwrap().ends_with("/hello.txt"), "{edit}");
    // (The recorded workspace file was "Hello, world!\nThis line stays.\n".)
    assert_eq!(data_uri_text(edit["before"]["content"]["uri"].as_str().unwrap()), "Hello, world!\nThis line stays.\n");
    assert_eq!(data_uri_text(edit["after"]["content"]["uri"].as_str().unwrap()), "Hello, ACP!\nThis line stays.\n");
    let tc = ready["toolCallId"].as_str().unwrap().to_owned();
    rig.confirm(&turn, &tc, true, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    assert!(markdown(&t).contains("Done: replaced 'world' with 'ACP' in hello.txt."), "{}", markdown(&t));
    let calls = tool_calls(&t);
    assert_eq!(calls.len(), 2);
    for c in &calls {
        let ToolCallState::Completed(c) = c else { panic!("not completed: {c:?}") };
        assert!(c.success);
    }
    let ToolCallState::Completed(edit) = &calls[1] else { unreachable!() };
    assert!(edit.content.iter().flatten().any(|c| matches!(c, ToolResultContent::FileEdit(_))));
    assert!(t.usage.is_some(), "usage_update → chat/usage");
}

#[tokio::test]
async fn qwen_transcript_tool_call_first_seen_in_permission_and_fs_served() {
    let mut rig = Rig::start(AgentCmd::Transcript("qwen.jsonl"), Launch::InProcess).await;
    let turn = rig.send("In hello.txt, replace the word world with ACP.").await;
    let ready = rig.wait_confirmation().await;
    let tc = ready["toolCallId"].as_str().unwrap().to_owned();
    let ids: Vec<&str> = ready["options"].as_array().unwrap().iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["proceed_always", "proceed_once", "cancel"]);
    assert_eq!(ready["options"][0]["group"], 2);
    // Plain approval picks allow_once (proceed_once), not allow_always.
    rig.confirm(&turn, &tc, true, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    // qwen writes through fs/write_text_file: the host wrote the file.
    assert_eq!(std::fs::read_to_string(rig.workspace.join("hello.txt")).unwrap(), "Hello, ACP!\nThis line stays.\n");
    let t = rig.turn(&turn).await;
    let calls = tool_calls(&t);
    let edit = calls.iter().find(|c| tool_status(c).1 == tc).unwrap();
    assert_eq!(tool_status(edit).0, "completed");
    // Empty "" chunks made no empty parts.
    assert!(t.response_parts.iter().all(|p| !matches!(p, ResponsePart::Markdown(m) if m.content.is_empty())));
}

#[tokio::test]
async fn claude_transcript_reject_keeps_the_turn_going() {
    let mut rig = Rig::start(AgentCmd::Transcript("claude.reject.jsonl"), Launch::InProcess).await;
    let turn = rig.send("edit").await;
    let ready = rig.wait_confirmation().await;
    let tc = ready["toolCallId"].as_str().unwrap().to_owned();
    rig.confirm(&turn, &tc, false, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    let edit = tool_calls(&t).into_iter().find(|c| tool_status(c).1 == tc).unwrap();
    assert_eq!(tool_status(&edit).0, "cancelled", "denied stays cancelled despite the agent's later `failed`");
}

#[tokio::test]
async fn codex_transcript_reject_ends_cancelled() {
    let mut rig = Rig::start(AgentCmd::Transcript("codex.reject.jsonl"), Launch::InProcess).await;
    let turn = rig.send("edit").await;
    let ready = rig.wait_confirmation().await;
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), false, Some("abort")).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnCancelled");
    let t = rig.turn(&turn).await;
    assert!(tool_calls(&t).iter().all(|c| matches!(tool_status(c).0.as_str(), "completed" | "cancelled")));
}

#[tokio::test]
async fn client_cancel_during_permission_then_next_turn_works() {
    let mut rig = Rig::start(AgentCmd::Transcript("claude.cancel.jsonl"), Launch::InProcess).await;
    let turn = rig.send("edit").await;
    let ready = rig.wait_confirmation().await;
    rig.dispatch(hangar_e2e::actions::turn_cancelled(&turn)).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnCancelled");
    // A late answer is refused by the engine and ignored by the bridge.
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), true, None).await;
    let t = rig.turn(&turn).await;
    assert!(tool_calls(&t).iter().all(|c| tool_status(c).0 != "running"));
    // The agent is still usable (the replayed transcript ends `cancelled` again).
    let second = rig.send("again").await;
    let ready = rig.wait_confirmation().await;
    rig.confirm(&second, ready["toolCallId"].as_str().unwrap(), true, None).await;
    rig.wait_end(&second).await;
    // Nothing from the cancelled turn leaked into it.
    let first = rig.turn(&turn).await;
    assert_eq!(first.response_parts.len(), t.response_parts.len());
}

#[tokio::test]
async fn copilot_update_before_new_response_and_title() {
    let mut rig = Rig::start(AgentCmd::Transcript("copilot.jsonl"), Launch::InProcess).await;
    assert_eq!(rig.created, "session/ready");
    let turn = rig.send("edit").await;
    let ready = rig.wait_confirmation().await;
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), true, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let s = rig.session_state().await;
    assert!(!s.title.is_empty(), "session_info_update → session/titleChanged");
    let t = rig.turn(&turn).await;
    assert!(t.usage.is_some(), "the prompt result's usage → chat/usage");
}

#[tokio::test]
async fn plan_is_a_running_tool_call_completed_with_the_turn() {
    let mut rig = Rig::start(AgentCmd::Transcript("codex.plan.jsonl"), Launch::InProcess).await;
    let turn = rig.send("edit").await;
    let ready = rig.wait_confirmation().await;
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), true, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    let plan = tool_calls(&t)
        .into_iter()
        .find(|c| matches!(c, ToolCallState::Completed(p) if p.tool_name == "plan"))
        .expect("a plan part");
    let ToolCallState::Completed(plan) = plan else { unreachable!() };
    let text = serde_json::to_string(&plan.content).unwrap();
    assert!(text.contains("- ["), "{text}");
}

#[tokio::test]
async fn a_plan_update_replaces_the_checklist() {
    let entry = |content: &str, status: &str| json!({ "content": content, "priority": "medium", "status": status });
    let script = json!({ "turns": [[
        { "update": { "sessionUpdate": "plan", "entries": [entry("Read the file", "in_progress"), entry("Edit it", "pending")] } },
        { "sleep": 300 },
        { "update": { "sessionUpdate": "plan", "entries": [entry("Read the file", "completed"), entry("Edit it", "in_progress"), entry("Test", "pending")] } },
        { "chunk": "done" }
    ]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("plan it").await;
    let first = rig.wait_type("chat/toolCallContentChanged").await;
    let first = serde_json::to_value(&first.action).unwrap();
    assert_eq!(first["content"], json!([{ "type": "text", "text": "- [~] Read the file\n- [ ] Edit it\n" }]));
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    let plans: Vec<_> = tool_calls(&t)
        .into_iter()
        .filter(|c| matches!(c, ToolCallState::Completed(p) if p.tool_name == "plan"))
        .collect();
    assert_eq!(plans.len(), 1, "one plan part, updated in place");
    let ToolCallState::Completed(plan) = &plans[0] else { unreachable!() };
    assert_eq!(
        serde_json::to_value(&plan.content).unwrap(),
        json!([{ "type": "text", "text": "- [x] Read the file\n- [~] Edit it\n- [ ] Test\n" }]),
        "the second plan replaced the first"
    );
    assert_eq!(markdown(&t), "done");
}

fn script_turn(steps: Value) -> Value {
    json!({ "turns": [steps] })
}

#[tokio::test]
async fn chunks_thoughts_unknown_updates_usage_and_title() {
    let script = script_turn(json!([
        { "chunk": "" },
        { "thought": "thinking" },
        { "thought": " more" },
        { "chunk": "Hello" },
        { "update": { "sessionUpdate": "brand_new_kind", "x": 1 } },
        { "update": { "sessionUpdate": "agent_message_chunk", "content": { "type": "image", "data": "", "mimeType": "image/png" } } },
        { "chunk": ", world" },
        { "update": { "sessionUpdate": "session_info_update", "title": "Greeting" } },
        { "update": { "sessionUpdate": "usage_update", "used": 1200, "size": 200000 } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "late", "status": "completed", "title": "Ran", "content": [{ "type": "mystery" }, { "type": "content", "content": { "type": "text", "text": "out" } }] } },
        { "end": "end_turn", "usage": { "inputTokens": 10, "outputTokens": 5, "totalTokens": 15 } }
    ]));
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("hi").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    assert_eq!(markdown(&t), "Hello, world");
    assert!(t.response_parts.iter().any(|p| matches!(p, ResponsePart::Reasoning(r) if r.content == "thinking more")));
    assert_eq!(t.usage.as_ref().and_then(|u| u.output_tokens), Some(5));
    let late = tool_calls(&t).into_iter().find(|c| tool_status(c).1 == "late").expect("created on first sight");
    let ToolCallState::Completed(late) = late else { panic!() };
    assert!(late.success);
    assert_eq!(rig.session_state().await.title, "Greeting");
}

#[tokio::test]
async fn tool_call_kind_input_and_locations_are_shown() {
    let script = script_turn(json!([
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "r1", "title": "Read hello.txt", "kind": "read", "status": "pending",
            "rawInput": { "path": "$CWD/hello.txt", "line": 1 }, "locations": [{ "path": "$CWD/hello.txt", "line": 1 }] } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "r1", "status": "in_progress" } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "r1", "locations": [{ "path": "hello.txt", "line": 3 }, { "path": "$CWD/other.txt" }] } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "r1", "status": "completed",
            "content": [{ "type": "content", "content": { "type": "text", "text": "hello world" } }] } },
        { "end": "end_turn" }
    ]));
    // A workspace name that must be percent-encoded in a `file:` URI.
    let mut rig = Rig::start_in_workspace("My Projects #1", AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("read it").await;
    // While running, the moved locations are shown at once.
    let changed = rig.wait_type("chat/toolCallContentChanged").await;
    let changed = serde_json::to_value(&changed.action).unwrap();
    let ws = rig.workspace.display().to_string();
    let ws_uri = hangar_e2e::acp::file_uri(&rig.workspace);
    assert!(ws_uri.ends_with("/My%20Projects%20%231"), "{ws_uri}");
    assert_eq!(changed["content"][0]["uri"], format!("{ws_uri}/hello.txt#L3"), "{changed}");
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    let calls = tool_calls(&t);
    let [ToolCallState::Completed(call)] = calls.as_slice() else { panic!("{t:?}") };
    assert_eq!(call.tool_name, "read");
    assert_eq!(call.display_name, "Read hello.txt");
    let input: Value = match call.tool_input.as_ref().unwrap() {
        ahp_types::state::ToolInput::Inline(s) => serde_json::from_str(s).unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(input, json!({ "path": format!("{ws}/hello.txt"), "line": 1 }));
    let content = serde_json::to_value(call.content.as_ref().unwrap()).unwrap();
    assert_eq!(
        content,
        json!([
            { "type": "text", "text": "hello world" },
            { "type": "resource", "uri": format!("{ws_uri}/hello.txt#L3") },
            { "type": "resource", "uri": format!("{ws_uri}/other.txt") }
        ])
    );
}

#[tokio::test]
async fn open_tool_calls_are_closed_when_the_prompt_returns() {
    let script = script_turn(json!([
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "a", "title": "Streaming", "kind": "read", "status": "pending" } },
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "b", "title": "Running", "kind": "execute", "status": "in_progress" } },
        { "end": "end_turn" }
    ]));
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("go").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    for c in tool_calls(&t) {
        let ToolCallState::Completed(c) = c else { panic!("left open: {c:?}") };
        assert!(!c.success);
    }
}

#[tokio::test]
async fn refusal_and_failed_prompt_become_errors() {
    let script = json!({ "turns": [
        [{ "chunk": "no" }, { "end": "refusal" }],
        [{ "chunk": "trying" }, { "fail": { "code": -32603, "message": "upstream model overloaded" } }]
    ] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("x").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    assert!(error_message(&rig.turn(&turn).await).unwrap().contains("refused"));
    // The prompt answered with a JSON-RPC error: the turn ends with the
    // agent's message, what it streamed before is kept.
    let second = rig.send("y").await;
    assert_eq!(rig.wait_end(&second).await, "chat/error");
    let t = rig.turn(&second).await;
    let message = error_message(&t).unwrap();
    assert!(message.contains("upstream model overloaded"), "{message}");
    assert_eq!(markdown(&t), "trying");
    // The session stays usable.
    let third = rig.send("z").await;
    assert_eq!(rig.wait_end(&third).await, "chat/error", "turns[1] again, on the same agent");
}

/// An agent that is a `/bin/sh` script in `dir` running `body`.
fn shell_agent(dir: &std::path::Path, body: &str) -> AgentCmd<'static> {
    let script = dir.join("agent.sh");
    std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    AgentCmd::Command(script.display().to_string())
}

#[tokio::test]
async fn crash_mid_turn_is_an_error_and_the_next_turn_starts_a_fresh_agent() {
    let script = json!({ "turns": [
        [{ "chunk": "working" }, { "crash": { "code": 7, "stderr": "boom: the model exploded" } }],
        [{ "echo": true }]
    ]});
    // A restarted fake starts over at turn 0, so the second prompt must
    // reach a fresh process: it crashes again unless the script differs.
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("count");
    let fake = hangar_e2e::acp::fake_agent_bin();
    let crash = dir.path().join("crash.json");
    let ok = dir.path().join("ok.json");
    std::fs::write(&crash, script.to_string()).unwrap();
    std::fs::write(&ok, json!({ "turns": [[{ "echo": true }]] }).to_string()).unwrap();
    let agent = shell_agent(
        dir.path(),
        &format!(
            "if [ -e {c} ]; then exec {f} --script {ok}; fi\ntouch {c}\nexec {f} --script {crash}\n",
            c = counter.display(),
            f = fake.display(),
            ok = ok.display(),
            crash = crash.display()
        ),
    );
    let mut rig = Rig::start(agent, Launch::InProcess).await;
    let turn = rig.send("first").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    let t = rig.turn(&turn).await;
    let msg = error_message(&t).unwrap();
    assert!(msg.contains("boom: the model exploded"), "{msg}");
    assert!(markdown(&t).contains("working"));
    let second = rig.send("second").await;
    assert_eq!(rig.wait_end(&second).await, "chat/turnComplete");
    let t2 = rig.turn(&second).await;
    assert!(markdown(&t2).contains("echo: second"), "{t2:?}");
    // The fresh agent could not load the old session: the user is told.
    assert!(t2.response_parts.iter().any(|p| matches!(p, ResponsePart::SystemNotification(_))));
}

#[tokio::test]
async fn crash_reason_written_after_the_exit_is_still_reported() {
    // The agent's wrapper exits, but a process it left behind writes the
    // reason to the still-open stderr a moment later: the host waits for
    // stderr to close before it reports the crash.
    let dir = tempfile::tempdir().unwrap();
    let crash = dir.path().join("crash.json");
    std::fs::write(&crash, json!({ "turns": [[{ "chunk": "working" }, { "crash": { "code": 0 } }]] }).to_string())
        .unwrap();
    let agent = shell_agent(
        dir.path(),
        &format!(
            "{f} --script {crash}\n(sleep 0.25; echo 'fatal: quota exhausted for this key' >&2) >/dev/null </dev/null &\nexit 3\n",
            f = hangar_e2e::acp::fake_agent_bin().display(),
            crash = crash.display()
        ),
    );
    let mut rig = Rig::start(agent, Launch::InProcess).await;
    let turn = rig.send("first").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    let msg = error_message(&rig.turn(&turn).await).unwrap();
    assert!(msg.contains("fatal: quota exhausted for this key"), "{msg}");
    assert!(msg.contains("exit status: 3"), "{msg}");
}

#[tokio::test]
async fn hung_agent_is_stopped_and_reported() {
    let script = json!({ "turns": [[{ "chunk": "start" }, { "hang": true }]] });
    let mut rig =
        Rig::start(AgentCmd::Script(script.clone()), Launch::Process(&[("HANGAR_ACP_IDLE_TIMEOUT", "1.5")])).await;
    let turn = rig.send("x").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    assert!(error_message(&rig.turn(&turn).await).unwrap().contains("stopped responding"));
    // The session stays usable (the fresh agent hangs again, which is fine:
    // it must have been started, i.e. the turn began streaming).
    let second = rig.send("y").await;
    rig.wait(|e| action_type(e) == "chat/responsePart").await;
    assert_eq!(rig.wait_end(&second).await, "chat/error");
}

#[tokio::test]
async fn an_agent_printing_garbage_is_read_past_and_a_silent_one_is_stopped() {
    let script = json!({ "turns": [
        [{ "chunk": "before" },
         { "garbage": "npm WARN deprecated something\n{\"jsonrpc\": \"2.0\", \"method\": \n\u{1}\u{2}[[[\n" },
         { "garbage": [0xff, 0xfe, 0x80, 0x0a, 0xc3, 0x28, 0x0a] },
         { "chunk": " after" }, { "end": "end_turn" }],
        [{ "garbage": "half a line with no newline, then silence" }, { "hang": true }]
    ]});
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::Process(&[("HANGAR_ACP_IDLE_TIMEOUT", "1.5")])).await;
    let first = rig.send("one").await;
    assert_eq!(
        rig.wait_end(&first).await,
        "chat/turnComplete",
        "garbage lines, even bytes that are not UTF-8, are skipped"
    );
    assert_eq!(markdown(&rig.turn(&first).await), "before after");
    // Garbage is not a sign of life: the turn ends as unresponsive.
    let second = rig.send("two").await;
    assert_eq!(rig.wait_end(&second).await, "chat/error");
    assert!(error_message(&rig.turn(&second).await).unwrap().contains("stopped responding"));
    // A fresh agent serves the next message (the script starts over).
    let third = rig.send("three").await;
    assert_eq!(rig.wait_end(&third).await, "chat/turnComplete");
}

#[tokio::test]
async fn agent_that_cannot_start_fails_creation_with_its_reason() {
    let script = json!({ "failStart": "error: no API key configured" });
    let rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    assert_eq!(rig.created, "session/creationFailed");
    let s = rig.session_state().await;
    assert_eq!(s.lifecycle, SessionLifecycle::Failed);
    assert!(s.creation_error.unwrap().message.contains("no API key configured"));
    let missing = Rig::start(AgentCmd::Command("/nonexistent/agent --acp".into()), Launch::InProcess).await;
    assert_eq!(missing.created, "session/creationFailed");
}

#[tokio::test]
async fn queued_message_starts_after_the_turn() {
    let script = json!({ "turns": [[{ "sleep": 600 }, { "echo": true }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let first = rig.send("first").await;
    rig.pending(PendingMessageKind::Queued, "q1", "second").await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");
    let started = rig.wait_type("chat/turnStarted").await;
    let v = serde_json::to_value(&started.action).unwrap();
    assert_eq!(v["queuedMessageId"], "q1");
    let second = v["turnId"].as_str().unwrap().to_owned();
    assert_eq!(rig.wait_end(&second).await, "chat/turnComplete");
    assert!(markdown(&rig.turn(&second).await).contains("echo: second"));
}

#[tokio::test]
async fn steering_is_sent_as_the_next_prompt_of_the_same_turn() {
    let script = json!({ "turns": [[{ "chunk": "part one" }, { "sleep": 800 }], [{ "echo": true }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("first").await;
    rig.wait(|e| action_type(e) == "chat/responsePart").await;
    rig.pending(PendingMessageKind::Steering, "s1", "focus on tests").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let t = rig.turn(&turn).await;
    let text = markdown(&t);
    assert!(text.contains("part one") && text.contains("echo: focus on tests"), "{text}");
    assert!(rig.chat_state().await.steering_message.is_none());
}

#[tokio::test]
async fn fs_outside_the_workspace_is_refused() {
    let script = script_turn(json!([
        { "request": { "method": "fs/read_text_file", "params": { "path": "/etc/hostname" } }, "then": { "error": [{ "chunk": "refused" }], "*": [{ "chunk": "LEAKED" }] } },
        { "request": { "method": "fs/write_text_file", "params": { "path": "$CWD/../escape.txt", "content": "x" } }, "then": { "error": [{ "chunk": " refused" }], "*": [{ "chunk": " LEAKED" }] } },
        { "request": { "method": "fs/read_text_file", "params": { "path": "$CWD/hello.txt", "line": 1, "limit": 1 } }, "then": { "ok": [{ "chunk": " read ok" }], "*": [{ "chunk": " READ FAILED" }] } }
    ]));
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("x").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(markdown(&rig.turn(&turn).await), "refused refused read ok");
    assert!(!rig.workspace.parent().unwrap().join("escape.txt").exists());
}

/// An agent offering models m1 (current) and m2 as a config option; it echoes.
fn two_models_echo() -> Value {
    json!({
        "newSession": { "configOptions": [{ "id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "m1",
            "options": [{ "value": "m1", "name": "Model One" }, { "value": "m2", "name": "Model Two" }] }] },
        "turns": [[{ "echo": true }]]
    })
}

/// A client's `session/configChanged` setting `model`.
async fn configure_model(rig: &Rig, model: &str) {
    let mut config = serde_json::Map::new();
    config.insert("model".into(), json!(model));
    let action = ahp_types::actions::SessionConfigChangedAction { config, replace: None };
    rig.client.dispatch(rig.session.clone(), ahp_types::StateAction::SessionConfigChanged(action)).await.unwrap();
}

#[tokio::test]
async fn models_are_published_and_selected_per_message() {
    let script = two_models_echo();
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let (c, init) = hangar_e2e::initialized(&rig.host, "models").await;
    let root = init.snapshots.into_iter().next().unwrap();
    let root = serde_json::to_value(&root.state).unwrap();
    let models: Vec<&str> =
        root["agents"][0]["models"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(models, vec!["m1", "m2"]);
    let config: Value =
        c.request("resolveSessionConfig", json!({ "channel": "ahp-root://", "provider": "agent" })).await.unwrap();
    assert_eq!(config["values"]["model"], "m1");
    let mut msg = hangar_e2e::actions::user_message("hi");
    msg.model = Some(ahp_types::state::ModelSelection { id: "m2".into(), config: None });
    let turn = rig.send_message(msg).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert!(markdown(&rig.turn(&turn).await).contains("[model=m2]"));
}

#[tokio::test]
async fn the_session_config_model_applies_to_later_turns() {
    let script = two_models_echo();
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    assert!(rig.session_state().await.config.is_some(), "sessions carry a config");
    configure_model(&rig, "m2").await;
    wait_for_action(&mut rig.session_sub, |e| action_type(e) == "session/configChanged").await;
    let turn = rig.send("which model?").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert!(markdown(&rig.turn(&turn).await).contains("[model=m2]"), "the configured model was selected");
}

/// An agent whose current model is not the first it lists (as OpenCode
/// lists its cloud models before the configured one): the models are
/// published current first, that one is the config's default, and a later
/// session's turn does not switch the agent away from it.
#[tokio::test]
async fn a_later_session_stays_on_the_agents_current_model() {
    let script = json!({
        "newSession": { "configOptions": [{ "id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "m2",
            "options": [{ "value": "m1", "name": "Model One" }, { "value": "m2", "name": "Model Two" }] }] },
        "turns": [[{ "echo": true }]]
    });
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("models.log");
    let log_env = log.display().to_string();
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::Process(&[("FAKE_ACP_LOG", &log_env)])).await;
    assert_eq!(rig.created, "session/ready");
    let (c, init) = hangar_e2e::initialized(&rig.host, "models").await;
    let root = serde_json::to_value(&init.snapshots.into_iter().next().unwrap().state).unwrap();
    let models: Vec<&str> =
        root["agents"][0]["models"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(models, ["m2", "m1"]);
    let config: Value =
        c.request("resolveSessionConfig", json!({ "channel": "ahp-root://", "provider": "agent" })).await.unwrap();
    assert_eq!(config["values"]["model"], "m2");
    // A second session, made once the models are known, runs on m2 unasked.
    assert_eq!(rig.new_session().await, "session/ready");
    let turn = rig.send("which model?").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert!(!markdown(&rig.turn(&turn).await).contains("[model="), "{}", markdown(&rig.turn(&turn).await));
    assert_eq!(std::fs::read_to_string(&log).unwrap_or_default(), "", "no model was selected");
}

#[tokio::test]
async fn a_config_model_change_reaches_an_idle_agent_at_once() {
    let script = two_models_echo();
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("models.log");
    let log_env = log.display().to_string();
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::Process(&[("FAKE_ACP_LOG", &log_env)])).await;
    assert_eq!(rig.created, "session/ready");
    configure_model(&rig, "m2").await;
    // No turn runs: the agent is told anyway.
    let mut seen = String::new();
    for _ in 0..300 {
        seen = std::fs::read_to_string(&log).unwrap_or_default();
        if !seen.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(seen, "session/set_config_option m2\n");
    // The next turn does not switch again.
    let turn = rig.send("which model?").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert!(markdown(&rig.turn(&turn).await).contains("[model=m2]"));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "session/set_config_option m2\n");
}

#[tokio::test]
async fn restart_loads_the_acp_session_and_shutdown_ends_the_agent() {
    let script = json!({ "capabilities": { "loadSession": true }, "turns": [[{ "echo": true }]] });
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let script_path = tmp.path().join("restart-script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let cmd = format!("{} --script {}", hangar_e2e::acp::fake_agent_bin().display(), script_path.display());
    let needle = script_path.display().to_string();
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), Launch::Process(&[]), Some(&data)).await;
    let first = rig.send("one").await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");
    assert_eq!(processes_with(&needle).len(), 1, "one agent process");
    let meta = rig.session_state().await.meta.unwrap();
    let sid = meta["hangar.acp"]["sessionId"].as_str().unwrap().to_owned();
    let (session, chat) = (rig.session.clone(), rig.chat.clone());
    let status = rig.host.sigterm();
    assert!(status.success());
    assert!(gone(&needle).await, "agent left running after shutdown");

    let spec = format!("agent={cmd}");
    let host = TestHost::start_in(Launch::Process(&[]), &data, &["--agent", &spec]);
    let (client, _) = hangar_e2e::initialized(&host, "after-restart").await;
    let (_, mut chat_sub) = client.subscribe(chat.clone()).await.unwrap();
    client.dispatch(chat.clone(), hangar_e2e::actions::turn_started("after", "two")).await.unwrap();
    hangar_e2e::wait_for_action(&mut chat_sub, |e| action_type(e) == "chat/turnComplete").await;
    let state = hangar_e2e::acp::chat_state(&host, &chat).await;
    let t = state.turns.iter().find(|t| t.id == "after").unwrap();
    let text = markdown(t);
    assert_eq!(text, "echo: two [restored by session/load]", "replayed history must not leak into the turn");
    assert!(
        !t.response_parts.iter().any(|p| matches!(p, ResponsePart::SystemNotification(_))),
        "session/load worked: no reset notice"
    );
    let meta = hangar_e2e::acp::session_state(&host, &session).await.meta.unwrap();
    assert_eq!(meta["hangar.acp"]["sessionId"], sid.as_str());
    // Dispose ends the agent.
    let _: Value = client.request("disposeSession", json!({ "channel": session })).await.unwrap();
    assert!(gone(&needle).await, "agent left running after dispose");
}

/// An agent serving ACP over TCP (like `copilot --acp --port N`), registered
/// by address: the fake agent behind a loopback listener.
#[tokio::test]
async fn an_agent_registered_by_tcp_address_runs_turns() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = json!({ "turns": [[{ "chunk": "over tcp" }, { "end": "end_turn" }]] });
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let mut agent = tokio::process::Command::new(hangar_e2e::acp::fake_agent_bin())
            .env("FAKE_ACP_SCRIPT", script.to_string())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let (mut from_host, mut to_host) = socket.into_split();
        let mut stdin = agent.stdin.take().unwrap();
        let mut stdout = agent.stdout.take().unwrap();
        let up = tokio::spawn(async move { tokio::io::copy(&mut from_host, &mut stdin).await });
        let down = tokio::spawn(async move { tokio::io::copy(&mut stdout, &mut to_host).await });
        let _ = tokio::join!(up, down);
        let _ = agent.wait().await;
    });
    let mut rig = Rig::start(AgentCmd::Command(format!("tcp://127.0.0.1:{port}")), Launch::InProcess).await;
    assert_eq!(rig.created, "session/ready");
    let turn = rig.send("hello").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert!(markdown(&rig.turn(&turn).await).contains("over tcp"));
}

/// An agent with modes (the `modes` block, set with `session/set_mode`) and
/// a reasoning-effort config option; it announces leaving plan mode when a
/// prompt says "leave plan".
fn modes_and_effort() -> Value {
    json!({
        "newSession": {
            "modes": { "currentModeId": "default", "availableModes": [
                { "id": "default", "name": "Default", "description": "Asks before edits" },
                { "id": "plan", "name": "Plan", "description": "Reads only" }] },
            "configOptions": [{ "id": "effort", "name": "Reasoning effort", "category": "thought_level", "type": "select",
                "currentValue": "medium", "options": [{ "value": "low", "name": "Low" }, { "value": "medium", "name": "Medium" }] }]
        },
        "turns": [[{ "echo": true }], [{ "update": { "sessionUpdate": "current_mode_update", "currentModeId": "default" } }, { "echo": true }]]
    })
}

fn config_change(pairs: &[(&str, &str)]) -> ahp_types::StateAction {
    let config = pairs.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect();
    ahp_types::StateAction::SessionConfigChanged(ahp_types::actions::SessionConfigChangedAction {
        config,
        replace: None,
    })
}

#[tokio::test]
async fn modes_and_config_options_are_session_config_properties_switched_on_the_agent() {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("settings.log");
    let log_env = log.display().to_string();
    let mut rig =
        Rig::start(AgentCmd::Script(modes_and_effort()), Launch::Process(&[("FAKE_ACP_LOG", &log_env)])).await;
    // The first session taught the host what this agent offers.
    let config: Value = rig
        .client
        .request(
            "resolveSessionConfig",
            json!({ "channel": "ahp-root://", "provider": "agent", "config": { "mode": "plan" } }),
        )
        .await
        .unwrap();
    let mode = &config["schema"]["properties"]["mode"];
    assert_eq!(mode["enum"], json!(["default", "plan"]));
    assert_eq!(mode["enumLabels"], json!(["Default", "Plan"]));
    assert_eq!(mode["enumDescriptions"], json!(["Asks before edits", "Reads only"]));
    assert_eq!(mode["sessionMutable"], true);
    assert_eq!(config["values"]["mode"], "plan", "a requested value the agent offers is kept");
    assert_eq!(config["schema"]["properties"]["effort"]["title"], "Reasoning effort");
    assert_eq!(config["values"]["effort"], "medium", "the agent's current value is the default");
    let completions: Value = rig
        .client
        .request(
            "sessionConfigCompletions",
            json!({ "channel": "ahp-root://", "provider": "agent", "property": "mode", "query": "pla" }),
        )
        .await
        .unwrap();
    assert_eq!(completions["items"], json!([{ "value": "plan", "label": "Plan" }]));

    // A new session has them in its config; choosing plan and low effort
    // reaches the idle agent at once.
    assert_eq!(rig.new_session().await, "session/ready");
    let values = rig.session_state().await.config.unwrap().values;
    assert_eq!((values["mode"].as_str(), values["effort"].as_str()), (Some("default"), Some("medium")));
    rig.client.dispatch(rig.session.clone(), config_change(&[("mode", "plan"), ("effort", "low")])).await.unwrap();
    let mut seen = String::new();
    for _ in 0..300 {
        seen = std::fs::read_to_string(&log).unwrap_or_default();
        if seen.lines().count() >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut lines: Vec<&str> = seen.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["session/set_config_option effort=low", "session/set_mode plan"]);
    // A turn does not switch again.
    let turn = rig.send("plan something").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 2);
    // The agent leaves plan mode itself: the session's config follows.
    let turn = rig.send("leave plan").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let values = rig.session_state().await.config.unwrap().values;
    assert_eq!(values["mode"], "default", "{values:?}");
    assert_eq!(values["effort"], "low");
}

#[tokio::test]
async fn a_cancel_while_the_agent_starts_gives_the_start_up_and_sends_nothing() {
    // The first agent crashes on its first prompt; the next ones take five
    // seconds to start, and say which of their prompts they answer.
    let dir = tempfile::tempdir().unwrap();
    let (counter, crash, slow) =
        (dir.path().join("count"), dir.path().join("crash.json"), dir.path().join("slow.json"));
    std::fs::write(&crash, json!({ "turns": [[{ "crash": { "code": 7 } }]] }).to_string()).unwrap();
    let slow_script = json!({ "initDelayMs": 5000, "turns": [
        [{ "chunk": "the first prompt this agent got" }, { "end": "end_turn" }],
        [{ "echo": true }]
    ]});
    std::fs::write(&slow, slow_script.to_string()).unwrap();
    let agent = shell_agent(
        dir.path(),
        &format!(
            "if [ -e {c} ]; then exec {f} --script {slow}; fi\ntouch {c}\nexec {f} --script {crash}\n",
            c = counter.display(),
            f = hangar_e2e::acp::fake_agent_bin().display(),
            slow = slow.display(),
            crash = crash.display()
        ),
    );
    let mut rig = Rig::start(agent, Launch::InProcess).await;
    let first = rig.send("first").await;
    assert_eq!(rig.wait_end(&first).await, "chat/error");
    // The next message starts a fresh agent; it is cancelled at once, and
    // the start is given up: the starting agent is ended.
    let second = rig.send("second").await;
    let slow_path = slow.display().to_string();
    let deadline = tokio::time::Instant::now() + hangar_e2e::WAIT;
    while hangar_e2e::acp::processes_with(&slow_path).is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "the fresh agent never started");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    rig.dispatch(hangar_e2e::actions::turn_cancelled(&second)).await;
    assert_eq!(rig.wait_end(&second).await, "chat/turnCancelled");
    assert!(hangar_e2e::acp::gone(&slow_path).await, "the starting agent was ended");
    // The next message starts another agent, and is its first prompt.
    let third = rig.send("third").await;
    assert_eq!(rig.wait_end(&third).await, "chat/turnComplete");
    assert_eq!(markdown(&rig.turn(&third).await), "the first prompt this agent got");
}
