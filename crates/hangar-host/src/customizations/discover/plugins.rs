//! Plugins: folders below the plugin roots of the table (Open Plugins
//! `.agents/plugins/*`, Claude's `~/.claude/plugins/cache/**` at bounded
//! depth, `~/.copilot/installed-plugins`), each a `plugin` container with
//! `version` from its manifest (`.claude-plugin/plugin.json`,
//! `.plugin/plugin.json` or `plugin.json`) and a child per component
//! (`layout::PLUGIN_PARTS`): commands, agents, skills, `rules/*.mdc`,
//! `hooks/hooks.json`, `.mcp.json` (its servers are `mcpServer` children
//! and launches). Items are named `plugin:item`. A manifest that does not
//! parse makes the plugin's `load` an `error`; the default parts are still
//! read.

use std::path::{Component, Path, PathBuf};

use ahp_types::state::{ChildCustomization, PluginCustomization};
use serde_json::{json, Map, Value};

use super::super::{customization_id, McpLaunch};
use super::collect::PluginRoot;
use super::containers::{load_state, read_all};
use super::layout::{Find, Place, Read, Scope, MANIFESTS, PLUGIN_PARTS};
use super::source::{file_name, Source};
use super::{json_spans, listing, text};
use crate::resources::uri::path_to_file_uri;

/// Most plugins read below one root.
const MAX_PLUGINS: usize = 500;

/// The plugin folders below `root`.
pub fn find(root: &PluginRoot) -> Vec<PathBuf> {
    let Find::Plugins { depth, manifest_optional } = root.place.find else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut level = listing::folders(&root.folder);
    for at in 1..=depth {
        let mut next = Vec::new();
        for dir in level {
            if manifest(&dir).is_some() || (at == 1 && manifest_optional) {
                found.push(dir);
            } else if at < depth {
                next.extend(listing::folders(&dir));
            }
            if found.len() >= MAX_PLUGINS {
                return found;
            }
        }
        level = next;
    }
    found
}

fn manifest(dir: &Path) -> Option<PathBuf> {
    MANIFESTS.iter().map(|m| dir.join(m)).find(|m| m.is_file())
}

/// The plugin in `dir`, found below `root`.
pub fn build(dir: &Path, root: &PluginRoot, scope: Scope) -> (PluginCustomization, Vec<McpLaunch>) {
    let manifest_path = manifest(dir);
    let (fields, error) = match &manifest_path {
        None => (Map::new(), None),
        Some(path) => match text::read_text(path).and_then(|t| json_spans::parse(&t)) {
            Ok(doc) => (doc.value.as_object().cloned().unwrap_or_default(), None),
            Err(e) => (Map::new(), Some(format!("{}: {e}", path.strip_prefix(dir).unwrap_or(path).display()))),
        },
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let name = text("name").unwrap_or_else(|| file_name(dir));
    let sources = sources(dir, &name, &fields, manifest_path.as_deref(), root.place);
    let (children, _, mcp, problems): (Vec<ChildCustomization>, _, _, _) = read_all(&sources, scope);
    let mut meta = ahp_types::common::JsonObject::new();
    meta.insert("hangar.scope".to_owned(), json!(scope.id()));
    meta.insert("hangar.readBy".to_owned(), json!(root.place.readers.iter().map(|r| r.id()).collect::<Vec<_>>()));
    if let Some(path) = &manifest_path {
        // The manifest's file, for the desktop's plugin form.
        meta.insert("hangar.manifest".to_owned(), json!(path_to_file_uri(path)));
    }
    for (key, meta_key) in [("description", "hangar.description"), ("displayName", "hangar.displayName")] {
        if let Some(value) = text(key) {
            meta.insert(meta_key.to_owned(), json!(value));
        }
    }
    let plugin = PluginCustomization {
        id: customization_id("plugin", dir, ""),
        uri: path_to_file_uri(dir),
        name,
        icons: None,
        range: None,
        meta: Some(meta),
        client_id: None,
        load: Some(load_state(error, &problems)),
        children: Some(children),
        enablement: None,
        version: text("version"),
    };
    (plugin, mcp)
}

/// The component files of the plugin, part by part.
fn sources(dir: &Path, name: &str, fields: &Map<String, Value>, manifest: Option<&Path>, root: &Place) -> Vec<Source> {
    let mut out = Vec::new();
    for part in PLUGIN_PARTS {
        for target in targets(dir, part, fields, manifest) {
            let files = match part.find {
                Find::Files { suffixes, recursive } if target.is_dir() => listing::files(&target, suffixes, recursive),
                Find::SkillDirs if target.is_dir() => listing::skill_files(&target),
                _ => Ok(target.is_file().then(|| vec![target.clone()])),
            };
            let folder = if target.is_dir() { target.clone() } else { target.parent().unwrap_or(dir).to_path_buf() };
            for file in files.ok().flatten().unwrap_or_default() {
                let mut src = Source::new(file, part, folder.clone(), dir.to_path_buf(), root.readers);
                src.plugin = Some(name.to_owned());
                out.push(src);
            }
        }
    }
    out
}

/// Where a part lives: its default path, or what the manifest says
/// (`commands`, `agents`, `hooks`, `mcpServers` replace the default;
/// `skills` adds to it; inline `hooks`/`mcpServers` are read from the
/// manifest itself). Paths leaving the plugin folder are ignored.
fn targets(dir: &Path, part: &Place, fields: &Map<String, Value>, manifest: Option<&Path>) -> Vec<PathBuf> {
    let key = match part.read {
        Read::Command => "commands",
        Read::Agent => "agents",
        Read::Skill => "skills",
        Read::Hooks => "hooks",
        Read::Mcp(_) => "mcpServers",
        _ => "",
    };
    let default = dir.join(part.rel);
    let given: Vec<PathBuf> = match fields.get(key) {
        Some(Value::String(path)) => inside(dir, path).into_iter().collect(),
        Some(Value::Array(paths)) => paths.iter().filter_map(Value::as_str).filter_map(|p| inside(dir, p)).collect(),
        Some(Value::Object(_)) => manifest.map(Path::to_path_buf).into_iter().collect(),
        _ => return vec![default],
    };
    match part.read {
        Read::Skill => std::iter::once(default).chain(given).collect(),
        _ => given,
    }
}

/// `dir/path` when `path` stays inside `dir`.
fn inside(dir: &Path, path: &str) -> Option<PathBuf> {
    let rel = Path::new(path);
    rel.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)).then(|| dir.join(rel))
}
