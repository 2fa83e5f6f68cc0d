//! Terminals a person types in, against the real `hangar` binary: a
//! client's own shell (`createTerminal`, `SHELL=/bin/sh`) in a
//! pseudo-terminal, typed into with `terminal/input` and resized with
//! `terminal/resized` by the client holding its claim only, ended by
//! `disposeTerminal`; refusals with the protocol's codes; an agent's login
//! that asks a question on its terminal, answered the same way; a login
//! recorded in the data dir's process-group registry and ended with its
//! session; the agent process started for ACP `authenticate` recorded there
//! too while it runs. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use std::time::Duration;

use ahp::{Client, ClientError, SessionSubscription};
use ahp_types::actions::{TerminalInputAction, TerminalResizedAction};
use ahp_types::state::{RootState, SnapshotState};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};
use hangar_e2e::acp::{file_uri, processes_with, AgentCmd, Rig};
use hangar_e2e::{initialized, Launch, WAIT};
use serde_json::{json, Value};

/// The host's environment: a shell whose prompt and echo are plain.
const ENV: &[(&str, &str)] = &[("SHELL", "/bin/sh")];

/// A rig whose agent is ready (nothing to sign in), the host a process.
async fn rig() -> Rig {
    let script = json!({ "turns": [] });
    Rig::start(AgentCmd::Script(script), Launch::Process(ENV)).await
}

fn unique(name: &str) -> String {
    format!("ahp-terminal:/{name}-{}-{}", std::process::id(), rand::random::<u32>())
}

async fn request(client: &Client, method: &str, params: Value) -> Result<Value, (i32, String)> {
    match client.request::<_, Value>(method, params).await {
        Ok(v) => Ok(v),
        Err(ClientError::Rpc(e)) => Err((e.code, e.message)),
        Err(e) => panic!("{method}: {e:?}"),
    }
}

/// `createTerminal` at `uri` claimed by `client_id`, in `cwd`.
async fn create(client: &Client, uri: &str, client_id: &str, cwd: &str) -> Result<Value, (i32, String)> {
    let params = json!({
        "channel": uri,
        "claim": { "kind": "client", "clientId": client_id },
        "name": "my shell",
        "cwd": cwd,
        "cols": 80,
        "rows": 24,
    });
    request(client, "createTerminal", params).await
}

async fn type_in(client: &Client, uri: &str, data: &str) {
    let action = StateAction::TerminalInput(TerminalInputAction { data: data.to_owned() });
    client.dispatch(uri.to_owned(), action).await.unwrap();
}

/// The terminal's output from now on until it holds `needle`.
async fn output_until(sub: &mut SessionSubscription, needle: &str) -> String {
    output_until_with(sub, needle, |text| text.contains(needle)).await
}

/// The terminal's output from now on until `done` says so (`what`: what
/// is waited for, for the failure message).
async fn output_until_with(sub: &mut SessionSubscription, what: &str, done: impl Fn(&str) -> bool) -> String {
    let mut text = String::new();
    let found = tokio::time::timeout(WAIT, async {
        while !done(&text) {
            match sub.recv().await {
                Some(ahp::SubscriptionEvent::Action(env)) => {
                    if let StateAction::TerminalData(d) = &env.action {
                        text.push_str(&d.data);
                    }
                }
                Some(_) => {}
                None => return,
            }
        }
    })
    .await;
    assert!(found.is_ok() && done(&text), "no {what:?} in {text:?}");
    text
}

async fn root(client: &Client) -> RootState {
    let (snapshot, _) = client.subscribe(ROOT_RESOURCE_URI.to_owned()).await.unwrap();
    match snapshot.snapshot.unwrap().state {
        SnapshotState::Root(root) => *root,
        other => panic!("not the root: {other:?}"),
    }
}

fn listed(root: &RootState, uri: &str) -> bool {
    root.terminals.iter().flatten().any(|t| t.resource == uri)
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
        .unwrap_or(false)
}

