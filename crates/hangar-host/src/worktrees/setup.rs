//! The repository's setup script: an executable `.hangar/setup` (as the
//! worktree has it, i.e. as committed at `HEAD`) runs once in a new
//! worktree, in its top folder, before the session's first prompt can run.
//! Its standard output and error go to a log file the person can read; its
//! outcome is recorded in [`SetupRun`]. A failing script is reported, not
//! fatal: the worktree stays.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Where the script is, relative to the repository's top folder.
pub const SETUP_SCRIPT: &str = ".hangar/setup";

/// How long a setup may run before it is stopped and reported as failed.
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(600);

/// How a setup went, as `_meta["hangar/worktree"].setup` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetupRun {
    /// The log file (the script's output).
    pub log: PathBuf,
    /// Whether it exited with status 0.
    pub ok: bool,
    /// Its exit status, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Why it did not run or finish, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Run `worktree`'s setup script, if it has one, with its output in `log`;
/// `repository` is the folder the worktree was made from (given to the
/// script as `HANGAR_REPOSITORY`, the worktree as `HANGAR_WORKTREE`).
pub fn run(worktree: &Path, repository: &Path, log: &Path, timeout: Duration) -> Option<SetupRun> {
    let script = worktree.join(SETUP_SCRIPT);
    if !script.is_file() {
        return None;
    }
    let failed = |error: String| SetupRun { log: log.to_path_buf(), ok: false, exit_code: None, error: Some(error) };
    if !is_executable(&script) {
        return Some(failed(format!("{SETUP_SCRIPT} is not executable (chmod +x it to run it)")));
    }
    let out = match log.parent().map(std::fs::create_dir_all).transpose().and_then(|_| std::fs::File::create(log)) {
        Ok(file) => file,
        Err(e) => return Some(failed(format!("creating the log {}: {e}", log.display()))),
    };
    let err = match out.try_clone() {
        Ok(file) => file,
        Err(e) => return Some(failed(format!("opening the log {}: {e}", log.display()))),
    };
    let child = Command::new(&script)
        .current_dir(worktree)
        .env("HANGAR_WORKTREE", worktree)
        .env("HANGAR_REPOSITORY", repository)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return Some(failed(format!("starting {SETUP_SCRIPT}: {e}"))),
    };
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return Some(SetupRun {
                    log: log.to_path_buf(),
                    ok: status.success(),
                    exit_code: status.code(),
                    error: None,
                })
            }
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Some(failed(format!(
                    "{SETUP_SCRIPT} did not finish within {} s and was stopped",
                    timeout.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Some(failed(format!("waiting for {SETUP_SCRIPT}: {e}"))),
        }
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(SETUP_SCRIPT);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_setup_that_runs_too_long_is_stopped_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "#!/bin/sh\necho started\nexec sleep 30\n");
        let log = dir.path().join("logs/setup.log");
        let run = run(dir.path(), dir.path(), &log, Duration::from_millis(300)).unwrap();
        assert!(!run.ok);
        assert!(run.error.as_deref().unwrap_or_default().contains("did not finish"), "{run:?}");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "started\n");
    }

    #[test]
    fn no_script_no_run_and_a_script_that_is_not_executable_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("setup.log");
        assert_eq!(run(dir.path(), dir.path(), &log, SETUP_TIMEOUT), None);
        std::fs::create_dir_all(dir.path().join(".hangar")).unwrap();
        std::fs::write(dir.path().join(SETUP_SCRIPT), "#!/bin/sh\n").unwrap();
        let run = run(dir.path(), dir.path(), &log, SETUP_TIMEOUT).unwrap();
        assert!(!run.ok && run.error.unwrap().contains("not executable"));
    }
}
