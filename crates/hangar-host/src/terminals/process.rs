//! One command run in a terminal: its own process group, stdout and stderr
//! read as they come, its exit kept for every waiter.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::sync::watch;

use super::output::{Output, Utf8Stream};
use crate::locks::lock;
use crate::process_groups::signal_group;

/// How long the readers may drain after the command has exited (a
/// background child can hold the pipes open).
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// What to run.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The program (found on `PATH` when not a path).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set on top of the host's environment.
    pub env: Vec<(String, String)>,
    /// Its working directory.
    pub cwd: PathBuf,
}

impl Launch {
    /// The command line as a person would type it (a terminal's title).
    pub fn command_line(&self) -> String {
        let words = std::iter::once(&self.program).chain(&self.args);
        let quoted: Vec<String> =
            words.map(|w| shlex::try_quote(w).map_or_else(|_| w.clone(), std::borrow::Cow::into_owned)).collect();
        quoted.join(" ")
    }
}

/// How a command ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exit {
    /// Its exit code, when it exited on its own.
    pub code: Option<u32>,
    /// The signal that ended it (`SIGKILL`, …), when one did.
    pub signal: Option<String>,
}

/// A command's exit, kept for every waiter (pipes and pseudo-terminals alike).
#[derive(Debug, Clone)]
pub struct ExitWatch(watch::Receiver<Option<Exit>>);

impl ExitWatch {
    /// A watch, and the sender that sets the exit once.
    pub fn channel() -> (watch::Sender<Option<Exit>>, Self) {
        let (tx, rx) = watch::channel(None);
        (tx, Self(rx))
    }

    /// The exit, once the command has ended.
    pub fn get(&self) -> Option<Exit> {
        self.0.borrow().clone()
    }

    /// Resolves with the exit once the command has ended.
    pub fn wait(&self) -> impl std::future::Future<Output = Exit> + Send + 'static {
        let mut exit = self.0.clone();
        async move {
            match exit.wait_for(Option::is_some).await {
                Ok(done) => done.clone().unwrap_or_default(),
                Err(_) => Exit::default(),
            }
        }
    }
}

/// Told what a terminal's command does, in order: output, then its exit.
pub trait TerminalEvents: Send + Sync + 'static {
    /// More output (stdout and stderr as they come).
    fn output(&self, text: &str);
    /// The command ended; no output follows.
    fn exited(&self, exit: &Exit);
}

/// A running (or ended) command.
pub struct TerminalProcess {
    pgid: Option<u32>,
    output: Arc<Mutex<Output>>,
    exit: ExitWatch,
}

impl TerminalProcess {
    /// Start `launch`; `limit` bytes of output are kept for [`Self::output`].
    pub fn spawn(launch: &Launch, limit: usize, events: Arc<dyn TerminalEvents>) -> std::io::Result<Self> {
        let mut cmd = Command::new(&launch.program);
        cmd.args(&launch.args)
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&launch.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let pgid = child.id();
        let output = Arc::new(Mutex::new(Output::new(limit)));
        let (exit_tx, exit) = ExitWatch::channel();
        let readers: Vec<_> = [
            child.stdout.take().map(|r| Box::new(r) as Box<dyn AsyncRead + Send + Unpin>),
            child.stderr.take().map(|r| Box::new(r) as Box<dyn AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        .map(|reader| tokio::spawn(read_into(reader, output.clone(), events.clone())))
        .collect();
        tokio::spawn(async move {
            let status = child.wait().await;
            let drained = async {
                for reader in readers {
                    let _ = reader.await;
                }
            };
            let _ = tokio::time::timeout(DRAIN_AFTER_EXIT, drained).await;
            let exit = match status {
                Ok(status) => exit_of(status),
                Err(e) => {
                    tracing::warn!("waiting for a terminal command: {e}");
                    Exit::default()
                }
            };
            events.exited(&exit);
            let _ = exit_tx.send(Some(exit));
        });
        Ok(Self { pgid, output, exit })
    }

    /// The retained output, whether older output was dropped, and the exit
    /// once there is one.
    pub fn output(&self) -> (String, bool, Option<Exit>) {
        let out = lock(&self.output);
        (out.text().to_owned(), out.truncated(), self.exit.get())
    }

    /// The exit, once the command has ended.
    pub fn exit(&self) -> Option<Exit> {
        self.exit.get()
    }

    /// Resolves with the exit once the command has ended.
    pub fn wait(&self) -> impl std::future::Future<Output = Exit> + Send + 'static {
        self.exit.wait()
    }

    /// End the command and everything it started (its process group).
    pub fn kill(&self) {
        if let (Some(pgid), None) = (self.pgid, self.exit()) {
            signal_group(pgid, "KILL");
        }
    }
}

impl Drop for TerminalProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn read_into(
    mut reader: Box<dyn AsyncRead + Send + Unpin>,
    output: Arc<Mutex<Output>>,
    events: Arc<dyn TerminalEvents>,
) {
    let mut text = Utf8Stream::default();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let (piece, end) = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => (text.finish(), true),
            Ok(n) => (text.decode(&buf[..n]), false),
        };
        if !piece.is_empty() {
            lock(&output).push(&piece);
            events.output(&piece);
        }
        if end {
            return;
        }
    }
}

