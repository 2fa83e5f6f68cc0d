//! One way to read any entry of an AHP customization tree: [`Entry`] (a
//! top-level `Customization` or a `ChildCustomization`) with the fields
//! every kind shares, its decision list and its own effective state;
//! [`entries`] walks a tree, [`find`] looks an id up.
//!
//! The decision list: plugins and MCP servers carry AHP `enablement`;
//! directories and the other children have only `enabled`, so the host
//! keeps their list in `_meta["hangar.enablement"]` ([`ENABLEMENT_META`]).

use ahp_types::common::JsonObject;
use ahp_types::state::{ChildCustomization, Customization, CustomizationEnablement, McpServerCustomization};

use hangar_desktop_protocol::customization::CustomizationKind;

/// `_meta` key of a directory's or non-MCP child's decision list.
pub const ENABLEMENT_META: &str = "hangar.enablement";

/// A top-level entry or a child.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    /// A top-level `plugin`, `directory` or `mcpServer`.
    Top(&'a Customization),
    /// A child of a plugin or directory.
    Child(&'a ChildCustomization),
}

/// The fields every kind has.
struct Common<'a> {
    id: &'a str,
    name: &'a str,
    uri: &'a str,
    meta: Option<&'a JsonObject>,
}

impl<'a> Entry<'a> {
    fn common(self) -> Option<Common<'a>> {
        macro_rules! common {
            ($x:expr) => {
                Common { id: &$x.id, name: &$x.name, uri: &$x.uri, meta: $x.meta.as_ref() }
            };
        }
        Some(match self {
            Entry::Top(Customization::Plugin(x)) => common!(x),
            Entry::Top(Customization::Directory(x)) => common!(x),
            Entry::Top(Customization::McpServer(x)) => common!(x),
            Entry::Child(ChildCustomization::Agent(x)) => common!(x),
            Entry::Child(ChildCustomization::Skill(x)) => common!(x),
            Entry::Child(ChildCustomization::Prompt(x)) => common!(x),
            Entry::Child(ChildCustomization::Rule(x)) => common!(x),
            Entry::Child(ChildCustomization::Hook(x)) => common!(x),
            Entry::Child(ChildCustomization::McpServer(x)) => common!(x),
            Entry::Top(Customization::Unknown(_)) | Entry::Child(ChildCustomization::Unknown(_)) => return None,
        })
    }

    /// Its id (`None` for a kind from a newer protocol).
    pub fn id(self) -> Option<&'a str> {
        self.common().map(|c| c.id)
    }

    /// Its name.
    pub fn name(self) -> &'a str {
        self.common().map(|c| c.name).unwrap_or_default()
    }

    /// Its file or folder.
    pub fn uri(self) -> &'a str {
        self.common().map(|c| c.uri).unwrap_or_default()
    }

    /// Its `_meta`.
    pub fn meta(self) -> Option<&'a JsonObject> {
        self.common().and_then(|c| c.meta)
    }

    /// A string in its `_meta`.
    pub fn meta_str(self, key: &str) -> Option<&'a str> {
        self.meta()?.get(key)?.as_str()
    }

    /// Its kind.
    pub fn kind(self) -> CustomizationKind {
        match self {
            Entry::Top(Customization::Plugin(_)) => CustomizationKind::Plugin,
            Entry::Top(Customization::Directory(_)) => CustomizationKind::Directory,
            Entry::Top(Customization::McpServer(_)) | Entry::Child(ChildCustomization::McpServer(_)) => {
                CustomizationKind::McpServer
            }
            Entry::Child(ChildCustomization::Agent(_)) => CustomizationKind::Agent,
            Entry::Child(ChildCustomization::Skill(_)) => CustomizationKind::Skill,
            Entry::Child(ChildCustomization::Prompt(_)) => CustomizationKind::Prompt,
            Entry::Child(ChildCustomization::Rule(_)) => CustomizationKind::Rule,
            Entry::Child(ChildCustomization::Hook(_)) => CustomizationKind::Hook,
            Entry::Top(Customization::Unknown(_)) | Entry::Child(ChildCustomization::Unknown(_)) => {
                CustomizationKind::Other
            }
        }
    }

    /// Its description, for the kinds that have one.
    pub fn description(self) -> Option<&'a str> {
        match self {
            Entry::Child(ChildCustomization::Agent(x)) => x.description.as_deref(),
            Entry::Child(ChildCustomization::Skill(x)) => x.description.as_deref(),
            Entry::Child(ChildCustomization::Prompt(x)) => x.description.as_deref(),
            Entry::Child(ChildCustomization::Rule(x)) => x.description.as_deref(),
            _ => None,
        }
    }

    /// The MCP server, if it is one.
    pub fn mcp(self) -> Option<&'a McpServerCustomization> {
        match self {
            Entry::Top(Customization::McpServer(x)) | Entry::Child(ChildCustomization::McpServer(x)) => Some(x),
            _ => None,
        }
    }

    /// Its decisions, most specific first: AHP `enablement` for plugins and
    /// MCP servers, `_meta["hangar.enablement"]` for the rest.
    pub fn decisions(self) -> Vec<CustomizationEnablement> {
        let listed = match self {
            Entry::Top(Customization::Plugin(x)) => x.enablement.clone(),
            _ => self.mcp().and_then(|m| m.enablement.clone()),
        };
        listed
            .or_else(|| {
                let value = self.meta()?.get(ENABLEMENT_META)?.clone();
                serde_json::from_value(value).ok()
            })
            .unwrap_or_default()
    }

    /// Its own effective state: a directory's or child's reduced `enabled`
    /// (absent = on), a plugin's or MCP server's first decision (none = on).
    pub fn enabled(self) -> bool {
        let first = |list: &[CustomizationEnablement]| match list.first() {
            Some(
                CustomizationEnablement::Global { enabled }
                | CustomizationEnablement::Workspace { enabled, .. }
                | CustomizationEnablement::Session { enabled },
            ) => *enabled,
            _ => true,
        };
        match self {
            Entry::Top(Customization::Directory(x)) => x.enabled,
            Entry::Child(ChildCustomization::Agent(x)) => x.enabled.unwrap_or(true),
            Entry::Child(ChildCustomization::Skill(x)) => x.enabled.unwrap_or(true),
            Entry::Child(ChildCustomization::Prompt(x)) => x.enabled.unwrap_or(true),
            Entry::Child(ChildCustomization::Rule(x)) => x.enabled.unwrap_or(true),
            Entry::Child(ChildCustomization::Hook(x)) => x.enabled.unwrap_or(true),
            _ => first(&self.decisions()),
        }
    }

    /// A container's children (`None`: not read, or not a container).
    pub fn children(self) -> Option<&'a [ChildCustomization]> {
        match self {
            Entry::Top(Customization::Plugin(x)) => x.children.as_deref(),
            Entry::Top(Customization::Directory(x)) => x.children.as_deref(),
            _ => None,
        }
    }
}

/// Every entry of `tree`: each top-level one, then its children.
pub fn entries(tree: &[Customization]) -> impl Iterator<Item = Entry<'_>> {
    tree.iter().flat_map(|c| {
        let top = Entry::Top(c);
        std::iter::once(top).chain(top.children().into_iter().flatten().map(Entry::Child))
    })
}

/// The entry with `id`.
pub fn find<'a>(tree: &'a [Customization], id: &str) -> Option<Entry<'a>> {
    entries(tree).find(|e| e.id() == Some(id))
}
