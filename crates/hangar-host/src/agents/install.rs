//! Installing the well-known ACP agents into Hangar's own npm prefix,
//! `DATA_DIR/agents` ([`prefix`]), at the version Hangar pins
//! (`known::package_of`), and removing them again. The host searches
//! that prefix first (`registry.rs`), so an agent installed here is
//! found whatever `PATH` says.
//!
//! npm does the work. An install runs it twice:
//! 1. `npm install --dry-run --json`: the packages to add, which gives the
//!    progress bar its length (and fails fast without a network);
//! 2. `npm install --loglevel http`: one line per package tarball fetched
//!    (or taken from npm's cache), counted against that length.
//!
//! [`Installs`] keeps each running (or failed) install's [`Progress`] for
//! the Agents page. No npm, or an npm that fails (no network, no registry),
//! is said in words with npm's last lines.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::agents::known::{known_ids, package_of};
use crate::locks::lock;

/// The folder, under the data dir, agents are installed into.
pub const INSTALL_DIR: &str = "agents";

/// Why an install or removal failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// Not a well-known agent.
    #[error("{id:?} is not a well-known agent (one of: {known})")]
    Unknown {
        /// The name given.
        id: String,
        /// The known ones.
        known: String,
    },
    /// A version npm would not take as one (or might take as an option).
    #[error("{0:?} is not a version (digits, letters, '.', '-' and '+', as in 0.16.0)")]
    BadVersion(String),
    /// npm is not on `PATH`.
    #[error(
        "npm is not installed on this machine: install Node.js 20 or newer with npm (Debian: apt install nodejs npm)"
    )]
    NoNpm,
    /// npm ran and failed.
    #[error(
        "npm could not {what} {package} (exit {status}); is the npm registry reachable from here? npm said:\n{said}"
    )]
    Npm {
        /// install / uninstall.
        what: &'static str,
        /// The package.
        package: String,
        /// npm's exit status.
        status: String,
        /// The end of what npm wrote to stderr.
        said: String,
    },
    /// The prefix could not be made or npm not started.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Where an install is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// npm is working out what to fetch.
    Resolving,
    /// Fetching package tarballs: `done` of `total`.
    Downloading,
    /// Everything fetched; npm is unpacking and linking.
    Linking,
    /// It failed: `error` says why.
    Failed,
}

/// One install's progress, as the Agents page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// The version being installed.
    pub version: String,
    /// Where it is.
    pub phase: Phase,
    /// Packages fetched.
    pub done: u32,
    /// Packages to fetch (0 until resolved).
    pub total: u32,
    /// npm's last line.
    pub line: String,
    /// Why it failed.
    pub error: Option<String>,
}

/// The installs the host runs for clients, by agent id: running ones, and
/// failed ones until the next attempt.
#[derive(Debug, Clone, Default)]
pub struct Installs(Arc<Mutex<HashMap<String, Progress>>>);

impl Installs {
    /// Agent `id`'s install, if one runs or failed.
    pub fn get(&self, id: &str) -> Option<Progress> {
        lock(&self.0).get(id).cloned()
    }

    /// Mark an install of `id` at `version` as started; false if one runs.
    pub fn begin(&self, id: &str, version: &str) -> bool {
        let mut all = lock(&self.0);
        if all.get(id).is_some_and(|p| p.phase != Phase::Failed) {
            return false;
        }
        let progress = Progress {
            version: version.to_owned(),
            phase: Phase::Resolving,
            done: 0,
            total: 0,
            line: String::new(),
            error: None,
        };
        all.insert(id.to_owned(), progress);
        true
    }

    /// Apply `event` to `id`'s progress.
    pub fn update(&self, id: &str, event: &Event) {
        if let Some(p) = lock(&self.0).get_mut(id) {
            event.apply(p);
        }
    }

    /// The install of `id` ended: forgotten when it worked, kept with its
    /// error when it failed.
    pub fn end(&self, id: &str, result: Result<(), &InstallError>) {
        let mut all = lock(&self.0);
        match result {
            Ok(()) => {
                all.remove(id);
            }
            Err(e) => {
                if let Some(p) = all.get_mut(id) {
                    p.phase = Phase::Failed;
                    p.error = Some(e.to_string());
                }
            }
        }
    }
}

