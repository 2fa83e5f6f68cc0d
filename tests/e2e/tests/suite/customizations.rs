//! Issue 11 over a real socket against a `hangar serve` process whose HOME
//! is a fake home: every kind of customization discovered in a fixture
//! workspace and that home (`discover::fixture`: one of every kind of the
//! shared doc's matrix, plus an agent file with a BOM and CRLF); edits, creations, deletions and a broken file
//! reaching the session's subscribers; toggles at session, workspace and
//! global scope kept across `kill -9` and a restart; a file written with
//! `resourceWrite` into a writable folder becoming a child.
//!
//! Changes are awaited, never timed: each wait applies the session's
//! actions with the official reducer until the tree shows the change (30 s
//! at most, a hang guard) and prints how long that took.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ahp::reducers::apply_action_to_session;
use ahp::{Client, SessionSubscription, SubscriptionEvent};
use ahp_types::actions::SessionCustomizationToggledAction;
use ahp_types::state::{CustomizationEnablement, SessionState, SnapshotState};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};
use hangar_e2e::acp::{fake_agent_bin, file_uri, open_session};
use hangar_e2e::{action_type, initialized, Launch, TestHost};
use hangar_host::customizations::discover::fixture::{write_fixture_workspace, FixtureInfo};
use serde_json::{json, Value};

/// The upper bound of one wait for a change (not an expectation).
const PATIENCE: Duration = Duration::from_secs(30);

/// A fake home with a workspace in it, and a host on them.
struct Fx {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
    data: PathBuf,
    agent: String,
    host: TestHost,
    client: Client,
    info: FixtureInfo,
}

/// Write `text` at `root/rel`, folders included.
fn put(root: &Path, rel: &str, text: &str) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// An agent with a BOM, CRLF line endings and every field: it must load.
const CRLF_BOM: &str = "\u{feff}---\r\nname: crlf-bom\r\ndescription: Windows file\r\nmodel: sonnet\r\ntools: Read, Grep\r\n---\r\nBody.\r\n";

impl Fx {
    async fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let (home, data) = (root.join("home"), root.join("data"));
        let ws = home.join("proj");
        std::fs::create_dir_all(&ws).unwrap();
        let info = write_fixture_workspace(&ws, &home);
        put(&ws, ".claude/agents/crlf-bom.md", CRLF_BOM);
        let script = put(&root, "script.json", &json!({"turns": [[{"chunk": "ok"}, {"end": "end_turn"}]]}).to_string());
        // The sessions' agent, and the same fake under the name `claude`: the
        // root lists per agent the user-level customizations it reads itself.
        let agent = format!("{} --script {}", fake_agent_bin().display(), script.display());
        let host = start_host(&home, &data, &agent);
        let (client, _) = initialized(&host, "customizations").await;
        Fx { _tmp: tmp, home, ws, data, agent, host, client, info }
    }

    /// `kill -9` the host and start it again on the same data and home.
    async fn restart_after_kill9(&mut self) {
        self.host.kill9();
        self.host = start_host(&self.home, &self.data, &self.agent);
        self.client = initialized(&self.host, "customizations-again").await.0;
    }

    /// A new session on `workspace`, ready, with its state and subscription.
    async fn session(&self, workspace: &Path) -> Watched {
        let opened = open_session(&self.client, workspace, "agent").await;
        assert_eq!(opened.created, "session/ready");
        self.watch(&opened.session).await
    }

    /// Subscribe to an existing session: its snapshot, then its actions.
    async fn watch(&self, session: &str) -> Watched {
        let (res, sub) = self.client.subscribe(session.to_owned()).await.unwrap();
        let SnapshotState::Session(state) = res.snapshot.unwrap().state else { panic!("not a session") };
        Watched { uri: session.to_owned(), state: *state, sub }
    }
}

fn start_host(home: &Path, data: &Path, agent: &str) -> TestHost {
    let env = [("HOME", home.to_str().unwrap())];
    let (plain, claude) = (format!("agent={agent}"), format!("claude={agent}"));
    TestHost::try_start_in(Launch::Process(&env), data, &["--agent", &plain, "--agent", &claude]).unwrap()
}

