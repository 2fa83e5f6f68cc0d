//! Signing an agent in from a client (`x-hangar/agentSignIn`) against the
//! scripted fake agent, which refuses sessions with ACP `auth_required`
//! until it is signed in: the start fails saying why and how
//! (`authRequired`, the methods in `_meta["hangar.signIn"]`); a key is kept
//! in a real Secret Service (never in a file) and reaches the agent's
//! environment, also after a host restart; a terminal login runs on the
//! host as a terminal channel; an `authenticate` method is sent to a fresh
//! agent process; a turn that restarts an agent signed out meanwhile fails
//! listing the ways too. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use ahp::ClientError;
use ahp_types::state::{SnapshotState, TerminalLifecycleState};
use ahp_types::StateAction;
use hangar_e2e::acp::{file_holding, processes_with, terminal_text, AgentCmd, Rig};
use hangar_e2e::SecretService;
use hangar_e2e::{wait_for_action, Launch};
use serde_json::{json, Value};

const KEY: &str = "sk-fake-7f3a9c2e11";

/// A fake agent that needs signing in, offering `methods`.
fn needs_sign_in(methods: Value) -> Value {
    json!({
        "initialize": { "protocolVersion": 1, "agentCapabilities": {}, "authMethods": methods },
        // Like Codex, the key counts once the agent is told to use it.
        "auth": { "key": { "var": "FAKE_API_KEY", "value": KEY, "method": "fake-key" }, "agentMethod": "fake-oauth" },
        "turns": [[{ "chunk": "signed in and working" }, { "end": "end_turn" }]]
    })
}

fn all_methods() -> Value {
    json!([
        { "id": "fake-oauth", "name": "Log in with Fake", "description": "Use your Fake account" },
        { "type": "env_var", "id": "fake-key", "name": "Use FAKE_API_KEY", "vars": [{ "name": "FAKE_API_KEY" }] },
        { "type": "terminal", "id": "fake-login", "name": "Log in in a terminal", "args": ["--login"] },
        { "type": "terminal", "id": "fake-login-fail", "name": "A login that fails", "args": ["--login", "--login-fail"] },
        { "id": "gateway", "name": "Gateway", "_meta": { "gateway": { "protocol": "fake" } } }
    ])
}

async fn sign_in(rig: &Rig, params: Value) -> Result<Value, (i32, String)> {
    let mut params = params;
    params["channel"] = json!(rig.session);
    match rig.client.request::<_, Value>("x-hangar/agentSignIn", params).await {
        Ok(v) => Ok(v),
        Err(ClientError::Rpc(e)) => Err((e.code, e.message)),
        Err(e) => panic!("{e:?}"),
    }
}

