//! The agents' own earlier sessions (issue 29, item 5) with REAL agents
//! from npm (`tests/interop`), their model API pointed at the mock model
//! server: a turn through Hangar gives the agent a session of its own, on
//! disk in the agent's HOME the test controls; once the Hangar session is
//! gone, `x-hangar/agentSessions {provider, folder}` lists it (Claude,
//! Codex, Qwen, Copilot CLI and OpenCode over ACP `session/list`; Gemini
//! CLI from its files on disk),
//! `createSession` with `_meta["hangar/agentSession"]` opens it with
//! `session/load`, the history the agent replays becomes completed turns,
//! and a next message continues it: the model is sent the earlier
//! conversation.
//!
//! Same gating as `acp_interop`: skipped with a message when
//! `tests/interop/agents/node_modules` is missing, unless
//! `HANGAR_REQUIRE_INTEROP` is set.

use ahp_types::commands::CreateSessionParams;
use hangar_e2e::acp::{file_uri, markdown, AgentCmd, Rig};
use hangar_e2e::interop::{agent_command, available, json_lines, Mock};
use hangar_e2e::Launch;
use serde_json::{json, Value};

/// The first prompt: the mock answers it with text only (no tool matches
/// `nothing`), and the word `quokka` marks it in later model requests.
const FIRST: &str = "[[call nothing first]] Remember the quokka.";
const SECOND: &str = "[[call nothing second]] And now?";

async fn agent_sessions(rig: &Rig, agent: &str) -> Value {
    let params = json!({ "provider": agent, "folder": file_uri(&rig.workspace) });
    rig.client.request::<_, Value>("x-hangar/agentSessions", params).await.unwrap()
}