#[tokio::test]
async fn a_client_types_into_its_own_shell_and_resizes_it() {
    let rig = rig().await;
    let uri = unique("shell");
    assert_eq!(create(&rig.client, &uri, "acp-tests", &file_uri(&rig.workspace)).await, Ok(Value::Null));
    let (snapshot, mut sub) = rig.client.subscribe(uri.clone()).await.unwrap();
    let SnapshotState::Terminal(state) = snapshot.snapshot.unwrap().state else { panic!("not a terminal") };
    assert_eq!(state.is_pty, Some(true));
    assert_eq!((state.cols, state.rows, state.title.as_str()), (Some(80), Some(24), "my shell"));
    assert!(listed(&root(&rig.client).await, &uri), "listed on the root while it runs");

    // `"h"i` is echoed as typed; only the shell running it prints `hi`.
    type_in(&rig.client, &uri, "echo \"h\"i; pwd\r").await;
    let folder = format!("\r\n{}\r\n", rig.workspace.display());
    output_until_with(&mut sub, "hi, then the folder", |t| t.contains("\r\nhi\r\n") && t.contains(&folder)).await;

    let resize = StateAction::TerminalResized(TerminalResizedAction { cols: 132, rows: 43 });
    rig.client.dispatch(uri.clone(), resize).await.unwrap();
    type_in(&rig.client, &uri, "stty size\r").await;
    output_until(&mut sub, "43 132").await;
    let (snapshot, _) = rig.client.subscribe(uri.clone()).await.unwrap();
    let SnapshotState::Terminal(state) = snapshot.snapshot.unwrap().state else { panic!("not a terminal") };
    assert_eq!((state.cols, state.rows), (Some(132), Some(43)));
}

#[tokio::test]
async fn another_clients_input_is_refused_and_never_reaches_the_shell() {
    let rig = rig().await;
    let uri = unique("mine");
    create(&rig.client, &uri, "acp-tests", &file_uri(&rig.workspace)).await.unwrap();
    let (_, mut mine) = rig.client.subscribe(uri.clone()).await.unwrap();
    let (other, _) = initialized(&rig.host, "someone-else").await;
    let (_, mut theirs) = other.subscribe(uri.clone()).await.unwrap();

    let marker = rig.workspace.join("typed-by-someone-else");
    type_in(&other, &uri, &format!("touch {}\r", marker.display())).await;
    let rejected = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(ahp::SubscriptionEvent::Action(env)) = theirs.recv().await {
                if env.rejection_reason.is_some() {
                    return env;
                }
            }
        }
    })
    .await
    .expect("the input is rejected");
    assert!(rejected.rejection_reason.unwrap().contains("claim"));
    // A resize is refused the same way; the claim holder's input still works.
    let resize = StateAction::TerminalResized(TerminalResizedAction { cols: 10, rows: 5 });
    other.dispatch(uri.clone(), resize).await.unwrap();
    type_in(&rig.client, &uri, "echo \"after\"-other; stty size\r").await;
    output_until(&mut mine, "24 80").await;
    assert!(!marker.exists(), "the other client's keystrokes never reached the shell");
    // Nor may it end someone else's terminal.
    let (code, _) = request(&other, "disposeTerminal", json!({ "channel": uri })).await.unwrap_err();
    assert_eq!(code, -32009);
}

