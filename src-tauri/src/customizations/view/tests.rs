//! The view of a tree the host's own discovery reads from its fixture
//! workspace, of Hangar's `_meta` conventions, and the `customizations` op.

use ahp::reducers::apply_action_to_session;
use ahp_types::state::SessionState;
use serde_json::{json, Value};

use super::*;
use crate::customizations::toggle;

fn session(tree: Value) -> SessionState {
    serde_json::from_value(json!({"provider": "claude", "title": "", "status": 1, "lifecycle": "ready",
        "activeClients": [], "chats": [], "workingDirectories": ["file:///w"], "customizations": tree}))
    .unwrap()
}

fn wire<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap()
}

#[test]
fn a_discovered_tree_becomes_containers_with_their_children() {
    let dir = tempfile::tempdir().unwrap();
    let (root, home) = (dir.path().join("w"), dir.path().join("home"));
    hangar_host::customizations::discover::fixture::write_fixture_workspace(&root, &home);
    let roots = hangar_host::customizations::Roots { working_dirs: vec![root], home: Some(home) };
    let tree = hangar_host::customizations::discover(&roots).tree;
    let v = view(Some(&session(wire(&tree))));
    assert!(v.reported);
    assert_eq!(v.workspace.as_deref(), Some("file:///w"));
    assert_eq!(v.containers.len(), tree.len(), "one container per top-level entry");
    let agents: Vec<&CustomizationContainer> =
        v.containers.iter().filter(|c| c.contents == Some(CustomizationKind::Agent)).collect();
    let claude = agents.iter().find(|c| c.item.uri.ends_with("/w/.claude/agents")).unwrap();
    assert_eq!(claude.scope.as_deref(), Some("project"));
    assert!(claude.writable && claude.children_known && claude.load == Some(LoadStatus::Loaded));
    let reviewer = claude.children.iter().find(|c| c.name == "reviewer").unwrap();
    assert_eq!(
        (reviewer.kind, reviewer.description.as_deref(), reviewer.enabled),
        (CustomizationKind::Agent, Some("Reviews code"), true)
    );
    assert!(reviewer.read_by.contains(&"claude".to_owned()), "{:?}", reviewer.read_by);
    let user = agents.iter().find(|c| c.scope.as_deref() == Some("user") && c.item.uri.ends_with("/.claude/agents"));
    let shadowed = user.unwrap().children.iter().find(|c| c.name == "reviewer").unwrap();
    let by = shadowed.shadowed_by.as_ref().unwrap();
    assert_eq!((by.id.as_str(), by.name.as_str()), (reviewer.id.as_str(), "reviewer"), "the winner by name");
    let echo = v.containers.iter().find(|c| c.item.name == "echo").unwrap();
    assert_eq!((echo.item.kind, echo.item.mcp_status), (CustomizationKind::McpServer, Some(McpStatus::Stopped)));
    assert!(echo.children.is_empty() && echo.children_known);
    let plugin = v.containers.iter().find(|c| c.item.name == "demo-plugin").unwrap();
    assert_eq!(plugin.version.as_deref(), Some("1.2.3"));
    assert!(plugin.children.iter().any(|c| c.kind == CustomizationKind::Agent && c.name == "demo-plugin:helper"));
}

#[test]
fn hangar_meta_conventions_become_typed_fields() {
    let tree = json!([
        {"type": "directory", "id": "d", "uri": "file:///w/.claude/agents", "name": "agents", "enabled": true,
         "contents": "agent", "writable": false, "load": {"kind": "degraded", "message": "bad.md: no frontmatter end"},
         "children": [
            {"type": "agent", "id": "a", "uri": "file:///w/.claude/agents/r.md", "name": "r", "enabled": false,
             "_meta": {"hangar.enablement": [{"kind": "session", "enabled": false}, {"kind": "global", "enabled": true}],
                "hangar.readBy": ["claude"], "hangar.appliedBy": "agent",
                "hangar.note": "Claude reads this file itself.", "hangar.shadowedBy": "gone"}}]},
        {"type": "mcpServer", "id": "m", "uri": "file:///w/.mcp.json", "name": "echo",
         "state": {"kind": "error", "error": {"errorType": "spawn", "message": "echo-mcp: not found"}},
         "enablement": [{"kind": "workspace", "uri": "file:///w", "enabled": false}],
         "_meta": {"hangar.restartPending": true, "hangar.appliedBy": "host", "hangar.notPassed": "no http"}},
        {"type": "plugin", "id": "p", "uri": "file:///w/p", "name": "p"},
        {"type": "fromTheFuture", "id": "f"}
    ]);
    let v = view(Some(&session(tree)));
    assert_eq!(v.containers.len(), 3, "an unknown kind is left out");
    let d = &v.containers[0];
    assert_eq!((d.load, d.load_message.as_deref()), (Some(LoadStatus::Degraded), Some("bad.md: no frontmatter end")));
    let a = wire(&d.children[0]);
    assert_eq!(a["enabled"], false);
    assert_eq!(a["decisions"], json!({"session": false, "workspace": null, "global": true, "decidedBy": "session"}));
    assert_eq!((a["appliedBy"].as_str(), a["note"].as_str()), (Some("agent"), Some("Claude reads this file itself.")));
    assert_eq!(a["shadowedBy"], json!({"id": "gone", "name": "gone", "uri": null}), "a winner not in the tree");
    let m = wire(&v.containers[1].item);
    assert_eq!((m["enabled"].as_bool(), m["restartPending"].as_bool()), (Some(false), Some(true)));
    assert_eq!((m["decisions"]["decidedBy"].as_str(), m["notPassed"].as_str()), (Some("workspace"), Some("no http")));
    assert_eq!((m["mcpStatus"].as_str(), m["mcpMessage"].as_str()), (Some("error"), Some("echo-mcp: not found")));
    let p = &v.containers[2];
    assert!(p.item.enabled && !p.children_known && p.item.decisions == DecisionsView::default());
    assert!(!view(None).reported);
    assert!(!view(Some(&session(Value::Null))).reported, "no customizations: not reported");
}

#[test]
fn a_toggle_reduced_into_the_session_sends_one_op() {
    let mut s = session(json!([{"type": "mcpServer", "id": "m", "uri": "file:///w/.mcp.json", "name": "echo",
        "state": {"kind": "stopped"}}]));
    let mut follow = CustomizationsFollow::default();
    assert!(follow.snapshot(Some(&s)).containers[0].item.enabled);
    assert!(follow.update(Some(&s)).is_none(), "unchanged: no op");
    let tree = s.customizations.clone().unwrap();
    let action = toggle::action(&tree, "m", ToggleScope::Workspace, Some(false), Some("file:///w")).unwrap();
    apply_action_to_session(&mut s, &action);
    let op = wire(follow.update(Some(&s)).unwrap());
    assert_eq!(op["op"], "customizations");
    assert_eq!(op["view"]["containers"][0]["item"]["enabled"], false);
    assert_eq!(op["view"]["containers"][0]["item"]["decisions"]["workspace"], false);
    assert!(follow.update(Some(&s)).is_none());
}
