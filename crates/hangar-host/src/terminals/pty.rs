//! One program run in a pseudo-terminal (`portable-pty`): a person's shell
//! or an agent's login, which may ask questions on its TTY. Input is written
//! to it, it can be resized, its output is told to a [`TerminalEvents`] as
//! it comes and its exit kept for every waiter.
//!
//! The program leads a session of its own (`setsid`, the PTY its controlling
//! terminal). An interactive shell puts each job in a process group of its
//! own, so [`PtyProcess::kill`] ends every group of that session, not only
//! the leader's.

use std::io::{Read, Write};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use portable_pty::{native_pty_system, CommandBuilder, MasterPty, PtySize};

use super::output::{Output, Utf8Stream};
use super::process::{exit_of, Exit, ExitWatch, Launch, TerminalEvents};
use crate::engine::Size;
use crate::locks::lock;
use crate::process_groups::session_groups;
use crate::process_groups::signal_group;

/// How long the reader may drain after the program has exited (a
/// background job can hold the terminal open).
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// Why a pseudo-terminal could not be opened, started or resized.
#[derive(Debug, thiserror::Error)]
pub enum PtyError {
    /// The system gave no pseudo-terminal.
    #[error("cannot open a pseudo-terminal: {0}")]
    Open(String),
    /// The program did not start.
    #[error("cannot run {program}: {reason}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        reason: String,
    },
    /// The terminal could not be resized.
    #[error("cannot resize the terminal: {0}")]
    Resize(String),
}

/// `size` as the pseudo-terminal takes it.
fn pty_size(size: Size) -> PtySize {
    PtySize { rows: size.rows, cols: size.cols, pixel_width: 0, pixel_height: 0 }
}

/// A running (or ended) program in a pseudo-terminal.
pub struct PtyProcess {
    /// The leader's pid: also its session and process group id.
    pid: Option<u32>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    input: Mutex<Option<std_mpsc::Sender<Vec<u8>>>>,
    output: Arc<Mutex<Output>>,
    exit: ExitWatch,
}

impl PtyProcess {
    /// Start `launch` in a pseudo-terminal of `size`; `limit` bytes of
    /// output are kept for [`Self::output`]. `TERM` is `xterm-256color`
    /// unless `launch` sets it.
    pub fn spawn(launch: &Launch, size: Size, limit: usize, events: Arc<dyn TerminalEvents>) -> Result<Self, PtyError> {
        let pair = native_pty_system().openpty(pty_size(size)).map_err(|e| PtyError::Open(e.to_string()))?;
        let mut cmd = CommandBuilder::new(&launch.program);
        cmd.args(&launch.args);
        cmd.cwd(&launch.cwd);
        cmd.env("TERM", "xterm-256color");
        for (k, v) in &launch.env {
            cmd.env(k, v);
        }
        let spawn_error = |e: String| PtyError::Spawn { program: launch.program.clone(), reason: e };
        let mut child = pair.slave.spawn_command(cmd).map_err(|e| spawn_error(e.to_string()))?;
        // Only the child holds the terminal's other end: its exit (and its
        // jobs') ends the reader.
        drop(pair.slave);
        let pid = child.process_id();
        let reader = pair.master.try_clone_reader().map_err(|e| spawn_error(e.to_string()));
        let writer = pair.master.take_writer().map_err(|e| spawn_error(e.to_string()));
        let (reader, writer) = match (reader, writer) {
            (Ok(r), Ok(w)) => (r, w),
            (Err(e), _) | (_, Err(e)) => {
                let _ = child.kill();
                return Err(e);
            }
        };
        let output = Arc::new(Mutex::new(Output::new(limit)));
        let (exit_tx, exit) = ExitWatch::channel();
        let (drained_tx, drained) = std_mpsc::channel::<()>();
        let (out, ev) = (output.clone(), events.clone());
        std::thread::Builder::new()
            .name("pty-reader".to_owned())
            .spawn(move || {
                read_into(reader, &out, &*ev);
                let _ = drained_tx.send(());
            })
            .map_err(|e| spawn_error(e.to_string()))?;
        let (input_tx, input_rx) = std_mpsc::channel::<Vec<u8>>();
        std::thread::Builder::new()
            .name("pty-writer".to_owned())
            .spawn(move || write_from(writer, &input_rx))
            .map_err(|e| spawn_error(e.to_string()))?;
        std::thread::Builder::new()
            .name("pty-waiter".to_owned())
            .spawn(move || {
                let exit = wait_child(&mut *child);
                // What the program wrote just before it ended comes first.
                let _ = drained.recv_timeout(DRAIN_AFTER_EXIT);
                events.exited(&exit);
                let _ = exit_tx.send(Some(exit));
            })
            .map_err(|e| spawn_error(e.to_string()))?;
        Ok(Self { pid, master: Mutex::new(pair.master), input: Mutex::new(Some(input_tx)), output, exit })
    }

