//! Agent discovery: finding the well-known ACP agents on `PATH` or in an npm
//! prefix, so a user who installed `codex-acp` or `@google/gemini-cli` gets
//! them without `--agent` flags (as Zed's agent panel lists installed agents).
//!
//! Map: the agents are the rows of [`KNOWN`] (`known.rs`); `search_dirs` — where to look; [`discover`]
//! — the agents to register, used by `hangar serve` and by the desktop app's
//! embedded host, so both list the same agents; [`survey`] — every
//! well-known agent with where it was found and its version, or that it is
//! missing (`hangar agents list`).

use std::path::{Path, PathBuf};

use super::known::{KnownAgent, KNOWN};
use crate::agents::AgentSpec;

/// A well-known agent as [`survey`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presence {
    /// Its id (`--agent` and `createSession`'s provider).
    pub id: String,
    /// Its name.
    pub display_name: String,
    /// The npm package that provides it.
    pub package: String,
    /// The executable found, if any.
    pub program: Option<PathBuf>,
    /// The version of its npm package, when the executable belongs to one.
    pub version: Option<String>,
}

/// Every well-known agent, in the table's order: where it was found (the
/// same search as [`discover`]) and its package's version, or `program:
/// None` when it is missing.
pub fn survey(path_var: Option<&std::ffi::OsStr>, npm_prefixes: &[PathBuf]) -> Vec<Presence> {
    let dirs = search_dirs(path_var, npm_prefixes);
    KNOWN
        .iter()
        .map(|known| {
            let program = find(known, &dirs);
            let version = program.as_deref().and_then(|p| package_version(p, known.package));
            Presence {
                id: known.id.to_owned(),
                display_name: known.name.to_owned(),
                package: known.package.to_owned(),
                program,
                version,
            }
        })
        .collect()
}

/// The first of `known`'s executables in `dirs`.
fn find(known: &KnownAgent, dirs: &[PathBuf]) -> Option<PathBuf> {
    known.executables.iter().flat_map(|exe| dirs.iter().map(move |d| d.join(exe))).find(|c| is_executable(c))
}

/// The version in the `package.json` of `package` that `program` (an npm
/// bin link, followed) belongs to.
fn package_version(program: &Path, package: &str) -> Option<String> {
    let real = std::fs::canonicalize(program).ok()?;
    let root = real.ancestors().find(|dir| dir.ends_with(package))?;
    let text = std::fs::read_to_string(root.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("version")?.as_str().map(str::to_owned)
}

/// The folders searched: each `npm_prefix`'s `bin` and `node_modules/.bin`,
/// then `PATH`.
fn search_dirs(path_var: Option<&std::ffi::OsStr>, npm_prefixes: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        npm_prefixes.iter().flat_map(|p| [p.join("bin"), p.join("node_modules/.bin")]).collect();
    if let Some(path) = path_var {
        dirs.extend(std::env::split_paths(path));
    }
    dirs
}

/// Whether `path` is a file this user may run.
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The well-known agents found in each `npm_prefixes` entry's `bin` and
/// `node_modules/.bin`, then on `path_var` (a `PATH`-style list), in the
/// table's order, skipping ids in `taken` (explicit `--agent` wins). An
/// agent is found when one of its executables exists there and is
/// executable; the first match wins.
pub fn discover(path_var: Option<&std::ffi::OsStr>, npm_prefixes: &[PathBuf], taken: &[String]) -> Vec<AgentSpec> {
    let dirs = search_dirs(path_var, npm_prefixes);
    let mut found = Vec::new();
    for known in KNOWN {
        if taken.iter().any(|t| t == known.id) {
            continue;
        }
        if let Some(program) = find(known, &dirs) {
            let mut spec_line =
                format!("{}={}", known.id, shlex::try_quote(&program.to_string_lossy()).unwrap_or_default());
            for arg in known.acp_args {
                spec_line.push(' ');
                spec_line.push_str(arg);
            }
            if let Ok(spec) = AgentSpec::parse(&spec_line) {
                found.push(spec);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn exe(dir: &Path, name: &str) {
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_survey_lists_every_agent_with_its_package_version_or_as_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let prefix = tmp.path().join("prefix");
        let package = prefix.join("node_modules/@zed-industries/codex-acp");
        std::fs::create_dir_all(package.join("bin")).unwrap();
        std::fs::write(package.join("package.json"), r#"{"name": "@zed-industries/codex-acp", "version": "0.16.0"}"#)
            .unwrap();
        exe(&package.join("bin"), "codex-acp.js");
        std::fs::create_dir_all(prefix.join("node_modules/.bin")).unwrap();
        std::os::unix::fs::symlink(
            "../@zed-industries/codex-acp/bin/codex-acp.js",
            prefix.join("node_modules/.bin/codex-acp"),
        )
        .unwrap();
        let found = survey(None, std::slice::from_ref(&prefix));
        let ids: Vec<&str> = found.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["claude", "codex", "gemini", "copilot", "opencode", "qwen"]);
        let codex = &found[1];
        assert_eq!(codex.program.as_deref(), Some(prefix.join("node_modules/.bin/codex-acp").as_path()));
        assert_eq!(codex.version.as_deref(), Some("0.16.0"));
        assert_eq!(found[2].program, None);
        assert_eq!(found[2].package, "@google/gemini-cli");
        assert_eq!(found[2].display_name, "Gemini CLI");
    }

    #[test]
    fn finds_known_agents_on_path_and_in_npm_prefixes() {
        let tmp = tempfile::tempdir().unwrap();
        let on_path = tmp.path().join("path");
        let prefix = tmp.path().join("prefix");
        std::fs::create_dir_all(&on_path).unwrap();
        std::fs::create_dir_all(prefix.join("node_modules/.bin")).unwrap();
        exe(&on_path, "codex-acp");
        exe(&on_path, "gemini");
        exe(&prefix.join("node_modules/.bin"), "claude-code-acp");
        std::fs::write(on_path.join("qwen"), "not executable").unwrap();
        let path = std::env::join_paths([&on_path]).unwrap();
        let found = discover(Some(&path), std::slice::from_ref(&prefix), &["gemini".to_owned()]);
        let ids: Vec<&str> = found.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["claude", "codex"], "gemini was given explicitly; qwen is not executable");
        assert_eq!(
            found[0].command,
            vec![prefix.join("node_modules/.bin/claude-code-acp").to_string_lossy().into_owned()]
        );
        assert_eq!(found[0].display_name, "Claude Agent");
    }

    #[test]
    fn adds_the_acp_arguments() {
        let tmp = tempfile::tempdir().unwrap();
        exe(tmp.path(), "copilot");
        let path = std::env::join_paths([tmp.path()]).unwrap();
        let found = discover(Some(&path), &[], &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(&found[0].command[1..], ["--acp", "--stdio"]);
    }
}
