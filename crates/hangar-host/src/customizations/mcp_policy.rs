//! Which of the enabled MCP servers a session's agent is given.
//!
//! Discovery finds every agent's servers, but an agent is given only those
//! of the shared project files (`.mcp.json`, `.vscode/mcp.json`, a plugin's
//! `.mcp.json`) and of the files it reads itself (`hangar.readBy`): a Claude
//! session does not start the servers in Gemini's `settings.json`. A server
//! its own file turns off (`hangar.disabledInFile`, e.g. OpenCode's
//! `enabled: false`) stays off unless a person turns it on in Hangar. Each
//! server withheld is listed with the reason, which `annotate` shows as
//! `hangar.notPassed`.

use std::collections::HashMap;

use ahp_types::state::{ChildCustomization, Customization};
use serde_json::{Map, Value};

use super::annotate::READ_BY;

/// Files every agent is given the servers of.
const SHARED: &[&str] = &["/.mcp.json", "/.vscode/mcp.json"];

/// Enabled-but-withheld MCP server ids of `tree` for agent `provider`, with
/// the reason in words.
pub fn withheld(tree: &[Customization], provider: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for entry in tree {
        match entry {
            Customization::McpServer(m) => {
                let decided = m.enablement.as_ref().is_some_and(|d| !d.is_empty());
                if let Some(reason) = reason(&m.uri, m.meta.as_ref(), decided, provider, false) {
                    out.insert(m.id.clone(), reason);
                }
            }
            Customization::Plugin(p) => {
                for child in p.children.iter().flatten() {
                    if let ChildCustomization::McpServer(m) = child {
                        let decided = m.enablement.as_ref().is_some_and(|d| !d.is_empty());
                        if let Some(reason) = reason(&m.uri, m.meta.as_ref(), decided, provider, true) {
                            out.insert(m.id.clone(), reason);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Why a server at `uri` is withheld from `provider`; `decided`: a person
/// made an explicit decision about it in Hangar.
fn reason(
    uri: &str,
    meta: Option<&Map<String, Value>>,
    decided: bool,
    provider: &str,
    in_plugin: bool,
) -> Option<String> {
    let off_in_file = meta.and_then(|m| m.get("hangar.disabledInFile")).and_then(Value::as_bool).unwrap_or(false);
    if off_in_file && !decided {
        return Some("Turned off in its own file; turn it on here to give it to the agent.".to_owned());
    }
    let readers: Vec<&str> = meta
        .and_then(|m| m.get(READ_BY))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    if in_plugin || SHARED.iter().any(|s| path.ends_with(s)) || readers.contains(&provider) {
        return None;
    }
    let file = path.rsplit('/').next().unwrap_or(path);
    let who = if readers.is_empty() { "other agents".to_owned() } else { readers.join(", ") };
    Some(format!(
        "From {file}, which {who} read; {provider} is given only the servers of its own files and of .mcp.json / .vscode/mcp.json."
    ))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::json;

    use ahp_types::state::CustomizationEnablement;

    use super::*;

    fn server(id: &str, uri: &str, meta: Value) -> Customization {
        serde_json::from_value(json!({
            "type": "mcpServer", "id": id, "uri": uri, "name": id, "state": { "kind": "stopped" }, "_meta": meta,
        }))
        .unwrap()
    }

    fn off_in_opencode() -> Customization {
        server(
            "off",
            "file:///w/opencode.json",
            json!({ "hangar.readBy": ["opencode"], "hangar.disabledInFile": true }),
        )
    }

    #[test]
    fn an_agent_gets_shared_servers_and_its_own_but_not_another_agents() {
        let tree = vec![
            server("shared", "file:///w/.mcp.json", json!({ "hangar.readBy": ["claude", "copilot"] })),
            server("vscode", "file:///w/.vscode/mcp.json", json!({ "hangar.readBy": ["copilot"] })),
            server("gemini", "file:///w/.gemini/settings.json", json!({ "hangar.readBy": ["gemini"] })),
            off_in_opencode(),
        ];
        let for_claude = withheld(&tree, "claude");
        assert_eq!(for_claude.keys().map(String::as_str).collect::<BTreeSet<_>>(), BTreeSet::from(["gemini", "off"]));
        assert!(for_claude["gemini"].contains("settings.json, which gemini read"), "{for_claude:?}");
        assert!(!withheld(&tree, "gemini").contains_key("gemini"), "gemini reads its own settings");
        assert!(withheld(&tree, "opencode")["off"].contains("Turned off in its own file"));
    }

    #[test]
    fn a_server_off_in_its_file_goes_once_a_person_turns_it_on() {
        let mut tree = vec![off_in_opencode()];
        if let Customization::McpServer(m) = &mut tree[0] {
            m.enablement = Some(vec![CustomizationEnablement::Session { enabled: true }]);
        }
        assert!(withheld(&tree, "opencode").is_empty());
    }
}
