//! ACP `terminal/*` against the scripted fake agent: the command runs on
//! the host in the session's folder, the agent gets its output and exit,
//! every client can watch it as an AHP terminal channel, and the tool call
//! keeps its outcome. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use ahp_types::state::{SnapshotState, TerminalLifecycleState, ToolCallState};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};
use hangar_e2e::acp::{gone, markdown, processes_with, terminal_link, terminal_text, tool_calls, AgentCmd, Rig};
use hangar_e2e::{wait_for_action, Launch};
use serde_json::{json, Value};

/// A turn that runs `script` (with `sh -c`) in a terminal, shows it in tool
/// call `t1`, waits for it, reads its output and releases it.
fn terminal_turn(script: &str, cwd: &str) -> Value {
    json!([
        { "request": { "method": "terminal/create", "params": { "command": "sh", "args": ["-c", script], "cwd": cwd, "env": [{ "name": "WHO", "value": "hangar" }] } } },
        { "chunk": "create: $RESULT\n" },
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Run the build", "kind": "execute", "status": "in_progress", "content": [{ "type": "terminal", "terminalId": "$TERMINAL" }] } },
        { "request": { "method": "terminal/wait_for_exit", "params": { "terminalId": "$TERMINAL" } } },
        { "chunk": "exit: $RESULT\n" },
        { "request": { "method": "terminal/output", "params": { "terminalId": "$TERMINAL" } } },
        { "chunk": "output: $RESULT\n" },
        { "request": { "method": "terminal/release", "params": { "terminalId": "$TERMINAL" } } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "content": [{ "type": "terminal", "terminalId": "$TERMINAL" }] } },
        { "end": "end_turn" }
    ])
}

