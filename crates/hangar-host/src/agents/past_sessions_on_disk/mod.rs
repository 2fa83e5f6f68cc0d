//! Agents whose earlier sessions the host reads from the agent's own files,
//! because the agent opens them over ACP (`session/load`) but does not list
//! them (`session/list`). Today: Gemini CLI (`gemini.rs`, one conversation
//! file read by `gemini_record.rs`). An agent is known by its provider id,
//! as everywhere else in the host (`known.rs`).

pub mod gemini;
pub mod gemini_record;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::acp::OpensWith;
use super::AgentSpec;

/// An agent's sessions read from its files.
#[derive(Debug)]
pub struct OnDisk {
    /// How they are opened.
    pub opens_with: OpensWith,
    /// As ACP `SessionInfo`s (`sessionId`, `cwd`, `title`?, `updatedAt`?).
    pub sessions: Vec<Value>,
}

/// The sessions of `agent` in `folder` (every folder without), when the
/// host reads that agent's sessions from disk; `None` for agents listed
/// over ACP. `env` is what the agent is started with on top of the host's
/// own environment (saved keys); it decides where the agent's files are.
pub fn list(agent: &AgentSpec, env: &[(String, String)], folder: Option<&Path>) -> Option<OnDisk> {
    if agent.id != "gemini" {
        return None;
    }
    let sessions = match gemini_home(agent, env) {
        Some(home) => gemini::list(&gemini::gemini_dir(&home), folder),
        None => Vec::new(),
    };
    Some(OnDisk { opens_with: OpensWith::Load, sessions })
}

/// Where Gemini CLI keeps its files: `GEMINI_CLI_HOME` (Gemini's own
/// variable) from the agent's environment or the host's, else `HOME`.
fn gemini_home(agent: &AgentSpec, env: &[(String, String)]) -> Option<PathBuf> {
    let set = |name: &str| {
        agent
            .env
            .iter()
            .chain(env)
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
            .filter(|v| !v.is_empty())
    };
    set("GEMINI_CLI_HOME").or_else(|| set("HOME")).map(PathBuf::from)
}