/// The listing once it holds `sid` (an agent may write its session after
/// the turn's answer), polled with a deadline.
async fn listed_with(rig: &Rig, agent: &str, sid: &str) -> (Value, Value) {
    let deadline = tokio::time::Instant::now() + hangar_e2e::WAIT;
    loop {
        let listed = agent_sessions(rig, agent).await;
        let found = listed["sessions"].as_array().into_iter().flatten().find(|s| s["sessionId"] == sid).cloned();
        if let Some(item) = found {
            return (listed, item);
        }
        assert!(tokio::time::Instant::now() < deadline, "{agent}: {sid} never listed: {listed}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

fn acp_session_id(meta: &serde_json::Map<String, Value>) -> Option<String> {
    meta.get("hangar.acp")?.get("sessionId")?.as_str().map(str::to_owned)
}

/// Gemini CLI 0.61 names a session's file by the UTC minute its recording
/// starts (`session-YYYY-MM-DDTHH-MM-<first 8 of the id>.jsonl`), and
/// `session/load` starts a new recording of the same id before resuming the
/// old one: in the same minute that appends to the session's own file and
/// empties it (`$set` of the messages), and the load fails with "No
/// previous sessions found". A person reopens a session later than that;
/// so does this test: polled until no file of `sid` is named by this minute.
async fn gemini_minute_turned(home: &std::path::Path, sid: &str) {
    let chats: Vec<std::path::PathBuf> = std::fs::read_dir(home.join(".gemini/tmp"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path().join("chats"))
        .collect();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(90);
    loop {
        let minute = jiff::Timestamp::now().strftime("%Y-%m-%dT%H-%M").to_string();
        let name = format!("session-{minute}-{}.jsonl", &sid[..8]);
        if !chats.iter().any(|dir| dir.join(&name).exists()) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "gemini: the minute never turned");
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

async fn own_session_is_listed_opened_and_continued(agent: &str) {
    if !available() {
        return;
    }
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("mock.jsonl");
    let log_s = log.display().to_string();
    let mock = Mock::start_with(&[("MOCK_LOG", &log_s), ("MOCK_LOG_BODIES", "1")]);
    let home = tempfile::tempdir().unwrap();
    let (port, home_s) = (mock.port.to_string(), home.path().display().to_string());
    // run-agent.sh makes AGENT_HOME the agent's HOME; GEMINI_CLI_HOME tells
    // the host where Gemini CLI keeps its files (Gemini's own variable).
    let env = [("MOCK_PORT", port.as_str()), ("AGENT_HOME", home_s.as_str()), ("GEMINI_CLI_HOME", home_s.as_str())];
    let tmp = tempfile::tempdir().unwrap();
    let mut rig = Rig::start_as(agent, tmp, AgentCmd::Command(agent_command(agent)), Launch::Process(&env)).await;
    assert_eq!(rig.created, "session/ready", "{agent}: {:?}", rig.session_state().await.creation_error);

    // A turn in the agent's own session.
    let first = rig.send(FIRST).await;
    assert_eq!(rig.finish_approving(&first).await.0, "chat/turnComplete", "{agent}");
    assert!(markdown(&rig.turn(&first).await).contains("No tool matching nothing"), "{agent}");
    let meta = rig.session_state().await.meta.unwrap_or_default();
    let sid = acp_session_id(&meta).unwrap_or_else(|| panic!("{agent}: no ACP session id in {meta:?}"));

    // Listed, as opened by the first Hangar session.
    let (listed, item) = listed_with(&rig, agent, &sid).await;
    assert_eq!(listed["listable"], true, "{agent}: {listed}");
    assert_eq!(listed["opensWith"], "load", "{agent}: {listed}");
    assert_eq!(item["folder"], file_uri(&rig.workspace), "{agent}: {item}");
    assert_eq!(item["opened"], rig.session.as_str(), "{agent}: {item}");
    let title = item["title"].as_str().unwrap_or_default();
    assert!(!title.is_empty(), "{agent}: a title: {item}");

    // The Hangar session goes (its agent ends); the agent's own stays.
    let _: Value = rig.client.request("disposeSession", json!({ "channel": rig.session })).await.unwrap();
    let (_, item) = listed_with(&rig, agent, &sid).await;
    assert!(item.get("opened").is_none(), "{agent}: {item}");

    if agent == "gemini" {
        gemini_minute_turned(home.path(), &sid).await;
    }

    // Opened again: `session/load` replays it as completed turns.
    let opened = format!("ahp-session:/reopened-{agent}");
    let params = CreateSessionParams {
        channel: opened.clone(),
        meta: Some([("hangar/agentSession".to_owned(), json!({ "sessionId": sid }))].into_iter().collect()),
        provider: Some(agent.to_owned()),
        working_directories: Some(vec![file_uri(&rig.workspace)]),
        config: None,
        active_client: None,
        progress_token: None,
    };
    assert_eq!(rig.open(params).await, "session/ready", "{agent}: {:?}", rig.session_state().await.creation_error);
    let chat = rig.chat_state().await;
    assert!(chat.active_turn.is_none(), "{agent}: replayed turns are complete");
    let messages: Vec<&str> = chat.turns.iter().map(|t| t.message.text.as_str()).collect();
    assert_eq!(messages.len(), 1, "{agent}: one replayed turn: {messages:?}");
    assert!(messages[0].contains("Remember the quokka"), "{agent}: {messages:?}");
    assert!(markdown(&chat.turns[0]).contains("No tool matching nothing"), "{agent}: {}", markdown(&chat.turns[0]));
    let meta = rig.session_state().await.meta.unwrap_or_default();
    assert_eq!(meta["hangar.acp"], json!({ "sessionId": sid }), "{agent}");

    // Continued in the agent's own session: the model is sent the earlier
    // conversation with the new message.
    let next = rig.send(SECOND).await;
    assert_eq!(rig.finish_approving(&next).await.0, "chat/turnComplete", "{agent}");
    assert!(markdown(&rig.turn(&next).await).contains("No tool matching nothing"), "{agent}");
    let asked = json_lines(&log)
        .into_iter()
        .rev()
        .find(|l| l.get("sideRequest").is_none() && l["body"].to_string().contains("And now?"))
        .unwrap_or_else(|| panic!("{agent}: the second message never reached the model"));
    assert!(asked["body"].to_string().contains("Remember the quokka"), "{agent}: no history in {}", asked["body"]);
    assert_eq!(rig.chat_state().await.turns.len(), 2, "{agent}");
    assert!(rig.host.sigterm().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_own_session_is_listed_opened_and_continued() {
    own_session_is_listed_opened_and_continued("claude").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_own_session_is_listed_opened_and_continued() {
    own_session_is_listed_opened_and_continued("codex").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qwen_own_session_is_listed_opened_and_continued() {
    own_session_is_listed_opened_and_continued("qwen").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_own_session_is_listed_from_disk_opened_and_continued() {
    own_session_is_listed_opened_and_continued("gemini").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_own_session_is_listed_opened_and_continued() {
    own_session_is_listed_opened_and_continued("copilot").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_own_session_is_listed_opened_and_continued() {
    own_session_is_listed_opened_and_continued("opencode").await;
}
