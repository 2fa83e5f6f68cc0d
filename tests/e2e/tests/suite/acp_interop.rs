//! Real ACP agents from npm (codex, claude, qwen, copilot, opencode) behind `hangar serve`,
//! their model API pointed at the mock model server (`tests/interop`).
//! Each agent: approve (file edited), reject (unchanged), cancel
//! (unchanged), and a queued message started after a turn. The approved
//! edit is in the turn's changeset, however the agent wrote it. In each, the
//! session channel alone shows the pending confirmation in `inputNeeded`
//! (kind `toolConfirmation`, status input-needed) until it is answered or
//! cancelled. The commands an agent reports (`available_commands_update`)
//! are offered as `/` completions, and its modes as the session config's
//! `mode` property. Claude's and Codex's shell commands stream into terminal
//! channels. Claude's and Codex's reported context use is kept on the turn
//! and shown on the session.
//!
//! Needs `npm ci` in `tests/interop/agents` and node on PATH. Skipped with a
//! message when `node_modules` is missing, unless `HANGAR_REQUIRE_INTEROP`
//! is set (then it fails).

use ahp_types::commands::{CompletionItemKind, CompletionsParams, CompletionsResult};
use ahp_types::state::{PendingMessageKind, SnapshotState, ToolCallState};
use hangar_e2e::acp::{
    file_holding, gone, markdown, processes_with, terminal_link, terminal_text, tool_calls, AgentCmd, Rig,
};
use hangar_e2e::changesets::{changeset_when, names};
use hangar_e2e::interop::{agent_command, available, interop_dir, Mock};
use hangar_e2e::{Launch, SecretService};

const PROMPT: &str = "In hello.txt, replace the word world with ACP.";
const REPLY: &str = "Done: replaced 'world' with 'ACP' in hello.txt.";

async fn rig(agent: &str, mock: &Mock) -> (Rig, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let cmd = agent_command(agent);
    let port = mock.port.to_string();
    let home_s = home.path().display().to_string();
    let rig =
        Rig::start(AgentCmd::Command(cmd), Launch::Process(&[("MOCK_PORT", &port), ("AGENT_HOME", &home_s)])).await;
    assert_eq!(rig.created, "session/ready", "{agent} did not start: {:?}", rig.session_state().await.creation_error);
    (rig, home)
}

fn file(rig: &Rig) -> String {
    std::fs::read_to_string(rig.workspace.join("hello.txt")).unwrap()
}

/// The session channel lists the pending confirmation `ready` (a
/// `chat/toolCallReady`) and says the session needs input; returns the
/// entry's id.
async fn listed_on_session(rig: &mut Rig, agent: &str, ready: &serde_json::Value) -> String {
    let entry = rig.wait_confirmation_on_session(ready["toolCallId"].as_str().unwrap()).await;
    let state = rig.session_state().await;
    let status = ahp_types::state::SessionStatus(state.status);
    assert!(status.contains(ahp_types::state::SessionStatus::InputNeeded), "{agent}: status {}", state.status);
    entry
}

