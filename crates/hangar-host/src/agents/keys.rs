//! Agents' API keys: each in the OS keyring (service `hangar`, account
//! `agent/<agent id>/<VARIABLE>`), set in that agent's environment when the
//! host starts it. Only the variables' names are written to disk
//! (`agent-keys.json` in the data dir), so that an agent with no key saved
//! never waits on the keyring, and clients can be told which keys are
//! saved. No key is ever logged or written to a file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::locks::lock;

/// The keyring service Hangar's entries are filed under (as host tokens).
const KEYRING_SERVICE: &str = "hangar";
/// The file of saved keys' names, in the data dir.
const NAMES_FILE: &str = "agent-keys.json";
/// The longest key accepted.
const MAX_KEY_BYTES: usize = 8 * 1024;

/// Why a key could not be kept or read.
#[derive(Debug, thiserror::Error)]
pub enum AgentKeyError {
    /// The key is empty, too long, or has a line break or NUL in it.
    #[error("the key must be one line of at most {MAX_KEY_BYTES} bytes, not empty")]
    BadKey,
    /// No keyring to keep it in.
    #[error(
        "this host has no OS keyring to keep the key in ({detail}). Start a Secret Service (gnome-keyring, KeePassXC) \
         for the user Hangar runs as, or set the variable in the environment Hangar starts in"
    )]
    NoKeyring {
        /// What the keyring said.
        detail: String,
    },
    /// The keyring failed otherwise.
    #[error("the keyring failed: {0}")]
    Keyring(String),
    /// The names file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The saved keys of one host.
#[derive(Debug)]
pub struct AgentKeys {
    names_path: PathBuf,
    names: Mutex<BTreeMap<String, BTreeSet<String>>>,
}

impl AgentKeys {
    /// The keys saved under `data_dir` (an unreadable names file counts as
    /// none: the keys stay in the keyring and are saved again by name).
    pub fn open(data_dir: &Path) -> Self {
        let names_path = data_dir.join(NAMES_FILE);
        let names = std::fs::read(&names_path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        Self { names_path, names: Mutex::new(names) }
    }

    /// Keep `key` as agent `agent`'s `var`.
    pub fn save(&self, agent: &str, var: &str, key: &str) -> Result<(), AgentKeyError> {
        let key = key.trim();
        if key.is_empty() || key.len() > MAX_KEY_BYTES || key.contains(['\n', '\r', '\0']) {
            return Err(AgentKeyError::BadKey);
        }
        entry(agent, var)?.set_password(key).map_err(keyring_error)?;
        let mut names = lock(&self.names);
        if names.entry(agent.to_owned()).or_default().insert(var.to_owned()) {
            self.write(&names)?;
        }
        Ok(())
    }

    /// Forget agent `agent`'s `var` (already gone is fine).
    pub fn remove(&self, agent: &str, var: &str) -> Result<(), AgentKeyError> {
        match entry(agent, var)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => {}
            Err(e) => return Err(keyring_error(e)),
        }
        let mut names = lock(&self.names);
        if names.get_mut(agent).is_some_and(|vars| vars.remove(var)) {
            self.write(&names)?;
        }
        Ok(())
    }

    /// The names of agent `agent`'s saved keys.
    pub fn saved(&self, agent: &str) -> Vec<String> {
        lock(&self.names).get(agent).map(|v| v.iter().cloned().collect()).unwrap_or_default()
    }

    /// Agent `agent`'s saved keys as environment variables. A key the
    /// keyring cannot give is left out, and said by name in the log.
    pub fn env(&self, agent: &str) -> Vec<(String, String)> {
        let mut env = Vec::new();
        for var in self.saved(agent) {
            match entry(agent, &var).and_then(|e| e.get_password().map_err(keyring_error)) {
                Ok(key) => env.push((var, key)),
                Err(e) => tracing::warn!(agent, var, "the saved key is not passed to the agent: {e}"),
            }
        }
        env
    }

    fn write(&self, names: &BTreeMap<String, BTreeSet<String>>) -> Result<(), AgentKeyError> {
        let io = |source| AgentKeyError::Io { path: self.names_path.clone(), source };
        let dir = self.names_path.parent().unwrap_or(Path::new("."));
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        serde_json::to_writer_pretty(&mut file, names).map_err(|e| io(e.into()))?;
        file.persist(&self.names_path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

fn entry(agent: &str, var: &str) -> Result<keyring::Entry, AgentKeyError> {
    keyring::Entry::new(KEYRING_SERVICE, &format!("agent/{agent}/{var}")).map_err(keyring_error)
}

/// A keyring that is missing, locked or unreachable becomes
/// [`AgentKeyError::NoKeyring`], whose message says what to do.
fn keyring_error(error: keyring::Error) -> AgentKeyError {
    match error {
        keyring::Error::PlatformFailure(e) | keyring::Error::NoStorageAccess(e) => {
            AgentKeyError::NoKeyring { detail: e.to_string() }
        }
        other => AgentKeyError::Keyring(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_key_is_refused_before_the_keyring_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let keys = AgentKeys::open(dir.path());
        for bad in ["", "   ", "two\nlines", "nul\0"] {
            assert!(matches!(keys.save("codex", "CODEX_API_KEY", bad), Err(AgentKeyError::BadKey)), "{bad:?}");
        }
        assert!(keys.saved("codex").is_empty());
        assert!(!dir.path().join(NAMES_FILE).exists());
    }

    #[test]
    fn names_are_read_back_and_an_agent_with_none_asks_no_keyring() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(NAMES_FILE), r#"{"codex":["CODEX_API_KEY"]}"#).unwrap();
        let keys = AgentKeys::open(dir.path());
        assert_eq!(keys.saved("codex"), ["CODEX_API_KEY"]);
        assert!(keys.env("gemini").is_empty());
    }
}
