//! [`TestHost`]: one handle for a host under test, however it runs
//! ([`Launch`]): the real `hangar serve` binary, or the same code inside the
//! test process. Suites switch with the `Launch` they pass.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use crate::in_process::{self, InProcess};
use crate::process::{self, ExitedHost, Spawned};

/// How a test runs its host.
#[derive(Clone, Copy, Debug)]
pub enum Launch<'a> {
    /// The real `hangar serve` binary with these extra environment
    /// variables: for what only a process shows (its ready line, stdout,
    /// stderr, exit status, signals, `kill -9` and restarts, its own
    /// environment and file descriptors).
    Process(&'a [(&'a str, &'a str)]),
    /// `hangar serve`'s own code in the test process, on a runtime of its
    /// own, listening on `127.0.0.1:0`.
    InProcess,
}

/// What a host says once it listens.
pub(crate) struct Ready {
    /// `ws://127.0.0.1:PORT/`.
    pub(crate) url: String,
    /// The ready line, as printed (or as it would be).
    pub(crate) ready_line: String,
}

enum Running {
    Process(Spawned),
    /// Held for its `Drop`, which stops the host.
    InProcess(#[allow(dead_code)] InProcess),
}

/// A running host.
pub struct TestHost {
    // First field: dropped (the host stopped) before the data directory.
    running: Running,
    /// `ws://127.0.0.1:PORT/` from the ready line (`wss://` with TLS).
    pub url: String,
    /// The data directory.
    pub data_dir: PathBuf,
    /// The token from `DATA_DIR/token`.
    pub token: String,
    /// The ready line exactly as printed (in-process: as `hangar serve` would print it).
    pub ready_line: String,
    _tmp: Option<tempfile::TempDir>,
}

impl TestHost {
    /// Start in a fresh temporary data directory with `extra` arguments.
    pub fn start(launch: Launch<'_>, extra: &[&str]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let mut host = Self::start_in(launch, tmp.path(), extra);
        host._tmp = Some(tmp);
        host
    }

    /// Start on `data_dir` (kept after the host stops).
    pub fn start_in(launch: Launch<'_>, data_dir: &Path, extra: &[&str]) -> Self {
        Self::try_start_in(launch, data_dir, extra).unwrap_or_else(|e| panic!("hangar serve did not start: {e}"))
    }

    /// Start on `data_dir`; `Err` carries stderr (in-process: the error) if
    /// the host gave up before listening.
    pub fn try_start_in(launch: Launch<'_>, data_dir: &Path, extra: &[&str]) -> Result<Self, String> {
        let mut args: Vec<String> = vec!["--data-dir".into(), data_dir.display().to_string()];
        // A test that restarts a host on the same address passes its own `--listen`.
        if !extra.contains(&"--listen") {
            args.extend(["--listen".into(), "127.0.0.1:0".into()]);
        }
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        // Tests register their agents explicitly, unless they test discovery
        // (with an `--npm-prefix` of their own).
        if !extra.contains(&"--npm-prefix") {
            args.push("--no-discover".into());
        }
        let (running, ready) = match launch {
            Launch::Process(env) => {
                args.insert(0, "serve".into());
                let (spawned, ready) = process::spawn(&args, env)?;
                (Running::Process(spawned), ready)
            }
            Launch::InProcess => {
                let (host, ready) = in_process::start(&args)?;
                (Running::InProcess(host), ready)
            }
        };
        let token = std::fs::read_to_string(data_dir.join("token")).unwrap().trim().to_owned();
        let Ready { url, ready_line } = ready;
        Ok(Self { running, url, data_dir: data_dir.to_owned(), token, ready_line, _tmp: None })
    }

    /// The URL with the token.
    pub fn authed_url(&self) -> String {
        format!("{}?tkn={}", self.url, self.token)
    }

    /// Process id (a [`Launch::Process`] host only).
    pub fn pid(&self) -> u32 {
        match &self.running {
            Running::Process(p) => p.pid(),
            Running::InProcess(_) => panic!("an in-process host has no process id of its own: use Launch::Process"),
        }
    }

    /// `kill -9`: no chance to flush anything (a [`Launch::Process`] host only).
    pub fn kill9(&mut self) {
        self.process().kill9();
    }

    /// SIGTERM, then wait for the exit status (a [`Launch::Process`] host only).
    pub fn sigterm(&mut self) -> ExitStatus {
        self.stop_with("TERM").status
    }

    /// Send `signal` (`TERM`, `INT`), wait for the exit, and collect what the
    /// host printed (a [`Launch::Process`] host only).
    pub fn stop_with(&mut self, signal: &str) -> ExitedHost {
        self.process().stop_with(signal)
    }

    fn process(&mut self) -> &mut Spawned {
        match &mut self.running {
            Running::Process(p) => p,
            Running::InProcess(_) => panic!("signals and kill -9 need a host process: use Launch::Process"),
        }
    }
}