    /// The leader's pid (its session and process group id).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Type `data` into the terminal (keys as a terminal sends them: Enter
    /// is `\r`). `false` once the program has ended.
    pub fn write(&self, data: &str) -> bool {
        if self.exit().is_some() || data.is_empty() {
            return false;
        }
        lock(&self.input).as_ref().is_some_and(|tx| tx.send(data.as_bytes().to_vec()).is_ok())
    }

    /// Make the terminal `size` (the program is sent `SIGWINCH`).
    pub fn resize(&self, size: Size) -> Result<(), PtyError> {
        lock(&self.master).resize(pty_size(size)).map_err(|e| PtyError::Resize(e.to_string()))
    }

    /// The retained output, whether older output was dropped, and the exit
    /// once there is one.
    pub fn output(&self) -> (String, bool, Option<Exit>) {
        let out = lock(&self.output);
        (out.text().to_owned(), out.truncated(), self.exit())
    }

    /// The exit, once the program has ended.
    pub fn exit(&self) -> Option<Exit> {
        self.exit.get()
    }

    /// Resolves with the exit once the program has ended.
    pub fn wait(&self) -> impl std::future::Future<Output = Exit> + Send + 'static {
        self.exit.wait()
    }

    /// End the program and every job it started (each process group of its
    /// session) with `SIGKILL`.
    pub fn kill(&self) {
        if let Some(pid) = self.pid {
            for group in session_groups(pid) {
                // The leader's group is signalled even after it exited: a
                // job left in it still ends.
                signal_group(group, "KILL");
            }
        }
        // Then the writer goes (`portable-pty` types end-of-file as it is
        // dropped, which must not reach the program first).
        lock(&self.input).take();
    }
}

impl Drop for PtyProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The child's exit; `SIGKILL` and the like by name.
fn wait_child(child: &mut dyn portable_pty::Child) -> Exit {
    // `portable-pty` spawns a `std::process::Child`, whose status says
    // which signal ended it by number.
    if let Some(std_child) = child.downcast_mut::<std::process::Child>() {
        return match std_child.wait() {
            Ok(status) => exit_of(status),
            Err(e) => {
                tracing::warn!("waiting for a terminal program: {e}");
                Exit::default()
            }
        };
    }
    match child.wait() {
        Ok(status) if status.signal().is_some() => Exit { code: None, signal: status.signal().map(str::to_owned) },
        Ok(status) => Exit { code: Some(status.exit_code()), signal: None },
        Err(e) => {
            tracing::warn!("waiting for a terminal program: {e}");
            Exit::default()
        }
    }
}

fn read_into(mut reader: Box<dyn Read + Send>, output: &Mutex<Output>, events: &dyn TerminalEvents) {
    let mut text = Utf8Stream::default();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        // EIO once every holder of the terminal's other end has exited.
        let (piece, end) = match reader.read(&mut buf) {
            Ok(0) | Err(_) => (text.finish(), true),
            Ok(n) => (text.decode(&buf[..n]), false),
        };
        if !piece.is_empty() {
            lock(output).push(&piece);
            events.output(&piece);
        }
        if end {
            return;
        }
    }
}

