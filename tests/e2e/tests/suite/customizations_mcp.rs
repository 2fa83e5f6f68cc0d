//! Issue 11 with real agents from npm (codex, claude) behind `hangar serve`:
//! an MCP server the host discovers in the workspace reaches the agent in
//! ACP `session/new` `mcpServers`, the model is offered its tool and calls
//! it; once toggled off for the workspace, a new session's agent does not
//! get it.
//!
//! What ran is seen without asking the model: the probe
//! (`tests/interop/mcp-probe/server.mjs`) logs its start and each call to
//! `HANGAR_PROBE_LOG`, which the workspace file passes in the server's
//! `env`; the mock model server logs the tools every request offered.
//!
//! Which file names the server: one the agent does NOT read by itself, so
//! that only the host's passing can start it. codex reads neither
//! `.mcp.json` nor `.vscode/mcp.json`: `.mcp.json`. claude loads a project's
//! `.mcp.json` on its own (`tests/interop/README.md`): `.vscode/mcp.json`.
//!
//! Needs `npm ci` in `tests/interop/agents` (skipped otherwise, unless
//! `HANGAR_REQUIRE_INTEROP` is set).

use std::path::{Path, PathBuf};

use ahp_types::actions::SessionCustomizationToggledAction;
use ahp_types::state::CustomizationEnablement;
use ahp_types::StateAction;
use hangar_e2e::acp::{file_uri, markdown, tool_calls, AgentCmd, Rig};
use hangar_e2e::interop::{agent_command, available, interop_dir, json_lines, Mock};
use hangar_e2e::Launch;
use serde_json::{json, Value};

/// The server's name: its key in the workspace file.
const SERVER: &str = "probe";
/// What the probe answers before the echoed text.
const MARKER: &str = "HANGAR_PROBE_OK";

/// The workspace file that names the probe, in the format of its path.
fn mcp_file(path: &str, probe_log: &Path) -> Value {
    let mut server = json!({
        "command": "node",
        "args": [interop_dir().join("mcp-probe/server.mjs")],
        "env": {"HANGAR_PROBE_LOG": probe_log},
    });
    if path == ".vscode/mcp.json" {
        server["type"] = json!("stdio");
        return json!({"servers": {SERVER: server}});
    }
    json!({"mcpServers": {SERVER: server}})
}

/// Probe log lines of `event` (`start`, `list`, `call`).
fn probe_events(log: &Path, event: &str) -> Vec<Value> {
    json_lines(log).into_iter().filter(|l| l["event"] == event).collect()
}

/// The mock's log line for the model request that carried `[[call hangar_probe ARG]]`
/// with no tool result yet (the request that decides whether to call).
fn first_request(mock_log: &Path, arg: &str) -> Value {
    let lines = json_lines(mock_log);
    let found = lines.iter().find(|l| l["directive"]["arg"] == arg && l["step"] == 0);
    found.cloned().unwrap_or_else(|| panic!("no model request for {arg} in {lines:?}"))
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_owned()).collect()
}

/// The customization (top-level first, then any container's child) of type
/// `mcpServer` named `name`.
fn mcp_customization(customizations: &Value, name: &str) -> Option<Value> {
    let all = customizations.as_array()?;
    let is_it = |c: &&Value| c["type"] == "mcpServer" && c["name"] == name;
    let top = all.iter().find(is_it);
    let child = || all.iter().filter_map(|c| c["children"].as_array()).flatten().find(is_it);
    top.or_else(child).cloned()
}

/// A real agent registered under its own id (`codex`, `claude`: the host
/// tells agents apart by it) in a workspace whose `file` names the probe,
/// with the mock model server and the two logs.
struct McpRig {
    agent: &'static str,
    rig: Rig,
    probe_log: PathBuf,
    mock_log: PathBuf,
    _mock: Mock,
    _dirs: [tempfile::TempDir; 3],
}

