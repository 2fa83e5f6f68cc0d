//! Gemini CLI's and Qwen Code's remembered rules (Qwen Code is a fork of
//! Gemini CLI and keeps the same files under `~/.qwen`):
//!
//! - `settings.json` in the home folder (`user`) and in the folder's
//!   `.gemini/` / `.qwen/` (`project`): `tools.allowed` (run without asking:
//!   `allow`), `tools.exclude` (never offered: `deny`), and Qwen Code's
//!   `permissions.allow` / `ask` / `deny` (`Bash(git status)`, as Claude's).
//! - `trustedFolders.json` in the home folder: `{ "/path": "TRUST_FOLDER" |
//!   "TRUST_PARENT" | "DO_NOT_TRUST" }`, the folders whose project settings
//!   the agent loads.
//! - Gemini CLI's policy engine: `[[rule]]` tables (`toolName`,
//!   `commandPrefix` / `commandRegex` / `argsPattern`, `mcpName`,
//!   `decision`) in `policies/*.toml` of the home and the folder; its
//!   "Allow always" answers are saved there (`auto-saved.toml`).
//!
//! Formats as read in the agents' sources (gemini-cli
//! `packages/cli/src/config/trustedFolders.ts`, `settingsSchema.ts`, the
//! policy engine's TOML loader; qwen-code `permission-settings.ts`).

use std::path::Path;

use serde_json::Value;

use super::{strings, Found};

/// Which of the two agents, and its settings folder.
pub(super) struct Agent {
    id: &'static str,
    dir: &'static str,
}

/// Gemini CLI (`~/.gemini`).
pub(super) const GEMINI: Agent = Agent { id: "gemini", dir: ".gemini" };
/// Qwen Code (`~/.qwen`).
pub(super) const QWEN: Agent = Agent { id: "qwen", dir: ".qwen" };

fn settings(agent: &Agent, file: &Path, scope: &'static str, found: &mut Found) {
    let Some(value) = found.jsonc(file) else { return };
    let lists = [
        ("/tools/allowed", "allow"),
        ("/tools/exclude", "deny"),
        ("/permissions/allow", "allow"),
        ("/permissions/ask", "ask"),
        ("/permissions/deny", "deny"),
    ];
    for (pointer, decision) in lists {
        for rule in strings(value.pointer(pointer)) {
            found.push(agent.id, decision, rule.to_owned(), file, scope);
        }
    }
}

fn trusted_folders(agent: &Agent, file: &Path, found: &mut Found) {
    let Some(value) = found.jsonc(file) else { return };
    for (folder, level) in value.as_object().into_iter().flatten() {
        let decision = match level.as_str() {
            Some("TRUST_FOLDER") => "trust folder".to_owned(),
            Some("TRUST_PARENT") => "trust parent folder".to_owned(),
            Some("DO_NOT_TRUST") => "do not trust".to_owned(),
            Some(other) => other.to_lowercase(),
            None => level.to_string(),
        };
        found.push(agent.id, &decision, folder.clone(), file, "user");
    }
}

/// A string or a list of strings, joined by `sep`.
fn one_or_more(value: Option<&Value>, sep: &str) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        list @ Value::Array(_) => Some(strings(Some(list)).collect::<Vec<_>>().join(sep)),
        _ => None,
    }
}

/// One policy rule in words: `run_shell_command(git status)`,
/// `mcp server github`, `read_file|glob`.
fn policy_text(rule: &Value) -> String {
    let tools = one_or_more(rule.get("toolName"), "|");
    let detail = one_or_more(rule.get("commandPrefix"), " | ")
        .or_else(|| rule.get("commandRegex").and_then(Value::as_str).map(|r| format!("regex {r}")))
        .or_else(|| rule.get("argsPattern").and_then(Value::as_str).map(|r| format!("args {r}")));
    let mcp = rule.get("mcpName").and_then(Value::as_str).map(|m| format!("mcp server {m}"));
    let head = [mcp, tools].into_iter().flatten().collect::<Vec<_>>().join(" ");
    let head = if head.is_empty() { "any tool".to_owned() } else { head };
    match detail {
        Some(d) => format!("{head}({d})"),
        None => head,
    }
}