async fn approve(agent: &str, mock: &Mock) {
    let (mut rig, _home) = rig(agent, mock).await;
    let turn = rig.send(PROMPT).await;
    let ready = rig.wait_confirmation().await;
    assert!(ready["options"].as_array().is_some_and(|o| !o.is_empty()), "{ready}");
    let entry = listed_on_session(&mut rig, agent, &ready).await;
    // Queue a message while the first turn runs: it starts right after.
    rig.pending(PendingMessageKind::Queued, "q1", "Thanks. Anything else?").await;
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), true, None).await;
    rig.wait_input_needed_removed(&entry).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete", "{agent} approve");
    assert_eq!(file(&rig), "hello ACP\n", "{agent} wrote the approved edit");
    // The host saw the edit, however the agent wrote it: the turn's changeset
    // lists hello.txt with one line changed.
    let turn_changes = format!("{}/changesets/turn/{turn}", rig.session);
    let state = changeset_when(&rig.client, &turn_changes, |s| !s.files.is_empty()).await;
    assert_eq!(names(&state), ["hello.txt"], "{agent}: {state:?}");
    let diff = state.files[0].edit.diff.clone().unwrap_or_default();
    assert_eq!((diff.added, diff.removed), (Some(1), Some(1)), "{agent}");
    let t = rig.turn(&turn).await;
    assert!(markdown(&t).contains(REPLY), "{agent}: {}", markdown(&t));
    // Claude, Codex and Copilot report their context (`usage_update`): the
    // turn keeps it, the session shows it (docs/host.md "Usage"); Qwen and
    // OpenCode report no context, only tokens (summed on the turn).
    let report = t.usage.as_ref().and_then(|u| u.meta.as_ref()).and_then(|m| m.get("hangar/usage")).cloned();
    if agent == "qwen" || agent == "opencode" {
        assert!(report.as_ref().is_none_or(|r| r.get("used").is_none()), "{agent}: {report:?}");
        let input = t.usage.as_ref().and_then(|u| u.input_tokens);
        assert!(input.is_some_and(|n| n > 0), "{agent}: its model calls' tokens: {:?}", t.usage);
    } else {
        let positive = |k: &str| report.as_ref().and_then(|r| r[k].as_i64()).is_some_and(|n| n > 0);
        assert!(positive("used") && positive("size"), "{agent}: {report:?}");
        let meta = rig.session_state().await.meta.unwrap_or_default();
        assert!(meta.get("hangar/usage").is_some_and(|u| u["size"].as_i64() > Some(0)), "{agent}: {meta:?}");
    }
    let started = rig.wait_type("chat/turnStarted").await;
    let v = serde_json::to_value(&started.action).unwrap();
    assert_eq!(v["queuedMessageId"], "q1");
    let second = v["turnId"].as_str().unwrap().to_owned();
    assert_eq!(rig.wait_end(&second).await, "chat/turnComplete", "{agent} queued turn");
    assert!(!markdown(&rig.turn(&second).await).is_empty());
    assert!(rig.host.sigterm().success());
}

/// A shell command the agent runs itself (Claude's `Bash`, Codex's
/// `exec_command`) streams through Zed's `_meta.terminal_*`, which the host
/// offers: its tool call shows a terminal channel holding the output, and
/// keeps the exit and the output once it has ended.
async fn terminal(agent: &str, mock: &Mock) {
    let (mut rig, _home) = rig(agent, mock).await;
    let tool = if agent == "codex" { "exec_command" } else { "Bash" };
    let turn = rig.send(&format!("[[call {tool} echo${{IFS}}terminal-ok]]")).await;
    assert_eq!(rig.finish_approving(&turn).await.0, "chat/turnComplete", "{agent} terminal");
    let t = rig.turn(&turn).await;
    let link = tool_calls(&t)
        .iter()
        .filter(|tc| matches!(tc, ToolCallState::Completed(_)))
        .find_map(terminal_link)
        .unwrap_or_else(|| panic!("{agent}: no tool call shows a terminal: {:?}", tool_calls(&t)));
    let result = link.result.clone().unwrap_or_else(|| panic!("{agent}: the outcome is not kept: {link:?}"));
    assert_eq!(result.exit_code, Some(0), "{agent}: {link:?}");
    assert!(result.preview.unwrap_or_default().contains("terminal-ok"), "{agent}: {link:?}");
    let (snapshot, _) = rig.client.subscribe(link.resource.clone()).await.unwrap();
    let Some(SnapshotState::Terminal(state)) = snapshot.snapshot.map(|s| s.state) else { panic!("not a terminal") };
    let text = terminal_text(&state);
    assert!(text.contains("terminal-ok"), "{agent}: the channel shows the output: {text:?}");
    assert!(rig.host.sigterm().success());
}