#[tokio::test]
async fn a_start_refused_for_want_of_sign_in_says_why_and_lists_the_ways() {
    let rig = Rig::start(AgentCmd::Script(needs_sign_in(all_methods())), Launch::InProcess).await;
    assert_eq!(rig.created, "session/creationFailed");
    let error = rig.session_state().await.creation_error.expect("a creation error");
    assert_eq!(error.error_type, "authRequired");
    assert!(error.message.contains("needs you to sign in"), "{}", error.message);
    let offered = &error.meta.expect("the ways to sign in")["hangar.signIn"];
    assert_eq!(offered["provider"], "agent");
    let kinds: Vec<(&str, &str)> = offered["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_str().unwrap(), m["kind"].as_str().unwrap()))
        .collect();
    // The gateway (for programs, not people) is left out.
    assert_eq!(
        kinds,
        [("fake-oauth", "agent"), ("fake-key", "apiKey"), ("fake-login", "terminal"), ("fake-login-fail", "terminal")]
    );
    assert_eq!(offered["methods"][1]["var"], "FAKE_API_KEY");
    assert!(offered["methods"][2]["title"].as_str().unwrap().ends_with("--login"), "{offered}");

    // Only what the agent offered can be run; a key method needs a key.
    let (code, message) = sign_in(&rig, json!({ "method": "rm-rf" })).await.unwrap_err();
    assert_eq!(code, -32602, "{message}");
    assert!(message.contains("offers no sign-in method"), "{message}");
    let (code, _) = sign_in(&rig, json!({ "method": "gateway" })).await.unwrap_err();
    assert_eq!(code, -32602);
    let (code, message) = sign_in(&rig, json!({ "method": "fake-key" })).await.unwrap_err();
    assert_eq!(code, -32602, "{message}");
}

#[tokio::test]
async fn a_key_is_kept_in_the_keyring_not_a_file_and_the_agent_starts_with_it_after_a_restart() {
    let Some(keyring) = SecretService::start() else { return };
    let env = keyring.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("kept-data");
    // An agent that restores its sessions with `session/load`, saying so.
    let mut script = needs_sign_in(all_methods());
    script["capabilities"] = json!({ "loadSession": true });
    script["turns"] = json!([[{ "chunk": "signed in and working" }, { "echo": true }, { "end": "end_turn" }]]);
    let mut rig = Rig::start_with(
        tempfile::tempdir().unwrap(),
        AgentCmd::Script(script.clone()),
        Launch::Process(&env),
        Some(&data),
    )
    .await;
    assert_eq!(rig.created, "session/creationFailed");

    let (code, _) = sign_in(&rig, json!({ "method": "fake-key", "key": "two\nlines" })).await.unwrap_err();
    assert_eq!(code, -32602, "a key with a line break is refused");
    assert_eq!(
        sign_in(&rig, json!({ "method": "fake-key", "key": KEY })).await.unwrap(),
        json!({ "saved": "FAKE_API_KEY" })
    );
    assert_eq!(rig.new_session().await, "session/ready", "{:?}", rig.session_state().await.creation_error);
    let turn = rig.send("hello").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");

    // The key is in no file of the host's: only the variable's name is.
    assert_eq!(file_holding(&data, KEY), None);
    let names = std::fs::read_to_string(data.join("agent-keys.json")).unwrap();
    assert!(names.contains("FAKE_API_KEY"), "{names}");

    // A restarted host still has it (the keyring, not memory).
    let (old_session, old_chat, old_folder) = (rig.session.clone(), rig.chat.clone(), rig.workspace.clone());
    rig.host.stop_with("TERM");
    drop(rig);
    // The rig's temporary folder went with it: the earlier session's folder is made again.
    std::fs::create_dir_all(&old_folder).unwrap();
    let mut rig =
        Rig::start_with(tempfile::tempdir().unwrap(), AgentCmd::Script(script), Launch::Process(&env), Some(&data))
            .await;
    assert_eq!(rig.created, "session/ready", "{:?}", rig.session_state().await.creation_error);

    // The earlier session's next turn restores the agent's own session
    // (`session/load`, refused until the key is presented) rather than
    // starting a new one that remembers nothing.
    let fresh = (rig.session.clone(), rig.chat.clone());
    (rig.session, rig.chat) = (old_session, old_chat.clone());
    rig.chat_sub = rig.client.subscribe(old_chat).await.unwrap().1;
    let turn = rig.send("do you remember?").await;
    let ended = rig.wait_end(&turn).await;
    assert_eq!(ended, "chat/turnComplete", "{:?}", hangar_e2e::acp::error_message(&rig.turn(&turn).await));
    let said = hangar_e2e::acp::markdown(&rig.turn(&turn).await);
    assert!(said.contains("[restored by session/load]"), "{said}");
    (rig.session, rig.chat) = fresh;

    // Signed out, the next start is refused again.
    let out: Value = rig
        .client
        .request("x-hangar/agentSignOut", json!({ "channel": rig.session, "variable": "FAKE_API_KEY" }))
        .await
        .unwrap();
    assert_eq!(out, json!({}));
    assert_eq!(rig.new_session().await, "session/creationFailed");
    assert_eq!(rig.session_state().await.creation_error.unwrap().error_type, "authRequired");
}

#[tokio::test]
async fn a_terminal_login_runs_on_the_host_where_every_client_can_watch_it() {
    let mut rig = Rig::start(AgentCmd::Script(needs_sign_in(all_methods())), Launch::InProcess).await;
    assert_eq!(rig.created, "session/creationFailed");

    // A login that fails says so in its terminal and signs nothing in.
    let failed = sign_in(&rig, json!({ "method": "fake-login-fail" })).await.unwrap();
    let (state, exit) = watch_to_exit(&rig, failed["terminal"].as_str().unwrap()).await;
    assert_eq!(exit, Some(1));
    assert!(terminal_text(&state).contains("The code expired"), "{}", terminal_text(&state));
    assert_eq!(rig.new_session().await, "session/creationFailed");

    let answer = sign_in(&rig, json!({ "method": "fake-login" })).await.unwrap();
    let uri = answer["terminal"].as_str().expect("the login's terminal");
    assert!(uri.starts_with(&format!("{}/terminals/login-", rig.session)), "{uri}");
    let (state, exit) = watch_to_exit(&rig, uri).await;
    assert_eq!(exit, Some(0));
    let text = terminal_text(&state);
    assert!(text.contains("enter the code FAKE-1234") && text.contains("Signed in as fake-user"), "{text}");
    assert!(state.title.starts_with("Log in in a terminal: "), "{}", state.title);

    assert_eq!(rig.new_session().await, "session/ready", "{:?}", rig.session_state().await.creation_error);
    let turn = rig.send("hello").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
}

/// Subscribe to terminal `uri` and wait for its command to end: its state
/// then and its exit code.
async fn watch_to_exit(rig: &Rig, uri: &str) -> (ahp_types::state::TerminalState, Option<i64>) {
    let (snapshot, mut sub) = rig.client.subscribe(uri.to_owned()).await.unwrap();
    let SnapshotState::Terminal(first) = snapshot.snapshot.unwrap().state else { panic!("not a terminal") };
    if !matches!(first.lifecycle, TerminalLifecycleState::Exited(_)) {
        wait_for_action(&mut sub, |e| matches!(e.action, StateAction::TerminalExited(_))).await;
    }
    let (snapshot, _) = rig.client.subscribe(uri.to_owned()).await.unwrap();
    let SnapshotState::Terminal(state) = snapshot.snapshot.unwrap().state else { panic!("not a terminal") };
    let TerminalLifecycleState::Exited(ref exited) = state.lifecycle else {
        panic!("not ended: {:?}", state.lifecycle)
    };
    let code = exited.exit_code;
    (*state, code)
}

#[tokio::test]
async fn an_agent_method_is_sent_authenticate_by_a_fresh_agent_process_that_then_ends() {
    let mut rig = Rig::start(AgentCmd::Script(needs_sign_in(all_methods())), Launch::InProcess).await;
    assert_eq!(rig.created, "session/creationFailed");
    let answer = sign_in(&rig, json!({ "method": "fake-oauth" })).await.unwrap();
    assert_eq!(answer, json!({ "signedIn": true }));
    let script_dir = rig.workspace.parent().unwrap().display().to_string();
    assert!(
        tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while !processes_with(&script_dir).is_empty() {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        })
        .await
        .is_ok(),
        "the sign-in's agent process ended"
    );
    assert_eq!(rig.new_session().await, "session/ready", "{:?}", rig.session_state().await.creation_error);
}