/// A session as a subscriber sees it: the snapshot with every action since
/// applied by the official reducer.
struct Watched {
    uri: String,
    state: SessionState,
    sub: SessionSubscription,
}

impl Watched {
    fn tree(&self) -> Value {
        serde_json::to_value(&self.state.customizations).unwrap()
    }

    /// Apply actions until `pred(tree)` holds; prints the time it took and
    /// the customization actions that got it there.
    async fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) {
        let start = Instant::now();
        let mut seen = Vec::new();
        while !pred(&self.tree()) {
            let left = PATIENCE.checked_sub(start.elapsed()).unwrap_or_default();
            match tokio::time::timeout(left, self.sub.recv()).await {
                Ok(Some(SubscriptionEvent::Action(env))) => {
                    let kind = action_type(&env);
                    if kind.contains("ustomization") {
                        seen.push(kind);
                    }
                    apply_action_to_session(&mut self.state, &env.action);
                }
                Ok(Some(_)) => {}
                Ok(None) => panic!("{what}: the subscription to {} closed", self.uri),
                Err(_) => panic!("{what}: not seen within {PATIENCE:?} (actions: {seen:?}); tree: {:#}", self.tree()),
            }
        }
        println!("{what}: seen after {} ms through {seen:?}", start.elapsed().as_millis());
    }

    /// Dispatch `session/customizationToggled` and wait for it to come back.
    async fn toggle(&mut self, client: &Client, id: &str, enablement: CustomizationEnablement) {
        let action = SessionCustomizationToggledAction { id: id.to_owned(), enablement: vec![enablement] };
        client.dispatch(self.uri.clone(), StateAction::SessionCustomizationToggled(action)).await.unwrap();
        let id = id.to_owned();
        self.until(&format!("toggle {id}"), move |tree| enabled(&find_id(tree, &id).unwrap()) == Some(false)).await;
    }
}

/// Every customization of the tree: the top-level ones and their children.
fn all(tree: &Value) -> Vec<&Value> {
    let top = tree.as_array().map(|a| a.iter().collect::<Vec<_>>()).unwrap_or_default();
    let children = top.iter().filter_map(|c| c["children"].as_array()).flatten();
    top.iter().copied().chain(children).collect()
}

/// The customization of `kind` whose `uri` is the file at `path`.
fn find_file(tree: &Value, kind: &str, path: &Path) -> Option<Value> {
    let uri = file_uri(path);
    all(tree).into_iter().find(|c| c["type"] == kind && c["uri"] == uri.as_str()).cloned()
}

fn find_id(tree: &Value, id: &str) -> Option<Value> {
    all(tree).into_iter().find(|c| c["id"] == id).cloned()
}

/// The container (top-level) holding the child whose file is `path`.
fn container_of(tree: &Value, path: &Path) -> Option<Value> {
    let uri = file_uri(path);
    let holds = |c: &&Value| c["children"].as_array().is_some_and(|ch| ch.iter().any(|x| x["uri"] == uri.as_str()));
    tree.as_array()?.iter().find(holds).cloned()
}

/// The effective enabled state, as the wire contract derives it: an MCP
/// server or plugin by its most specific decision, anything else by its
/// own flag (absent = enabled).
fn enabled(c: &Value) -> Option<bool> {
    match c["enablement"].as_array().and_then(|e| e.first()) {
        Some(decisive) => decisive["enabled"].as_bool(),
        None => Some(c["enabled"].as_bool().unwrap_or(true)),
    }
}

fn id_of(tree: &Value, kind: &str, path: &Path) -> String {
    let found = find_file(tree, kind, path).unwrap_or_else(|| panic!("no {kind} for {}: {tree:#}", path.display()));
    found["id"].as_str().unwrap().to_owned()
}

