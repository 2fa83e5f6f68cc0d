//! Codex's remembered rules:
//!
//! - `~/.codex/config.toml` (`user`): `approval_policy` (`untrusted`,
//!   `on-failure`, `on-request`, `never`) and `sandbox_mode` (`read-only`,
//!   `workspace-write`, `danger-full-access`), shown as `setting`s, and each
//!   `[projects."/path"]`'s `trust_level` (`trusted`, `untrusted`).
//! - `.rules` files in `~/.codex/rules/` (`user`; the TUI's "always allow"
//!   appends to `default.rules`) and in the folder's `.codex/rules/`
//!   (`project`): Starlark `prefix_rule(pattern = ["gh", "pr", ["view",
//!   "list"]], decision = "allow" | "prompt" | "forbidden")`, the decision
//!   `allow` when left out. Shown as the pattern's words (`gh pr
//!   [view|list]`).
//!
//! Formats as in the Codex source and docs (codex-rs `execpolicy`,
//! `core/src/config`). The `.rules` files are read by a small scanner of
//! the `prefix_rule` calls, not a Starlark interpreter: the `starlark`
//! crate Codex uses would be a heavy dependency for showing a list, and
//! nothing is evaluated (a rule built by code is not shown).

use std::path::Path;

use serde_json::Value;

use super::Found;

fn config(file: &Path, found: &mut Found) {
    let Some(value) = found.toml(file) else { return };
    for key in ["approval_policy", "sandbox_mode"] {
        if let Some(v) = value.get(key).and_then(Value::as_str) {
            found.push("codex", "setting", format!("{key} = \"{v}\""), file, "user");
        }
    }
    for (project, table) in value.get("projects").and_then(Value::as_object).into_iter().flatten() {
        if let Some(level) = table.get("trust_level").and_then(Value::as_str) {
            found.push("codex", level, project.clone(), file, "user");
        }
    }
}

fn rules_dir(dir: &Path, scope: &'static str, found: &mut Found) {
    for file in found.files_in(dir, ".rules") {
        let Some(text) = found.text(&file) else { continue };
        match prefix_rules(&text) {
            Ok(rules) => {
                for (decision, pattern) in rules {
                    found.push("codex", &decision, pattern, &file, scope);
                }
            }
            Err(e) => found.error(&file, e),
        }
    }
}

/// Codex's rules under `home` and in `folder` (either may be absent).
pub(super) fn read(home: Option<&Path>, folder: Option<&Path>, found: &mut Found) {
    if let Some(home) = home.map(|h| h.join(".codex")) {
        config(&home.join("config.toml"), found);
        rules_dir(&home.join("rules"), "user", found);
    }
    if let Some(folder) = folder {
        rules_dir(&folder.join(".codex/rules"), "project", found);
    }
}

/// A token of a `.rules` file.
#[derive(Debug, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Punct(char),
}

/// The file's tokens; comments and whitespace dropped. An unclosed string
/// is an error naming its line.
fn tokens(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '#' => while chars.next_if(|&c| c != '\n').is_some() {},
            '"' | '\'' => {
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') => s.extend(chars.next()),
                        Some('\n') | None => return Err(format!("line {line}: a string is not closed")),
                        Some(other) => s.push(other),
                    }
                }
                out.push(Tok::Str(s));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut name = c.to_string();
                while let Some(n) = chars.next_if(|&n| n.is_alphanumeric() || n == '_') {
                    name.push(n);
                }
                out.push(Tok::Name(name));
            }
            c if c.is_whitespace() => {}
            other => out.push(Tok::Punct(other)),
        }
    }
    Ok(out)
}