#[tokio::test]
async fn a_command_runs_in_a_terminal_channel_and_its_tool_call_keeps_the_outcome() {
    let script =
        json!({ "turns": [terminal_turn("echo building for $WHO; pwd; sleep 0.5; echo done >&2; exit 4", "$CWD")] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let (_, mut root) = rig.client.subscribe(ROOT_RESOURCE_URI.to_owned()).await.unwrap();
    let turn = rig.send("build it").await;

    // While it runs the root lists it, claimed by the session's turn.
    let listed = wait_for_action(
        &mut root,
        |e| matches!(&e.action, StateAction::RootTerminalsChanged(a) if !a.terminals.is_empty()),
    )
    .await;
    let StateAction::RootTerminalsChanged(listed) = listed.action else { unreachable!() };
    let info = &listed.terminals[0];
    assert!(info.resource.starts_with(&format!("{}/terminals/", rig.session)), "{}", info.resource);
    assert!(info.title.starts_with("sh -c "), "the command line is the title: {}", info.title);

    // A second client subscribes to the terminal and sees its output live.
    let (snapshot, mut terminal) = rig.client.subscribe(info.resource.clone()).await.unwrap();
    let SnapshotState::Terminal(first) = snapshot.snapshot.unwrap().state else { panic!("not a terminal snapshot") };
    assert_eq!(first.is_pty, Some(false));
    let exited = wait_for_action(&mut terminal, |e| matches!(e.action, StateAction::TerminalExited(_))).await;
    let StateAction::TerminalExited(exited) = exited.action else { unreachable!() };
    assert_eq!(exited.exit_code, Some(4));
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");

    // The agent got the exit and the output through ACP.
    let t = rig.turn(&turn).await;
    let text = markdown(&t);
    assert!(text.contains(r#"exit: {"exitCode":4"#), "{text}");
    let workspace = rig.workspace.display().to_string();
    assert!(text.contains("building for hangar") && text.contains(&workspace) && text.contains("done"), "{text}");

    // The tool call points at the channel and keeps the outcome.
    let calls = tool_calls(&t);
    let ToolCallState::Completed(_) = &calls[0] else { panic!("not completed: {:?}", calls[0]) };
    let link = terminal_link(&calls[0]).expect("the tool call shows the terminal");
    assert_eq!(link.resource, info.resource);
    let result = link.result.expect("the outcome is kept in the tool call");
    assert_eq!(result.exit_code, Some(4));
    let preview = result.preview.unwrap_or_default();
    assert!(preview.contains("building for hangar") && preview.contains("done"), "{preview}");

    // Released and ended: off the root list, still readable.
    let (snapshot, _) = rig.client.subscribe(info.resource.clone()).await.unwrap();
    let SnapshotState::Terminal(state) = snapshot.snapshot.unwrap().state else { panic!("not a terminal snapshot") };
    assert!(matches!(state.lifecycle, TerminalLifecycleState::Exited(ref e) if e.exit_code == Some(4)));
    assert!(terminal_text(&state).contains("building for hangar\n"), "{}", terminal_text(&state));
    let (snapshot, _) = rig.client.subscribe(ROOT_RESOURCE_URI.to_owned()).await.unwrap();
    let SnapshotState::Root(root_state) = snapshot.snapshot.unwrap().state else { panic!("not the root") };
    assert!(root_state.terminals.unwrap_or_default().is_empty(), "only running terminals are listed");
}

#[tokio::test]
async fn a_terminal_outside_the_sessions_folders_is_refused() {
    let script = json!({ "turns": [[
        { "request": { "method": "terminal/create", "params": { "command": "true", "cwd": "/etc" } } },
        { "chunk": "create: $RESULT" },
        { "end": "end_turn" }
    ]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("go").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let text = markdown(&rig.turn(&turn).await);
    assert!(text.contains("-32002") && text.contains("outside the session's working directories"), "{text}");
}

#[tokio::test]
async fn a_crashing_agent_leaves_no_command_running() {
    let script = json!({ "turns": [[
        { "request": { "method": "terminal/create", "params": { "command": "sleep", "args": ["31.417"] } } },
        { "chunk": "started $TERMINAL" },
        { "sleep": 300 },
        { "crash": { "code": 9, "stderr": "boom" } }
    ]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("go").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    assert!(gone("sleep 31.417").await, "the command was ended with its agent: {:?}", processes_with("sleep 31.417"));
}

#[tokio::test]
async fn a_command_the_agent_runs_itself_streams_through_zeds_terminal_meta() {
    // As Claude Agent and Codex send it with `_meta.terminal_output` offered.
    let script = json!({ "turns": [[
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "b1", "title": "`ls`", "kind": "execute", "status": "pending",
            "rawInput": { "command": ["bash", "-lc", "ls"], "cwd": "$CWD" },
            "content": [{ "type": "terminal", "terminalId": "b1" }],
            "_meta": { "terminal_info": { "terminal_id": "b1" } } } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "in_progress" } },
        { "sleep": 200 },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "b1", "_meta": { "terminal_output": { "terminal_id": "b1", "data": "hello.txt\n" } } } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "completed",
            "content": [{ "type": "terminal", "terminalId": "b1" }],
            "_meta": { "terminal_exit": { "terminal_id": "b1", "exit_code": 0, "signal": null } } } },
        { "end": "end_turn" }
    ]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    let turn = rig.send("list").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let calls = tool_calls(&rig.turn(&turn).await);
    let link = terminal_link(&calls[0]).expect("the tool call shows the terminal");
    assert_eq!(link.title, "bash -lc ls");
    let result = link.result.expect("the outcome is kept");
    assert_eq!((result.exit_code, result.preview.as_deref()), (Some(0), Some("hello.txt\n")));
    let (snapshot, _) = rig.client.subscribe(link.resource.clone()).await.unwrap();
    let SnapshotState::Terminal(state) = snapshot.snapshot.unwrap().state else { panic!("not a terminal snapshot") };
    assert_eq!(terminal_text(&state), "hello.txt\n");
    assert!(matches!(state.lifecycle, TerminalLifecycleState::Exited(ref e) if e.exit_code == Some(0)));
}
