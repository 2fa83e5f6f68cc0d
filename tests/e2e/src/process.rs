//! A host as the real `hangar serve` binary: spawned with piped stdout and
//! stderr, its ready line read, whatever follows on stdout kept (the
//! contract: nothing), stderr collected; stopped by signal or `kill -9`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::host::Ready;

/// The `hangar` binary under test.
pub fn hangar_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("HANGAR_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().unwrap();
    // Tests run from target/<profile>/deps/, bench binaries from target/<profile>/.
    let dir = exe.parent().unwrap();
    let candidates = [dir.join("hangar"), dir.parent().unwrap().join("hangar")];
    let found = candidates.iter().find(|p| p.exists());
    found.cloned().unwrap_or_else(|| {
        panic!("{} is missing: run `cargo build -p hangar-cli` first (or set HANGAR_BIN)", candidates[1].display())
    })
}

/// The desktop core behind a loopback WebSocket (`hangar-desktop-bridge`,
/// a crate of its own beside the app so that the packages do not ship it),
/// next to `hangar`.
pub fn desktop_bridge_bin() -> PathBuf {
    let bin = hangar_bin().with_file_name("hangar-desktop-bridge");
    assert!(bin.exists(), "{} is missing: run `cargo build -p hangar-desktop-bridge` first", bin.display());
    bin
}

/// What a host process left behind once it exited.
pub struct ExitedHost {
    /// Its exit status.
    pub status: ExitStatus,
    /// Lines it printed to stdout after the ready line.
    pub extra_stdout: Vec<String>,
    /// Everything it printed to stderr.
    pub stderr: String,
}

/// A running `hangar serve` process.
pub(crate) struct Spawned {
    child: Option<Child>,
    /// Collects whatever follows the ready line on stdout.
    stdout_rest: Option<JoinHandle<Vec<String>>>,
    /// Everything written to stderr so far.
    stderr: Arc<Mutex<String>>,
    stderr_reader: Option<JoinHandle<()>>,
}

/// Spawn `hangar` with `args` and `env`; `Err` carries stderr if it exits
/// before printing the ready line.
pub(crate) fn spawn(args: &[String], env: &[(&str, &str)]) -> Result<(Spawned, Ready), String> {
    let mut cmd = Command::new(hangar_bin());
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    #[allow(clippy::zombie_processes)] // waited for in kill9/stop_with/drop
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout_rest = std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        // Anything more on stdout breaks the contract; keep it for the tests.
        reader.lines().map_while(Result::ok).collect()
    });
    let stderr = child.stderr.take().unwrap();
    let stderr_text = Arc::new(Mutex::new(String::new()));
    let all = stderr_text.clone();
    let stderr_reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if std::env::var_os("HANGAR_TEST_LOG").is_some() {
                eprintln!("[host] {line}");
            }
            let mut all = all.lock().unwrap();
            all.push_str(&line);
            all.push('\n');
        }
    });
    let mut spawned = Spawned {
        child: Some(child),
        stdout_rest: Some(stdout_rest),
        stderr: stderr_text,
        stderr_reader: Some(stderr_reader),
    };
    let line = rx.recv_timeout(Duration::from_secs(60)).map_err(|_| "no ready line within 60 s".to_owned())?;
    if line.trim().is_empty() {
        if let Some(mut child) = spawned.child.take() {
            let _ = child.wait();
        }
        if let Some(reader) = spawned.stderr_reader.take() {
            let _ = reader.join();
        }
        return Err(spawned.stderr.lock().unwrap().clone());
    }
    let ready: serde_json::Value =
        serde_json::from_str(line.trim()).map_err(|e| format!("bad ready line {line:?}: {e}"))?;
    let url = ready["url"].as_str().unwrap().to_owned();
    Ok((spawned, Ready { url, ready_line: line.trim_end().to_owned() }))
}

impl Spawned {
    /// Process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// `kill -9`: no chance to flush anything.
    pub(crate) fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Send `signal` (`TERM`, `INT`), wait for the exit, and collect what the
    /// host printed.
    pub(crate) fn stop_with(&mut self, signal: &str) -> ExitedHost {
        let mut child = self.child.take().unwrap();
        let sent = Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status().unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        let extra_stdout = self.stdout_rest.take().map(|t| t.join().unwrap()).unwrap_or_default();
        if let Some(reader) = self.stderr_reader.take() {
            reader.join().unwrap();
        }
        ExitedHost { status, extra_stdout, stderr: self.stderr.lock().unwrap().clone() }
    }
}

impl Drop for Spawned {
    /// SIGTERM first, so that the host ends its agents' process groups (a
    /// test that panicked must not leave real agents behind for the next
    /// test's process checks); SIGKILL if it has not exited within 10 s.
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
        for _ in 0..100 {
            if !matches!(child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
