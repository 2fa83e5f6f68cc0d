//! [`Remotes`]: the operations on saved hosts, as `hangar remote …` and the
//! desktop's "Add host" dialog and host menu use them — add (token into the
//! keyring first, then the list), list, get, rename, remove (token out of the
//! keyring first), a host's token, and connecting to a saved host.
//!
//! The list and keyring calls block (the keyring is a D-Bus round trip on
//! Linux): from async code, run them with `tokio::task::spawn_blocking`, as
//! [`Remotes::connect`] does.

use std::path::{Path, PathBuf};

use rand::RngCore;

use crate::connect::{check_url, connect, ConnectError, HostStream};
use crate::error::RemoteError;
use crate::fingerprint::Fingerprint;
use crate::hosts::{HostFile, SavedHost};
use crate::secrets::{Secrets, TokenStorage};

const MAX_NAME_CHARS: usize = 64;

/// A host to save.
#[derive(Debug, Clone)]
pub struct NewHost {
    /// Its name (unique; 1 to 64 printable characters).
    pub name: String,
    /// `ws://…` or `wss://…`, without a token.
    pub url: String,
    /// Its token (the host's, or a device token from `hangar token create`).
    pub token: String,
    /// The certificate fingerprint the user confirmed (required for `wss://`).
    pub fingerprint: Option<Fingerprint>,
    /// Where to keep the token.
    pub token_storage: TokenStorage,
}

/// The saved hosts of one config directory.
#[derive(Debug, Clone)]
pub struct Remotes {
    dir: PathBuf,
    list: HostFile,
    secrets: Secrets,
}

impl Remotes {
    /// The platform's: `$XDG_CONFIG_HOME/hangar` or `~/.config/hangar` on
    /// Linux, `~/Library/Application Support/hangar` on macOS, `%APPDATA%\hangar` on Windows.
    pub fn open() -> Result<Self, RemoteError> {
        Ok(Self::at(dirs::config_dir().ok_or(RemoteError::NoConfigDir)?.join("hangar")))
    }

    /// The ones kept in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        Self { list: HostFile::new(&dir), secrets: Secrets::new(&dir), dir }
    }

    /// The config directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every saved host, in the order added.
    pub fn list(&self) -> Result<Vec<SavedHost>, RemoteError> {
        self.list.read()
    }

    /// The saved host called `name`.
    pub fn get(&self, name: &str) -> Result<SavedHost, RemoteError> {
        self.list()?.into_iter().find(|h| h.name == name).ok_or_else(|| RemoteError::NotFound(name.to_owned()))
    }

    /// Save a host: its token goes to its store first, then the host to the
    /// list (the token is taken back out if the list cannot be written).
    pub fn add(&self, new: NewHost) -> Result<SavedHost, RemoteError> {
        check_name(&new.name)?;
        if new.token.is_empty() || new.token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(RemoteError::BadToken);
        }
        let secure = check_url(&new.url)?;
        if secure && new.fingerprint.is_none() {
            return Err(ConnectError::NotPinned(new.url).into());
        }
        let host = SavedHost {
            id: new_id(),
            name: new.name,
            url: new.url,
            fingerprint: if secure { new.fingerprint } else { None },
            token_storage: new.token_storage,
        };
        let mut stored = false;
        let saved = self.list.update(|hosts| {
            if hosts.iter().any(|h| h.name == host.name) {
                return Err(RemoteError::Exists(host.name.clone()));
            }
            self.secrets.store(host.token_storage, &host.id, &new.token)?;
            stored = true;
            hosts.push(host.clone());
            Ok(())
        });
        if let Err(e) = saved {
            if stored {
                // Best effort: the list was not written, so nothing refers to it.
                let _ = self.secrets.delete(host.token_storage, &host.id);
            }
            return Err(e);
        }
        Ok(host)
    }

    /// Give a saved host another name (its token stays where it is).
    pub fn rename(&self, from: &str, to: &str) -> Result<(), RemoteError> {
        check_name(to)?;
        self.list.update(|hosts| {
            if hosts.iter().any(|h| h.name == to) {
                return Err(RemoteError::Exists(to.to_owned()));
            }
            let host =
                hosts.iter_mut().find(|h| h.name == from).ok_or_else(|| RemoteError::NotFound(from.to_owned()))?;
            to.clone_into(&mut host.name);
            Ok(())
        })
    }

    /// Forget a saved host and its token; returns what was removed.
    pub fn remove(&self, name: &str) -> Result<SavedHost, RemoteError> {
        self.list.update(|hosts| {
            let at = hosts.iter().position(|h| h.name == name).ok_or_else(|| RemoteError::NotFound(name.to_owned()))?;
            self.secrets.delete(hosts[at].token_storage, &hosts[at].id)?;
            Ok(hosts.remove(at))
        })
    }

    /// A saved host's token, from its store.
    pub fn token(&self, host: &SavedHost) -> Result<String, RemoteError> {
        self.secrets.load(host.token_storage, &host.id)
    }

    /// Connect to the saved host `name` with its token and pinned certificate.
    pub async fn connect(&self, name: &str) -> Result<HostStream, RemoteError> {
        let this = self.clone();
        let name = name.to_owned();
        let (host, token) = tokio::task::spawn_blocking(move || {
            let host = this.get(&name)?;
            let token = this.token(&host)?;
            Ok::<_, RemoteError>((host, token))
        })
        .await
        .map_err(|e| RemoteError::Keyring(format!("the keyring lookup did not finish: {e}")))??;
        Ok(connect(&host.url, &token, host.fingerprint).await?)
    }
}

