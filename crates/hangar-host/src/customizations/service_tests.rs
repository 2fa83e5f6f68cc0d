//! [`Customizations`] over a scripted discovery: what each session is told
//! when it starts, when files change, when a client toggles, and what its
//! agent is given.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ahp_types::state::{
    ChildCustomization, Customization, CustomizationEnablement, CustomizationType, DirectoryCustomization,
    McpServerCustomization, PromptCustomization,
};
use ahp_types::StateAction;

use super::service::{Customizations, Publish};
use super::{Discovery, McpLaunch, McpTransport, Roots};

const WS: &str = "file:///w";

fn prompt(id: &str, name: &str) -> ChildCustomization {
    ChildCustomization::Prompt(PromptCustomization {
        id: id.into(),
        uri: format!("{WS}/.github/prompts/{name}.prompt.md"),
        name: name.into(),
        icons: None,
        range: None,
        meta: None,
        enabled: None,
        description: Some(format!("the {name} prompt")),
    })
}

fn prompts(children: Vec<ChildCustomization>) -> Customization {
    Customization::Directory(DirectoryCustomization {
        id: "dir-prompts".into(),
        uri: format!("{WS}/.github/prompts"),
        name: "prompts".into(),
        icons: None,
        range: None,
        meta: None,
        client_id: None,
        load: None,
        children: Some(children),
        enabled: true,
        contents: CustomizationType::Prompt,
        writable: true,
    })
}

fn mcp(id: &str, name: &str) -> (Customization, McpLaunch) {
    let entry = serde_json::from_value(serde_json::json!({
        "type": "mcpServer", "id": id, "uri": format!("{WS}/.mcp.json"), "name": name, "state": { "kind": "stopped" },
    }))
    .unwrap();
    let launch = McpLaunch {
        id: id.into(),
        name: name.into(),
        transport: McpTransport::Stdio { command: "probe".into(), args: vec![], env: vec![], cwd: None },
    };
    (Customization::McpServer(entry), launch)
}

struct Rig {
    _dir: tempfile::TempDir,
    data: PathBuf,
    found: Arc<Mutex<Discovery>>,
    calls: Arc<Mutex<usize>>,
}

impl Rig {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (docs, launch) = mcp("mcp-docs", "docs");
        let found = Discovery {
            tree: vec![prompts(vec![prompt("p-review", "review")]), docs],
            mcp: vec![launch],
            ..Discovery::default()
        };
        Self {
            data: dir.path().to_path_buf(),
            _dir: dir,
            found: Arc::new(Mutex::new(found)),
            calls: Arc::new(Mutex::new(0)),
        }
    }

    fn service(&self) -> Customizations {
        let found = self.found.clone();
        let calls = self.calls.clone();
        Customizations::open(
            &self.data,
            None,
            Arc::new(move |_: &Roots| {
                *calls.lock().unwrap() += 1;
                found.lock().unwrap().clone()
            }),
        )
        .unwrap()
    }
}

