//! The session's customizations as a [`CustomizationsView`] (a host's
//! user-level ones per agent: [`host_view`]), and
//! [`CustomizationsFollow`]: per open chat, what its streams were last sent,
//! so a session action (`session/customizationsChanged`, `…Updated`,
//! `…Removed`, `…Toggled`, `mcpServerStateChanged`, reduced into the
//! mirror) becomes one `customizations` op when the view changed.

use ahp_types::state::{
    AgentInfo, Customization, CustomizationEnablement, CustomizationLoadState, McpServerState, SessionState,
};

use super::tree::{entries, Entry};
use hangar_desktop_protocol::chat::ChatOp;
use hangar_desktop_protocol::customization::{
    AgentCustomizations, AppliedBy, CustomizationContainer, CustomizationItem, CustomizationKind, CustomizationsView,
    DecisionsView, HostCustomizations, LoadStatus, McpStatus, ShadowView, ToggleScope,
};

/// Each scope's decision and the one in effect.
fn decisions_view(list: &[CustomizationEnablement]) -> DecisionsView {
    let mut out = DecisionsView::default();
    for entry in list {
        let (scope, enabled, slot) = match entry {
            CustomizationEnablement::Session { enabled } => (ToggleScope::Session, *enabled, &mut out.session),
            CustomizationEnablement::Workspace { enabled, .. } => {
                (ToggleScope::Workspace, *enabled, &mut out.workspace)
            }
            CustomizationEnablement::Global { enabled } => (ToggleScope::Global, *enabled, &mut out.global),
            CustomizationEnablement::Unknown(_) => continue,
        };
        // The first (most specific) decision of each scope counts.
        if slot.is_none() {
            *slot = Some(enabled);
        }
        out.decided_by.get_or_insert(scope);
    }
    out
}

fn applied_by(entry: Entry<'_>) -> Option<AppliedBy> {
    Some(match entry.meta_str("hangar.appliedBy")? {
        "host" => AppliedBy::Host,
        "agent" => AppliedBy::Agent,
        _ => AppliedBy::None,
    })
}

fn mcp_status(state: &McpServerState) -> (McpStatus, Option<String>) {
    match state {
        McpServerState::Starting(_) => (McpStatus::Starting, None),
        McpServerState::Ready(_) => (McpStatus::Ready, None),
        McpServerState::AuthRequired(_) => (McpStatus::AuthRequired, None),
        McpServerState::Error(e) => (McpStatus::Error, Some(e.error.message.clone())),
        McpServerState::Stopped(_) => (McpStatus::Stopped, None),
        McpServerState::Unknown(_) => (McpStatus::Other, None),
    }
}

