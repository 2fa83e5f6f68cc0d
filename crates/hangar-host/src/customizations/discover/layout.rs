//! The one table of known places: for each working directory and for home,
//! which folder or file holds which kind of customization, how it is found
//! and read, and which agents read it natively
//! (`../shared/docs/customizations.md`, section 1). Everything else in
//! `discover/` is driven by [`PLACES`]; no code is written per agent.

/// An agent that reads customization files on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reader {
    /// Claude Code (and claude-agent-acp).
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Qwen Code.
    Qwen,
    /// GitHub Copilot (VS Code and CLI).
    Copilot,
    /// OpenCode.
    OpenCode,
}

impl Reader {
    /// The agent id used in `_meta["hangar.readBy"]`.
    pub fn id(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Qwen => "qwen",
            Self::Copilot => "copilot",
            Self::OpenCode => "opencode",
        }
    }
}

/// Whether a place is relative to a working directory or to home.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Below a working directory.
    Project,
    /// Below the user's home.
    User,
}

impl Scope {
    /// `"project"` or `"user"`, for `_meta["hangar.scope"]`.
    pub fn id(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
        }
    }
}

/// How the files of a place are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Find {
    /// One file; its container is its parent folder.
    File,
    /// The files of a folder whose names end with one of `suffixes`
    /// (nested folders too when `recursive`).
    Files { suffixes: &'static [&'static str], recursive: bool },
    /// `<folder>/<name>/SKILL.md`.
    SkillDirs,
    /// Plugin folders below the folder, at most `depth` levels down. At
    /// depth 1 a folder without a manifest counts (Open Plugins makes the
    /// manifest optional) when `manifest_optional`.
    Plugins { depth: usize, manifest_optional: bool },
}

/// When a rule applies if its frontmatter names no globs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleMode {
    /// Always on (root files such as `CLAUDE.md`; `.claude/rules` without `paths`).
    Always,
    /// Manual only (`*.instructions.md` without `applyTo`).
    Manual,
}

/// Which MCP file dialect a file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `mcpServers` with `type` (stdio default, `http`, `sse`): `.mcp.json`,
    /// `~/.claude.json`, `~/.copilot/mcp-config.json`, plugin `.mcp.json`.
    Claude,
    /// VS Code `servers` (its `inputs` are left alone).
    VsCode,
    /// Gemini / Qwen `mcpServers`: `httpUrl` = HTTP, `url` = SSE (HTTP with
    /// `type: "http"`), `command` = stdio.
    Gemini,
    /// OpenCode `mcp`: `local` with a command array, or `remote`.
    OpenCode,
    /// Codex `[mcp_servers.*]` in TOML.
    Codex,
}

/// What a file holds and so how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// One rule per file.
    Rule(RuleMode),
    /// One custom agent per file (Markdown + frontmatter, or Codex TOML).
    Agent,
    /// One skill per `SKILL.md`.
    Skill,
    /// A Claude command: a flat `.md` shown as a skill (AHP's skill doc).
    Command,
    /// One prompt per file (Markdown + frontmatter, or TOML).
    Prompt,
    /// One hook per handler in the file's `hooks`.
    Hooks,
    /// One top-level MCP server per entry.
    Mcp(Dialect),
    /// Plugin folders.
    Plugin,
}

impl Read {
    /// The AHP kind of what this place yields (`contents` of its container).
    pub fn kind(self) -> Kind {
        match self {
            Self::Rule(_) => Kind::Rule,
            Self::Agent => Kind::Agent,
            Self::Skill | Self::Command => Kind::Skill,
            Self::Prompt => Kind::Prompt,
            Self::Hooks => Kind::Hook,
            Self::Mcp(_) => Kind::McpServer,
            Self::Plugin => Kind::Plugin,
        }
    }
}

/// The kinds of customization, as `customization_id` and AHP name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `rule`.
    Rule,
    /// `agent`.
    Agent,
    /// `skill`.
    Skill,
    /// `prompt`.
    Prompt,
    /// `hook`.
    Hook,
    /// `mcpServer`.
    McpServer,
    /// `plugin`.
    Plugin,
}

impl Kind {
    /// The AHP type name (also the `kind` of [`super::super::customization_id`]).
    pub fn id(self) -> &'static str {
        match self {
            Self::Rule => "rule",
            Self::Agent => "agent",
            Self::Skill => "skill",
            Self::Prompt => "prompt",
            Self::Hook => "hook",
            Self::McpServer => "mcpServer",
            Self::Plugin => "plugin",
        }
    }

    /// The AHP `CustomizationType` of a container holding this kind.
    pub fn ahp(self) -> ahp_types::state::CustomizationType {
        use ahp_types::state::CustomizationType as T;
        match self {
            Self::Rule => T::Rule,
            Self::Agent => T::Agent,
            Self::Skill => T::Skill,
            Self::Prompt => T::Prompt,
            Self::Hook => T::Hook,
            Self::McpServer => T::McpServer,
            Self::Plugin => T::Plugin,
        }
    }
}