fn policies(agent: &Agent, dir: &Path, scope: &'static str, found: &mut Found) {
    for file in found.files_in(dir, ".toml") {
        let Some(value) = found.toml(&file) else { continue };
        for rule in value.get("rule").and_then(Value::as_array).into_iter().flatten() {
            let decision = rule.get("decision").and_then(Value::as_str).unwrap_or("ask_user");
            found.push(agent.id, decision, policy_text(rule), &file, scope);
        }
    }
}

/// `agent`'s rules under `home` and in `folder` (either may be absent).
pub(super) fn read(agent: Agent, home: Option<&Path>, folder: Option<&Path>, found: &mut Found) {
    if let Some(home) = home.map(|h| h.join(agent.dir)) {
        settings(&agent, &home.join("settings.json"), "user", found);
        trusted_folders(&agent, &home.join("trustedFolders.json"), found);
        policies(&agent, &home.join("policies"), "user", found);
    }
    if let Some(folder) = folder.map(|f| f.join(agent.dir)) {
        settings(&agent, &folder.join("settings.json"), "project", found);
        policies(&agent, &folder.join("policies"), "project", found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(found: &Found) -> Vec<(&str, &str, &str, &str)> {
        found.rules.iter().map(|r| (r.agent, r.decision.as_str(), r.rule.as_str(), r.scope)).collect()
    }

    #[test]
    fn geminis_settings_trusted_folders_and_policies() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".gemini");
        std::fs::create_dir_all(dir.join("policies")).unwrap();
        std::fs::write(
            dir.join("settings.json"),
            r#"{"tools": {"allowed": ["run_shell_command(git status)"], "exclude": ["web_fetch"]}}"#,
        )
        .unwrap();
        std::fs::write(dir.join("trustedFolders.json"), r#"{"/src/app": "TRUST_FOLDER", "/tmp": "DO_NOT_TRUST"}"#)
            .unwrap();
        std::fs::write(
            dir.join("policies/auto-saved.toml"),
            "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"npm test\", \"npm run lint\"]\ndecision = \"allow\"\npriority = 100\n\n[[rule]]\nmcpName = \"github\"\ndecision = \"deny\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("policies/broken.toml"), "[[rule]\n").unwrap();
        let mut found = Found::default();
        read(GEMINI, Some(home.path()), None, &mut found);
        assert_eq!(
            seen(&found),
            [
                ("gemini", "allow", "run_shell_command(git status)", "user"),
                ("gemini", "deny", "web_fetch", "user"),
                ("gemini", "trust folder", "/src/app", "user"),
                ("gemini", "do not trust", "/tmp", "user"),
                ("gemini", "allow", "run_shell_command(npm test | npm run lint)", "user"),
                ("gemini", "deny", "mcp server github", "user"),
            ]
        );
        assert_eq!(found.errors.len(), 1, "{:?}", found.errors);
        assert_eq!(found.errors[0].file, dir.join("policies/broken.toml"));
    }

    #[test]
    fn qwens_permissions_in_the_project() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(folder.path().join(".qwen")).unwrap();
        let file = folder.path().join(".qwen/settings.json");
        std::fs::write(
            &file,
            "{ // mine\n \"permissions\": {\"allow\": [\"Bash(npm test)\"], \"ask\": [\"Edit\"]},\n}",
        )
        .unwrap();
        let mut found = Found::default();
        read(QWEN, None, Some(folder.path()), &mut found);
        assert_eq!(seen(&found), [("qwen", "allow", "Bash(npm test)", "project"), ("qwen", "ask", "Edit", "project")]);
        assert_eq!(found.rules[0].file, file);
    }
}
