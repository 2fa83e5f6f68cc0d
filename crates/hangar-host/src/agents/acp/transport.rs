//! Reaching an ACP agent: a child process speaking NDJSON on stdio (started
//! in the session's working directory, in its own process group, stderr
//! tail kept for error messages), or a TCP address (`tcp://HOST:PORT`, e.g.
//! `copilot --acp --port N`).

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;

use crate::process_groups::signal_group;

/// Bytes of stderr kept for error messages.
const STDERR_TAIL: usize = 4096;

/// Why an agent could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The program did not start.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The error.
        source: std::io::Error,
    },
    /// The TCP address did not answer.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The address.
        addr: String,
        /// The error.
        source: std::io::Error,
    },
    /// The command was empty.
    #[error("the agent has no command")]
    NoCommand,
}

/// The byte streams of an agent plus what it takes to stop it.
pub struct Transport {
    /// Agent → host.
    pub reader: Box<dyn AsyncRead + Send + Unpin>,
    /// Host → agent.
    pub writer: Box<dyn AsyncWrite + Send + Unpin>,
    /// The process, if we started one.
    pub process: Option<AgentProcess>,
}

/// A started agent process and its stderr tail.
pub struct AgentProcess {
    child: Child,
    /// Process group id (= the child's pid).
    pub pgid: Option<u32>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// Becomes `true` when the stderr reader has read everything (EOF).
    stderr_done: watch::Receiver<bool>,
}

impl AgentProcess {
    /// The last few KiB the agent wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().map(|b| b.iter().copied().collect::<Vec<u8>>()).unwrap_or_default();
        String::from_utf8_lossy(&tail).trim().to_owned()
    }

    /// Wait until the stderr reader has reached EOF (every writer, including
    /// a child the agent left behind, closed it), for at most `limit`.
    /// Returns whether it did.
    pub async fn stderr_drained(&mut self, limit: Duration) -> bool {
        // An `Err` means the reader task is gone: nothing more will arrive.
        tokio::time::timeout(limit, self.stderr_done.wait_for(|done| *done)).await.is_ok()
    }

    /// Exit status if it has exited.
    pub fn try_exit(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Wait briefly for the process to exit (to collect its stderr).
    pub async fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        tokio::time::timeout(limit, self.child.wait()).await.ok().and_then(Result::ok)
    }

    /// End the whole process group: SIGTERM, then SIGKILL.
    pub async fn kill(&mut self) {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, "TERM");
            if tokio::time::timeout(Duration::from_millis(1500), self.child.wait()).await.is_err() {
                signal_group(pgid, "KILL");
            } else {
                // The leader is gone; children may linger.
                signal_group(pgid, "KILL");
            }
        }
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
    }
}

/// Start (or connect to) the agent given by `command`, with `env` set on
/// top of the host's environment (its saved API keys).
pub async fn open(command: &[String], cwd: &Path, env: &[(String, String)]) -> Result<Transport, TransportError> {
    let program = command.first().ok_or(TransportError::NoCommand)?;
    if let Some(addr) = program.strip_prefix("tcp://") {
        let addr = addr.trim_end_matches('/').to_owned();
        let stream = tokio::net::TcpStream::connect(&addr)
            .await
            .map_err(|source| TransportError::Connect { addr: addr.clone(), source })?;
        let (r, w) = stream.into_split();
        return Ok(Transport { reader: Box::new(r), writer: Box::new(w), process: None });
    }
    let mut cmd = Command::new(program);
    cmd.args(&command[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|source| TransportError::Spawn { program: program.clone(), source })?;
    let pgid = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(TransportError::Spawn { program: program.clone(), source: std::io::Error::other("no pipes") });
    };
    let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
    let sink = tail.clone();
    let (done_tx, stderr_done) = watch::channel(false);
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::debug!(target: "hangar_host::acp::stderr", "{line}");
            if let Ok(mut buf) = sink.lock() {
                buf.extend(line.bytes());
                buf.push_back(b'\n');
                while buf.len() > STDERR_TAIL {
                    buf.pop_front();
                }
            }
        }
        let _ = done_tx.send(true);
    });
    Ok(Transport {
        reader: Box::new(stdout),
        writer: Box::new(stdin),
        process: Some(AgentProcess { child, pgid, stderr: tail, stderr_done }),
    })
}