/// One known place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// Relative to a working directory or to home.
    pub scope: Scope,
    /// The path below the root (`/`-separated).
    pub rel: &'static str,
    /// How its files are found.
    pub find: Find,
    /// What its files hold.
    pub read: Read,
    /// The agents that read it natively.
    pub readers: &'static [Reader],
    /// List its container even while the folder (or file) does not exist,
    /// so that a client can create the first file there.
    pub offer: bool,
}

use std::path::Path;

use super::super::Roots;
use Reader::{Claude, Codex, Copilot, Gemini, OpenCode, Qwen};
use Scope::{Project as P, User as U};

const MD: Find = Find::Files { suffixes: &[".md"], recursive: false };
const MD_TREE: Find = Find::Files { suffixes: &[".md"], recursive: true };
const TOML_TREE: Find = Find::Files { suffixes: &[".toml"], recursive: true };
const INSTRUCTIONS: Find = Find::Files { suffixes: &[".instructions.md"], recursive: true };
const JSON: Find = Find::Files { suffixes: &[".json"], recursive: false };
const QWEN_COMMANDS: Find = Find::Files { suffixes: &[".toml", ".md"], recursive: true };
const ALWAYS: Read = Read::Rule(RuleMode::Always);
const MANUAL: Read = Read::Rule(RuleMode::Manual);

const fn place(scope: Scope, rel: &'static str, find: Find, read: Read, readers: &'static [Reader]) -> Place {
    Place { scope, rel, find, read, readers, offer: false }
}

const fn offered(scope: Scope, rel: &'static str, find: Find, read: Read, readers: &'static [Reader]) -> Place {
    Place { scope, rel, find, read, readers, offer: true }
}