/// What an install reports as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The number of packages to fetch.
    Total(u32),
    /// Packages fetched so far.
    Fetched(u32),
    /// A line npm wrote.
    Line(String),
}

impl Event {
    fn apply(&self, p: &mut Progress) {
        match self {
            Self::Total(total) => {
                p.total = *total;
                p.phase = Phase::Downloading;
            }
            Self::Fetched(done) => {
                p.done = *done;
                p.phase = if p.total > 0 && *done >= p.total { Phase::Linking } else { Phase::Downloading };
            }
            Self::Line(line) => p.line = line.clone(),
        }
    }
}

/// Hangar's npm prefix under `data_dir`.
pub fn prefix(data_dir: &Path) -> PathBuf {
    data_dir.join(INSTALL_DIR)
}

/// The version `install` puts in for `id` when given none.
pub fn pinned(id: &str) -> Result<&'static str, InstallError> {
    known(id).map(|(_, pinned)| pinned)
}

/// Install agent `id` (at `version`, else the pinned one) into the prefix
/// under `data_dir`, reporting to `on`; returns the package and version
/// installed. `echo` also writes npm's output to this process's stderr
/// (the command line).
pub fn install(
    data_dir: &Path,
    id: &str,
    version: Option<&str>,
    echo: bool,
    on: &mut dyn FnMut(Event),
) -> Result<(String, String), InstallError> {
    let (package, pinned) = known(id)?;
    let version = version.unwrap_or(pinned).to_owned();
    let plain = version.chars().all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
    if version.is_empty() || version.starts_with('-') || !plain {
        return Err(InstallError::BadVersion(version));
    }
    let dir = prefix(data_dir);
    std::fs::create_dir_all(&dir)?;
    let spec = format!("{package}@{version}");
    let base = ["install", "--no-audit", "--no-fund", "--save-exact"];
    let plan =
        npm(&dir, "install", &[&base[..], &["--dry-run", "--json", &spec]].concat(), package, false, &mut |_| {})?;
    on(Event::Total(packages_to_add(&plan)));
    let mut fetched = HashSet::new();
    npm(&dir, "install", &[&base[..], &["--loglevel", "http", &spec]].concat(), package, echo, &mut |line| {
        if let Some(tarball) = line.split_whitespace().find(|w| w.ends_with(".tgz")) {
            if fetched.insert(tarball.to_owned()) {
                on(Event::Fetched(u32::try_from(fetched.len()).unwrap_or(u32::MAX)));
            }
        }
        on(Event::Line(line.to_owned()));
    })?;
    Ok((package.to_owned(), version))
}

/// Remove agent `id` from the prefix under `data_dir` (not installed there
/// is fine); `echo` as for [`install`].
pub fn remove(data_dir: &Path, id: &str, echo: bool) -> Result<String, InstallError> {
    let (package, _) = known(id)?;
    let dir = prefix(data_dir);
    if dir.join("node_modules").join(package).exists() {
        npm(&dir, "uninstall", &["uninstall", "--no-audit", "--no-fund", package], package, echo, &mut |_| {})?;
    }
    Ok(package.to_owned())
}

fn known(id: &str) -> Result<(&'static str, &'static str), InstallError> {
    package_of(id).ok_or_else(|| InstallError::Unknown { id: id.to_owned(), known: known_ids().join(", ") })
}

/// The number of packages a `--dry-run --json` plan adds (at least one:
/// the agent's own, when npm's answer says nothing usable). npm 9 and 10
/// print an `add NAME VERSION` line per package before the JSON.
fn packages_to_add(plan: &str) -> u32 {
    let json_start = plan.find("\n{").map_or(0, |i| i + 1);
    let json: serde_json::Value = serde_json::from_str(&plan[json_start..]).unwrap_or_default();
    let listed = json.get("add").and_then(serde_json::Value::as_array).map(Vec::len);
    let n = listed.unwrap_or_else(|| plan.lines().filter(|l| l.starts_with("add ")).count());
    u32::try_from(n.max(1)).unwrap_or(u32::MAX)
}

