//! What `customizations.toggle` dispatches: `session/customizationToggled`
//! carries an entry's FULL decision list (it replaces the old one), so one
//! scope's change is made on the current list, keeping the other scopes'
//! decisions, in AHP's order (session, workspace, global: most specific
//! first). [`toggled`] builds the list; [`action`] finds the entry in the
//! session's tree and makes the action.

use ahp_types::actions::SessionCustomizationToggledAction;
use ahp_types::state::{Customization, CustomizationEnablement};
use ahp_types::StateAction;

use super::tree;
use hangar_desktop_protocol::customization::ToggleScope;

/// Why a toggle could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToggleError {
    /// No entry with that id in the session's customizations.
    #[error("no customization {0} in this session")]
    Unknown(String),
    /// A folder decision for a session that has no folder.
    #[error("this session has no folder to decide for")]
    NoFolder,
}

/// The same folder, whatever trailing slash.
fn same_folder(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Whether `entry` is `scope`'s decision (for `workspace`, this folder's).
fn is_scope(entry: &CustomizationEnablement, scope: ToggleScope, workspace: Option<&str>) -> bool {
    match (entry, scope) {
        (CustomizationEnablement::Session { .. }, ToggleScope::Session)
        | (CustomizationEnablement::Global { .. }, ToggleScope::Global) => true,
        (CustomizationEnablement::Workspace { uri, .. }, ToggleScope::Workspace) => {
            workspace.is_some_and(|w| same_folder(uri, w))
        }
        _ => false,
    }
}

/// Rank by specificity; entries from a newer protocol go last.
fn rank(entry: &CustomizationEnablement) -> u8 {
    match entry {
        CustomizationEnablement::Session { .. } => 0,
        CustomizationEnablement::Workspace { .. } => 1,
        CustomizationEnablement::Global { .. } => 2,
        CustomizationEnablement::Unknown(_) => 3,
    }
}

/// `current` with `scope`'s decision set to `enabled` (`None` clears it),
/// every other decision kept, most specific first. `workspace` is the
/// session's folder (needed for a `workspace` decision).
pub fn toggled(
    current: &[CustomizationEnablement],
    scope: ToggleScope,
    enabled: Option<bool>,
    workspace: Option<&str>,
) -> Result<Vec<CustomizationEnablement>, ToggleError> {
    let mut list: Vec<CustomizationEnablement> =
        current.iter().filter(|e| !is_scope(e, scope, workspace)).cloned().collect();
    if let Some(enabled) = enabled {
        list.push(match scope {
            ToggleScope::Session => CustomizationEnablement::Session { enabled },
            ToggleScope::Workspace => {
                CustomizationEnablement::Workspace { uri: workspace.ok_or(ToggleError::NoFolder)?.to_owned(), enabled }
            }
            ToggleScope::Global => CustomizationEnablement::Global { enabled },
        });
    }
    // Stable: entries of one rank (e.g. other folders') keep their order.
    list.sort_by_key(rank);
    Ok(list)
}