/// Every known place, in the order containers are listed. Within a scope,
/// the order of rows of one kind is also the tie-break of shadowing
/// (`shadowing.rs`): Copilot's skills are "first found wins" in the order
/// `.github/skills`, `.agents/skills`, `.claude/skills`, and Gemini prefers
/// `.agents/skills` to `.gemini/skills`.
pub const PLACES: &[Place] = &[
    // Rules in the working directory itself (one container on the folder).
    offered(P, "CLAUDE.md", Find::File, ALWAYS, &[Claude, Copilot, OpenCode]),
    place(P, "CLAUDE.local.md", Find::File, ALWAYS, &[Claude]),
    place(P, "AGENTS.md", Find::File, ALWAYS, &[Codex, Qwen, Copilot, OpenCode]),
    place(P, "AGENTS.override.md", Find::File, ALWAYS, &[Codex]),
    place(P, "GEMINI.md", Find::File, ALWAYS, &[Gemini]),
    place(P, "QWEN.md", Find::File, ALWAYS, &[Qwen]),
    place(P, ".claude/CLAUDE.md", Find::File, ALWAYS, &[Claude, Copilot]),
    offered(P, ".claude/rules", MD_TREE, ALWAYS, &[Claude, Copilot]),
    place(P, ".qwen/QWEN.local.md", Find::File, ALWAYS, &[Qwen]),
    place(P, ".github/copilot-instructions.md", Find::File, ALWAYS, &[Copilot]),
    offered(P, ".github/instructions", INSTRUCTIONS, MANUAL, &[Copilot]),
    // Agents.
    offered(P, ".claude/agents", MD_TREE, Read::Agent, &[Claude, Copilot]),
    offered(P, ".github/agents", MD, Read::Agent, &[Copilot]),
    place(P, ".gemini/agents", MD, Read::Agent, &[Gemini]),
    place(P, ".qwen/agents", MD, Read::Agent, &[Qwen]),
    place(P, ".opencode/agents", MD, Read::Agent, &[OpenCode]),
    place(P, ".codex/agents", TOML_TREE, Read::Agent, &[Codex]),
    // Skills, then Claude commands (shown as skills).
    place(P, ".github/skills", Find::SkillDirs, Read::Skill, &[Copilot]),
    offered(P, ".agents/skills", Find::SkillDirs, Read::Skill, &[Codex, Gemini, Qwen, Copilot, OpenCode]),
    offered(P, ".claude/skills", Find::SkillDirs, Read::Skill, &[Claude, Copilot, OpenCode]),
    place(P, ".gemini/skills", Find::SkillDirs, Read::Skill, &[Gemini]),
    place(P, ".qwen/skills", Find::SkillDirs, Read::Skill, &[Qwen]),
    place(P, ".opencode/skills", Find::SkillDirs, Read::Skill, &[OpenCode]),
    place(P, ".claude/commands", MD_TREE, Read::Command, &[Claude, Copilot]),
    // Prompts.
    offered(
        P,
        ".github/prompts",
        Find::Files { suffixes: &[".prompt.md"], recursive: false },
        Read::Prompt,
        &[Copilot],
    ),
    place(P, ".gemini/commands", TOML_TREE, Read::Prompt, &[Gemini]),
    place(P, ".qwen/commands", QWEN_COMMANDS, Read::Prompt, &[Qwen]),
    place(P, ".opencode/commands", MD, Read::Prompt, &[OpenCode]),
    // Hooks.
    place(P, ".claude/settings.json", Find::File, Read::Hooks, &[Claude, Copilot]),
    place(P, ".claude/settings.local.json", Find::File, Read::Hooks, &[Claude, Copilot]),
    place(P, ".gemini/settings.json", Find::File, Read::Hooks, &[Gemini]),
    place(P, ".qwen/settings.json", Find::File, Read::Hooks, &[Qwen]),
    place(P, ".codex/hooks.json", Find::File, Read::Hooks, &[Codex]),
    place(P, ".codex/config.toml", Find::File, Read::Hooks, &[Codex]),
    place(P, ".github/hooks", JSON, Read::Hooks, &[Copilot]),
    // MCP servers (top-level entries, no container).
    place(P, ".mcp.json", Find::File, Read::Mcp(Dialect::Claude), &[Claude, Copilot]),
    place(P, ".vscode/mcp.json", Find::File, Read::Mcp(Dialect::VsCode), &[Copilot]),
    place(P, ".github/mcp.json", Find::File, Read::Mcp(Dialect::Claude), &[Copilot]),
    place(P, ".gemini/settings.json", Find::File, Read::Mcp(Dialect::Gemini), &[Gemini]),
    place(P, ".qwen/settings.json", Find::File, Read::Mcp(Dialect::Gemini), &[Qwen]),
    place(P, ".codex/config.toml", Find::File, Read::Mcp(Dialect::Codex), &[Codex]),
    place(P, "opencode.json", Find::File, Read::Mcp(Dialect::OpenCode), &[OpenCode]),
    place(P, "opencode.jsonc", Find::File, Read::Mcp(Dialect::OpenCode), &[OpenCode]),
    // Plugins (Open Plugins installs).
    place(P, ".agents/plugins", Find::Plugins { depth: 1, manifest_optional: true }, Read::Plugin, &[]),
    // ---- home ----
    place(U, ".claude/CLAUDE.md", Find::File, ALWAYS, &[Claude, Copilot, OpenCode]),
    place(U, ".claude/rules", MD_TREE, ALWAYS, &[Claude, Copilot]),
    place(U, ".codex/AGENTS.md", Find::File, ALWAYS, &[Codex]),
    place(U, ".codex/AGENTS.override.md", Find::File, ALWAYS, &[Codex]),
    place(U, ".gemini/GEMINI.md", Find::File, ALWAYS, &[Gemini]),
    place(U, ".qwen/QWEN.md", Find::File, ALWAYS, &[Qwen]),
    place(U, ".config/opencode/AGENTS.md", Find::File, ALWAYS, &[OpenCode]),
    place(U, ".copilot/copilot-instructions.md", Find::File, ALWAYS, &[Copilot]),
    place(U, ".copilot/instructions", INSTRUCTIONS, MANUAL, &[Copilot]),
    offered(U, ".claude/agents", MD_TREE, Read::Agent, &[Claude, Copilot]),
    place(U, ".copilot/agents", MD, Read::Agent, &[Copilot]),
    place(U, ".gemini/agents", MD, Read::Agent, &[Gemini]),
    place(U, ".qwen/agents", MD, Read::Agent, &[Qwen]),
    place(U, ".config/opencode/agents", MD, Read::Agent, &[OpenCode]),
    place(U, ".codex/agents", TOML_TREE, Read::Agent, &[Codex]),
    place(U, ".copilot/skills", Find::SkillDirs, Read::Skill, &[Copilot]),
    place(U, ".agents/skills", Find::SkillDirs, Read::Skill, &[Codex, Gemini, Copilot, OpenCode]),
    offered(U, ".claude/skills", Find::SkillDirs, Read::Skill, &[Claude, OpenCode]),
    place(U, ".gemini/skills", Find::SkillDirs, Read::Skill, &[Gemini]),
    place(U, ".qwen/skills", Find::SkillDirs, Read::Skill, &[Qwen]),
    place(U, ".config/opencode/skills", Find::SkillDirs, Read::Skill, &[OpenCode]),
    place(U, ".claude/commands", MD_TREE, Read::Command, &[Claude]),
    place(U, ".codex/prompts", MD, Read::Prompt, &[Codex]),
    place(U, ".gemini/commands", TOML_TREE, Read::Prompt, &[Gemini]),
    place(U, ".qwen/commands", QWEN_COMMANDS, Read::Prompt, &[Qwen]),
    place(U, ".config/opencode/commands", MD, Read::Prompt, &[OpenCode]),
    place(U, ".claude/settings.json", Find::File, Read::Hooks, &[Claude]),
    place(U, ".gemini/settings.json", Find::File, Read::Hooks, &[Gemini]),
    place(U, ".qwen/settings.json", Find::File, Read::Hooks, &[Qwen]),
    place(U, ".codex/hooks.json", Find::File, Read::Hooks, &[Codex]),
    place(U, ".codex/config.toml", Find::File, Read::Hooks, &[Codex]),
    place(U, ".copilot/hooks", JSON, Read::Hooks, &[Copilot]),
    place(U, ".claude.json", Find::File, Read::Mcp(Dialect::Claude), &[Claude]),
    place(U, ".copilot/mcp-config.json", Find::File, Read::Mcp(Dialect::Claude), &[Copilot]),
    place(U, ".gemini/settings.json", Find::File, Read::Mcp(Dialect::Gemini), &[Gemini]),
    place(U, ".qwen/settings.json", Find::File, Read::Mcp(Dialect::Gemini), &[Qwen]),
    place(U, ".codex/config.toml", Find::File, Read::Mcp(Dialect::Codex), &[Codex]),
    place(U, ".config/opencode/opencode.json", Find::File, Read::Mcp(Dialect::OpenCode), &[OpenCode]),
    place(U, ".agents/plugins", Find::Plugins { depth: 1, manifest_optional: true }, Read::Plugin, &[]),
    place(U, ".claude/plugins/cache", Find::Plugins { depth: 4, manifest_optional: false }, Read::Plugin, &[Claude]),
    place(
        U,
        ".copilot/installed-plugins",
        Find::Plugins { depth: 2, manifest_optional: false },
        Read::Plugin,
        &[Copilot],
    ),
];

