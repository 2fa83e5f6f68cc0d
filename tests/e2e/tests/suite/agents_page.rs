//! The Agents page's methods on a running host (`x-hangar/agents`,
//! `agentSave`, `agentDelete`, `agentInstall`, `agentRemove`): a custom
//! agent added while the host runs is in `RootState.agents` at once
//! (`root/agentsChanged`), runs a turn with its own environment, survives
//! a restart and is deleted (its session's next turn then says so); a well-known agent installed with npm through
//! the host reports its progress, is registered without a restart, and is
//! removed; what cannot be done says why. Needs `cargo build -p hangar-cli
//! -p hangar-fake-agent`; the npm install also needs the interop agents'
//! npm cache (`tests/interop/agents`, `npm ci`).

use ahp::ClientError;
use ahp_types::state::SnapshotState;
use ahp_types::StateAction;
use hangar_e2e::acp::{chat_state, fake_agent_bin, markdown, open_session};
use hangar_e2e::actions::turn_started;
use hangar_e2e::{action_type, initialized, wait_for_action, Launch, TestHost};
use serde_json::{json, Value};

/// The ids in a `root/agentsChanged`.
fn agents_in(action: &StateAction) -> Option<Vec<String>> {
    match action {
        StateAction::RootAgentsChanged(a) => Some(a.agents.iter().map(|i| i.provider.clone()).collect()),
        _ => None,
    }
}

fn root_agents(init: &ahp_types::commands::InitializeResult) -> Vec<String> {
    let root = init.snapshots.iter().find(|s| s.resource == "ahp-root://").unwrap();
    let SnapshotState::Root(root) = &root.state else { panic!("root snapshot") };
    root.agents.iter().map(|a| a.provider.clone()).collect()
}