fn tree_of(out: &[Publish], session: &str) -> Vec<Customization> {
    out.iter()
        .rev()
        .find_map(|(s, a)| match a {
            StateAction::SessionCustomizationsChanged(c) if s == session => Some(c.customizations.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no customizationsChanged for {session} in {out:?}"))
}

fn mcp_entry<'a>(tree: &'a [Customization], id: &str) -> &'a McpServerCustomization {
    tree.iter()
        .find_map(|c| match c {
            Customization::McpServer(m) if m.id == id => Some(m),
            _ => None,
        })
        .unwrap()
}

fn workspace_off() -> Vec<CustomizationEnablement> {
    vec![CustomizationEnablement::Workspace { uri: WS.into(), enabled: false }]
}

#[test]
fn a_new_session_is_told_its_tree_once() {
    let rig = Rig::new();
    let service = rig.service();
    let out = service.track("s1", "claude", &[WS.into()], None);
    let tree = tree_of(&out, "s1");
    assert_eq!(tree.len(), 2);
    assert!(service.track("s1", "claude", &[WS.into()], None).is_empty(), "tracking twice publishes nothing");
    let restored = service_restored(&rig, &tree);
    assert!(restored.is_empty(), "a restored session whose files did not change publishes nothing: {restored:?}");
}

fn service_restored(rig: &Rig, stored: &[Customization]) -> Vec<Publish> {
    rig.service().track("s1", "claude", &[WS.into()], Some(stored))
}

#[test]
fn a_changed_file_upserts_the_container_and_a_vanished_entry_is_removed() {
    let rig = Rig::new();
    let service = rig.service();
    service.track("s1", "claude", &[WS.into()], None);
    {
        let mut found = rig.found.lock().unwrap();
        found.tree = vec![prompts(vec![prompt("p-review", "review"), prompt("p-fix", "fix")])];
        found.mcp.clear();
    }
    let out = service.files_changed(&[PathBuf::from("/w/.github/prompts/fix.prompt.md")]);
    let kinds: Vec<&str> = out
        .iter()
        .map(|(_, a)| match a {
            StateAction::SessionCustomizationUpdated(_) => "updated",
            StateAction::SessionCustomizationRemoved(r) if r.id == "mcp-docs" => "removed mcp-docs",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["removed mcp-docs", "updated"]);
    assert!(service.files_changed(&[PathBuf::from("/elsewhere/x.md")]).is_empty(), "outside every root: nothing");
}

#[test]
fn a_workspace_toggle_reaches_every_session_of_that_folder_and_is_kept() {
    let rig = Rig::new();
    let service = rig.service();
    service.track("s1", "claude", &[WS.into()], None);
    service.track("s2", "codex", &[WS.into()], None);
    service.track("s3", "codex", &["file:///other".into()], None);
    let out = service.toggled("s1", "mcp-docs", &workspace_off());
    let sessions: Vec<&str> = out.iter().map(|(s, _)| s.as_str()).collect();
    assert!(sessions.contains(&"s1") && sessions.contains(&"s2") && !sessions.contains(&"s3"), "{sessions:?}");
    assert_eq!(mcp_entry(&tree_of(&out, "s2"), "mcp-docs").enablement, Some(workspace_off()));
    // A new host (restart) keeps it for a new session in that folder.
    let again = rig.service();
    let tree = tree_of(&again.track("s4", "claude", &[WS.into()], None), "s4");
    assert_eq!(mcp_entry(&tree, "mcp-docs").enablement, Some(workspace_off()));
    assert!(again.mcp_for_agent("s4").0.is_empty(), "a disabled server is not given to the agent");
}

#[test]
fn a_session_toggle_stays_in_its_session() {
    let rig = Rig::new();
    let service = rig.service();
    service.track("s1", "claude", &[WS.into()], None);
    service.track("s2", "claude", &[WS.into()], None);
    let off = vec![CustomizationEnablement::Session { enabled: false }];
    let out = service.toggled("s1", "p-review", &off);
    assert!(out.iter().all(|(s, _)| s == "s1"), "{out:?}");
    assert!(service.slash_commands("s1").is_empty());
    assert_eq!(service.slash_commands("s2").len(), 1);
    // After a restart the session's own decision comes back from its state.
    let stored = tree_of(&out, "s1");
    let restored = rig.service();
    restored.track("s1", "claude", &[WS.into()], Some(&stored));
    assert!(restored.slash_commands("s1").is_empty(), "the session decision survived the restart");
}

#[test]
fn an_mcp_toggle_while_the_agent_runs_is_marked_pending_until_it_restarts() {
    let rig = Rig::new();
    let service = rig.service();
    service.track("s1", "claude", &[WS.into()], None);
    let (given, _) = service.mcp_for_agent("s1");
    assert_eq!(given.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), ["docs"]);
    let out = service.toggled("s1", "mcp-docs", &workspace_off());
    let meta = mcp_entry(&tree_of(&out, "s1"), "mcp-docs").meta.clone().unwrap();
    assert_eq!(meta.get("hangar.restartPending"), Some(&serde_json::json!(true)));
    let (given, out) = service.mcp_for_agent("s1");
    assert!(given.is_empty());
    let meta = mcp_entry(&tree_of(&out, "s1"), "mcp-docs").meta.clone().unwrap();
    assert_eq!(meta.get("hangar.restartPending"), None, "the restart took the change");
}