fn check_name(name: &str) -> Result<(), RemoteError> {
    let count = name.chars().count();
    let printable = !name.chars().any(char::is_control) && name.trim() == name;
    if count == 0 || count > MAX_NAME_CHARS || !printable {
        return Err(RemoteError::BadName(name.to_owned()));
    }
    Ok(())
}

fn new_id() -> String {
    let mut bytes = [0u8; 8];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn new_host(name: &str, url: &str) -> NewHost {
        NewHost {
            name: name.into(),
            url: url.into(),
            token: "t0ken-for-tests".into(),
            fingerprint: None,
            token_storage: TokenStorage::InsecureFile,
        }
    }

    #[test]
    fn add_list_rename_remove_with_an_opted_in_token_file() {
        let dir = tempfile::tempdir().unwrap();
        let remotes = Remotes::at(dir.path());
        assert!(remotes.list().unwrap().is_empty());
        let saved = remotes.add(new_host("box", "ws://127.0.0.1:9/")).unwrap();
        assert!(matches!(remotes.add(new_host("box", "ws://127.0.0.1:10/")), Err(RemoteError::Exists(_))));
        let token_file = dir.path().join(crate::secrets::INSECURE_TOKENS_DIR).join(&saved.id);
        assert_eq!(std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777, 0o600);
        let list = std::fs::read_to_string(dir.path().join(crate::hosts::HOSTS_FILE)).unwrap();
        assert!(!list.contains("t0ken-for-tests"), "no token in the list: {list}");

        remotes.rename("box", "big box").unwrap();
        let renamed = remotes.get("big box").unwrap();
        assert_eq!(renamed.id, saved.id);
        assert_eq!(remotes.token(&renamed).unwrap(), "t0ken-for-tests");
        assert!(matches!(remotes.get("box"), Err(RemoteError::NotFound(_))));

        remotes.remove("big box").unwrap();
        assert!(remotes.list().unwrap().is_empty());
        assert!(!token_file.exists());
    }

    #[test]
    fn wss_needs_a_pin_and_names_and_tokens_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let remotes = Remotes::at(dir.path());
        let unpinned = remotes.add(new_host("tls", "wss://127.0.0.1:9/"));
        assert!(matches!(unpinned, Err(RemoteError::Connect(ConnectError::NotPinned(_)))));
        assert!(matches!(remotes.add(new_host(" x", "ws://h:1/")), Err(RemoteError::BadName(_))));
        let mut spaced = new_host("x", "ws://h:1/");
        spaced.token = "a b".into();
        assert!(matches!(remotes.add(spaced), Err(RemoteError::BadToken)));
        assert!(remotes.list().unwrap().is_empty());
        assert!(!dir.path().join(crate::secrets::INSECURE_TOKENS_DIR).exists(), "nothing stored for refused hosts");
    }
}
