//! Which rule answers a permission request.
//!
//! Patterns, by tool:
//! - `shell`: a command prefix, word by word (`npm test` matches
//!   `npm test -- --watch`, not `npm testing`); Claude Code's `npm test:*`
//!   form means the same. A command line is split into the commands it
//!   chains ([`super::shell`]); each is matched on its own.
//! - `edit` / `read`: a glob (`globset`, `*` stays within one folder, `**`
//!   crosses folders) relative to the session's folder; a path outside that
//!   folder never matches a relative glob. A glob starting with `/` matches
//!   absolute paths. `.` and `..` are resolved before matching.
//! - `mcp`: `server/tool`, either side `*` for any.
//! - `fetch`: a domain; `*.example.com` also matches its subdomains.
//!
//! Precedence, for each part of a request (each command of a chain, each
//! file): among the rules that match it, those of the most specific scope
//! decide (a session's over its folder's over the host's), and within one
//! scope a deny wins. The request is denied when any part is denied,
//! allowed when every part is allowed, and otherwise not answered (the
//! person is asked).

use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;

use super::shell;
use super::subject::{ToolRequest, ToolSubject};
use super::{Decision, Rule, ScopeKind, Tool};

/// The session a request comes from.
#[derive(Debug, Clone)]
pub struct SessionContext<'a> {
    /// Its URI (for `session` rules).
    pub session: &'a str,
    /// Its folder: `folder` rules apply when it is that folder or inside it;
    /// relative globs are relative to it.
    pub folder: &'a Path,
}

/// A rule's answer to a whole request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Allow or deny.
    pub decision: Decision,
    /// The rule that answered (for a deny, the deny rule; for an allow, the
    /// rule of the first part).
    pub rule: String,
    /// Every rule that took part (each gets a hit).
    pub rules: Vec<String>,
}