/// A pattern element as shown: a word, or alternatives `[view|list]`.
fn element(toks: &[Tok], at: &mut usize) -> Option<String> {
    match toks.get(*at)? {
        Tok::Str(s) => {
            *at += 1;
            Some(s.clone())
        }
        Tok::Punct('[') => {
            *at += 1;
            let mut words = Vec::new();
            while let Some(tok) = toks.get(*at) {
                *at += 1;
                match tok {
                    Tok::Str(s) => words.push(s.clone()),
                    Tok::Punct(']') => return Some(format!("[{}]", words.join("|"))),
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// The `prefix_rule` calls of a `.rules` file: (decision, the pattern's words).
fn prefix_rules(text: &str) -> Result<Vec<(String, String)>, String> {
    let toks = tokens(text)?;
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let call = toks[i] == Tok::Name("prefix_rule".into()) && toks.get(i + 1) == Some(&Tok::Punct('('));
        i += 1;
        if !call {
            continue;
        }
        i += 1;
        let (mut pattern, mut decision, mut depth) = (None, "allow".to_owned(), 0);
        while i < toks.len() {
            match (&toks[i], toks.get(i + 1), toks.get(i + 2)) {
                (Tok::Punct(')'), ..) if depth == 0 => break,
                (Tok::Punct('(' | '[' | '{'), ..) => depth += 1,
                (Tok::Punct(')' | ']' | '}'), ..) => depth -= 1,
                (Tok::Name(key), Some(Tok::Punct('=')), Some(Tok::Punct('['))) if depth == 0 && key == "pattern" => {
                    let mut at = i + 3;
                    let mut words = Vec::new();
                    while let Some(word) = element(&toks, &mut at) {
                        words.push(word);
                        if toks.get(at) == Some(&Tok::Punct(',')) {
                            at += 1;
                        }
                    }
                    if toks.get(at) == Some(&Tok::Punct(']')) {
                        at += 1;
                    }
                    pattern = Some(words.join(" "));
                    i = at;
                    continue;
                }
                (Tok::Name(key), Some(Tok::Punct('=')), Some(Tok::Str(d))) if depth == 0 && key == "decision" => {
                    decision = d.clone();
                }
                _ => {}
            }
            i += 1;
        }
        if let Some(pattern) = pattern {
            out.push((decision, pattern));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_rules_are_read_with_their_decisions() {
        let text = r#"
# Prompt before viewing PRs.
prefix_rule(
    pattern = ["gh", "pr", ["view", "list"]],  # a union
    decision = "prompt",
    justification = "PRs (are) fine",
    match = ["gh pr view 7888"],
)
prefix_rule(pattern=['npm', 'test'])
prefix_rule(decision = "forbidden", pattern = ["rm", "-rf"])
"#;
        assert_eq!(
            prefix_rules(text).unwrap(),
            [
                ("prompt".to_owned(), "gh pr [view|list]".to_owned()),
                ("allow".to_owned(), "npm test".to_owned()),
                ("forbidden".to_owned(), "rm -rf".to_owned()),
            ]
        );
        assert_eq!(prefix_rules("prefix_rule(pattern = [\"a\n").unwrap_err(), "line 1: a string is not closed");
    }

    #[test]
    fn config_and_rules_files_with_where_they_live() {
        let home = tempfile::tempdir().unwrap();
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".codex/rules")).unwrap();
        std::fs::create_dir_all(folder.path().join(".codex/rules")).unwrap();
        let config_file = home.path().join(".codex/config.toml");
        std::fs::write(
            &config_file,
            "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n\n[projects.\"/src/app\"]\ntrust_level = \"trusted\"\n",
        )
        .unwrap();
        std::fs::write(
            home.path().join(".codex/rules/default.rules"),
            "prefix_rule(pattern = [\"cargo\", \"test\"])\n",
        )
        .unwrap();
        std::fs::write(folder.path().join(".codex/rules/team.rules"), "prefix_rule(pattern = [\"x\n").unwrap();
        let mut found = Found::default();
        read(Some(home.path()), Some(folder.path()), &mut found);
        let seen: Vec<(&str, &str, &str)> =
            found.rules.iter().map(|r| (r.decision.as_str(), r.rule.as_str(), r.scope)).collect();
        assert_eq!(
            seen,
            [
                ("setting", "approval_policy = \"on-request\"", "user"),
                ("setting", "sandbox_mode = \"workspace-write\"", "user"),
                ("trusted", "/src/app", "user"),
                ("allow", "cargo test", "user"),
            ]
        );
        assert_eq!(found.rules[0].file, config_file);
        assert_eq!(found.errors.len(), 1);
        assert_eq!(found.errors[0].file, folder.path().join(".codex/rules/team.rules"));
    }
}
