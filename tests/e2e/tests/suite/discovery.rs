//! Well-known ACP agents installed in an npm prefix (or on PATH) show up in
//! `RootState.agents` without `--agent`, and run sessions. A host process:
//! it gets a `PATH` of its own. `hangar agents install|remove` puts a real
//! agent from npm into the data dir (npm's cache, filled by the interop
//! agents' `npm ci`, is preferred), where `hangar serve` finds it.

use ahp_types::state::SnapshotState;
use hangar_e2e::acp::fake_agent_bin;
use hangar_e2e::{action_type, initialized, wait_for_action, Launch, TestHost};

#[tokio::test]
async fn an_installed_codex_acp_is_listed_and_runs_sessions() {
    let prefix = tempfile::tempdir().unwrap();
    let bin = prefix.path().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    // An executable named like the real adapter: the fake agent, replying "hi".
    let launcher = bin.join("codex-acp");
    let script = r#"{"turns":[[{"chunk":"hi"},{"end":"end_turn"}]]}"#;
    std::fs::write(&launcher, format!("#!/bin/sh\nFAKE_ACP_SCRIPT='{script}' exec '{}'\n", fake_agent_bin().display()))
        .unwrap();
    std::fs::set_permissions(&launcher, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let data = tempfile::tempdir().unwrap();
    let prefix_arg = prefix.path().to_str().unwrap();
    let host = TestHost::try_start_in(
        Launch::Process(&[("PATH", "/usr/bin:/bin")]),
        data.path(),
        &["--npm-prefix", prefix_arg],
    )
    .unwrap();
    let (client, init) = initialized(&host, "discoverer").await;
    let root = init.snapshots.iter().find(|s| s.resource == "ahp-root://").unwrap();
    let SnapshotState::Root(root) = &root.state else { panic!("root snapshot") };
    let ids: Vec<&str> = root.agents.iter().map(|a| a.provider.as_str()).collect();
    assert_eq!(ids, ["codex"], "{:?}", root.agents);
    assert_eq!(root.agents[0].display_name, "Codex");

    let _: serde_json::Value =
        client.request("createSession", serde_json::json!({"channel": "ahp-session:/found"})).await.unwrap();
    let (snap, mut sub) = client.subscribe("ahp-session:/found".into()).await.unwrap();
    let SnapshotState::Session(state) = snap.snapshot.unwrap().state else { panic!("session snapshot") };
    assert_eq!(state.provider, "codex");
    if state.lifecycle != ahp_types::state::SessionLifecycle::Ready {
        let env = wait_for_action(&mut sub, |e| {
            matches!(action_type(e).as_str(), "session/ready" | "session/creationFailed")
        })
        .await;
        assert_eq!(action_type(&env), "session/ready", "{env:?}");
    }
}

#[test]
fn agents_list_says_which_agents_are_installed_at_which_version_and_which_are_missing() {
    if !hangar_e2e::interop::available() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    // `hangar agents list --json` with npm packages under `prefix`: its rows.
    let list = |prefix: &std::path::Path| -> Vec<serde_json::Value> {
        let out = std::process::Command::new(hangar_e2e::hangar_bin())
            .args(["agents", "list", "--json", "--npm-prefix"])
            .arg(prefix)
            .arg("--data-dir")
            .arg(data.path())
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let row = |rows: &[serde_json::Value], id: &str| rows.iter().find(|a| a["id"] == id).unwrap().clone();

    // The versions pinned in tests/interop/agents/package.json.
    let listed = list(&hangar_e2e::interop::interop_dir().join("agents"));
    for (id, version) in [
        ("claude", "0.23.1"),
        ("codex", "0.16.0"),
        ("gemini", "0.61.0"),
        ("qwen", "0.15.10"),
        ("copilot", "1.0.102"),
        ("opencode", "1.18.33"),
    ] {
        let agent = row(&listed, id);
        assert_eq!((agent["state"].as_str(), agent["version"].as_str()), (Some("installed"), Some(version)), "{agent}");
    }

    // Nothing installed under the prefix: every agent is missing, with the
    // package that would install it.
    let empty = tempfile::tempdir().unwrap();
    let listed = list(empty.path());
    for (id, package) in
        [("claude", "@zed-industries/claude-agent-acp"), ("copilot", "@github/copilot"), ("opencode", "opencode-ai")]
    {
        let agent = row(&listed, id);
        assert_eq!((agent["state"].as_str(), agent["package"].as_str()), (Some("missing"), Some(package)), "{agent}");
    }
}

/// `hangar ARGS` with `PATH`; (success, stdout, stderr).
fn hangar(args: &[&str], path: &str) -> (bool, String, String) {
    let out = std::process::Command::new(hangar_e2e::hangar_bin())
        .args(args)
        .env("PATH", path)
        .env("npm_config_prefer_offline", "true")
        .env("npm_config_update_notifier", "false")
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[tokio::test]
async fn an_agent_is_installed_from_npm_into_the_data_dir_served_and_removed() {
    if !hangar_e2e::interop::available() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let path = std::env::var("PATH").unwrap_or_default();

    let (ok, out, err) = hangar(&["agents", "install", "qwen", "--data-dir", dir], &path);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("installed qwen: @qwen-code/qwen-code@0.15.10"), "{out}");
    let (ok, out, err) = hangar(&["agents", "list", "--json", "--data-dir", dir], "/usr/bin:/bin");
    assert!(ok, "{err}");
    let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
    let qwen = listed.as_array().unwrap().iter().find(|a| a["id"] == "qwen").unwrap().clone();
    assert_eq!((qwen["state"].as_str(), qwen["version"].as_str()), (Some("installed"), Some("0.15.10")), "{qwen}");
    assert!(qwen["program"].as_str().unwrap().contains("/agents/node_modules/.bin/qwen"), "{qwen}");

    // The host on that data dir registers it, with no PATH of its own (an
    // empty `--npm-prefix` turns the harness's discovery on).
    let empty = tempfile::tempdir().unwrap();
    let host = TestHost::try_start_in(
        Launch::Process(&[("PATH", "/usr/bin:/bin")]),
        data.path(),
        &["--npm-prefix", empty.path().to_str().unwrap()],
    )
    .unwrap();
    let (_client, init) = initialized(&host, "installer").await;
    let root = init.snapshots.iter().find(|s| s.resource == "ahp-root://").unwrap();
    let SnapshotState::Root(root) = &root.state else { panic!("root snapshot") };
    assert!(root.agents.iter().any(|a| a.provider == "qwen"), "{:?}", root.agents);
    drop(host);

    let (ok, out, err) = hangar(&["agents", "remove", "qwen", "--data-dir", dir], &path);
    assert!(ok, "{out}\n{err}");
    let (_, out, _) = hangar(&["agents", "list", "--data-dir", dir], "/usr/bin:/bin");
    assert!(out.lines().any(|l| l.starts_with("qwen\t") && l.contains("missing\thangar agents install qwen")), "{out}");

    // What cannot be done says why.
    let (ok, _, err) = hangar(&["agents", "install", "nope", "--data-dir", dir], &path);
    assert!(!ok && err.contains("not a well-known agent"), "{err}");
    let (ok, _, err) = hangar(&["agents", "install", "qwen", "--data-dir", dir], "/nonexistent");
    assert!(!ok && err.contains("npm is not installed"), "{err}");
}