#[tokio::test]
async fn dispose_ends_the_shell_and_what_it_started() {
    let rig = rig().await;
    let uri = unique("ending");
    create(&rig.client, &uri, "acp-tests", &file_uri(&rig.workspace)).await.unwrap();
    let (_, mut sub) = rig.client.subscribe(uri.clone()).await.unwrap();
    type_in(&rig.client, &uri, "sleep 600 & echo \"pids\" $$ $!\r").await;
    // The typed line shows `"pids"` quoted; only the output has `pids `.
    let line_of =
        |text: &str| text.split_once("pids ").and_then(|(_, rest)| rest.split_once("\r\n")).map(|l| l.0.to_owned());
    let text = output_until_with(&mut sub, "the pids line", |t| line_of(t).is_some()).await;
    let line = line_of(&text).unwrap_or_default();
    let pids: Vec<u32> = line.split_whitespace().filter_map(|p| p.parse().ok()).collect();
    assert_eq!(pids.len(), 2, "shell and job pids in {text:?}");
    assert!(pids.iter().all(|p| alive(*p)));

    assert_eq!(request(&rig.client, "disposeTerminal", json!({ "channel": uri })).await, Ok(Value::Null));
    let deadline = tokio::time::Instant::now() + WAIT;
    while pids.iter().any(|p| alive(*p)) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!pids.iter().any(|p| alive(*p)), "the shell and its job are gone");
    assert!(!listed(&root(&rig.client).await, &uri));
    let gone = rig.client.subscribe(uri.clone()).await.map(|(snapshot, _)| snapshot);
    assert!(matches!(gone, Err(ClientError::Rpc(ref e)) if e.code == -32008), "{gone:?}");
    let (code, _) = request(&rig.client, "disposeTerminal", json!({ "channel": uri })).await.unwrap_err();
    assert_eq!(code, -32008, "disposed once");
}

#[tokio::test]
async fn bad_requests_get_the_protocols_error_codes() {
    let rig = rig().await;
    let here = file_uri(&rig.workspace);
    // Outside the browse roots and grants: PermissionDenied, with the grant to ask for.
    let (code, message) = create(&rig.client, &unique("etc"), "acp-tests", "file:///etc").await.unwrap_err();
    assert_eq!(code, -32009, "{message}");
    // A claim must name the calling client.
    let (code, message) = create(&rig.client, &unique("theirs"), "someone-else", &here).await.unwrap_err();
    assert_eq!(code, -32602, "{message}");
    // Not a URI, the root, or a channel that exists.
    for uri in ["no-scheme", ROOT_RESOURCE_URI, "file:///tmp/x"] {
        let (code, _) = create(&rig.client, uri, "acp-tests", &here).await.unwrap_err();
        assert_eq!(code, -32602, "{uri}");
    }
    let (code, _) = create(&rig.client, &rig.session, "acp-tests", &here).await.unwrap_err();
    assert_eq!(code, -32010, "the session's URI is taken");
    // A folder that does not exist.
    let (code, _) = create(&rig.client, &unique("nowhere"), "acp-tests", "file:///nonexistent/x").await.unwrap_err();
    assert_eq!(code, -32602);
    let (code, _) =
        request(&rig.client, "disposeTerminal", json!({ "channel": "ahp-terminal:/never" })).await.unwrap_err();
    assert_eq!(code, -32008);
    assert!(root(&rig.client).await.terminals.iter().flatten().next().is_none(), "nothing was left running");
}

/// A fake agent that needs signing in with a login that asks on its TTY.
fn asking_login() -> Value {
    json!({
        "initialize": { "protocolVersion": 1, "agentCapabilities": {}, "authMethods": [
            { "type": "terminal", "id": "fake-login-ask", "name": "Log in", "args": ["--login", "--login-ask"] }
        ] },
        "auth": { "agentMethod": "unused" },
        "turns": [[{ "chunk": "signed in and working" }, { "end": "end_turn" }]]
    })
}

async fn start_login(rig: &Rig) -> String {
    let answer: Value = rig
        .client
        .request("x-hangar/agentSignIn", json!({ "channel": rig.session, "method": "fake-login-ask" }))
        .await
        .unwrap();
    answer["terminal"].as_str().expect("the login's terminal").to_owned()
}

