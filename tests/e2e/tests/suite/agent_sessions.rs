//! The agents' own earlier sessions (issue 29, item 5), against a real
//! `hangar serve` and the scripted agent with sessions of its own:
//! `x-hangar/agentSessions` lists them per folder (ACP `session/list`),
//! `createSession` with `_meta["hangar/agentSession"]` opens one
//! (`session/load`), its replayed history becomes completed turns that are
//! found by `x-hangar/search` and never sent back to the agent as prompts,
//! the conversation continues in the agent's own session, and an agent
//! that cannot open its sessions says so.

use ahp_types::commands::CreateSessionParams;
use hangar_e2e::acp::{file_uri, markdown, AgentCmd, Rig};
use hangar_e2e::Launch;
use serde_json::{json, Value};

/// A temp dir with the rig's workspace made, and that workspace's path.
fn workspace() -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let ws = ws.canonicalize().unwrap().display().to_string();
    (tmp, ws)
}

fn script(ws: &str, capabilities: Value) -> Value {
    json!({
        "capabilities": capabilities,
        "pastSessions": [
            { "sessionId": "cli-1", "cwd": ws, "title": "Fix the flaky quokka test",
              "updatedAt": "2026-11-20T10:00:00Z",
              "history": [["why does the quokka test fail?", "Because the wombat fixture is shared."],
                          ["fix it", "Done: each test has its own fixture."]] },
            { "sessionId": "cli-2", "cwd": "/somewhere/else", "title": "Elsewhere",
              "history": [["hello", "hi"]] }
        ],
        "turns": [[ { "echo": true }, { "end": "end_turn" } ]]
    })
}

async fn agent_sessions(rig: &Rig, params: Value) -> Result<Value, String> {
    rig.client.request::<_, Value>("x-hangar/agentSessions", params).await.map_err(|e| e.to_string())
}

fn open_params(rig: &Rig, session: &str, asked: Value) -> CreateSessionParams {
    CreateSessionParams {
        channel: session.to_owned(),
        meta: Some([("hangar/agentSession".to_owned(), asked)].into_iter().collect()),
        provider: Some(rig.provider.clone()),
        working_directories: Some(vec![file_uri(&rig.workspace)]),
        config: None,
        active_client: None,
        progress_token: None,
    }
}

#[tokio::test]
async fn an_agents_own_session_is_listed_opened_replayed_found_and_continued() {
    let (tmp, ws) = workspace();
    let caps = json!({ "loadSession": true, "sessionCapabilities": { "list": {} } });
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(script(&ws, caps)), Launch::InProcess, None).await;

    // Listed per folder, with what the agent says of each.
    let listed =
        agent_sessions(&rig, json!({ "provider": rig.provider, "folder": file_uri(&rig.workspace) })).await.unwrap();
    assert_eq!(listed["listable"], true, "{listed}");
    assert_eq!(listed["opensWith"], "load");
    let sessions = listed["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "only the folder's: {listed}");
    assert_eq!(sessions[0]["sessionId"], "cli-1");
    assert_eq!(sessions[0]["title"], "Fix the flaky quokka test");
    assert_eq!(sessions[0]["folder"], file_uri(&rig.workspace));
    assert!(sessions[0].get("opened").is_none());
    let all = agent_sessions(&rig, json!({ "provider": rig.provider })).await.unwrap();
    assert_eq!(all["sessions"].as_array().unwrap().len(), 2, "every folder without one: {all}");

    // Bad params.
    let unknown = agent_sessions(&rig, json!({ "provider": "nobody" })).await.unwrap_err();
    assert!(unknown.contains("nobody"), "{unknown}");
    let missing = agent_sessions(&rig, json!({ "provider": rig.provider, "folder": "file:///no/such/folder" }))
        .await
        .unwrap_err();
    assert!(missing.contains("-32602") || missing.contains("not an existing directory"), "{missing}");

    // Opened: the history replayed as completed turns.
    let opened = "ahp-session:/opened-cli-1";
    let asked = json!({ "sessionId": "cli-1", "title": sessions[0]["title"] });
    let created = rig.open(open_params(&rig, opened, asked)).await;
    assert_eq!(created, "session/ready");
    let chat = rig.chat_state().await;
    let messages: Vec<&str> = chat.turns.iter().map(|t| t.message.text.as_str()).collect();
    assert_eq!(messages, ["why does the quokka test fail?", "fix it"]);
    assert_eq!(markdown(&chat.turns[0]), "Because the wombat fixture is shared.");
    assert_eq!(markdown(&chat.turns[1]), "Done: each test has its own fixture.");
    assert!(chat.active_turn.is_none(), "replayed turns are complete, none runs");
    let meta = rig.session_state().await.meta.unwrap_or_default();
    assert_eq!(meta["hangar.acp"], json!({ "sessionId": "cli-1" }), "opened once: not replayed again");
    let session = rig.session_state().await;
    assert_eq!(session.title, "Fix the flaky quokka test", "the title the agent listed, not the first message");

    // Found by search.
    let found = rig.client.request::<_, Value>("x-hangar/search", json!({ "query": "wombat fixture" })).await.unwrap();
    let items = found["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{found}");
    assert_eq!(items[0]["session"], opened);
    assert_eq!(items[0]["turnId"], chat.turns[0].id.as_str());

    // Listed as opened.
    let listed =
        agent_sessions(&rig, json!({ "provider": rig.provider, "folder": file_uri(&rig.workspace) })).await.unwrap();
    assert_eq!(listed["sessions"][0]["opened"], opened);

    // Continued in the agent's own session; the replayed turns were never
    // prompts (the agent's first prompt is this one).
    let t = rig.send("and now?").await;
    assert_eq!(rig.wait_end(&t).await, "chat/turnComplete");
    let turn = rig.turn(&t).await;
    assert!(markdown(&turn).contains("and now?"), "{}", markdown(&turn));
    assert!(markdown(&turn).contains("[restored by session/load]"), "{}", markdown(&turn));
    assert_eq!(rig.chat_state().await.turns.len(), 3);
}

#[tokio::test]
async fn an_agent_that_cannot_open_its_sessions_says_so() {
    let (tmp, ws) = workspace();
    let caps = json!({ "sessionCapabilities": { "list": {} } });
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(script(&ws, caps)), Launch::InProcess, None).await;
    let listed = agent_sessions(&rig, json!({ "provider": rig.provider })).await.unwrap();
    assert_eq!(listed["listable"], true);
    assert_eq!(listed["opensWith"], Value::Null, "{listed}");

    let created = rig.open(open_params(&rig, "ahp-session:/cannot", json!({ "sessionId": "cli-1" }))).await;
    assert_eq!(created, "session/creationFailed");
    let error = rig.session_state().await.creation_error.unwrap();
    assert!(error.message.contains("cannot open its earlier sessions"), "{}", error.message);

    // An agent that does not list at all.
    let (tmp, ws) = workspace();
    let rig = Rig::start_with(tmp, AgentCmd::Script(script(&ws, json!({}))), Launch::InProcess, None).await;
    let listed = agent_sessions(&rig, json!({ "provider": rig.provider })).await.unwrap();
    assert_eq!(listed["listable"], false);
    assert_eq!(listed["sessions"], json!([]));
}
