//! Running the user's own `git` (and `gh`) for the review loop's writes:
//! never waiting on a person (`GIT_TERMINAL_PROMPT=0`, `GH_PROMPT_DISABLED`,
//! standard input closed) and never for long (a timeout, then the
//! process's group is stopped). The output goes to temporary files, so a
//! chatty command cannot fill a pipe and stall.

use std::io::{Read, Seek};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::GitLoopError;

/// How long a push, a merge or a `gh` call may take.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// What a finished command said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// Whether it exited with status 0.
    pub ok: bool,
    /// Its standard output, trimmed at the end.
    pub stdout: String,
    /// Its standard error, then its standard output, trimmed.
    pub both: String,
}

/// Run `program args…` in `dir` with the rules above; `Err` only when it
/// could not run or ran out of time.
pub fn run(program: &str, dir: &Path, args: &[&str], timeout: Duration) -> Result<Said, GitLoopError> {
    let missing = |e: std::io::Error| GitLoopError::Missing { program: program.to_owned(), reason: e.to_string() };
    let io = |e: std::io::Error| GitLoopError::Io(format!("running {program}: {e}"));
    let mut out = tempfile::tempfile().map_err(io)?;
    let mut err = tempfile::tempfile().map_err(io)?;
    let mut child = {
        use std::os::unix::process::CommandExt;
        Command::new(program)
            .current_dir(dir)
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GH_PROMPT_DISABLED", "1")
            .env("GIT_ASKPASS", "")
            .stdin(Stdio::null())
            .stdout(out.try_clone().map_err(io)?)
            .stderr(err.try_clone().map_err(io)?)
            .process_group(0)
            .spawn()
            .map_err(missing)?
    };
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait().map_err(io)? {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                crate::process_groups::signal_group(child.id(), "KILL");
                let _ = child.wait();
                return Err(GitLoopError::TimedOut {
                    command: format!("{program} {}", args.join(" ")),
                    secs: timeout.as_secs(),
                });
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let read = |file: &mut std::fs::File| -> Result<String, GitLoopError> {
        let mut text = String::new();
        file.rewind().map_err(io)?;
        file.read_to_string(&mut text).map_err(io)?;
        Ok(text)
    };
    let (stdout, stderr) = (read(&mut out)?, read(&mut err)?);
    let both = format!("{}\n{}", stderr.trim(), stdout.trim()).trim().to_owned();
    Ok(Said { ok: status.success(), stdout: stdout.trim_end().to_owned(), both })
}

/// `git -C dir args…`: its standard output, or a refusal quoting git.
pub fn git(dir: &Path, args: &[&str]) -> Result<String, GitLoopError> {
    let said = run("git", dir, args, TIMEOUT)?;
    if said.ok {
        Ok(said.stdout)
    } else {
        Err(GitLoopError::Refused(format!("git {} failed: {}", args.first().copied().unwrap_or_default(), said.both)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_past_its_time_is_stopped_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let err = run("sh", dir.path(), &["-c", "sleep 30 & wait"], Duration::from_millis(300)).unwrap_err();
        assert!(matches!(err, GitLoopError::TimedOut { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
