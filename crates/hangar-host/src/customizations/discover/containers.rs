//! A collected group as an AHP `directory` container: its children read
//! file by file, `load` (`degraded` with each broken file's message,
//! `error` when the folder can't be listed), `writable`, and `_meta`
//! (`hangar.scope`, `hangar.readBy`).

use ahp_types::state::{
    ChildCustomization, Customization, CustomizationDegradedState, CustomizationErrorState, CustomizationLoadState,
    CustomizationLoadedState, DirectoryCustomization,
};
use serde_json::json;

use super::super::{customization_id, McpLaunch, Roots};
use super::collect::Group;
use super::layout::Scope;
use super::listing;
use super::read;
use super::shadowing::Candidate;
use super::source::{file_name, Outcome, Source};
use crate::resources::uri::path_to_file_uri;

/// What one container yielded.
#[derive(Debug)]
pub struct Built {
    /// The container.
    pub container: Customization,
    /// Its children as shadowing candidates.
    pub candidates: Vec<Candidate>,
    /// MCP servers declared in it.
    pub mcp: Vec<McpLaunch>,
}

/// Read `group` into a container.
pub fn build(group: &Group, roots: &Roots) -> Built {
    let (children, candidates, mcp, problems) = read_all(&group.sources, group.scope);
    let load = load_state(group.error.clone(), &problems);
    let mut meta = ahp_types::common::JsonObject::new();
    meta.insert("hangar.scope".to_owned(), json!(group.scope.id()));
    meta.insert("hangar.readBy".to_owned(), json!(group.readers.iter().map(|r| r.id()).collect::<Vec<_>>()));
    let container = Customization::Directory(DirectoryCustomization {
        id: customization_id("directory", &group.folder, group.kind.id()),
        uri: path_to_file_uri(&group.folder),
        name: display_name(group),
        icons: None,
        range: None,
        meta: Some(meta),
        client_id: None,
        load: Some(load),
        children: Some(children),
        enabled: true,
        contents: group.kind.ahp(),
        writable: listing::writable(&group.folder, roots),
    });
    Built { container, candidates, mcp }
}

/// Children, candidates, MCP launches and problems of `sources`.
pub fn read_all(
    sources: &[Source],
    scope: Scope,
) -> (Vec<ChildCustomization>, Vec<Candidate>, Vec<McpLaunch>, Vec<String>) {
    let (mut children, mut candidates, mut mcp, mut problems) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for src in sources {
        let Outcome { children: found, problem, mcp: launches } = read::read(src);
        candidates.extend(found.iter().filter_map(|child| Candidate::of(child, src, scope)));
        children.extend(found);
        mcp.extend(launches);
        problems.extend(problem);
    }
    (children, candidates, mcp, problems)
}

/// `error` when the container can't be read, `degraded` when some of its
/// files can't, else `loaded`.
pub fn load_state(error: Option<String>, problems: &[String]) -> CustomizationLoadState {
    match error {
        Some(message) => CustomizationLoadState::Error(CustomizationErrorState { message }),
        None if !problems.is_empty() => {
            CustomizationLoadState::Degraded(CustomizationDegradedState { message: problems.join("; ") })
        }
        None => CustomizationLoadState::Loaded(CustomizationLoadedState {}),
    }
}

/// The folder below its root (`.claude/agents`, `~/.claude/agents`), or
/// the root's own name for the root itself.
fn display_name(group: &Group) -> String {
    let rel = group.folder.strip_prefix(&group.root).map(|p| p.display().to_string()).unwrap_or_default();
    match (group.scope, rel.is_empty()) {
        (Scope::User, true) => "~".to_owned(),
        (Scope::User, false) => format!("~/{rel}"),
        (Scope::Project, true) => file_name(&group.folder),
        (Scope::Project, false) => rel,
    }
}