impl McpRig {
    /// `None` when the interop agents are not installed.
    async fn start(agent: &'static str, file: &str) -> Option<McpRig> {
        if !available() {
            return None;
        }
        let sdk = interop_dir().join("agents/node_modules/@modelcontextprotocol/sdk");
        assert!(sdk.is_dir(), "{} is missing (an older install): run `npm ci` in tests/interop/agents", sdk.display());
        let logs = tempfile::tempdir().unwrap();
        let probe_log = logs.path().join("probe.jsonl");
        let mock_log = logs.path().join("mock.jsonl");
        let mock = Mock::start_with(&[("MOCK_LOG", mock_log.to_str().unwrap())]);
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("ws").join(file);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, serde_json::to_string_pretty(&mcp_file(file, &probe_log)).unwrap()).unwrap();
        // The agent's HOME (run-agent.sh) and the host's: both empty, so the
        // only MCP server anywhere is the workspace's.
        let (agent_home, host_home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let port = mock.port.to_string();
        let agent_home_s = agent_home.path().display().to_string();
        let host_home_s = host_home.path().display().to_string();
        let env = [("MOCK_PORT", port.as_str()), ("AGENT_HOME", &agent_home_s), ("HOME", &host_home_s)];
        let rig = Rig::start_as(agent, tmp, AgentCmd::Command(agent_command(agent)), Launch::Process(&env)).await;
        assert_eq!(rig.created, "session/ready", "{agent}: {:?}", rig.session_state().await.creation_error);
        Some(McpRig { agent, rig, probe_log, mock_log, _mock: mock, _dirs: [logs, agent_home, host_home] })
    }

    /// Run `[[call hangar_probe ARG]]` as a turn to its end, approving.
    async fn turn(&mut self, arg: &str) -> (String, usize) {
        let turn = self.rig.send(&format!("Please [[call hangar_probe {arg}]]")).await;
        let (end, approved) = self.rig.finish_approving(&turn).await;
        assert_eq!(end, "chat/turnComplete", "{}", self.agent);
        (turn, approved)
    }

    fn starts(&self) -> usize {
        probe_events(&self.probe_log, "start").len()
    }

    /// The probe's customization in the current session.
    async fn server(&self) -> Value {
        let state = serde_json::to_value(self.rig.session_state().await).unwrap();
        let tree = &state["customizations"];
        mcp_customization(tree, SERVER).unwrap_or_else(|| panic!("{}: no mcpServer {SERVER:?} in {tree}", self.agent))
    }

    /// Turn the probe off for the workspace, then open a new session there.
    async fn toggle_off_and_reopen(&mut self) {
        let id = self.server().await["id"].as_str().unwrap().to_owned();
        let workspace = file_uri(&self.rig.workspace);
        let toggle = SessionCustomizationToggledAction {
            id: id.clone(),
            enablement: vec![CustomizationEnablement::Workspace { uri: workspace, enabled: false }],
        };
        let rig = &mut self.rig;
        rig.client.dispatch(rig.session.clone(), StateAction::SessionCustomizationToggled(toggle)).await.unwrap();
        hangar_e2e::wait_for_action(&mut rig.session_sub, |e| {
            let v = serde_json::to_value(&e.action).unwrap();
            v["type"] == "session/customizationToggled" && v["id"] == id.as_str()
        })
        .await;
        assert_eq!(rig.new_session().await, "session/ready", "{}", self.agent);
    }
}

/// The note the host puts on an MCP server this agent also reads itself.
fn reads_itself(server: &Value, agent: &str) -> bool {
    let note = server["_meta"]["hangar.note"].as_str().unwrap_or_default();
    note.contains(&format!("{agent} also reads this file itself"))
}

