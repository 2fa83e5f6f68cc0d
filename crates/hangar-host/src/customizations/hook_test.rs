//! A hook's test bench: run a hook's command on this host as an agent would
//! (`sh -c`, in the session's folder, the event's JSON on stdin,
//! `CLAUDE_PROJECT_DIR` and `GEMINI_PROJECT_DIR` set) and report what it
//! did: exit code, stdout and stderr (each cut at 64 KiB), and whether it
//! ran out of time. The whole process group is ended at the time limit, so
//! a hook that forks leaves nothing behind. What the result means for the
//! tool call (allowed, blocked, asked) is each agent's rule; the desktop
//! reads it (`ui/src/state/hook-verdict.ts`).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use crate::process_groups::signal_group;

/// Most bytes kept of each output stream.
const KEEP: usize = 64 * 1024;

/// What one run of a hook did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRun {
    /// The exit code (`None`: ended by a signal or at the time limit).
    pub exit_code: Option<i32>,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// It was ended at the time limit.
    pub timed_out: bool,
    /// How long it ran, in milliseconds.
    pub millis: u64,
}

/// Why a hook could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum HookTestError {
    /// The command is empty.
    #[error("the hook has no command")]
    NoCommand,
    /// `sh` could not be started.
    #[error("could not start sh: {0}")]
    Spawn(#[source] std::io::Error),
}

/// Run `command` with `input` on stdin in `cwd`, ending it after `limit`.
pub async fn run_hook(command: &str, input: &str, cwd: &Path, limit: Duration) -> Result<HookRun, HookTestError> {
    if command.trim().is_empty() {
        return Err(HookTestError::NoCommand);
    }
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env("CLAUDE_PROJECT_DIR", cwd)
        .env("GEMINI_PROJECT_DIR", cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(HookTestError::Spawn)?;
    let pgid = child.id();
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let input = input.to_owned();
    // A hook that never reads stdin closes it early: a failed write is not an error.
    let feed = async move {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(input.as_bytes()).await;
        }
    };
    let run = async { tokio::join!(feed, read_capped(stdout), read_capped(stderr), child.wait()) };
    match tokio::time::timeout(limit, run).await {
        Ok(((), out, err, status)) => Ok(HookRun {
            exit_code: status.ok().and_then(|s| s.code()),
            stdout: out,
            stderr: err,
            timed_out: false,
            millis: elapsed(started),
        }),
        Err(_) => {
            if let Some(pgid) = pgid {
                signal_group(pgid, "KILL");
            }
            Ok(HookRun {
                exit_code: None,
                stdout: String::new(),
                stderr: format!("stopped after {} s", limit.as_secs()),
                timed_out: true,
                millis: elapsed(started),
            })
        }
    }
}

fn elapsed(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A stream's text, its first [`KEEP`] bytes (the rest is read and dropped,
/// so the hook never blocks on a full pipe).
async fn read_capped(stream: Option<impl AsyncRead + Unpin>) -> String {
    let Some(mut stream) = stream else { return String::new() };
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let room = KEEP.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hook_reads_the_event_and_its_exit_code_and_outputs_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let run = run_hook(
            r#"input=$(cat); echo "got $input in $CLAUDE_PROJECT_DIR"; echo blocked >&2; exit 2"#,
            r#"{"tool_name":"Bash"}"#,
            dir.path(),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
        assert_eq!(run.exit_code, Some(2));
        assert_eq!(run.stdout.trim(), format!(r#"got {{"tool_name":"Bash"}} in {}"#, dir.path().display()));
        assert_eq!(run.stderr.trim(), "blocked");
        assert!(!run.timed_out);
    }

    #[tokio::test]
    async fn a_hook_past_its_time_is_ended_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("child-alive");
        let command = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let run = run_hook(&command, "", dir.path(), Duration::from_millis(300)).await.unwrap();
        assert!(run.timed_out);
        assert_eq!(run.exit_code, None);
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert!(!marker.exists(), "the hook's child was ended with it");
    }

    #[tokio::test]
    async fn an_empty_command_is_refused_and_huge_output_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(run_hook("  ", "", dir.path(), Duration::from_secs(1)).await, Err(HookTestError::NoCommand)));
        let run =
            run_hook("head -c 1000000 /dev/zero | tr '\\0' x", "", dir.path(), Duration::from_secs(20)).await.unwrap();
        assert_eq!(run.stdout.len(), KEEP);
        assert_eq!(run.exit_code, Some(0));
    }
}
