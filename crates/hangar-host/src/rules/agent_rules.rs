//! The agents' own remembered permission rules, shown beside the host's,
//! read-only, with the file each lives in. Today: Claude Code's
//! `permissions.allow` / `ask` / `deny` (rules like `Bash(npm test:*)`,
//! `Edit(src/**)`) in `~/.claude/settings.json` (scope `user`), and in a
//! folder's `.claude/settings.json` (`project`) and
//! `.claude/settings.local.json` (`local`). The files are JSON, often hand
//! edited (comments, trailing commas), so they are read as JSONC. A missing
//! file has no rules; one that cannot be read is reported, not skipped.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

/// One rule an agent keeps itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRule {
    /// The agent (`claude`).
    pub agent: &'static str,
    /// `allow`, `ask` or `deny`, as the agent says.
    pub decision: &'static str,
    /// The rule in the agent's own words.
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

const DECISIONS: [&str; 3] = ["allow", "ask", "deny"];

fn read_file(file: PathBuf, scope: &'static str, out: &mut Vec<AgentRule>, errors: &mut Vec<AgentRuleError>) {
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => return errors.push(AgentRuleError { file, error: e.to_string() }),
    };
    let value: Value = match jsonc_parser::parse_to_ast(&text, &Default::default(), &Default::default()) {
        Ok(parsed) => parsed.value.map(Value::from).unwrap_or(Value::Null),
        Err(e) => return errors.push(AgentRuleError { file, error: e.to_string() }),
    };
    for decision in DECISIONS {
        let rules = value.pointer(&format!("/permissions/{decision}")).and_then(Value::as_array);
        for rule in rules.into_iter().flatten().filter_map(Value::as_str) {
            out.push(AgentRule { agent: "claude", decision, rule: rule.to_owned(), file: file.clone(), scope });
        }
    }
}

/// Claude Code's rules under `home` and in `folder` (either may be absent).
pub fn claude_rules(home: Option<&Path>, folder: Option<&Path>) -> (Vec<AgentRule>, Vec<AgentRuleError>) {
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    if let Some(home) = home {
        read_file(home.join(".claude/settings.json"), "user", &mut out, &mut errors);
    }
    if let Some(folder) = folder {
        read_file(folder.join(".claude/settings.json"), "project", &mut out, &mut errors);
        read_file(folder.join(".claude/settings.local.json"), "local", &mut out, &mut errors);
    }
    (out, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claudes_rules_with_where_they_live() {
        let home = tempfile::tempdir().unwrap();
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::create_dir_all(folder.path().join(".claude")).unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            "{ // mine\n \"permissions\": {\"allow\": [\"Bash(npm test:*)\"], \"deny\": [\"Bash(rm:*)\"],},\n}",
        )
        .unwrap();
        std::fs::write(folder.path().join(".claude/settings.local.json"), r#"{"permissions": {"ask": ["WebFetch"]}}"#)
            .unwrap();
        std::fs::write(folder.path().join(".claude/settings.json"), "{ not json").unwrap();
        let (rules, errors) = claude_rules(Some(home.path()), Some(folder.path()));
        let seen: Vec<(&str, &str, &str)> = rules.iter().map(|r| (r.decision, r.rule.as_str(), r.scope)).collect();
        assert_eq!(
            seen,
            [("allow", "Bash(npm test:*)", "user"), ("deny", "Bash(rm:*)", "user"), ("ask", "WebFetch", "local")]
        );
        assert_eq!(rules[0].file, home.path().join(".claude/settings.json"));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].file, folder.path().join(".claude/settings.json"));
        assert_eq!(claude_rules(None, None), (vec![], vec![]));
    }
}