/// The parts of a plugin folder, paths below it (`scope`, `readers` and
/// `offer` are unused: a plugin's parts are read by the plugin's readers).
/// A manifest may point `commands`, `agents`, `hooks` and `mcpServers`
/// elsewhere and add `skills` folders (`plugins.rs`).
pub const PLUGIN_PARTS: &[Place] = &[
    place(P, "commands", MD_TREE, Read::Command, &[]),
    place(P, "agents", MD_TREE, Read::Agent, &[]),
    place(P, "skills", Find::SkillDirs, Read::Skill, &[]),
    place(P, "rules", Find::Files { suffixes: &[".mdc"], recursive: false }, MANUAL, &[]),
    place(P, "hooks/hooks.json", Find::File, Read::Hooks, &[]),
    place(P, ".mcp.json", Find::File, Read::Mcp(Dialect::Claude), &[]),
];

/// Plugin manifests, first found wins: Claude, Open Plugins, Copilot.
pub const MANIFESTS: &[&str] =
    &[".claude-plugin/plugin.json", ".plugin/plugin.json", "plugin.json", ".github/plugin/plugin.json"];

/// Each row of the table with the root it applies to: the project rows
/// for each working directory, then the user rows for home.
pub fn rooted(roots: &Roots) -> impl Iterator<Item = (&Path, &'static Place)> {
    let all =
        roots.working_dirs.iter().map(|wd| (wd, Scope::Project)).chain(roots.home.iter().map(|h| (h, Scope::User)));
    all.flat_map(|(root, scope)| {
        PLACES.iter().filter(move |place| place.scope == scope).map(move |place| (root.as_path(), place))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_place_of_a_kind_is_listed_once_per_scope() {
        for (i, a) in PLACES.iter().enumerate() {
            for b in &PLACES[i + 1..] {
                assert!(
                    !(a.scope == b.scope && a.rel == b.rel && a.read.kind() == b.read.kind()),
                    "{} listed twice for {:?}",
                    a.rel,
                    a.read.kind()
                );
            }
        }
    }
}