fn write_from(mut writer: Box<dyn Write + Send>, input: &std_mpsc::Receiver<Vec<u8>>) {
    while let Ok(bytes) = input.recv() {
        if writer.write_all(&bytes).and_then(|()| writer.flush()).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::terminals::recorded::Recorded;

    fn launch(program: &str, args: &[&str]) -> Launch {
        Launch {
            program: program.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: vec![("PS1".to_owned(), "$ ".to_owned())],
            cwd: std::env::temp_dir(),
        }
    }

    fn alive(pid: u32) -> bool {
        // A zombie (exited, not yet reaped) counts as gone.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim_start().to_owned()))
            .is_some_and(|rest| !rest.starts_with('Z'))
    }

    #[tokio::test]
    async fn input_reaches_the_program_and_its_echo_comes_back() {
        let events = Arc::new(Recorded::default());
        let process = PtyProcess::spawn(&launch("cat", &[]), Size::default(), 4096, events.clone()).unwrap();
        assert!(process.write("hello pty\r"));
        let text = events.until("hello pty\r\nhello pty").await;
        // The terminal echoes the line, then `cat` writes it back.
        assert!(text.contains("hello pty\r\nhello pty"), "{text:?}");
        // Ctrl-D at the start of a line: end of input, `cat` exits 0.
        assert!(process.write("\u{4}"));
        let exit = tokio::time::timeout(Duration::from_secs(10), process.wait()).await.unwrap();
        assert_eq!(exit, Exit { code: Some(0), signal: None });
        assert_eq!(events.exits(), vec![exit], "one exit, told after the output");
        assert!(!process.write("too late"), "no input once it has ended");
        assert!(process.output().0.contains("hello pty"));
    }

    #[tokio::test]
    async fn a_resize_is_what_the_program_sees() {
        let events = Arc::new(Recorded::default());
        let size = Size::new(100, 30).unwrap();
        let process = PtyProcess::spawn(&launch("sh", &[]), size, 64 * 1024, events.clone()).unwrap();
        process.write("stty size\r");
        assert!(events.until("30 100").await.contains("30 100"));
        process.resize(Size::new(132, 43).unwrap()).unwrap();
        process.write("stty size\r");
        let text = events.until("43 132").await;
        assert!(text.contains("43 132"), "{text:?}");
        process.write("exit 7\r");
        let exit = tokio::time::timeout(Duration::from_secs(10), process.wait()).await.unwrap();
        assert_eq!(exit.code, Some(7));
    }

    #[tokio::test]
    async fn kill_ends_the_shell_and_the_jobs_it_started() {
        let events = Arc::new(Recorded::default());
        // An interactive shell: each job gets a process group of its own.
        let process = PtyProcess::spawn(&launch("sh", &["-i"]), Size::default(), 64 * 1024, events.clone()).unwrap();
        process.write("sleep 300 & echo job=$!\r");
        let text = events.until("job=").await;
        let job: u32 = text
            .rsplit("job=")
            .next()
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no job pid in {text:?}"));
        let shell = process.pid().unwrap();
        assert!(alive(job) && alive(shell));
        process.kill();
        let exit = tokio::time::timeout(Duration::from_secs(10), process.wait()).await.unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"), "{exit:?}: {}", events.text());
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(job) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!alive(job), "the background job {job} was ended too");
    }

    #[tokio::test]
    async fn every_waiter_gets_the_exit() {
        let events = Arc::new(Recorded::default());
        let process =
            PtyProcess::spawn(&launch("sh", &["-c", "echo done; exit 3"]), Size::default(), 1024, events).unwrap();
        let (a, b) = tokio::join!(process.wait(), process.wait());
        assert_eq!(a, Exit { code: Some(3), signal: None });
        assert_eq!(a, b);
        assert_eq!(process.exit(), Some(a));
        assert!(process.output().0.contains("done"));
    }

    #[test]
    fn sizes_outside_the_bounds_are_refused() {
        assert!(Size::new(0, 24).is_err());
        assert!(Size::new(80, 1001).is_err());
        assert!(Size::new(-1, 24).is_err());
        assert_eq!(Size::new(1000, 1).unwrap(), Size { cols: 1000, rows: 1 });
    }

    #[tokio::test]
    async fn a_missing_program_is_an_error_at_spawn() {
        let events = Arc::new(Recorded::default());
        let result = PtyProcess::spawn(&launch("/nonexistent/hangar-no-such", &[]), Size::default(), 16, events);
        assert!(matches!(result, Err(PtyError::Spawn { .. })));
    }
}