/// One entry's view; `tree` resolves `hangar.shadowedBy` to a name.
fn item(entry: Entry<'_>, tree: &[Customization]) -> CustomizationItem {
    let meta = entry.meta();
    let shadowed_by = entry.meta_str("hangar.shadowedBy").map(|id| {
        let winner = entries(tree).find(|e| e.id() == Some(id));
        ShadowView {
            id: id.to_owned(),
            name: winner.map(|w| w.name().to_owned()).unwrap_or_else(|| id.to_owned()),
            uri: winner.map(|w| w.uri().to_owned()),
        }
    });
    let (mcp_status, mcp_message) = match entry.mcp().map(|m| mcp_status(&m.state)) {
        Some((s, m)) => (Some(s), m),
        None => (None, None),
    };
    CustomizationItem {
        id: entry.id().unwrap_or_default().to_owned(),
        kind: entry.kind(),
        name: entry.name().to_owned(),
        uri: entry.uri().to_owned(),
        description: entry.description().map(str::to_owned),
        enabled: entry.enabled(),
        decisions: decisions_view(&entry.decisions()),
        read_by: meta
            .and_then(|m| m.get("hangar.readBy")?.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        applied_by: applied_by(entry),
        note: entry.meta_str("hangar.note").map(str::to_owned),
        restart_pending: meta.and_then(|m| m.get("hangar.restartPending")?.as_bool()).unwrap_or(false),
        shadowed_by,
        not_passed: entry.meta_str("hangar.notPassed").map(str::to_owned),
        at: entry.meta_str("hangar.at").map(str::to_owned),
        mcp_status,
        mcp_message,
    }
}

fn load(state: Option<&CustomizationLoadState>) -> (Option<LoadStatus>, Option<String>) {
    match state {
        None => (None, None),
        Some(CustomizationLoadState::Loading(_)) => (Some(LoadStatus::Loading), None),
        Some(CustomizationLoadState::Loaded(_)) => (Some(LoadStatus::Loaded), None),
        Some(CustomizationLoadState::Degraded(d)) => (Some(LoadStatus::Degraded), Some(d.message.clone())),
        Some(CustomizationLoadState::Error(e)) => (Some(LoadStatus::Error), Some(e.message.clone())),
    }
}

fn child_kind(contents: &ahp_types::state::CustomizationType) -> CustomizationKind {
    use ahp_types::state::CustomizationType as T;
    match contents {
        T::Plugin => CustomizationKind::Plugin,
        T::Directory => CustomizationKind::Directory,
        T::Agent => CustomizationKind::Agent,
        T::Skill => CustomizationKind::Skill,
        T::Prompt => CustomizationKind::Prompt,
        T::Rule => CustomizationKind::Rule,
        T::Hook => CustomizationKind::Hook,
        T::McpServer => CustomizationKind::McpServer,
        T::Unknown(_) => CustomizationKind::Other,
    }
}

/// A top-level entry with its children; `None` for a kind from a newer protocol.
fn container(c: &Customization, tree: &[Customization]) -> Option<CustomizationContainer> {
    let entry = Entry::Top(c);
    entry.id()?;
    let (contents, writable, version, load_state) = match c {
        Customization::Directory(d) => (Some(child_kind(&d.contents)), d.writable, None, d.load.as_ref()),
        Customization::Plugin(p) => (None, false, p.version.clone(), p.load.as_ref()),
        _ => (None, false, None, None),
    };
    let (load, load_message) = load(load_state);
    let children = entry.children();
    Some(CustomizationContainer {
        item: item(entry, tree),
        contents,
        writable,
        scope: entry.meta_str("hangar.scope").map(str::to_owned),
        version,
        manifest: entry.meta_str("hangar.manifest").map(str::to_owned),
        load,
        load_message,
        children: children.into_iter().flatten().map(|ch| item(Entry::Child(ch), tree)).collect(),
        children_known: children.is_some() || entry.mcp().is_some(),
    })
}

/// The session's customizations (`reported: false` when the host sent none).
pub fn view(session: Option<&SessionState>) -> CustomizationsView {
    let tree = session.and_then(|s| s.customizations.as_deref());
    view_of(tree, session.and_then(|s| s.working_directories.as_ref()?.first().cloned()))
}

/// A tree's view (`None`: the host reports none); `workspace` is the folder
/// "This folder" means.
pub fn view_of(tree: Option<&[Customization]>, workspace: Option<String>) -> CustomizationsView {
    CustomizationsView {
        reported: tree.is_some(),
        workspace,
        containers: tree.unwrap_or_default().iter().filter_map(|c| container(c, tree.unwrap_or_default())).collect(),
    }
}

/// A host's user-level customizations, per agent as that agent sees them
/// (`RootState.agents[].customizations`): what a host's own panel shows
/// without a session.
pub fn host_view(agents: &[AgentInfo]) -> HostCustomizations {
    HostCustomizations {
        agents: agents
            .iter()
            .map(|a| AgentCustomizations {
                agent: a.provider.clone(),
                label: a.display_name.clone(),
                view: view_of(a.customizations.as_deref(), None),
            })
            .collect(),
    }
}

/// What one open chat's streams were last sent of the view.
#[derive(Debug, Default)]
pub struct CustomizationsFollow {
    sent: Option<CustomizationsView>,
}

impl CustomizationsFollow {
    /// The view, remembered as sent (for a chat snapshot).
    pub fn snapshot(&mut self, session: Option<&SessionState>) -> CustomizationsView {
        let v = view(session);
        self.sent = Some(v.clone());
        v
    }

    /// A `customizations` op if the view changed since it was last sent.
    pub fn update(&mut self, session: Option<&SessionState>) -> Option<ChatOp> {
        let v = view(session);
        if self.sent.as_ref() == Some(&v) {
            return None;
        }
        self.sent = Some(v.clone());
        Some(ChatOp::Customizations { view: v })
    }
}

#[cfg(test)]
mod tests;
