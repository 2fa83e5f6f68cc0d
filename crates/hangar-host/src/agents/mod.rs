//! The agents wing: which agents the host can run, and running them over
//! ACP. One agent as the host runs it is an [`AgentSpec`] (defined here):
//! given with `--agent ID=COMMAND`, found by discovery, or added as a custom
//! agent; and how `RootState.agents` shows it.
//!
//! Map:
//! - `registry.rs`  — the live list: explicit, custom, then discovered
//!   agents, made again when one is installed, removed or added.
//! - `known.rs`     — THE table: each well-known agent's facts (name, npm
//!   package and tested version, executables, ACP arguments, key variables,
//!   sign-in, MCP transports, the files it reads itself).
//! - `discovery.rs` — well-known ACP agents found on `PATH` / in npm
//!   prefixes, and the survey the Agents page shows.
//! - `install.rs`   — the well-known agents installed with npm into
//!   `DATA_DIR/agents` at a pinned version, with progress.
//! - `keys.rs`      — agents' API keys in the OS keyring, set in their
//!   environment at start.
//! - `custom.rs`    — agents added by hand (command, args, env), kept in the
//!   data dir.
//! - `catalog.rs`   — the Agents page's view: each well-known agent's state
//!   and version, installs running, custom agents.
//! - `past_sessions_on_disk/` — agents' earlier sessions read from their
//!   own files (Gemini CLI), for agents that do not list them over ACP.
//! - `acp/`         — the ACP layer: runs agents for sessions and turns,
//!   reaching the host only through [`acp::AgentHost`].

pub mod acp;
pub mod catalog;
pub mod custom;
pub mod discovery;
pub mod install;
pub mod keys;
pub mod known;
pub mod past_sessions_on_disk;
pub mod registry;

use ahp_types::state::AgentInfo;

use known::display_name_for;

/// A registered ACP agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpec {
    /// The provider id clients pass to `createSession`.
    pub id: String,
    /// Shown to people.
    pub display_name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Set in its environment at every start (a custom agent's own; saved
    /// keys are added on top).
    pub env: Vec<(String, String)>,
}

/// Why an `ID=COMMAND` argument was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AgentSpecError {
    /// No `=`.
    #[error("expected ID=COMMAND, got {0:?}")]
    MissingEquals(String),
    /// Empty or odd id.
    #[error("agent id {0:?} must be non-empty and use only letters, digits, '-', '_' and '.'")]
    BadId(String),
    /// The command did not split.
    #[error("cannot split the command of agent {0:?} (unbalanced quotes?)")]
    BadCommand(String),
}

impl AgentSpec {
    /// Parse `ID=COMMAND`; the command is split like a POSIX shell would.
    pub fn parse(arg: &str) -> Result<Self, AgentSpecError> {
        let (id, command) = arg.split_once('=').ok_or_else(|| AgentSpecError::MissingEquals(arg.to_owned()))?;
        let id = id.trim();
        if !is_valid_id(id) {
            return Err(AgentSpecError::BadId(id.to_owned()));
        }
        let command =
            shlex::split(command).filter(|c| !c.is_empty()).ok_or_else(|| AgentSpecError::BadCommand(id.to_owned()))?;
        Ok(Self { id: id.to_owned(), display_name: display_name_for(id), command, env: Vec::new() })
    }

    /// As `RootState.agents` lists it.
    pub fn info(&self) -> AgentInfo {
        AgentInfo {
            provider: self.id.clone(),
            display_name: self.display_name.clone(),
            description: format!("ACP agent: {}", self.command.join(" ")),
            models: Vec::new(),
            protected_resources: None,
            customizations: None,
            capabilities: None,
        }
    }
}

/// Whether `id` may name an agent: not empty, letters, digits, `-`, `_`
/// and `.` only.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_shell_words() {
        let spec = AgentSpec::parse(r#"codex=/opt/x/run agent --flag "a b""#).unwrap();
        assert_eq!(spec.id, "codex");
        assert_eq!(spec.display_name, "Codex");
        assert_eq!(spec.command, vec!["/opt/x/run", "agent", "--flag", "a b"]);
    }

    #[test]
    fn refuses_bad_input() {
        assert!(matches!(AgentSpec::parse("nocommand"), Err(AgentSpecError::MissingEquals(_))));
        assert!(matches!(AgentSpec::parse("=x"), Err(AgentSpecError::BadId(_))));
        assert!(matches!(AgentSpec::parse("a b=x"), Err(AgentSpecError::BadId(_))));
        assert!(matches!(AgentSpec::parse("a='x"), Err(AgentSpecError::BadCommand(_))));
        assert!(matches!(AgentSpec::parse("a="), Err(AgentSpecError::BadCommand(_))));
    }
}
