//! One file to read ([`Source`]: where it was found, which row of the
//! table, which agents read it) and the fields every customization built
//! from it shares ([`Base`]: id, uri, name, range, `_meta`).

use std::path::{Path, PathBuf};

use ahp_types::common::JsonObject;
use ahp_types::state::{ChildCustomization, TextRange};
use serde_json::{json, Value};

use super::super::{customization_id, McpLaunch};
use super::layout::{Find, Kind, Place, Reader};
use crate::resources::uri::path_to_file_uri;

/// What one file yielded.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Its children (one per file for most kinds; one per entry for hooks).
    pub children: Vec<ChildCustomization>,
    /// Why (part of) it could not be read: `"<file>: <error with line>"`.
    pub problem: Option<String>,
    /// MCP servers it declares (plugin `.mcp.json`).
    pub mcp: Vec<McpLaunch>,
}

/// One file to read.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file as found (not canonicalized: that is the path users see).
    pub path: PathBuf,
    /// The row of the table it was found by.
    pub place: &'static Place,
    /// The folder of that row (`Files`, `SkillDirs`), or the file's parent.
    pub folder: PathBuf,
    /// The agents that read it (several rows may name one file), sorted.
    pub readers: Vec<Reader>,
    /// The working directory, home, or plugin folder it belongs to
    /// (`${workspaceFolder}`, `${CLAUDE_PLUGIN_ROOT}`).
    pub root: PathBuf,
    /// Whether it is part of a plugin (names are `plugin:item` then).
    pub plugin: Option<String>,
}

/// The fields every customization shares.
#[derive(Debug, Clone)]
pub struct Base {
    /// [`customization_id`] of kind, file and pointer.
    pub id: String,
    /// The file's URI.
    pub uri: String,
    /// Display name.
    pub name: String,
    /// The entry's span when it shares its file with others.
    pub range: Option<TextRange>,
    /// `hangar.readBy` and what the kind adds.
    pub meta: JsonObject,
}

impl Source {
    /// A source for `path` found by `place` below `folder` of `root`.
    pub fn new(path: PathBuf, place: &'static Place, folder: PathBuf, root: PathBuf, readers: &[Reader]) -> Self {
        let mut readers = readers.to_vec();
        readers.sort();
        readers.dedup();
        Self { path, place, folder, readers, root, plugin: None }
    }

    /// `name` as its agent shows it: `plugin:name` inside a plugin.
    pub fn qualify(&self, name: String) -> String {
        match &self.plugin {
            Some(plugin) => format!("{plugin}:{name}"),
            None => name,
        }
    }

    /// The file's path below its folder, for messages.
    pub fn label(&self) -> String {
        self.path.strip_prefix(&self.folder).unwrap_or(&self.path).display().to_string()
    }

    /// What the file is called when nothing inside names it: a skill's
    /// folder name; a single file's name; else its path below the folder
    /// without the row's suffix, sub-folders joined by `sep` (`git/c.toml`
    /// → `git:c`).
    pub fn default_name(&self, sep: &str) -> String {
        let rel = self.path.strip_prefix(&self.folder).unwrap_or(&self.path);
        match self.place.find {
            Find::SkillDirs => return file_name(rel.parent().unwrap_or(rel)),
            Find::File => return file_name(&self.path),
            Find::Files { .. } | Find::Plugins { .. } => {}
        }
        let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if let (Some(last), Find::Files { suffixes, .. }) = (parts.last_mut(), self.place.find) {
            if let Some(suffix) = suffixes.iter().find(|s| last.ends_with(*s)) {
                last.truncate(last.len() - suffix.len());
            }
            // Copilot's `x.agent.md` is agent `x`.
            if let Some(stem) = last.strip_suffix(".agent") {
                *last = stem.to_owned();
            }
        }
        parts.join(sep)
    }

    /// `{"hangar.readBy": [...]}`.
    pub fn meta(&self) -> JsonObject {
        let mut meta = JsonObject::new();
        let readers: Vec<Value> = self.readers.iter().map(|r| json!(r.id())).collect();
        meta.insert("hangar.readBy".to_owned(), Value::Array(readers));
        meta
    }

    /// The shared fields of the customization of `kind` at `pointer` ("" =
    /// the whole file).
    pub fn base(&self, kind: Kind, pointer: &str, name: String, range: Option<TextRange>) -> Base {
        let mut meta = self.meta();
        if !pointer.is_empty() {
            // Where in its file the entry is, for an editor of that entry alone.
            meta.insert("hangar.at".to_owned(), json!(pointer));
        }
        Base {
            id: customization_id(kind.id(), &self.path, pointer),
            uri: path_to_file_uri(&self.path),
            name,
            range,
            meta,
        }
    }

    /// `"<label>: <problem>"`.
    pub fn problem(&self, what: &str) -> String {
        format!("{}: {what}", self.label())
    }
}

/// Builds a child struct of AHP type `$ty` from a [`Base`] and the kind's
/// own fields.
macro_rules! with_base {
    ($ty:ident, $base:expr, { $($field:ident $(: $value:expr)?),* $(,)? }) => {{
        let base: $crate::customizations::discover::source::Base = $base;
        ahp_types::state::$ty {
            id: base.id,
            uri: base.uri,
            name: base.name,
            icons: None,
            range: base.range,
            meta: Some(base.meta),
            $($field $(: $value)?),*
        }
    }};
}
pub(crate) use with_base;

/// The last component of `path`, as text.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::super::layout::PLACES;
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from("/w")
    }

    fn place(rel: &str) -> &'static Place {
        PLACES.iter().find(|p| p.rel == rel).unwrap()
    }

    #[test]
    fn default_names_follow_the_row() {
        let folder = PathBuf::from("/w/.gemini/commands");
        let toml = Source::new(folder.join("git/c.toml"), place(".gemini/commands"), folder, root(), &[]);
        assert_eq!(toml.default_name(":"), "git:c");
        let folder = PathBuf::from("/w/.github/agents");
        let agent = Source::new(folder.join("x.agent.md"), place(".github/agents"), folder, root(), &[]);
        assert_eq!(agent.default_name("/"), "x");
        let folder = PathBuf::from("/w/.claude/skills");
        let skill = Source::new(folder.join("pdf/SKILL.md"), place(".claude/skills"), folder, root(), &[]);
        assert_eq!(skill.default_name("/"), "pdf");
        let rule = Source::new(root().join("AGENTS.md"), place("AGENTS.md"), root(), root(), &[]);
        assert_eq!(rule.default_name("/"), "AGENTS.md");
    }
}
