//! The agents' own remembered permission rules, shown beside the host's,
//! read-only, with the file each lives in (`x-hangar/rules`' `agentRules`).
//! Each agent keeps them its own way; one file per agent reads them:
//!
//! - `claude.rs` — Claude Code's `permissions` in its settings files.
//! - `codex.rs` — Codex's `approval_policy`, `sandbox_mode` and trusted
//!   projects in `config.toml`, and the `prefix_rule`s of its `.rules` files.
//! - `gemini.rs` — Gemini CLI's and Qwen Code's settings (`tools.allowed` /
//!   `tools.exclude`, Qwen's `permissions`), trusted folders and Gemini's
//!   policy files.
//!
//! A missing file has no rules; one that cannot be read or parsed is
//! reported (`AgentRuleError`), not skipped. Nothing here writes.

mod claude;
mod codex;
mod gemini;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

/// One rule an agent keeps itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRule {
    /// The agent (`claude`, `codex`, `gemini`, `qwen`).
    pub agent: &'static str,
    /// What the rule does, in the agent's words: `allow`, `ask`, `deny`,
    /// `prompt`, `forbidden`, `ask_user`, `trusted`, `do not trust`, or
    /// `setting` for a setting that decides how much is asked.
    pub decision: String,
    /// The rule in the agent's own words (`Bash(npm test:*)`, `gh pr view`,
    /// a trusted folder's path, `approval_policy = "on-request"`).
    pub rule: String,
    /// The file it lives in.
    pub file: PathBuf,
    /// `user`, `project` or `local`.
    pub scope: &'static str,
}

/// A settings file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentRuleError {
    /// The file.
    pub file: PathBuf,
    /// Why.
    pub error: String,
}

/// What was found so far: the rules, and the files that could not be read.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub rules: Vec<AgentRule>,
    pub errors: Vec<AgentRuleError>,
}

impl Found {
    /// A rule of `agent` from `file`.
    pub fn push(&mut self, agent: &'static str, decision: &str, rule: String, file: &Path, scope: &'static str) {
        self.rules.push(AgentRule { agent, decision: decision.to_owned(), rule, file: file.to_owned(), scope });
    }

    /// A file that could not be read, and why.
    pub fn error(&mut self, file: &Path, error: String) {
        self.errors.push(AgentRuleError { file: file.to_owned(), error });
    }

    /// The file's text; `None` when it is missing (no rules) or unreadable (reported).
    pub fn text(&mut self, file: &Path) -> Option<String> {
        match std::fs::read_to_string(file) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                self.error(file, e.to_string());
                None
            }
        }
    }

    /// A JSON file, read as JSONC (the agents' settings are hand edited:
    /// comments, trailing commas).
    pub fn jsonc(&mut self, file: &Path) -> Option<Value> {
        let text = self.text(file)?;
        match jsonc_parser::parse_to_ast(&text, &Default::default(), &Default::default()) {
            Ok(parsed) => Some(parsed.value.map(Value::from).unwrap_or(Value::Null)),
            Err(e) => {
                self.error(file, e.to_string());
                None
            }
        }
    }

    /// A TOML file, as JSON.
    pub fn toml(&mut self, file: &Path) -> Option<Value> {
        let text = self.text(file)?;
        match crate::customizations::discover::toml_spans::parse(&text) {
            Ok(doc) => Some(doc.value),
            Err(e) => {
                self.error(file, e);
                None
            }
        }
    }

    /// The files in `dir` whose names end in `suffix`, by name; none when
    /// `dir` is missing, reported when it cannot be listed.
    pub fn files_in(&mut self, dir: &Path, suffix: &str) -> Vec<PathBuf> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                self.error(dir, e.to_string());
                return Vec::new();
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)))
            .collect();
        files.sort();
        files
    }
}

/// The strings of a JSON array (others skipped); none when it is not one.
pub(crate) fn strings(value: Option<&Value>) -> impl Iterator<Item = &str> {
    value.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
}

/// Every agent's rules under `home` and in `folder` (either may be absent):
/// Claude Code, Codex, Gemini CLI, Qwen Code, in that order.
pub fn agent_rules(home: Option<&Path>, folder: Option<&Path>) -> (Vec<AgentRule>, Vec<AgentRuleError>) {
    let mut found = Found::default();
    claude::read(home, folder, &mut found);
    codex::read(home, folder, &mut found);
    gemini::read(gemini::GEMINI, home, folder, &mut found);
    gemini::read(gemini::QWEN, home, folder, &mut found);
    (found.rules, found.errors)
}