#[tokio::test]
async fn a_login_that_asks_on_its_terminal_is_answered_through_terminal_input() {
    let mut rig = Rig::start(AgentCmd::Script(asking_login()), Launch::Process(ENV)).await;
    assert_eq!(rig.created, "session/creationFailed");
    let uri = start_login(&rig).await;
    let (snapshot, mut sub) = rig.client.subscribe(uri.clone()).await.unwrap();
    let SnapshotState::Terminal(state) = snapshot.snapshot.unwrap().state else { panic!("not a terminal") };
    assert_eq!(state.is_pty, Some(true));
    let asked = hangar_e2e::acp::terminal_text(&state);
    if !asked.contains("(tty):") {
        output_until(&mut sub, "(tty):").await;
    }
    type_in(&rig.client, &uri, "fake-user\r").await;
    output_until(&mut sub, "Signed in as fake-user").await;
    assert_eq!(rig.new_session().await, "session/ready", "{:?}", rig.session_state().await.creation_error);
    let turn = rig.send("hello").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
}

#[tokio::test]
async fn a_login_is_recorded_while_it_runs_and_ends_with_its_session() {
    let rig = Rig::start(AgentCmd::Script(asking_login()), Launch::Process(ENV)).await;
    let uri = start_login(&rig).await;
    let (snapshot, mut sub) = rig.client.subscribe(uri.clone()).await.unwrap();
    let SnapshotState::Terminal(state) = snapshot.snapshot.unwrap().state else { panic!("not a terminal") };
    if !hangar_e2e::acp::terminal_text(&state).contains("(tty):") {
        output_until(&mut sub, "(tty):").await;
    }
    let script_dir = rig.workspace.parent().unwrap().to_path_buf();
    let login: Vec<u32> = processes_with(&format!("{}/script-", script_dir.display()))
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("--login-ask"))
        })
        .collect();
    assert_eq!(login.len(), 1, "one login process: {login:?}");
    let login = login[0];
    let record = script_dir.join("data/agent-groups").join(login.to_string());
    assert!(record.exists(), "its process group is recorded in the data dir");

    let _: Value = rig.client.request("disposeSession", json!({ "channel": rig.session })).await.unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    while (alive(login) || record.exists()) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(login), "the login ended with its session");
    assert!(!record.exists(), "and its record was removed");
}

#[tokio::test]
async fn the_agent_process_sent_authenticate_is_recorded_while_it_runs() {
    let script = json!({
        "initialize": { "protocolVersion": 1, "agentCapabilities": {}, "authMethods": [
            { "id": "fake-oauth", "name": "Log in with Fake" }
        ] },
        "auth": { "agentMethod": "fake-oauth", "agentMethodMillis": 3000 },
        "turns": []
    });
    let rig = Rig::start(AgentCmd::Script(script), Launch::Process(ENV)).await;
    assert_eq!(rig.created, "session/creationFailed");
    let params = json!({ "channel": rig.session, "method": "fake-oauth" });
    let client = rig.client.clone();
    let signing_in = tokio::spawn(async move { client.request::<_, Value>("x-hangar/agentSignIn", params).await });
    let script_dir = rig.workspace.parent().unwrap().to_path_buf();
    let groups = script_dir.join("data/agent-groups");
    let recorded = || -> Vec<u32> {
        processes_with(&format!("{}/script-", script_dir.display()))
            .into_iter()
            .filter(|pid| groups.join(pid.to_string()).exists())
            .collect()
    };
    let deadline = tokio::time::Instant::now() + WAIT;
    while recorded().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let agent = recorded();
    assert_eq!(agent.len(), 1, "the authenticating agent's group is recorded while it runs");
    assert_eq!(signing_in.await.unwrap().unwrap(), json!({ "signedIn": true }));
    let deadline = tokio::time::Instant::now() + WAIT;
    while (alive(agent[0]) || groups.join(agent[0].to_string()).exists()) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(agent[0]), "it ended once it answered");
    assert!(!groups.join(agent[0].to_string()).exists(), "and its record went with it");
}