/// The `session/customizationToggled` for entry `id` of `tree`.
pub fn action(
    tree: &[Customization],
    id: &str,
    scope: ToggleScope,
    enabled: Option<bool>,
    workspace: Option<&str>,
) -> Result<StateAction, ToggleError> {
    let entry = tree::find(tree, id).ok_or_else(|| ToggleError::Unknown(id.to_owned()))?;
    let enablement = toggled(&entry.decisions(), scope, enabled, workspace)?;
    Ok(StateAction::SessionCustomizationToggled(SessionCustomizationToggledAction { id: id.to_owned(), enablement }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    const W: &str = "file:///home/u/w";

    fn list(v: Value) -> Vec<CustomizationEnablement> {
        serde_json::from_value(v).unwrap()
    }

    fn wire(l: Vec<CustomizationEnablement>) -> Value {
        serde_json::to_value(l).unwrap()
    }

    #[test]
    fn a_decision_joins_the_others_in_order_of_specificity() {
        let current = list(json!([{"kind": "global", "enabled": true}]));
        let out = toggled(&current, ToggleScope::Workspace, Some(false), Some(W)).unwrap();
        assert_eq!(
            wire(out.clone()),
            json!([{"kind": "workspace", "uri": W, "enabled": false}, {"kind": "global", "enabled": true}])
        );
        let out = toggled(&out, ToggleScope::Session, Some(true), Some(W)).unwrap();
        assert_eq!(
            wire(out),
            json!([{"kind": "session", "enabled": true}, {"kind": "workspace", "uri": W, "enabled": false},
                {"kind": "global", "enabled": true}])
        );
    }

    #[test]
    fn a_decision_replaces_its_scope_and_null_clears_it() {
        let current =
            list(json!([{"kind": "session", "enabled": false}, {"kind": "workspace", "uri": W, "enabled": false},
            {"kind": "global", "enabled": false}]));
        let out = toggled(&current, ToggleScope::Global, Some(true), Some(W)).unwrap();
        assert_eq!(out.len(), 3);
        assert_eq!(wire(out)[2], json!({"kind": "global", "enabled": true}));
        let out = toggled(&current, ToggleScope::Workspace, None, Some(&format!("{W}/"))).unwrap();
        assert_eq!(
            wire(out),
            json!([{"kind": "session", "enabled": false}, {"kind": "global", "enabled": false}]),
            "the same folder with a trailing slash is this folder"
        );
        assert!(toggled(&[], ToggleScope::Session, None, None).unwrap().is_empty());
    }

    #[test]
    fn another_folders_decision_and_unknown_entries_are_kept() {
        let current =
            list(json!([{"kind": "future", "x": 1}, {"kind": "workspace", "uri": "file:///other", "enabled": true}]));
        let out = toggled(&current, ToggleScope::Workspace, Some(false), Some(W)).unwrap();
        assert_eq!(
            wire(out),
            json!([{"kind": "workspace", "uri": "file:///other", "enabled": true},
                {"kind": "workspace", "uri": W, "enabled": false}, {"kind": "future", "x": 1}])
        );
    }

    #[test]
    fn a_folder_decision_needs_a_folder() {
        assert_eq!(toggled(&[], ToggleScope::Workspace, Some(true), None), Err(ToggleError::NoFolder));
        assert!(toggled(&[], ToggleScope::Workspace, None, None).unwrap().is_empty(), "clearing needs none");
    }

    fn tree() -> Vec<Customization> {
        serde_json::from_value(json!([
            {"type": "directory", "id": "d", "uri": "file:///w/.claude/agents", "name": "agents", "enabled": true,
             "contents": "agent", "writable": true, "children": [
                {"type": "agent", "id": "a", "uri": "file:///w/.claude/agents/r.md", "name": "r", "enabled": false,
                 "_meta": {"hangar.enablement": [{"kind": "global", "enabled": false}]}}]},
            {"type": "mcpServer", "id": "m", "uri": "file:///w/.mcp.json", "name": "echo", "state": {"kind": "stopped"},
             "enablement": [{"kind": "session", "enabled": true}]}
        ]))
        .unwrap()
    }

    #[test]
    fn the_action_starts_from_the_entrys_current_list() {
        let t = tree();
        let a = serde_json::to_value(action(&t, "a", ToggleScope::Session, Some(true), Some(W)).unwrap()).unwrap();
        assert_eq!(a["type"], "session/customizationToggled");
        assert_eq!(a["id"], "a");
        assert_eq!(
            a["enablement"],
            json!([{"kind": "session", "enabled": true}, {"kind": "global", "enabled": false}]),
            "a child's list is read from _meta[hangar.enablement]"
        );
        let m = serde_json::to_value(action(&t, "m", ToggleScope::Workspace, Some(false), Some(W)).unwrap()).unwrap();
        assert_eq!(
            m["enablement"],
            json!([{"kind": "session", "enabled": true}, {"kind": "workspace", "uri": W, "enabled": false}]),
            "an MCP server's list is its enablement"
        );
        assert_eq!(action(&t, "nope", ToggleScope::Session, None, None), Err(ToggleError::Unknown("nope".into())));
    }
}
