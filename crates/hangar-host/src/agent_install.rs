//! Installing the well-known ACP agents into Hangar's own npm prefix,
//! `DATA_DIR/agents` ([`prefix`]), at the version Hangar pins
//! (`discovery::package_of`), and removing them again. `hangar serve` and
//! the desktop's embedded host search that prefix first, so an agent
//! installed here is found at their next start whatever `PATH` says.
//! npm does the work (`npm install --prefix`); its own output goes to the
//! caller's terminal. No npm, or an npm that fails (no network, no
//! registry), is said in words with npm's last lines.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::discovery::{known_ids, package_of};

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

/// Hangar's npm prefix under `data_dir`.
pub fn prefix(data_dir: &Path) -> PathBuf {
    data_dir.join(INSTALL_DIR)
}

/// Install agent `id` (at `version`, else the pinned one) into the prefix
/// under `data_dir`; returns the package and version installed.
pub fn install(data_dir: &Path, id: &str, version: Option<&str>) -> Result<(String, String), InstallError> {
    let (package, pinned) = known(id)?;
    let version = version.unwrap_or(pinned).to_owned();
    let dir = prefix(data_dir);
    std::fs::create_dir_all(&dir)?;
    npm(
        &dir,
        "install",
        &["install", "--no-audit", "--no-fund", "--save-exact", &format!("{package}@{version}")],
        package,
    )?;
    Ok((package.to_owned(), version))
}

/// Remove agent `id` from the prefix under `data_dir` (not installed there
/// is fine).
pub fn remove(data_dir: &Path, id: &str) -> Result<String, InstallError> {
    let (package, _) = known(id)?;
    let dir = prefix(data_dir);
    if dir.join("node_modules").join(package).exists() {
        npm(&dir, "uninstall", &["uninstall", "--no-audit", "--no-fund", package], package)?;
    }
    Ok(package.to_owned())
}

fn known(id: &str) -> Result<(&'static str, &'static str), InstallError> {
    package_of(id).ok_or_else(|| InstallError::Unknown { id: id.to_owned(), known: known_ids().join(", ") })
}

/// `npm ARGS --prefix DIR`, its stdout passed through, its stderr kept for
/// the error (and passed through too).
fn npm(dir: &Path, what: &'static str, args: &[&str], package: &str) -> Result<(), InstallError> {
    let out = Command::new("npm")
        .args(args)
        .arg("--prefix")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output();
    let out = match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(InstallError::NoNpm),
        other => other?,
    };
    let said = String::from_utf8_lossy(&out.stderr);
    eprint!("{said}");
    if out.status.success() {
        return Ok(());
    }
    let tail: Vec<&str> = said.lines().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect();
    Err(InstallError::Npm {
        what,
        package: package.to_owned(),
        status: out.status.code().map_or_else(|| "by a signal".to_owned(), |c| c.to_string()),
        said: tail.join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_known_agents_are_installed() {
        let dir = tempfile::tempdir().unwrap();
        let err = install(dir.path(), "rm -rf", None).unwrap_err();
        assert!(err.to_string().contains("not a well-known agent (one of: claude, codex"), "{err}");
        assert!(!prefix(dir.path()).exists());
    }
}