/// `npm ARGS --prefix DIR`: each stderr line given to `line` (and, with
/// `echo`, to this process's stderr with stdout passed through); the end of
/// stderr kept for the error. Returns stdout when not echoed.
fn npm(
    dir: &Path,
    what: &'static str,
    args: &[&str],
    package: &str,
    echo: bool,
    line: &mut dyn FnMut(&str),
) -> Result<String, InstallError> {
    let spawned = Command::new("npm")
        .args(args)
        .arg("--prefix")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(if echo { Stdio::inherit() } else { Stdio::piped() })
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(InstallError::NoNpm),
        other => other?,
    };
    // stdout (a dry run's JSON) is read on its own thread so neither pipe
    // fills while the other is read.
    let stdout = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut out, &mut text);
            text
        })
    });
    let mut tail: Vec<String> = Vec::new();
    if let Some(err) = child.stderr.take() {
        for text in BufReader::new(err).lines().map_while(Result::ok) {
            if echo {
                eprintln!("{text}");
            }
            line(&text);
            tail.push(text);
            if tail.len() > 8 {
                tail.remove(0);
            }
        }
    }
    let status = child.wait()?;
    let out = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
    if status.success() {
        return Ok(out);
    }
    Err(InstallError::Npm {
        what,
        package: package.to_owned(),
        status: status.code().map_or_else(|| "by a signal".to_owned(), |c| c.to_string()),
        said: tail.join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_known_agents_are_installed() {
        let dir = tempfile::tempdir().unwrap();
        let err = install(dir.path(), "rm -rf", None, false, &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("not a well-known agent (one of: claude, codex"), "{err}");
        assert!(!prefix(dir.path()).exists());
        let err = install(dir.path(), "qwen", Some("--ignore-scripts=false"), false, &mut |_| {}).unwrap_err();
        assert!(matches!(err, InstallError::BadVersion(_)), "{err}");
    }

    #[test]
    fn progress_goes_from_resolving_through_downloading_to_linking_and_keeps_a_failure() {
        let installs = Installs::default();
        assert!(installs.begin("qwen", "0.15.10"));
        assert!(!installs.begin("qwen", "0.15.10"), "one install of an agent at a time");
        assert_eq!(installs.get("qwen").unwrap().phase, Phase::Resolving);
        installs.update("qwen", &Event::Total(3));
        installs.update("qwen", &Event::Fetched(2));
        installs.update("qwen", &Event::Line("npm http fetch".into()));
        let p = installs.get("qwen").unwrap();
        assert_eq!((p.phase, p.done, p.total, p.line.as_str()), (Phase::Downloading, 2, 3, "npm http fetch"));
        installs.update("qwen", &Event::Fetched(3));
        assert_eq!(installs.get("qwen").unwrap().phase, Phase::Linking);
        installs.end("qwen", Err(&InstallError::NoNpm));
        let failed = installs.get("qwen").unwrap();
        assert_eq!(failed.phase, Phase::Failed);
        assert!(failed.error.unwrap().contains("npm is not installed"));
        assert!(installs.begin("qwen", "0.15.10"), "a failed install may be tried again");
        installs.end("qwen", Ok(()));
        assert_eq!(installs.get("qwen"), None);
    }

    #[test]
    fn a_dry_run_plan_gives_the_number_of_packages() {
        assert_eq!(packages_to_add(r#"{"add": [{"name": "a"}, {"name": "b"}], "change": []}"#), 2);
        // npm 9/10: a line per package, then the JSON.
        let npm10 = "add @a/b 1.0.0\nadd c 2.0.0\nadd d 0.1.0\n{\n  \"add\": [{}, {}, {}]\n}\n";
        assert_eq!(packages_to_add(npm10), 3);
        assert_eq!(packages_to_add("add a 1\nadd b 2\n"), 2);
        assert_eq!(packages_to_add("not json"), 1);
    }
}