/// The customization of `kind` named `name`.
fn find_name(tree: &Value, kind: &str, name: &str) -> Option<Value> {
    all(tree).into_iter().find(|c| c["type"] == kind && c["name"] == name).cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_is_discovered_in_the_workspace_and_home() {
    let fx = Fx::new().await;
    let mut s = fx.session(&fx.ws).await;
    let i = &fx.info;
    // Every name the fixture lists, by the AHP type it must have.
    let kinds = [("rule", &i.rules), ("agent", &i.agents), ("skill", &i.skills), ("prompt", &i.prompts)];
    let kinds: Vec<_> =
        kinds.into_iter().chain([("hook", &i.hooks), ("mcpServer", &i.mcp_servers), ("plugin", &i.plugins)]).collect();
    let missing = |tree: &Value| -> Vec<String> {
        let named = kinds.iter().flat_map(|(kind, names)| names.iter().map(move |n| (*kind, *n)));
        named.filter(|(kind, name)| find_name(tree, kind, name).is_none()).map(|(k, n)| format!("{k} {n}")).collect()
    };
    let crlf = fx.ws.join(".claude/agents/crlf-bom.md");
    s.until("discovery", |t| missing(t).is_empty() && find_file(t, "agent", &crlf).is_some()).await;
    let tree = s.tree();
    assert!(missing(&tree).is_empty());

    let agent = find_file(&tree, "agent", &crlf).unwrap();
    assert_eq!(agent["name"], "crlf-bom", "a BOM and CRLF still load: {agent}");
    assert_eq!(agent["description"], "Windows file");
    assert_eq!(agent["model"], "sonnet");
    assert_eq!(agent["tools"], json!(["Read", "Grep"]));
    let agents = container_of(&tree, &crlf).unwrap();
    assert_eq!((&agents["type"], &agents["writable"]), (&json!("directory"), &json!(true)), "{agents}");
    let plugin = find_name(&tree, "plugin", "demo-plugin").unwrap();
    assert_eq!(plugin["version"], "1.2.3", "{plugin}");
    // MCP servers are top-level; `.mcp.json` says claude reads it itself.
    let echo = tree.as_array().unwrap().iter().find(|c| c["type"] == "mcpServer" && c["name"] == i.stdio_server);
    let echo = echo.unwrap_or_else(|| panic!("no top-level {}: {tree:#}", i.stdio_server));
    assert!(echo["_meta"]["hangar.readBy"].as_array().is_some_and(|r| r.contains(&json!("claude"))), "{echo}");

    // User-level ones are also on the root channel, under the agent that
    // reads them itself (claude: ~/.claude/agents), with the MCP servers.
    let (res, _root) = fx.client.subscribe(ROOT_RESOURCE_URI.to_owned()).await.unwrap();
    let SnapshotState::Root(root) = res.snapshot.unwrap().state else { panic!("not the root") };
    let agents = serde_json::to_value(&root.agents).unwrap();
    let claude = agents.as_array().unwrap().iter().find(|a| a["provider"] == "claude").unwrap();
    let user_agent = find_file(&claude["customizations"], "agent", &fx.home.join(".claude/agents/user-agent.md"));
    assert!(user_agent.is_some(), "user-agent in RootState.agents[claude].customizations: {claude:#}");
    assert!(find_name(&claude["customizations"], "mcpServer", "u-claude").is_some(), "{claude:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_creations_deletions_and_a_broken_file_reach_the_session() {
    let fx = Fx::new().await;
    let mut s = fx.session(&fx.ws).await;
    let agents = fx.ws.join(".claude/agents");
    let reviewer = agents.join("reviewer.md");
    s.until("discovery", |t| find_file(t, "agent", &reviewer).is_some()).await;

    put(&agents, "reviewer.md", "---\nname: reviewer\ndescription: Reviews code, v2\n---\nYou review.\n");
    s.until("edit", |t| find_file(t, "agent", &reviewer).is_some_and(|r| r["description"] == "Reviews code, v2")).await;

    let newbie = put(&agents, "newbie.md", "---\nname: newbie\ndescription: New\n---\nHi.\n");
    s.until("creation", |t| find_file(t, "agent", &newbie).is_some()).await;

    std::fs::remove_file(&newbie).unwrap();
    s.until("deletion", |t| find_file(t, "agent", &newbie).is_none()).await;

    // A skill in a folder of its own that did not exist yet.
    let fresh = put(&fx.ws, ".claude/skills/fresh/SKILL.md", "---\nname: fresh\ndescription: New skill\n---\nGo.\n");
    s.until("creation in a new folder", |t| find_file(t, "skill", &fresh).is_some()).await;

    // A broken file: its container says so, the others stay listed.
    put(&agents, "broken.md", "---\nname: [oops\ndescription: \"unclosed\n---\nBody.\n");
    let container = file_uri(&agents);
    s.until("broken file", |t| {
        let agents = t.as_array().unwrap().iter().find(|c| c["uri"] == container.as_str());
        let load = agents.map(|c| c["load"]["kind"].clone()).unwrap_or_default();
        (load == "error" || load == "degraded") && find_file(t, "agent", &reviewer).is_some()
    })
    .await;
    let tree = s.tree();
    let agents_container = all(&tree).into_iter().find(|c| c["uri"] == container.as_str()).unwrap().clone();
    assert!(agents_container["load"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{agents_container}");
    fx.client.ping().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toggles_at_each_scope_survive_kill9() {
    let mut fx = Fx::new().await;
    let mut s1 = fx.session(&fx.ws).await;
    let reviewer = fx.ws.join(".claude/agents/reviewer.md");
    let helper = fx.home.join(".claude/agents/user-agent.md");
    let echo = fx.info.stdio_server;
    let found = |t: &Value| {
        find_file(t, "agent", &reviewer).is_some()
            && find_file(t, "agent", &helper).is_some()
            && find_name(t, "mcpServer", echo).is_some()
    };
    s1.until("discovery", found).await;
    let tree = s1.tree();
    let (reviewer_id, helper_id) = (id_of(&tree, "agent", &reviewer), id_of(&tree, "agent", &helper));
    let probe_id = find_name(&tree, "mcpServer", echo).unwrap()["id"].as_str().unwrap().to_owned();
    let ws_uri = file_uri(&fx.ws);
    s1.toggle(&fx.client, &reviewer_id, CustomizationEnablement::Session { enabled: false }).await;
    s1.toggle(&fx.client, &probe_id, CustomizationEnablement::Workspace { uri: ws_uri, enabled: false }).await;
    s1.toggle(&fx.client, &helper_id, CustomizationEnablement::Global { enabled: false }).await;

    fx.restart_after_kill9().await;
    let off = |t: &Value, id: &str| find_id(t, id).and_then(|c| enabled(&c)) == Some(false);
    let on = |t: &Value, id: &str| find_id(t, id).and_then(|c| enabled(&c)) == Some(true);

    // The same session: all three decisions.
    let mut again = fx.watch(&s1.uri).await;
    again.until("session 1 after kill -9", |t| off(t, &reviewer_id) && off(t, &probe_id) && off(t, &helper_id)).await;

    // A new session in the same folder: workspace and global, not session.
    let mut s2 = fx.session(&fx.ws).await;
    s2.until("new session, same folder", |t| on(t, &reviewer_id) && off(t, &probe_id) && off(t, &helper_id)).await;

    // A new session elsewhere: global only (the home agent).
    let other = fx.home.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let mut s3 = fx.session(&other).await;
    s3.until("new session, other folder", |t| off(t, &helper_id) && find_id(t, &probe_id).is_none()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_written_with_resource_write_becomes_a_child() {
    let fx = Fx::new().await;
    let mut s = fx.session(&fx.ws).await;
    let reviewer = fx.ws.join(".claude/agents/reviewer.md");
    s.until("discovery", |t| find_file(t, "agent", &reviewer).is_some()).await;
    let tree = s.tree();
    let container = container_of(&tree, &reviewer).unwrap();
    assert_eq!(container["writable"], true, "{container}");
    let dir = container["uri"].as_str().unwrap().trim_end_matches('/');
    let written = fx.ws.join(".claude/agents/written.md");
    let params = json!({
        "channel": ROOT_RESOURCE_URI,
        "uri": format!("{dir}/written.md"),
        "data": "---\nname: written\ndescription: Written over AHP\n---\nHello.\n",
        "encoding": "utf-8",
        "createOnly": true,
    });
    let _: Value = fx.client.request("resourceWrite", params).await.unwrap();
    s.until("resourceWrite", |t| find_file(t, "agent", &written).is_some_and(|w| w["name"] == "written")).await;
    assert_eq!(container_of(&s.tree(), &written).unwrap()["id"], container["id"]);
}