/// Whether `pattern` is a valid pattern for `tool`; the reason if not.
pub fn check_pattern(tool: Tool, pattern: &str) -> Result<(), String> {
    if pattern.is_empty() {
        return Err("must not be empty".to_owned());
    }
    match tool {
        Tool::Shell => {
            let commands = shell::commands(shell_prefix(pattern)).map_err(|e| e.to_string())?;
            match commands.len() {
                1 => Ok(()),
                0 => Err("names no command".to_owned()),
                _ => Err("is a chain of commands; a rule is one command prefix".to_owned()),
            }
        }
        Tool::Edit | Tool::Read => {
            GlobBuilder::new(pattern).literal_separator(true).build().map(drop).map_err(|e| e.kind().to_string())
        }
        Tool::Mcp => match pattern.split_once('/') {
            Some((server, tool)) if !server.is_empty() && !tool.is_empty() && !tool.contains('/') => Ok(()),
            _ => Err("must be server/tool (either may be *)".to_owned()),
        },
        Tool::Fetch => {
            let name = pattern.strip_prefix("*.").unwrap_or(pattern);
            let ok = !name.is_empty()
                && name
                    .split('.')
                    .all(|label| !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
            if ok {
                Ok(())
            } else {
                Err("must be a domain like example.com or *.example.com".to_owned())
            }
        }
    }
}

fn shell_prefix(pattern: &str) -> &str {
    pattern.strip_suffix(":*").unwrap_or(pattern)
}

/// `path` with `.` and `..` resolved (relative paths against `base`).
pub fn normalise(path: &Path, base: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_path_buf() } else { base.join(path) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn glob_matches(pattern: &str, path: &Path, folder: &Path) -> bool {
    let Ok(glob) = GlobBuilder::new(pattern).literal_separator(true).build() else {
        return false;
    };
    let matcher = glob.compile_matcher();
    let path = normalise(path, folder);
    if pattern.starts_with('/') {
        return matcher.is_match(&path);
    }
    match path.strip_prefix(normalise(folder, Path::new("/"))) {
        Ok(relative) => !relative.as_os_str().is_empty() && matcher.is_match(relative),
        Err(_) => false,
    }
}

fn words_match(pattern: &str, words: &[String]) -> bool {
    match shlex::split(shell_prefix(pattern)) {
        Some(prefix) => !prefix.is_empty() && words.len() >= prefix.len() && words[..prefix.len()] == prefix[..],
        None => false,
    }
}

fn domain_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.to_ascii_lowercase();
    match pattern.strip_prefix("*.") {
        Some(base) => host == base || host.ends_with(&format!(".{base}")),
        None => host == pattern,
    }
}

fn side_matches(pattern: &str, name: &str) -> bool {
    pattern == "*" || pattern == name
}

/// One unit of a request: a single command's words, or one other subject.
enum Unit<'a> {
    Words(Vec<String>),
    Subject(&'a ToolSubject),
}

fn unit_matches(rule: &Rule, unit: &Unit<'_>, ctx: &SessionContext<'_>) -> bool {
    match unit {
        Unit::Words(words) => words_match(&rule.pattern, words),
        Unit::Subject(ToolSubject::Path(path)) => glob_matches(&rule.pattern, path, ctx.folder),
        Unit::Subject(ToolSubject::Mcp { server, tool }) => match rule.pattern.split_once('/') {
            Some((s, t)) => side_matches(s, server) && side_matches(t, tool),
            None => false,
        },
        Unit::Subject(ToolSubject::Domain(host)) => domain_matches(&rule.pattern, host),
        Unit::Subject(ToolSubject::Command(_)) => false,
    }
}

fn scope_applies(rule: &Rule, ctx: &SessionContext<'_>) -> bool {
    match rule.scope.kind {
        ScopeKind::Host => true,
        ScopeKind::Session => rule.scope.uri.as_deref() == Some(ctx.session),
        ScopeKind::Folder => {
            rule.scope.uri.as_deref().and_then(|u| crate::resources::uri::file_uri_to_path(u).ok()).is_some_and(
                |folder| normalise(ctx.folder, Path::new("/")).starts_with(normalise(&folder, Path::new("/"))),
            )
        }
    }
}

/// The answer for one unit: the most specific scope's rules decide, a deny
/// among them wins.
fn unit_verdict<'r>(rules: &[&'r Rule], unit: &Unit<'_>, ctx: &SessionContext<'_>) -> Option<&'r Rule> {
    let matching: Vec<&Rule> = rules.iter().copied().filter(|r| unit_matches(r, unit, ctx)).collect();
    let narrowest = matching.iter().map(|r| r.scope.kind).min()?;
    let in_scope = matching.into_iter().filter(|r| r.scope.kind == narrowest);
    in_scope.min_by_key(|r| (r.decision != Decision::Deny, r.created_at.clone()))
}

