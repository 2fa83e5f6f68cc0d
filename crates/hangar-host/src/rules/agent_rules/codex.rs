//! Codex's remembered rules:
//!
//! - `~/.codex/config.toml` (`user`): `approval_policy` (`untrusted`,
//!   `on-failure`, `on-request`, `never`) and `sandbox_mode` (`read-only`,
//!   `workspace-write`, `danger-full-access`), shown as `setting`s, and each
//!   `[projects."/path"]`'s `trust_level` (`trusted`, `untrusted`).
//! - The project's own layers (`project`): `.codex/config.toml` in each
//!   folder from the project's root (the nearest folder above with `.git`,
//!   Codex's default `project_root_markers`) down to the session's folder,
//!   with the same two settings. Codex loads them only in a trusted project
//!   (the folder's or the root's `trust_level = "trusted"` in the user
//!   config, the nearer one deciding); in any other the settings are shown
//!   as `setting, not loaded (project not trusted)`.
//! - `.rules` files in `~/.codex/rules/` (`user`; the TUI's "always allow"
//!   appends to `default.rules`) and in the folder's `.codex/rules/`
//!   (`project`): Starlark `prefix_rule(pattern = ["gh", "pr", ["view",
//!   "list"]], decision = "allow" | "prompt" | "forbidden")`, the decision
//!   `allow` when left out. Shown as the pattern's words (`gh pr
//!   [view|list]`).
//!
//! Formats as in the Codex source and docs (codex-rs `execpolicy`,
//! `core/src/config`, `core/src/config_loader`: `load_project_layers`). The `.rules` files are read by a small scanner of
//! the `prefix_rule` calls, not a Starlark interpreter: the `starlark`
//! crate Codex uses would be a heavy dependency for showing a list, and
//! nothing is evaluated (a rule built by code is not shown).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Found;

/// How an untrusted project's layer is shown: Codex does not load it.
const NOT_LOADED: &str = "setting, not loaded (project not trusted)";

/// The settings of a `config.toml` that decide how much Codex asks.
fn settings(value: &Value, file: &Path, decision: &str, scope: &'static str, found: &mut Found) {
    for key in ["approval_policy", "sandbox_mode"] {
        if let Some(v) = value.get(key).and_then(Value::as_str) {
            found.push("codex", decision, format!("{key} = \"{v}\""), file, scope);
        }
    }
}

/// The user config's settings and trusted projects; its contents, for the
/// project layers' trust.
fn config(file: &Path, found: &mut Found) -> Option<Value> {
    let value = found.toml(file)?;
    settings(&value, file, "setting", "user", found);
    for (project, table) in value.get("projects").and_then(Value::as_object).into_iter().flatten() {
        if let Some(level) = table.get("trust_level").and_then(Value::as_str) {
            found.push("codex", level, project.clone(), file, "user");
        }
    }
    Some(value)
}

/// The folders whose `.codex/config.toml` Codex layers for `folder`: from
/// the project's root (the nearest folder with `.git`; `folder` itself when
/// none) down to `folder`.
fn project_dirs(folder: &Path) -> Vec<PathBuf> {
    let root = folder.ancestors().find(|a| a.join(".git").exists()).unwrap_or(folder);
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in folder.ancestors() {
        dirs.push(dir.to_owned());
        if dir == root {
            break;
        }
    }
    dirs.reverse();
    dirs
}

/// Whether Codex trusts the project layer in `dir` (root: the project's
/// root): the nearer of the two listed in the user config decides.
fn trusted(user: Option<&Value>, dir: &Path, root: &Path) -> bool {
    let projects = user.and_then(|u| u.get("projects"));
    let level = [dir, root]
        .into_iter()
        .find_map(|d| projects?.get(d.to_str()?)?.get("trust_level").and_then(Value::as_str).map(str::to_owned));
    level.as_deref() == Some("trusted")
}

/// The project's own `.codex/config.toml` layers (the user's own
/// `~/.codex` is not one of them, as in Codex).
fn project_layers(folder: &Path, user_dir: Option<&Path>, user: Option<&Value>, found: &mut Found) {
    let dirs = project_dirs(folder);
    let Some(root) = dirs.first().cloned() else { return };
    for dir in dirs {
        let dot_codex = dir.join(".codex");
        if user_dir == Some(dot_codex.as_path()) {
            continue;
        }
        let file = dot_codex.join("config.toml");
        let Some(value) = found.toml(&file) else { continue };
        let decision = if trusted(user, &dir, &root) { "setting" } else { NOT_LOADED };
        settings(&value, &file, decision, "project", found);
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
    let user_dir = home.map(|h| h.join(".codex"));
    let mut user = None;
    if let Some(dir) = &user_dir {
        user = config(&dir.join("config.toml"), found);
        rules_dir(&dir.join("rules"), "user", found);
    }
    if let Some(folder) = folder {
        project_layers(folder, user_dir.as_deref(), user.as_ref(), found);
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

    #[test]
    fn project_layers_from_the_root_down_trusted_or_shown_as_not_loaded() {
        let home = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let (root, sub) = (repo.path().join("app"), repo.path().join("app/web"));
        for dir in [root.join(".git"), root.join(".codex"), sub.join(".codex"), home.path().join(".codex")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        // Above the project's root: not one of its layers.
        std::fs::create_dir_all(repo.path().join(".codex")).unwrap();
        std::fs::write(repo.path().join(".codex/config.toml"), "approval_policy = \"never\"\n").unwrap();
        std::fs::write(root.join(".codex/config.toml"), "sandbox_mode = \"read-only\"\n").unwrap();
        std::fs::write(sub.join(".codex/config.toml"), "approval_policy = \"on-request\"\n").unwrap();
        let user = home.path().join(".codex/config.toml");
        let trust = |level: &str| format!("[projects.\"{}\"]\ntrust_level = \"{level}\"\n", root.display());
        let listed = |found: &Found| -> Vec<(String, String, PathBuf)> {
            found
                .rules
                .iter()
                .filter(|r| r.scope == "project")
                .map(|r| (r.decision.clone(), r.rule.clone(), r.file.clone()))
                .collect()
        };

        std::fs::write(&user, trust("trusted")).unwrap();
        let mut found = Found::default();
        read(Some(home.path()), Some(&sub), &mut found);
        assert_eq!(
            listed(&found),
            [
                ("setting".into(), "sandbox_mode = \"read-only\"".into(), root.join(".codex/config.toml")),
                ("setting".into(), "approval_policy = \"on-request\"".into(), sub.join(".codex/config.toml")),
            ],
            "the root's layer first, the folder's last; nothing above the root"
        );

        // The folder itself untrusted: its own layer is not loaded, the root's is.
        let both = format!("{}[projects.\"{}\"]\ntrust_level = \"untrusted\"\n", trust("trusted"), sub.display());
        std::fs::write(&user, both).unwrap();
        let mut found = Found::default();
        read(Some(home.path()), Some(&sub), &mut found);
        let decisions: Vec<String> = listed(&found).into_iter().map(|r| r.0).collect();
        assert_eq!(decisions, ["setting", NOT_LOADED]);

        // No trust at all: neither is loaded.
        std::fs::write(&user, "").unwrap();
        let mut found = Found::default();
        read(Some(home.path()), Some(&sub), &mut found);
        let decisions: Vec<String> = listed(&found).into_iter().map(|r| r.0).collect();
        assert_eq!(decisions, [NOT_LOADED, NOT_LOADED]);
    }
}