#[tokio::test]
async fn a_prompt_the_running_agent_refuses_for_want_of_sign_in_lists_the_ways() {
    let script = json!({
        "initialize": { "protocolVersion": 1, "agentCapabilities": {}, "authMethods": all_methods() },
        "turns": [[{ "fail": { "code": -32000, "message": "Authentication required" } }]]
    });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    assert_eq!(rig.created, "session/ready");
    let turn = rig.send("hello").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/error");
    let error = turn_error(&rig.turn(&turn).await);
    assert_eq!(error.error_type, "authRequired");
    assert!(error.message.contains("needs you to sign in again"), "{}", error.message);
    assert_eq!(error.meta.unwrap()["hangar.signIn"]["methods"].as_array().map(Vec::len), Some(4));
}

/// The error part of `turn`.
fn turn_error(turn: &ahp_types::state::Turn) -> ahp_types::state::ErrorInfo {
    turn.response_parts
        .iter()
        .find_map(|p| match p {
            ahp_types::state::ResponsePart::Error(e) => Some(e.error.clone()),
            _ => None,
        })
        .expect("an error part")
}

#[tokio::test]
async fn an_agent_signed_out_meanwhile_fails_the_turn_with_the_ways_to_sign_in_again() {
    let mut rig = Rig::start(AgentCmd::Script(needs_sign_in(all_methods())), Launch::InProcess).await;
    assert_eq!(sign_in(&rig, json!({ "method": "fake-oauth" })).await.unwrap(), json!({ "signedIn": true }));
    assert_eq!(rig.new_session().await, "session/ready");
    let first = rig.send("hello").await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");

    // Signed out (the agent's own login is gone) and the agent restarted:
    // the next turn starts it again and is refused.
    let scripts = rig.workspace.parent().unwrap().to_owned();
    for marker in std::fs::read_dir(&scripts).unwrap().flatten() {
        if marker.file_name().to_string_lossy().ends_with(".signed-in") {
            std::fs::remove_file(marker.path()).unwrap();
        }
    }
    let _: Value = rig.client.request("x-hangar/restartAgent", json!({ "channel": rig.session })).await.unwrap();
    let second = rig.send("hello again").await;
    assert_eq!(rig.wait_end(&second).await, "chat/error");
    let error = turn_error(&rig.turn(&second).await);
    assert_eq!(error.error_type, "authRequired");
    let offered = &error.meta.expect("the ways to sign in")["hangar.signIn"];
    assert_eq!(offered["methods"][0]["id"], "fake-oauth", "{offered}");

    // Signed in again from there, the message goes through.
    assert_eq!(sign_in(&rig, json!({ "method": "fake-oauth" })).await.unwrap(), json!({ "signedIn": true }));
    let third = rig.send("hello again").await;
    assert_eq!(rig.wait_end(&third).await, "chat/turnComplete");
}