async fn mcp_reaches_agent_and_toggles_off(agent: &'static str, file: &str, tool: &str) {
    let Some(mut m) = McpRig::start(agent, file).await else { return };

    // Enabled (the default): the agent starts the server, the model is
    // offered its tool, calls it, and the turn shows the result.
    let (turn, approved) = m.turn("on-1").await;
    assert_eq!(m.starts(), 1, "{agent} started the probe once: {:?}", json_lines(&m.probe_log));
    let calls = probe_events(&m.probe_log, "call");
    assert_eq!(calls.iter().map(|c| c["text"].as_str().unwrap()).collect::<Vec<_>>(), ["on-1"], "{agent}");
    let request = first_request(&m.mock_log, "on-1");
    assert!(tool_names(&request).iter().any(|t| t == tool), "{agent} offered {tool}: {request}");
    assert_eq!(request["directive"]["tool"], tool, "{agent}");
    let done = m.rig.turn(&turn).await;
    let echoed = format!("{MARKER}:on-1");
    assert!(markdown(&done).contains(&echoed), "{agent}: {}", markdown(&done));
    let calls_json = serde_json::to_string(&tool_calls(&done)).unwrap();
    assert!(calls_json.contains(&echoed), "{agent}: the tool call shows the result: {calls_json}");
    let server = m.server().await;
    assert_eq!(server["_meta"]["hangar.appliedBy"], "host", "{agent}: {server}");
    assert!(!reads_itself(&server, agent), "{agent} does not read {file} itself: {server}");
    println!("{agent}: probe called through {tool}; {approved} confirmation(s) approved");

    // Toggled off for the workspace: a new session in the same folder.
    m.toggle_off_and_reopen().await;
    let (turn, approved) = m.turn("off-1").await;
    assert_eq!(approved, 0, "{agent}: nothing to confirm without the tool");
    let request = first_request(&m.mock_log, "off-1");
    let offered = tool_names(&request);
    assert!(!offered.is_empty() && !offered.iter().any(|t| t == tool), "{agent} offered {offered:?}");
    assert_eq!(request["directive"]["tool"], Value::Null, "{agent}");
    assert!(markdown(&m.rig.turn(&turn).await).contains("No tool matching hangar_probe."), "{agent}");
    // The model request came after the new agent's MCP startup (both
    // agents start their servers at session/new): no second start.
    assert_eq!(m.starts(), 1, "{agent} started it again: {:?}", json_lines(&m.probe_log));
    // Effective state per the wire contract: the most specific decision.
    let server = m.server().await;
    let decisive = &server["enablement"][0];
    assert_eq!((&decisive["kind"], &decisive["enabled"]), (&json!("workspace"), &json!(false)), "{agent}: {server}");
    assert!(m.rig.host.sigterm().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_gets_enabled_mcp_server_from_host() {
    mcp_reaches_agent_and_toggles_off("codex", ".mcp.json", "mcp__probe__hangar_probe").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_gets_enabled_mcp_server_from_host() {
    mcp_reaches_agent_and_toggles_off("claude", ".vscode/mcp.json", "mcp__probe__hangar_probe").await;
}

/// claude loads a project's `.mcp.json` by itself: turned off in Hangar, a
/// new claude session still starts the server and offers its tool. The
/// host cannot stop that, and its note on the server says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_reads_mcp_json_itself_and_the_host_says_so() {
    let Some(mut m) = McpRig::start("claude", ".mcp.json").await else { return };
    assert!(reads_itself(&m.server().await, "claude"), "{}", m.server().await);
    let before = m.starts();
    m.toggle_off_and_reopen().await;
    m.turn("own-1").await;
    assert!(m.starts() > before, "claude started .mcp.json's server itself: {:?}", json_lines(&m.probe_log));
    let request = first_request(&m.mock_log, "own-1");
    assert_eq!(request["directive"]["tool"], "mcp__probe__hangar_probe", "{request}");
    let server = m.server().await;
    assert_eq!(server["enablement"][0]["enabled"], false, "{server}");
    assert!(reads_itself(&server, "claude"), "{server}");
    assert!(m.rig.host.sigterm().success());
}
