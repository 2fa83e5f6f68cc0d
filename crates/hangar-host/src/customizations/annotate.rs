//! Saying what each customization does for the session's agent, in its
//! `_meta`, never pretending: `hangar.appliedBy` is `host` (Hangar passes or
//! offers it: MCP servers, `/` prompts and skills, custom agents), `agent`
//! (the agent reads the file itself; Hangar cannot stop it) or `none` (this
//! agent does not read it); `hangar.note` says the same in words;
//! `hangar.restartPending` marks an MCP server whose toggle reaches the agent
//! only when it restarts; `hangar.notPassed` says why an enabled MCP server
//! was not given to this agent (its `mcpCapabilities`).

use std::collections::{BTreeSet, HashMap};

use ahp_types::state::{ChildCustomization, Customization};
use serde_json::{json, Map, Value};

/// Key of the agent ids that read a file natively (set by discovery).
pub const READ_BY: &str = "hangar.readBy";

/// What the running agent did with the MCP servers.
struct McpStatus<'a> {
    /// Ids whose enablement differs from what the running agent got.
    pending: &'a BTreeSet<String>,
    /// Ids the agent could not take, with why.
    skipped: &'a HashMap<String, String>,
}

/// Annotate `tree` for a session of agent `provider`; `pending` are the MCP
/// server ids whose enablement differs from what the running agent got,
/// `skipped` those it could not take (with why).
pub fn annotate(
    tree: &mut [Customization],
    provider: &str,
    pending: &BTreeSet<String>,
    skipped: &HashMap<String, String>,
) {
    let status = McpStatus { pending, skipped };
    for container in tree.iter_mut() {
        match container {
            Customization::McpServer(m) => note_mcp(m.meta.get_or_insert_with(Map::new), &m.id, provider, &status),
            Customization::Plugin(p) => p.children.iter_mut().flatten().for_each(|c| note_child(c, provider, &status)),
            Customization::Directory(d) => {
                d.children.iter_mut().flatten().for_each(|c| note_child(c, provider, &status))
            }
            Customization::Unknown(_) => {}
        }
    }
}

/// Whether `agent` reads `c` (a container, or any of its children) itself.
pub fn read_by(c: &Customization, agent: &str) -> bool {
    let (meta, children) = match c {
        Customization::Plugin(p) => (&p.meta, &p.children),
        Customization::Directory(d) => (&d.meta, &d.children),
        _ => return false,
    };
    readers(meta.as_ref()).iter().any(|r| r == agent)
        || children.iter().flatten().any(|child| readers(child_meta(child)).iter().any(|r| r == agent))
}

fn readers(meta: Option<&Map<String, Value>>) -> Vec<String> {
    meta.and_then(|m| m.get(READ_BY))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn child_meta(child: &ChildCustomization) -> Option<&Map<String, Value>> {
    match child {
        ChildCustomization::Agent(x) => x.meta.as_ref(),
        ChildCustomization::Skill(x) => x.meta.as_ref(),
        ChildCustomization::Prompt(x) => x.meta.as_ref(),
        ChildCustomization::Rule(x) => x.meta.as_ref(),
        ChildCustomization::Hook(x) => x.meta.as_ref(),
        ChildCustomization::McpServer(x) => x.meta.as_ref(),
        ChildCustomization::Unknown(_) => None,
    }
}

fn note_mcp(meta: &mut Map<String, Value>, id: &str, provider: &str, status: &McpStatus<'_>) {
    let pending = status.pending.contains(id);
    match status.skipped.get(id) {
        Some(reason) => meta.insert("hangar.notPassed".to_owned(), json!(reason)),
        None => meta.remove("hangar.notPassed"),
    };
    meta.insert("hangar.appliedBy".to_owned(), json!("host"));
    let mut note = if pending {
        "Passed to the agent by Hangar when it starts; this change takes effect at the agent's next start.".to_owned()
    } else {
        "Passed to the agent by Hangar when it starts (ACP mcpServers).".to_owned()
    };
    if readers(Some(meta)).iter().any(|r| r == provider) {
        note.push_str(&format!(
            " {provider} also reads this file itself, so turning it off here may not stop {provider} from starting it."
        ));
    }
    meta.insert("hangar.note".to_owned(), json!(note));
    if pending {
        meta.insert("hangar.restartPending".to_owned(), json!(true));
    } else {
        meta.remove("hangar.restartPending");
    }
}

fn note_child(child: &mut ChildCustomization, provider: &str, status: &McpStatus<'_>) {
    let reads = readers(child_meta(child)).iter().any(|r| r == provider);
    let (meta, name, offered) = match child {
        ChildCustomization::McpServer(m) => {
            return note_mcp(m.meta.get_or_insert_with(Map::new), &m.id, provider, status)
        }
        ChildCustomization::Prompt(x) => (&mut x.meta, x.name.clone(), Some("offered as a / command")),
        ChildCustomization::Skill(x) => (&mut x.meta, x.name.clone(), Some("offered as a / command")),
        ChildCustomization::Agent(x) => (&mut x.meta, x.name.clone(), Some("can be chosen for a message")),
        ChildCustomization::Rule(x) => (&mut x.meta, x.name.clone(), None),
        ChildCustomization::Hook(x) => (&mut x.meta, x.name.clone(), None),
        ChildCustomization::Unknown(_) => return,
    };
    let meta = meta.get_or_insert_with(Map::new);
    let (by, note) = match (offered, reads) {
        (Some(what), true) => (
            "host",
            format!("{name}: {what} by Hangar; {provider} also reads this file itself, so turning it off here does not hide it from {provider}."),
        ),
        (Some(what), false) => ("host", format!("{name}: {what} by Hangar; {provider} does not read this file itself.")),
        (None, true) => (
            "agent",
            format!("{provider} reads this file itself; Hangar cannot stop it, so turning it off here changes nothing for {provider}."),
        ),
        (None, false) => ("none", format!("{provider} does not read this file.")),
    };
    meta.insert("hangar.appliedBy".to_owned(), json!(by));
    meta.insert("hangar.note".to_owned(), json!(note));
}