/// How a `std` child ended, as an [`Exit`].
pub(super) fn exit_of(status: std::process::ExitStatus) -> Exit {
    use std::os::unix::process::ExitStatusExt;
    Exit { code: status.code().and_then(|c| u32::try_from(c).ok()), signal: status.signal().map(signal_name) }
}

/// `SIGKILL` for 9, and so on (the signals a person meets).
fn signal_name(number: i32) -> String {
    let name = match number {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return format!("signal {number}"),
    };
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminals::recorded::Recorded;

    fn sh(script: &str) -> Launch {
        Launch {
            program: "sh".to_owned(),
            args: vec!["-c".to_owned(), script.to_owned()],
            env: vec![("GREETING".to_owned(), "hello".to_owned())],
            cwd: std::env::temp_dir(),
        }
    }

    #[tokio::test]
    async fn output_then_the_exit_code_reach_the_events_and_every_waiter() {
        let events = Arc::new(Recorded::default());
        let process =
            TerminalProcess::spawn(&sh("echo $GREETING; echo oops >&2; exit 3"), 1024, events.clone()).unwrap();
        let (a, b) = (process.wait(), process.wait());
        let (a, b) = tokio::join!(a, b);
        assert_eq!(a, Exit { code: Some(3), signal: None });
        assert_eq!(a, b);
        let (text, truncated, exit) = process.output();
        assert!(text.contains("hello\n") && text.contains("oops\n"), "{text:?}");
        assert!(!truncated);
        assert_eq!(exit, Some(a.clone()));
        assert_eq!(events.exits(), vec![a], "one exit, told after the output");
        assert!(events.text().contains("hello"));
    }

    #[tokio::test]
    async fn kill_ends_the_command_and_what_it_started_with_sigkill() {
        let events = Arc::new(Recorded::default());
        let process = TerminalProcess::spawn(&sh("sleep 30 & sleep 30"), 1024, events).unwrap();
        process.kill();
        let exit = tokio::time::timeout(Duration::from_secs(10), process.wait()).await.unwrap();
        assert_eq!(exit, Exit { code: None, signal: Some("SIGKILL".to_owned()) });
    }

    #[tokio::test]
    async fn only_the_newest_output_is_kept_beyond_the_limit() {
        let events = Arc::new(Recorded::default());
        let process = TerminalProcess::spawn(&sh("seq 1 1000"), 16, events.clone()).unwrap();
        process.wait().await;
        let (text, truncated, _) = process.output();
        assert!(truncated);
        assert!(text.len() <= 16 && text.ends_with("999\n1000\n"), "{text:?}");
        assert!(events.text().starts_with("1\n2\n"), "the events saw everything");
    }

    #[tokio::test]
    async fn a_missing_program_is_an_error_at_spawn() {
        let mut launch = sh("");
        launch.program = "/nonexistent/hangar-no-such-program".to_owned();
        assert!(TerminalProcess::spawn(&launch, 16, Arc::new(Recorded::default())).is_err());
    }
}