async fn reject(agent: &str, mock: &Mock) {
    let (mut rig, _home) = rig(agent, mock).await;
    let turn = rig.send(PROMPT).await;
    let ready = rig.wait_confirmation().await;
    let entry = listed_on_session(&mut rig, agent, &ready).await;
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), false, None).await;
    rig.wait_input_needed_removed(&entry).await;
    let end = rig.wait_end(&turn).await;
    // codex ends a rejected turn `cancelled`; the others go on to end_turn.
    assert!(end == "chat/turnComplete" || (agent == "codex" && end == "chat/turnCancelled"), "{agent} reject: {end}");
    assert_eq!(file(&rig), "hello world\n", "{agent} must not write a rejected edit");
    assert!(rig.host.sigterm().success());
}

async fn cancel(agent: &str, mock: &Mock) {
    let (mut rig, _home) = rig(agent, mock).await;
    let turn = rig.send(PROMPT).await;
    let ready = rig.wait_confirmation().await;
    let entry = listed_on_session(&mut rig, agent, &ready).await;
    rig.dispatch(hangar_e2e::actions::turn_cancelled(&turn)).await;
    rig.wait_input_needed_removed(&entry).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnCancelled");
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(file(&rig), "hello world\n", "{agent} must not write after a cancel");
    // The session still works: the next turn completes.
    let next = rig.send("Say something.").await;
    assert_eq!(rig.finish_approving(&next).await.0, "chat/turnComplete", "{agent} after cancel");
    assert!(rig.host.sigterm().success());
}

