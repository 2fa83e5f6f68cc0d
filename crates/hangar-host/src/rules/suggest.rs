//! The rule a person would most likely make from a confirmation: the tool
//! and a pattern to prefill (they edit it before saving). The host puts it
//! on a pending tool call as `_meta["hangar/ruleSuggestion"]`
//! (`{"tool", "pattern"}`), so every client offers the same *Always allow*.
//!
//! - shell: the first command's program and, when the next word is a
//!   subcommand (not an option or a path), that word too: `npm test -- -w`
//!   → `npm test`, `ls -la` → `ls`;
//! - edit / read: the file relative to the session's folder (absolute when
//!   outside it); several files: their folder with `/**`;
//! - mcp: `server/tool`; fetch: the domain.

use std::path::Path;

use serde_json::{json, Value};

use super::matching::normalise;
use super::shell;
use super::subject::{ToolRequest, ToolSubject};

/// `_meta` key of the suggestion on a pending tool call.
pub const META_KEY: &str = "hangar/ruleSuggestion";

fn is_subcommand(word: &str) -> bool {
    !word.is_empty() && !word.starts_with('-') && !word.contains(['/', '=', '.', '$'])
}

fn shell_pattern(line: &str) -> Option<String> {
    let first = shell::commands(line).ok()?.into_iter().next()?;
    let take = if first.get(1).is_some_and(|w| is_subcommand(w)) { 2 } else { 1 };
    shlex::try_join(first.iter().take(take).map(String::as_str)).ok()
}

fn shown(path: &Path, folder: &Path) -> String {
    let path = normalise(path, folder);
    match path.strip_prefix(normalise(folder, Path::new("/"))) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.display().to_string(),
        _ => path.display().to_string(),
    }
}

fn path_pattern(paths: &[&Path], folder: &Path) -> Option<String> {
    match paths {
        [] => None,
        [one] => Some(shown(one, folder)),
        [first, rest @ ..] => {
            let mut common = normalise(first, folder).parent()?.to_path_buf();
            for p in rest {
                let p = normalise(p, folder);
                while !p.starts_with(&common) && common.pop() {}
            }
            Some(if common == normalise(folder, Path::new("/")) {
                "**".to_owned()
            } else {
                format!("{}/**", shown(&common, folder))
            })
        }
    }
}

/// The suggested rule for `request` from a session working in `folder`,
/// as `{"tool", "pattern"}`.
pub fn suggestion(request: &ToolRequest, folder: &Path) -> Option<Value> {
    let pattern = match request.subjects.first()? {
        ToolSubject::Command(line) => shell_pattern(line)?,
        ToolSubject::Mcp { server, tool } => format!("{server}/{tool}"),
        ToolSubject::Domain(host) => host.clone(),
        ToolSubject::Path(_) => {
            let paths: Vec<&Path> = request
                .subjects
                .iter()
                .filter_map(|s| match s {
                    ToolSubject::Path(p) => Some(p.as_path()),
                    _ => None,
                })
                .collect();
            path_pattern(&paths, folder)?
        }
    };
    Some(json!({ "tool": request.tool, "pattern": pattern }))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::rules::Tool;

    fn suggest(tool: Tool, subjects: Vec<ToolSubject>) -> Option<String> {
        let v = suggestion(&ToolRequest { tool, subjects }, Path::new("/w/proj"))?;
        Some(v["pattern"].as_str()?.to_owned())
    }

    fn cmd(line: &str) -> Option<String> {
        suggest(Tool::Shell, vec![ToolSubject::Command(line.into())])
    }

    fn paths(p: &[&str]) -> Option<String> {
        suggest(Tool::Edit, p.iter().map(|p| ToolSubject::Path(PathBuf::from(p))).collect())
    }

    #[test]
    fn patterns_a_person_would_keep() {
        assert_eq!(cmd("npm test -- --watch").as_deref(), Some("npm test"));
        assert_eq!(cmd("cargo build --release && ls").as_deref(), Some("cargo build"));
        assert_eq!(cmd("ls -la").as_deref(), Some("ls"));
        assert_eq!(cmd("cat src/main.rs").as_deref(), Some("cat"));
        assert_eq!(cmd("'my tool' run").as_deref(), Some("'my tool' run"));
        assert_eq!(paths(&["/w/proj/src/a.rs"]).as_deref(), Some("src/a.rs"));
        assert_eq!(paths(&["/w/proj/src/a.rs", "/w/proj/src/b/c.rs"]).as_deref(), Some("src/**"));
        assert_eq!(paths(&["/w/proj/a.rs", "/w/proj/src/c.rs"]).as_deref(), Some("**"));
        assert_eq!(paths(&["/etc/hosts"]).as_deref(), Some("/etc/hosts"));
        let mcp = ToolSubject::Mcp { server: "github".into(), tool: "create_issue".into() };
        assert_eq!(suggest(Tool::Mcp, vec![mcp]).as_deref(), Some("github/create_issue"));
        assert_eq!(suggest(Tool::Fetch, vec![ToolSubject::Domain("docs.rs".into())]).as_deref(), Some("docs.rs"));
        // Every suggestion is a valid pattern for its tool.
        for (tool, p) in
            [(Tool::Shell, cmd("npm test -- --watch")), (Tool::Edit, paths(&["/w/proj/a.rs", "/w/proj/src/c.rs"]))]
        {
            assert!(crate::rules::matching::check_pattern(tool, &p.unwrap()).is_ok());
        }
    }
}
