//! Claude Code's remembered rules: its
//! `permissions.allow` / `ask` / `deny` (rules like `Bash(npm test:*)`,
//! `Edit(src/**)`) in `~/.claude/settings.json` (scope `user`), and in a
//! folder's `.claude/settings.json` (`project`) and
//! `.claude/settings.local.json` (`local`). The files are JSON, often hand
//! edited (comments, trailing commas), so they are read as JSONC. A missing
//! file has no rules; one that cannot be read is reported, not skipped.

use std::path::Path;

use super::{strings, Found};

const DECISIONS: [&str; 3] = ["allow", "ask", "deny"];

fn read_file(file: &Path, scope: &'static str, found: &mut Found) {
    let Some(value) = found.jsonc(file) else { return };
    for decision in DECISIONS {
        for rule in strings(value.pointer(&format!("/permissions/{decision}"))) {
            found.push("claude", decision, rule.to_owned(), file, scope);
        }
    }
}

/// Claude Code's rules under `home` and in `folder` (either may be absent).
pub(super) fn read(home: Option<&Path>, folder: Option<&Path>, found: &mut Found) {
    if let Some(home) = home {
        read_file(&home.join(".claude/settings.json"), "user", found);
    }
    if let Some(folder) = folder {
        read_file(&folder.join(".claude/settings.json"), "project", found);
        read_file(&folder.join(".claude/settings.local.json"), "local", found);
    }
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
        let mut found = Found::default();
        read(Some(home.path()), Some(folder.path()), &mut found);
        let (rules, errors) = (found.rules, found.errors);
        let seen: Vec<(&str, &str, &str)> =
            rules.iter().map(|r| (r.decision.as_str(), r.rule.as_str(), r.scope)).collect();
        assert_eq!(
            seen,
            [("allow", "Bash(npm test:*)", "user"), ("deny", "Bash(rm:*)", "user"), ("ask", "WebFetch", "local")]
        );
        assert_eq!(rules[0].file, home.path().join(".claude/settings.json"));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].file, folder.path().join(".claude/settings.json"));
        let mut none = Found::default();
        read(None, None, &mut none);
        assert!(none.rules.is_empty() && none.errors.is_empty());
    }
}
