//! Support for the suites that run real ACP agents from npm
//! (`tests/interop`): where the interop folder is, whether its agents are
//! installed, and the mock model server as a child process.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// `tests/interop`, absolute.
pub fn interop_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../interop").canonicalize().unwrap()
}

/// `tests/interop/agents/run-agent.sh AGENT`: the command line to register
/// the agent with (give it `MOCK_PORT` and `AGENT_HOME` in the host's env).
pub fn agent_command(agent: &str) -> String {
    format!("{} {agent}", interop_dir().join("agents/run-agent.sh").display())
}

/// Whether the agents are installed (`npm ci` in `tests/interop/agents`).
/// Without them: `false` with a SKIPPED message, or a failure when
/// `HANGAR_REQUIRE_INTEROP` is set.
pub fn available() -> bool {
    if interop_dir().join("agents/node_modules").is_dir() {
        return true;
    }
    if std::env::var_os("HANGAR_REQUIRE_INTEROP").is_some() {
        panic!("HANGAR_REQUIRE_INTEROP is set but tests/interop/agents/node_modules is missing: run `npm ci` there");
    }
    eprintln!("SKIPPED: tests/interop/agents/node_modules is missing (run `cd tests/interop/agents && npm ci --no-audit --no-fund`)");
    false
}

/// The mock model server (`tests/interop/mock-model-server/server.mjs`) on
/// `127.0.0.1`, killed on drop.
pub struct Mock {
    child: Child,
    /// Its port.
    pub port: u16,
}

impl Mock {
    /// Start it with its defaults.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Start it with extra environment (`MOCK_LOG`, `MOCK_REPLY`, ...).
    pub fn start_with(env: &[(&str, &str)]) -> Self {
        let mut child = Command::new("node")
            .arg(interop_dir().join("mock-model-server/server.mjs"))
            .args(["--port", "0"])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node on PATH");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(line.trim()).unwrap();
        Mock { child, port: v["port"].as_u64().unwrap() as u16 }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON lines of a JSONL file (none if it does not exist yet).
pub fn json_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}
