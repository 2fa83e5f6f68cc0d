//! Per-device tokens on disk: `DATA_DIR/devices/tokens.json` holds each
//! device's name, the SHA-256 of its token and when it was made, never the
//! token itself. `hangar token create|list|revoke` change it (under a lock
//! file, replaced atomically); the running server reads it through
//! `device_watch.rs`. Revoking removes the entry.

use std::fs::File;
use std::path::{Path, PathBuf};

use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::json_file::{self, JsonFileError};

/// The folder, under the data directory, the server watches.
pub const DEVICES_DIR: &str = "devices";
const TOKENS_FILE: &str = "tokens.json";
const LOCK_FILE: &str = "lock";
const MAX_NAME_CHARS: usize = 64;

/// Why a device-token operation failed.
#[derive(Debug, thiserror::Error)]
pub enum DeviceTokenError {
    /// Reading, writing or locking the store failed.
    #[error(transparent)]
    File(#[from] JsonFileError),
    /// `create` with a name already in use.
    #[error("a device named {0:?} already has a token: revoke it first (`hangar token revoke {0}`)")]
    Exists(String),
    /// `revoke` of a name not in the list.
    #[error("no device named {0:?} (`hangar token list` shows them)")]
    NotFound(String),
    /// A name that is empty, too long or has control characters.
    #[error("device name {0:?}: use 1 to 64 printable characters")]
    BadName(String),
}

/// One device allowed to connect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceToken {
    /// The name given at `hangar token create`.
    pub name: String,
    /// Lowercase hex SHA-256 of the token.
    pub sha256: String,
    /// When it was made (RFC 3339).
    pub created: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TokensFile {
    version: u32,
    devices: Vec<DeviceToken>,
}

/// Lowercase hex SHA-256 of `token`: what the store keeps and the server compares.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The device-token store of one data directory.
#[derive(Debug, Clone)]
pub struct DeviceTokenStore {
    dir: PathBuf,
}

impl DeviceTokenStore {
    /// The store in `data_dir` (nothing is created until something is written).
    pub fn in_data_dir(data_dir: &Path) -> Self {
        Self { dir: data_dir.join(DEVICES_DIR) }
    }

    /// The folder holding the store.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every device with a token, in the order they were made. A missing
    /// store is an empty list.
    pub fn list(&self) -> Result<Vec<DeviceToken>, DeviceTokenError> {
        Ok(self.read()?.devices)
    }

    /// Mint a token for `name` and store its hash; returns the token (shown
    /// once: only its hash is kept).
    pub fn create(&self, name: &str) -> Result<String, DeviceTokenError> {
        check_name(name)?;
        let _lock = self.lock()?;
        let mut file = self.read()?;
        if file.devices.iter().any(|d| d.name == name) {
            return Err(DeviceTokenError::Exists(name.to_owned()));
        }
        let mut bytes = [0u8; 32];
        rand::thread_rng().fill_bytes(&mut bytes);
        let token = hex::encode(bytes);
        file.devices.push(DeviceToken {
            name: name.to_owned(),
            sha256: token_hash(&token),
            created: jiff::Timestamp::now().to_string(),
        });
        self.write(&file)?;
        Ok(token)
    }

    /// Remove `name`'s token: a running server closes its connections and
    /// refuses it from then on.
    pub fn revoke(&self, name: &str) -> Result<(), DeviceTokenError> {
        let _lock = self.lock()?;
        let mut file = self.read()?;
        let before = file.devices.len();
        file.devices.retain(|d| d.name != name);
        if file.devices.len() == before {
            return Err(DeviceTokenError::NotFound(name.to_owned()));
        }
        self.write(&file)
    }

    fn path(&self) -> PathBuf {
        self.dir.join(TOKENS_FILE)
    }

    fn read(&self) -> Result<TokensFile, DeviceTokenError> {
        Ok(json_file::read(&self.path())?)
    }

    /// Replace the file atomically (a reader sees the old list or the new one).
    fn write(&self, file: &TokensFile) -> Result<(), DeviceTokenError> {
        Ok(json_file::replace(&self.path(), &TokensFile { version: 1, devices: file.devices.clone() })?)
    }

    /// Hold the store's lock file: one `create`/`revoke` at a time.
    fn lock(&self) -> Result<File, DeviceTokenError> {
        Ok(json_file::lock(&self.dir, LOCK_FILE)?)
    }
}

pub(crate) fn check_name(name: &str) -> Result<(), DeviceTokenError> {
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS || name.chars().any(char::is_control) || name.trim() != name {
        return Err(DeviceTokenError::BadName(name.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_list_revoke_keep_only_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let store = DeviceTokenStore::in_data_dir(dir.path());
        assert!(store.list().unwrap().is_empty());
        let token = store.create("laptop").unwrap();
        assert_eq!(token.len(), 64);
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].sha256, token_hash(&token));
        let on_disk = std::fs::read_to_string(store.dir().join(TOKENS_FILE)).unwrap();
        assert!(!on_disk.contains(&token), "the token itself is never stored");
        assert!(matches!(store.create("laptop"), Err(DeviceTokenError::Exists(_))));
        store.revoke("laptop").unwrap();
        assert!(store.list().unwrap().is_empty());
        assert!(matches!(store.revoke("laptop"), Err(DeviceTokenError::NotFound(_))));
    }

    #[test]
    fn names_must_be_printable() {
        let dir = tempfile::tempdir().unwrap();
        let store = DeviceTokenStore::in_data_dir(dir.path());
        for bad in ["", " padded", "a\nb", &"x".repeat(65)] {
            assert!(matches!(store.create(bad), Err(DeviceTokenError::BadName(_))), "{bad:?}");
        }
    }
}