/// The agent's own commands reach the `/` completions: `wanted` (a command
/// the agent reports, found in its recorded transcript) with its description.
async fn commands(agent: &str, mock: &Mock, wanted: &str) {
    let (mut rig, _home) = rig(agent, mock).await;
    let query = format!("/{}", &wanted[..2]);
    let params = CompletionsParams {
        channel: rig.chat.clone(),
        meta: None,
        kind: CompletionItemKind::UserMessage,
        text: query.clone(),
        offset: query.len() as i64,
    };
    // The agent reports its commands after `session/new`, when it is ready.
    let deadline = tokio::time::Instant::now() + hangar_e2e::WAIT;
    let item = loop {
        let result: CompletionsResult = rig.client.request("completions", &params).await.unwrap();
        let found = result.items.into_iter().find(|i| i.insert_text == format!("/{wanted} "));
        if let Some(item) = found {
            break item;
        }
        assert!(tokio::time::Instant::now() < deadline, "{agent}: /{wanted} never offered");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let v = serde_json::to_value(&item.attachment).unwrap();
    assert_eq!(v["type"], "simple", "{agent}: {v}");
    assert_eq!(v["displayKind"], "command", "{agent}: {v}");
    assert!(v["_meta"]["description"].as_str().is_some_and(|d| !d.is_empty()), "{agent}: {v}");
    modes(agent, &rig).await;
    assert!(rig.host.sigterm().success());
}

/// The agent's modes (from its `session/new`) are a `mode` property of the
/// session config new sessions get, with the agent's current mode as the
/// default.
async fn modes(agent: &str, rig: &Rig) {
    let (wanted, default) = match agent {
        "codex" => ("auto", "read-only"),
        "copilot" => (
            "https://agentclientprotocol.com/protocol/session-modes#plan",
            "https://agentclientprotocol.com/protocol/session-modes#agent",
        ),
        "opencode" => ("plan", "build"),
        _ => ("plan", "default"),
    };
    let params = serde_json::json!({ "channel": "ahp-root://", "provider": "agent" });
    let config: serde_json::Value = rig.client.request("resolveSessionConfig", &params).await.unwrap();
    let mode = &config["schema"]["properties"]["mode"];
    let values: Vec<&str> = mode["enum"].as_array().into_iter().flatten().filter_map(|v| v.as_str()).collect();
    assert!(values.contains(&wanted), "{agent}: modes {values:?}");
    assert_eq!(config["values"]["mode"], default, "{agent}: {config}");
}

async fn all(agent: &str) {
    if !available() {
        return;
    }
    let mock = Mock::start();
    let wanted = match agent {
        "codex" | "opencode" => "review",
        "claude" => "debug",
        "copilot" => "add-dir",
        _ => "status",
    };
    commands(agent, &mock, wanted).await;
    // Claude's and Codex's shells stream through Zed's terminal `_meta`.
    if agent == "claude" || agent == "codex" {
        terminal(agent, &mock).await;
    }
    approve(agent, &mock).await;
    reject(agent, &mock).await;
    cancel(agent, &mock).await;
    // Every agent process group ended with its host. The packages' paths in
    // this checkout: not another checkout's interop run on the same machine.
    let package = match agent {
        "codex" => "@zed-industries/codex-acp",
        "claude" => "@zed-industries/claude-agent-acp",
        "copilot" => "@github/copilot-linux-x64",
        "opencode" => "opencode-linux-x64",
        _ => "@qwen-code/qwen-code",
    };
    let needle = interop_dir().join("agents/node_modules").join(package).display().to_string();
    assert!(gone(&needle).await, "{agent} processes left: {:?}", processes_with(&needle));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_real_agent() {
    all("codex").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_real_agent() {
    all("claude").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qwen_real_agent() {
    all("qwen").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_real_agent() {
    all("copilot").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_real_agent() {
    all("opencode").await;
}

/// Real codex-acp on its built-in OpenAI provider (`run-agent.sh
/// codex-signin`, base URL: the mock) refuses sessions until it is signed
/// in: the start fails listing its ways (its key variables as key fields),
/// the key saved through `x-hangar/agentSignIn` goes to a real Secret
/// Service, and the next session starts — the host sets `CODEX_API_KEY` and
/// sends Codex's `authenticate` — and runs a turn against the mock.
#[tokio::test]
async fn codex_is_signed_in_with_a_key_kept_in_the_keyring() {
    if !available() {
        return;
    }
    let Some(keyring) = SecretService::start() else { return };
    let mock = Mock::start();
    let home = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (port, home_s) = (mock.port.to_string(), home.path().display().to_string());
    let mut env = keyring.env();
    env.extend([("MOCK_PORT".to_owned(), port), ("AGENT_HOME".to_owned(), home_s)]);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut rig =
        Rig::start_as("codex", tmp, AgentCmd::Command(agent_command("codex-signin")), Launch::Process(&env)).await;
    assert_eq!(rig.created, "session/creationFailed");
    let error = rig.session_state().await.creation_error.unwrap();
    assert_eq!(error.error_type, "authRequired", "{}", error.message);
    assert!(error.message.starts_with("Codex needs you to sign in"), "{}", error.message);
    let methods = error.meta.unwrap()["hangar.signIn"]["methods"].clone();
    let key_method = methods
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["var"] == "CODEX_API_KEY")
        .unwrap_or_else(|| panic!("no CODEX_API_KEY field in {methods}"));
    assert_eq!(key_method["kind"], "apiKey");

    const KEY: &str = "sk-interop-51c0de";
    let params = serde_json::json!({ "channel": rig.session, "method": key_method["id"], "key": KEY });
    let saved: serde_json::Value = rig.client.request("x-hangar/agentSignIn", params).await.unwrap();
    assert_eq!(saved["saved"], "CODEX_API_KEY");
    assert_eq!(rig.new_session().await, "session/ready", "{:?}", rig.session_state().await.creation_error);

    let turn = rig.send(PROMPT).await;
    let ready = rig.wait_confirmation().await;
    rig.confirm(&turn, ready["toolCallId"].as_str().unwrap(), true, None).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    assert_eq!(file(&rig), "hello ACP\n");
    assert!(markdown(&rig.turn(&turn).await).contains(REPLY));
    // Hangar wrote the key nowhere (Codex keeps its own copy in its
    // CODEX_HOME once told to use it: that is Codex's store, not ours).
    assert_eq!(file_holding(&data, KEY), None);
    assert!(rig.host.sigterm().success());
}