fn units(request: &ToolRequest) -> Option<Vec<Unit<'_>>> {
    let mut out = Vec::new();
    for subject in &request.subjects {
        match subject {
            ToolSubject::Command(line) => out.extend(shell::commands(line).ok()?.into_iter().map(Unit::Words)),
            other => out.push(Unit::Subject(other)),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The rule answer for `request` from `ctx`'s session, if any.
pub fn decide(rules: &[Rule], ctx: &SessionContext<'_>, request: &ToolRequest) -> Option<Verdict> {
    let rules: Vec<&Rule> = rules.iter().filter(|r| r.tool == request.tool && scope_applies(r, ctx)).collect();
    if rules.is_empty() {
        return None;
    }
    let verdicts: Vec<Option<&Rule>> = units(request)?.iter().map(|u| unit_verdict(&rules, u, ctx)).collect();
    let mut used: Vec<String> = Vec::new();
    for rule in verdicts.iter().flatten() {
        if !used.contains(&rule.id) {
            used.push(rule.id.clone());
        }
    }
    if let Some(deny) = verdicts.iter().flatten().find(|r| r.decision == Decision::Deny) {
        return Some(Verdict { decision: Decision::Deny, rule: deny.id.clone(), rules: vec![deny.id.clone()] });
    }
    let all: Option<Vec<&Rule>> = verdicts.into_iter().collect();
    let first = all?.first()?.id.clone();
    Some(Verdict { decision: Decision::Allow, rule: first, rules: used })
}

#[cfg(test)]
mod tests {
    use super::super::Scope;
    use super::*;

    fn rule(id: &str, kind: ScopeKind, uri: Option<&str>, tool: Tool, pattern: &str, decision: Decision) -> Rule {
        Rule {
            id: id.to_owned(),
            scope: Scope { kind, uri: uri.map(str::to_owned) },
            tool,
            pattern: pattern.to_owned(),
            decision,
            created_by: "t".into(),
            created_at: format!("2026-11-28T05:00:00.00{}Z", id.len() % 10),
            hits: 0,
        }
    }

    fn host(id: &str, tool: Tool, pattern: &str, decision: Decision) -> Rule {
        rule(id, ScopeKind::Host, None, tool, pattern, decision)
    }

    fn ctx() -> SessionContext<'static> {
        SessionContext { session: "ahp:/s1", folder: Path::new("/w/proj") }
    }

    fn shell(rules: &[Rule], line: &str) -> Option<(Decision, String)> {
        let request = ToolRequest { tool: Tool::Shell, subjects: vec![ToolSubject::Command(line.to_owned())] };
        decide(rules, &ctx(), &request).map(|v| (v.decision, v.rule))
    }

    fn path(rules: &[Rule], tool: Tool, p: &str) -> Option<(Decision, String)> {
        let request = ToolRequest { tool, subjects: vec![ToolSubject::Path(PathBuf::from(p))] };
        decide(rules, &ctx(), &request).map(|v| (v.decision, v.rule))
    }

    use Decision::{Allow, Deny};

    #[test]
    fn command_prefixes_are_word_aware() {
        let rules = [host("a", Tool::Shell, "npm test", Allow)];
        assert_eq!(shell(&rules, "npm test"), Some((Allow, "a".into())));
        assert_eq!(shell(&rules, "npm test -- --watch"), Some((Allow, "a".into())));
        assert_eq!(shell(&rules, "npm  'test' -- --watch"), Some((Allow, "a".into())));
        assert_eq!(shell(&rules, "npm testing"), None);
        assert_eq!(shell(&rules, "npm"), None);
        let claude_form = [host("c", Tool::Shell, "cargo build:*", Allow)];
        assert_eq!(shell(&claude_form, "cargo build --release"), Some((Allow, "c".into())));
    }

    #[test]
    fn a_chain_is_allowed_only_when_every_part_is() {
        let rules = [host("a", Tool::Shell, "npm test", Allow), host("b", Tool::Shell, "git status", Allow)];
        assert_eq!(shell(&rules, "npm test && git status"), Some((Allow, "a".into())));
        for line in [
            "npm test && rm -rf /",
            "npm test; rm -rf /",
            "npm test || curl x",
            "npm test | sh",
            "npm test $(rm -rf /)",
            "npm test `rm -rf /`",
            "npm test\nrm -rf /",
            "npm test & rm -rf /",
            "npm test 'unclosed",
        ] {
            assert_eq!(shell(&rules, line), None, "{line:?}");
        }
        let with_deny = [host("a", Tool::Shell, "npm test", Allow), host("d", Tool::Shell, "rm", Deny)];
        assert_eq!(shell(&with_deny, "npm test && rm -rf /"), Some((Deny, "d".into())));
        assert_eq!(shell(&with_deny, "ls; rm x"), Some((Deny, "d".into())), "any part denied denies");
    }

    #[test]
    fn deny_wins_and_the_narrower_scope_wins() {
        let same_scope = [host("a", Tool::Shell, "npm", Allow), host("d", Tool::Shell, "npm test", Deny)];
        assert_eq!(shell(&same_scope, "npm test"), Some((Deny, "d".into())));
        assert_eq!(shell(&same_scope, "npm ci"), Some((Allow, "a".into())));
        let scoped = [
            host("h", Tool::Shell, "npm test", Deny),
            rule("f", ScopeKind::Folder, Some("file:///w"), Tool::Shell, "npm test", Allow),
        ];
        assert_eq!(shell(&scoped, "npm test"), Some((Allow, "f".into())), "folder over host");
        let mut more = scoped.to_vec();
        more.push(rule("s", ScopeKind::Session, Some("ahp:/s1"), Tool::Shell, "npm", Deny));
        assert_eq!(shell(&more, "npm test"), Some((Deny, "s".into())), "session over folder");
        let elsewhere = [
            rule("o", ScopeKind::Session, Some("ahp:/other"), Tool::Shell, "npm", Allow),
            rule("p", ScopeKind::Folder, Some("file:///w/projector"), Tool::Shell, "npm", Allow),
        ];
        assert_eq!(shell(&elsewhere, "npm test"), None, "another session's or folder's rules do not apply");
        let shell_rule_for_reads = [host("a", Tool::Shell, "cat", Allow)];
        assert_eq!(path(&shell_rule_for_reads, Tool::Read, "/w/proj/a"), None, "a rule is for its tool only");
    }

    #[test]
    fn globs_are_relative_to_the_folder() {
        let rules = [host("e", Tool::Edit, "src/**", Allow), host("t", Tool::Edit, "*.md", Allow)];
        assert_eq!(path(&rules, Tool::Edit, "/w/proj/src/a/b.rs"), Some((Allow, "e".into())));
        assert_eq!(path(&rules, Tool::Edit, "src/main.rs"), Some((Allow, "e".into())));
        assert_eq!(path(&rules, Tool::Edit, "README.md"), Some((Allow, "t".into())));
        assert_eq!(path(&rules, Tool::Edit, "docs/README.md"), None, "* stays in one folder");
        assert_eq!(path(&rules, Tool::Edit, "/w/proj/src/../../other/src/x"), None, ".. leaves the folder");
        assert_eq!(path(&rules, Tool::Edit, "src/../../proj/src/x.rs"), Some((Allow, "e".into())));
        assert_eq!(path(&rules, Tool::Edit, "/elsewhere/src/x.rs"), None, "outside the folder");
        assert_eq!(path(&rules, Tool::Read, "src/x.rs"), None);
        let absolute = [host("abs", Tool::Read, "/etc/*.conf", Deny)];
        assert_eq!(path(&absolute, Tool::Read, "/etc/x.conf"), Some((Deny, "abs".into())));
    }

    #[test]
    fn mcp_and_fetch_patterns() {
        let rules = [
            host("m", Tool::Mcp, "github/*", Allow),
            host("x", Tool::Mcp, "*/delete_repo", Deny),
            host("f", Tool::Fetch, "*.example.com", Allow),
            host("g", Tool::Fetch, "docs.rs", Allow),
        ];
        let mcp = |server: &str, tool: &str| {
            let subject = ToolSubject::Mcp { server: server.into(), tool: tool.into() };
            decide(&rules, &ctx(), &ToolRequest { tool: Tool::Mcp, subjects: vec![subject] }).map(|v| v.rule)
        };
        assert_eq!(mcp("github", "create_issue").as_deref(), Some("m"));
        assert_eq!(mcp("github", "delete_repo").as_deref(), Some("x"));
        assert_eq!(mcp("gitlab", "create_issue"), None);
        let fetch = |host: &str| {
            let subject = ToolSubject::Domain(host.into());
            decide(&rules, &ctx(), &ToolRequest { tool: Tool::Fetch, subjects: vec![subject] }).map(|v| v.rule)
        };
        assert_eq!(fetch("api.example.com").as_deref(), Some("f"));
        assert_eq!(fetch("example.com").as_deref(), Some("f"));
        assert_eq!(fetch("badexample.com"), None);
        assert_eq!(fetch("docs.rs").as_deref(), Some("g"));
        assert_eq!(fetch("x.docs.rs"), None);
    }

    #[test]
    fn patterns_are_checked() {
        assert!(check_pattern(Tool::Shell, "npm test").is_ok());
        assert!(check_pattern(Tool::Shell, "npm test; rm").is_err());
        assert!(check_pattern(Tool::Shell, "echo 'x").is_err());
        assert!(check_pattern(Tool::Edit, "src/[a").is_err());
        assert!(check_pattern(Tool::Mcp, "github").is_err());
        assert!(check_pattern(Tool::Mcp, "a/b/c").is_err());
        assert!(check_pattern(Tool::Fetch, "https://x.com/").is_err());
        assert!(check_pattern(Tool::Fetch, "*.x.com").is_ok());
        assert!(check_pattern(Tool::Fetch, "").is_err());
    }
}