#[tokio::test]
async fn a_custom_agent_added_while_the_host_runs_is_usable_at_once_kept_and_deleted() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let workspace = work.path().canonicalize().unwrap();
    let browse = ["--browse-root", workspace.to_str().unwrap()];
    let host = TestHost::start_in(Launch::Process(&[]), data.path(), &browse);
    let (client, init) = initialized(&host, "agents-page").await;
    assert!(root_agents(&init).is_empty());
    let mut root = client.attach_subscription("ahp-root://").await;

    // Its environment carries the script: the reply proves it reached the agent.
    let script = r#"{"turns":[[{"chunk":"custom agent here"},{"end":"end_turn"}]]}"#;
    let agent = json!({
        "id": "mine", "name": "My agent", "command": fake_agent_bin(), "args": [],
        "env": { "FAKE_ACP_SCRIPT": script }
    });
    let catalog: Value = client.request("x-hangar/agentSave", json!({ "agent": agent })).await.unwrap();
    assert_eq!(catalog["registered"], json!(["mine"]), "{catalog}");
    assert_eq!(catalog["custom"][0]["name"], "My agent");
    let changed = wait_for_action(&mut root, |e| agents_in(&e.action).is_some()).await;
    assert_eq!(agents_in(&changed.action).unwrap(), ["mine"]);
    let StateAction::RootAgentsChanged(a) = &changed.action else { unreachable!() };
    assert_eq!(a.agents[0].display_name, "My agent");

    let mut opened = open_session(&client, &workspace, "mine").await;
    assert_eq!(opened.created, "session/ready");
    client.dispatch(opened.chat.clone(), turn_started("t1", "hello")).await.unwrap();
    let end = wait_for_action(&mut opened.chat_sub, |e| {
        matches!(action_type(e).as_str(), "chat/turnComplete" | "chat/error")
    })
    .await;
    assert_eq!(action_type(&end), "chat/turnComplete", "{end:?}");
    let chat = chat_state(&host, &opened.chat).await;
    assert!(markdown(&chat.turns[0]).contains("custom agent here"), "{:?}", chat.turns);

    // Refused, naming the field; nothing saved.
    let bad = json!({ "agent": { "id": "x y", "command": "/bin/true" } });
    let err = client.request::<_, Value>("x-hangar/agentSave", bad).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602 && e.message.contains("id")), "{err:?}");
    let taken = json!({ "agent": { "id": "codex", "command": "/bin/true" } });
    assert!(client.request::<_, Value>("x-hangar/agentSave", taken).await.is_err());

    // Kept across a restart of the host.
    drop(client);
    drop(host);
    let host = TestHost::start_in(Launch::Process(&[]), data.path(), &browse);
    let (client, init) = initialized(&host, "agents-page-2").await;
    assert_eq!(root_agents(&init), ["mine"]);
    let mut root = client.attach_subscription("ahp-root://").await;
    let catalog: Value = client.request("x-hangar/agentDelete", json!({ "id": "mine" })).await.unwrap();
    assert_eq!(catalog["registered"], json!([]), "{catalog}");
    let changed = wait_for_action(&mut root, |e| agents_in(&e.action).is_some()).await;
    assert!(agents_in(&changed.action).unwrap().is_empty());
    // Its session's next turn says the agent is gone instead of waiting.
    let (_, mut chat_sub) = client.subscribe(opened.chat.clone()).await.unwrap();
    client.dispatch(opened.chat.clone(), turn_started("t2", "still there?")).await.unwrap();
    let end =
        wait_for_action(&mut chat_sub, |e| matches!(action_type(e).as_str(), "chat/turnComplete" | "chat/error")).await;
    let StateAction::ChatError(error) = &end.action else { panic!("{end:?}") };
    assert!(error.part.error.message.contains("no longer on this host"), "{error:?}");
    let err = client.request::<_, Value>("x-hangar/agentDelete", json!({ "id": "mine" })).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Rpc(e) if e.code == -32008 && e.message.contains("no custom agent")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_well_known_agent_installed_through_the_host_shows_progress_and_is_registered_without_a_restart() {
    if !hangar_e2e::interop::available() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let env = [("PATH", path.as_str()), ("npm_config_prefer_offline", "true"), ("npm_config_update_notifier", "false")];
    // Discovery off: only what Hangar installs itself is picked up.
    let host = TestHost::start_in(Launch::Process(&env), data.path(), &[]);
    let (client, init) = initialized(&host, "installer").await;
    assert!(root_agents(&init).is_empty());
    let mut root = client.attach_subscription("ahp-root://").await;

    let catalog: Value = client.request("x-hangar/agents", json!({})).await.unwrap();
    let qwen = |c: &Value| c["known"].as_array().unwrap().iter().find(|a| a["id"] == "qwen").unwrap().clone();
    assert_eq!(qwen(&catalog)["location"], "missing", "{catalog}");
    assert_eq!(qwen(&catalog)["pinned"], "0.15.10");
    assert_eq!(catalog["npm"], true);

    let started: Value = client.request("x-hangar/agentInstall", json!({ "id": "qwen" })).await.unwrap();
    assert_eq!(qwen(&started)["install"]["phase"], "resolving", "{started}");
    // Followed as the page does, until it ends.
    let mut seen_total = 0;
    let installed = tokio::time::timeout(std::time::Duration::from_secs(300), async {
        loop {
            let c: Value = client.request("x-hangar/agents", json!({})).await.unwrap();
            let q = qwen(&c);
            if let Some(total) = q["install"]["total"].as_u64() {
                seen_total = seen_total.max(total);
            }
            assert_ne!(q["install"]["phase"], "failed", "{q}");
            if q["install"].is_null() {
                return q;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the install ended");
    // Qwen Code comes with its native helpers: more than one package.
    assert!(seen_total >= 2, "the progress had the plan's length, not a guess: {seen_total}");
    assert_eq!((installed["location"].as_str(), installed["version"].as_str()), (Some("hangar"), Some("0.15.10")));
    let changed = wait_for_action(&mut root, |e| agents_in(&e.action).is_some()).await;
    assert_eq!(agents_in(&changed.action).unwrap(), ["qwen"]);
    // Sessions can be started with it now.
    let created: Result<Value, _> =
        client.request("createSession", json!({ "channel": "ahp-session:/q", "provider": "qwen" })).await;
    assert!(created.is_ok(), "{created:?}");

    // A version npm does not have fails, in npm's words, and is kept to show.
    let _: Value =
        client.request("x-hangar/agentInstall", json!({ "id": "gemini", "version": "0.0.0-none" })).await.unwrap();
    let failed = tokio::time::timeout(std::time::Duration::from_secs(300), async {
        loop {
            let c: Value = client.request("x-hangar/agents", json!({})).await.unwrap();
            let g = c["known"].as_array().unwrap().iter().find(|a| a["id"] == "gemini").unwrap().clone();
            if g["install"]["phase"] == "failed" {
                return g;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("the bad install ended");
    assert!(
        failed["install"]["error"].as_str().unwrap().contains("npm could not install @google/gemini-cli"),
        "{failed}"
    );
    let err = client.request::<_, Value>("x-hangar/agentInstall", json!({ "id": "rm -rf" })).await.unwrap_err();
    assert!(matches!(&err, ClientError::Rpc(e) if e.code == -32602), "{err:?}");

    let removed: Value = client.request("x-hangar/agentRemove", json!({ "id": "qwen" })).await.unwrap();
    assert_eq!(qwen(&removed)["location"], "missing", "{removed}");
    assert_eq!(removed["registered"], json!([]));
    let changed = wait_for_action(&mut root, |e| agents_in(&e.action).is_some_and(|a| a.is_empty())).await;
    assert!(agents_in(&changed.action).unwrap().is_empty());
}
