//! Where a saved host's token lives: the OS keyring (`keyring` crate: Secret
//! Service on Linux, Keychain on macOS, Credential Manager on Windows), or —
//! only when the user opts in — a plaintext file of mode 0600 in a 0700
//! folder of the config directory. Tokens are keyed by the host's stable id,
//! so renaming a host does not touch them. No token is ever logged.

use std::fs::{DirBuilder, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::RemoteError;

/// The keyring service name Hangar's entries are filed under.
pub const KEYRING_SERVICE: &str = "hangar";
/// The folder, under the config directory, of opted-in plaintext tokens.
pub const INSECURE_TOKENS_DIR: &str = "insecure-tokens";

/// Where one host's token is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TokenStorage {
    /// The OS keyring (the default).
    Keyring,
    /// A plaintext file of mode 0600 (explicit opt-in only).
    InsecureFile,
}

/// The token store of one config directory.
#[derive(Debug, Clone)]
pub(crate) struct Secrets {
    insecure_dir: PathBuf,
}

impl Secrets {
    pub(crate) fn new(config_dir: &std::path::Path) -> Self {
        Self { insecure_dir: config_dir.join(INSECURE_TOKENS_DIR) }
    }

    /// Keep `token` for host `id` in `storage`.
    pub(crate) fn store(&self, storage: TokenStorage, id: &str, token: &str) -> Result<(), RemoteError> {
        match storage {
            TokenStorage::Keyring => entry(id)?.set_password(token).map_err(keyring_error),
            TokenStorage::InsecureFile => {
                let io = |path: &PathBuf| {
                    let path = path.clone();
                    move |source| RemoteError::Io { path, source }
                };
                DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&self.insecure_dir)
                    .map_err(io(&self.insecure_dir))?;
                let path = self.insecure_dir.join(id);
                let mut file = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .mode(0o600)
                    .open(&path)
                    .map_err(io(&path))?;
                // A file left from before keeps its mode on open: set it again.
                file.set_permissions(Permissions::from_mode(0o600))
                    .and_then(|()| file.write_all(token.as_bytes()))
                    .map_err(io(&path))
            }
        }
    }

    /// The token of host `id`.
    pub(crate) fn load(&self, storage: TokenStorage, id: &str) -> Result<String, RemoteError> {
        match storage {
            TokenStorage::Keyring => entry(id)?.get_password().map_err(keyring_error),
            TokenStorage::InsecureFile => {
                let path = self.insecure_dir.join(id);
                match std::fs::read_to_string(&path) {
                    Ok(token) => Ok(token.trim().to_owned()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(RemoteError::TokenMissing),
                    Err(source) => Err(RemoteError::Io { path, source }),
                }
            }
        }
    }

    /// Forget host `id`'s token (already gone is fine).
    pub(crate) fn delete(&self, storage: TokenStorage, id: &str) -> Result<(), RemoteError> {
        match storage {
            TokenStorage::Keyring => match entry(id)?.delete_credential() {
                Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
                Err(e) => Err(keyring_error(e)),
            },
            TokenStorage::InsecureFile => {
                let path = self.insecure_dir.join(id);
                match std::fs::remove_file(&path) {
                    Ok(()) => Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    Err(source) => Err(RemoteError::Io { path, source }),
                }
            }
        }
    }
}

fn entry(id: &str) -> Result<keyring::Entry, RemoteError> {
    keyring::Entry::new(KEYRING_SERVICE, &format!("host/{id}")).map_err(keyring_error)
}

/// A keyring that is missing, locked or unreachable becomes
/// [`RemoteError::NoKeyring`] (whose message says what to install).
fn keyring_error(error: keyring::Error) -> RemoteError {
    match error {
        keyring::Error::NoEntry => RemoteError::TokenMissing,
        keyring::Error::PlatformFailure(e) | keyring::Error::NoStorageAccess(e) => {
            RemoteError::NoKeyring { detail: e.to_string() }
        }
        other => RemoteError::Keyring(other.to_string()),
    }
}
