//! The saved host list, `CONFIG/hangar/hosts.json`: each host's stable id,
//! name, URL, pinned certificate fingerprint and where its token is kept —
//! never the token. Changed under a lock file (`hosts.lock`), replaced
//! atomically, so the command line and the desktop can both edit it.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::RemoteError;
use crate::fingerprint::Fingerprint;
use crate::secrets::TokenStorage;

/// The list's file name in the config directory.
pub const HOSTS_FILE: &str = "hosts.json";
const LOCK_FILE: &str = "hosts.lock";

/// One saved host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedHost {
    /// Stable id (random; the keyring entry is filed under it, so a rename
    /// leaves the token alone). Also a good `ahp::hosts::HostId`.
    pub id: String,
    /// The name the user gave (unique in the list).
    pub name: String,
    /// `ws://…` or `wss://…`, without a token.
    pub url: String,
    /// The pinned certificate (every `wss://` host has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
    /// Where its token is kept.
    pub token_storage: TokenStorage,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ListFile {
    version: u32,
    hosts: Vec<SavedHost>,
}

/// The list file in one config directory.
#[derive(Debug, Clone)]
pub(crate) struct HostFile {
    dir: PathBuf,
}

impl HostFile {
    pub(crate) fn new(dir: &Path) -> Self {
        Self { dir: dir.to_owned() }
    }

    /// The saved hosts, in the order they were added (none when there is no file).
    pub(crate) fn read(&self) -> Result<Vec<SavedHost>, RemoteError> {
        let path = self.dir.join(HOSTS_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<ListFile>(&bytes)
                .map(|list| list.hosts)
                .map_err(|source| RemoteError::Corrupt { path, source }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(source) => Err(RemoteError::Io { path, source }),
        }
    }

    /// Change the list under its lock: `change` sees the current hosts; when
    /// it returns `Ok` the result is written, atomically.
    pub(crate) fn update<T>(
        &self,
        change: impl FnOnce(&mut Vec<SavedHost>) -> Result<T, RemoteError>,
    ) -> Result<T, RemoteError> {
        let _lock = self.lock()?;
        let mut hosts = self.read()?;
        let out = change(&mut hosts)?;
        self.write(hosts)?;
        Ok(out)
    }

    fn write(&self, hosts: Vec<SavedHost>) -> Result<(), RemoteError> {
        let path = self.dir.join(HOSTS_FILE);
        let mut body = serde_json::to_vec_pretty(&ListFile { version: 1, hosts })
            .map_err(|source| RemoteError::Corrupt { path: path.clone(), source })?;
        body.push(b'\n');
        let failed = |source| RemoteError::Io { path: path.clone(), source };
        let mut staged = tempfile::Builder::new().prefix(".hosts").tempfile_in(&self.dir).map_err(failed)?;
        staged.write_all(&body).map_err(failed)?;
        staged.as_file().sync_all().map_err(failed)?;
        staged.persist(&path).map_err(|e| failed(e.error))?;
        Ok(())
    }

    fn lock(&self) -> Result<File, RemoteError> {
        let failed = |source| RemoteError::Io { path: self.dir.clone(), source };
        std::fs::create_dir_all(&self.dir).map_err(failed)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join(LOCK_FILE))
            .map_err(failed)?;
        file.lock().map_err(failed)?;
        Ok(file)
    }
}
