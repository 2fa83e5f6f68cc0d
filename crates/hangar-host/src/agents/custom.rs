//! Custom agents: ACP agents a person added by hand (a command, its
//! arguments, its environment), kept in `custom-agents.json` in the data
//! dir, as Zed keeps `agent_servers` in its settings. Written whole to a
//! private temporary file, synced, then renamed over the old one, so a
//! crash leaves the old list or the new one, never half of either. A save
//! or delete reads, changes and writes the list under one lock, so two
//! clients saving at once both keep their agent.
//!
//! The environment is stored as given: it is for settings such as a base
//! URL or a log level. API keys belong in the keyring (the sign-in panel
//! keeps them there), and the form says so.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::agents::{is_valid_id, AgentSpec};
use crate::locks::lock;

/// Held across each read-change-write of the list.
static CHANGING: Mutex<()> = Mutex::new(());

/// The file, in the data dir.
pub const FILE: &str = "custom-agents.json";

/// A custom agent as the file and `x-hangar/agentSave` carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomAgent {
    /// Its id (`createSession`'s provider).
    pub id: String,
    /// Shown to people; the id when empty.
    #[serde(default)]
    pub name: String,
    /// The program.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Set in its environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// Why a custom agent was refused or the list not read or written.
#[derive(Debug, thiserror::Error)]
pub enum CustomAgentError {
    /// A field is not acceptable.
    #[error("{field}: {message}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// Why.
        message: String,
    },
    /// The file could not be read, parsed or written.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl CustomAgent {
    /// Refuse what could not run or would be confused with another agent.
    pub fn validate(&self) -> Result<(), CustomAgentError> {
        let invalid = |field, message: &str| Err(CustomAgentError::Invalid { field, message: message.to_owned() });
        if !is_valid_id(&self.id) {
            return invalid("id", "use 1 to 64 letters, digits, '-', '_' or '.'");
        }
        if crate::agents::known::package_of(&self.id).is_some() {
            return invalid("id", "is a well-known agent's id; pick another");
        }
        if self.command.trim().is_empty() {
            return invalid("command", "is empty");
        }
        if self.command.contains('\0') || self.args.iter().any(|a| a.contains('\0')) {
            return invalid("command", "contains a NUL byte");
        }
        for name in self.env.keys() {
            let ok = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok {
                return Err(CustomAgentError::Invalid {
                    field: "env",
                    message: format!("{name:?} is not a variable name (letters, digits and '_')"),
                });
            }
        }
        Ok(())
    }

    /// As the host runs it.
    pub fn spec(&self) -> AgentSpec {
        let mut command = vec![self.command.clone()];
        command.extend(self.args.iter().cloned());
        let name = self.name.trim();
        AgentSpec {
            id: self.id.clone(),
            display_name: if name.is_empty() { self.id.clone() } else { name.to_owned() },
            command,
            env: self.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        }
    }
}

/// The custom agents saved under `data_dir` (none when there is no file).
pub fn load(data_dir: &Path) -> Result<Vec<CustomAgent>, CustomAgentError> {
    let path = data_dir.join(FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(CustomAgentError::File { path, message: e.to_string() }),
    };
    serde_json::from_slice(&bytes).map_err(|e| CustomAgentError::File { path, message: e.to_string() })
}

/// Replace the saved list with `agents`.
pub fn store(data_dir: &Path, agents: &[CustomAgent]) -> Result<(), CustomAgentError> {
    let path = data_dir.join(FILE);
    let failed = |e: std::io::Error| CustomAgentError::File { path: path.clone(), message: e.to_string() };
    let mut file = tempfile::NamedTempFile::new_in(data_dir).map_err(failed)?;
    let text = serde_json::to_vec_pretty(agents).map_err(|e| failed(e.into()))?;
    file.write_all(&text).map_err(failed)?;
    file.as_file().sync_all().map_err(failed)?;
    file.persist(&path).map_err(|e| failed(e.error))?;
    Ok(())
}

/// Add `agent`, or replace the one with its id.
pub fn save(data_dir: &Path, agent: CustomAgent) -> Result<(), CustomAgentError> {
    agent.validate()?;
    let _changing = lock(&CHANGING);
    let mut agents = load(data_dir)?;
    match agents.iter_mut().find(|a| a.id == agent.id) {
        Some(slot) => *slot = agent,
        None => agents.push(agent),
    }
    store(data_dir, &agents)
}

/// Remove custom agent `id`; whether there was one.
pub fn delete(data_dir: &Path, id: &str) -> Result<bool, CustomAgentError> {
    let _changing = lock(&CHANGING);
    let mut agents = load(data_dir)?;
    let before = agents.len();
    agents.retain(|a| a.id != id);
    if agents.len() == before {
        return Ok(false);
    }
    store(data_dir, &agents)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(id: &str) -> CustomAgent {
        CustomAgent {
            id: id.to_owned(),
            name: "My agent".to_owned(),
            command: "/opt/my agent/run".to_owned(),
            args: vec!["--acp".to_owned()],
            env: BTreeMap::from([("LOG".to_owned(), "debug".to_owned())]),
        }
    }

    #[test]
    fn saved_agents_are_read_back_replaced_and_deleted() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_empty());
        save(dir.path(), agent("mine")).unwrap();
        save(dir.path(), agent("other")).unwrap();
        let mut changed = agent("mine");
        changed.args.push("--verbose".to_owned());
        save(dir.path(), changed.clone()).unwrap();
        assert_eq!(load(dir.path()).unwrap(), vec![changed.clone(), agent("other")]);
        let spec = changed.spec();
        assert_eq!(spec.command, ["/opt/my agent/run", "--acp", "--verbose"]);
        assert_eq!(spec.display_name, "My agent");
        assert_eq!(spec.env, [("LOG".to_owned(), "debug".to_owned())]);
        assert!(delete(dir.path(), "mine").unwrap());
        assert!(!delete(dir.path(), "mine").unwrap());
        assert_eq!(load(dir.path()).unwrap(), vec![agent("other")]);
    }

    #[test]
    fn bad_agents_are_refused_with_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (CustomAgent { id: "a b".into(), ..agent("x") }, "id"),
            (CustomAgent { id: "codex".into(), ..agent("x") }, "id"),
            (CustomAgent { command: " ".into(), ..agent("x") }, "command"),
            (CustomAgent { env: BTreeMap::from([("1X".into(), String::new())]), ..agent("x") }, "env"),
        ];
        for (bad, field) in cases {
            let err = save(dir.path(), bad).unwrap_err();
            assert!(matches!(err, CustomAgentError::Invalid { field: f, .. } if f == field), "{err}");
        }
        assert!(!dir.path().join(FILE).exists());
    }

    #[test]
    fn agents_saved_at_once_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|s| {
            for i in 0..8 {
                let path = dir.path();
                s.spawn(move || save(path, agent(&format!("a{i}"))).unwrap());
            }
        });
        assert_eq!(load(dir.path()).unwrap().len(), 8);
    }

    #[test]
    fn a_damaged_file_is_an_error_not_an_empty_list() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        assert!(matches!(load(dir.path()), Err(CustomAgentError::File { .. })));
        assert!(save(dir.path(), agent("mine")).is_err(), "a save must not overwrite a file it could not read");
    }
}
