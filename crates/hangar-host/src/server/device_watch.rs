//! The running server's view of the device tokens: the set of token hashes
//! in `DATA_DIR/devices/tokens.json`, reloaded whenever that folder changes.
//!
//! `hangar token revoke` runs in another process and only rewrites the file;
//! a `notify` watcher on the folder (not on the data directory, whose
//! database changes all the time) makes the server notice at once, with no
//! admin channel to authenticate. A connection opened with a device token
//! follows [`DeviceRegistry::subscribe`] and closes when its hash leaves the
//! set. A file that cannot be read counts as no devices (fail closed).

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::watch;

use super::device_tokens::DeviceTokenStore;
use super::ws_upgrade::Credential;

/// Token hashes (lowercase hex SHA-256) currently allowed.
pub type DeviceHashes = Arc<HashSet<String>>;

/// The live set of device-token hashes.
pub struct DeviceRegistry {
    hashes: Arc<watch::Sender<DeviceHashes>>,
    /// Kept for its lifetime: dropping it stops the watching.
    _watcher: Option<RecommendedWatcher>,
}

impl DeviceRegistry {
    /// Load the devices of `data_dir` and follow changes to them.
    pub fn watch(data_dir: &Path) -> Self {
        let store = DeviceTokenStore::in_data_dir(data_dir);
        let hashes = Arc::new(watch::Sender::new(load(&store)));
        let watcher = match start_watcher(store, hashes.clone()) {
            Ok(watcher) => Some(watcher),
            Err(e) => {
                tracing::warn!("cannot watch the device tokens ({e}): a revocation reaches this host at its restart");
                None
            }
        };
        Self { hashes, _watcher: watcher }
    }

    /// A fixed set, for tests of the checks that use it.
    pub fn fixed(hashes: impl IntoIterator<Item = String>) -> Self {
        Self { hashes: Arc::new(watch::Sender::new(Arc::new(hashes.into_iter().collect()))), _watcher: None }
    }

    /// Whether a device token with this hash may connect now.
    pub fn contains(&self, hash: &str) -> bool {
        self.hashes.borrow().contains(hash)
    }

    /// Follow the set (the receiver sees every later change).
    pub fn subscribe(&self) -> watch::Receiver<DeviceHashes> {
        self.hashes.subscribe()
    }
}

/// Resolves once the device token behind `credential` is no longer in the
/// registry; never for the host's token.
pub async fn until_revoked(credential: Option<Credential>, mut devices: watch::Receiver<DeviceHashes>) {
    let Some(Credential::Device(hash)) = credential else {
        return std::future::pending().await;
    };
    while devices.borrow_and_update().contains(&hash) {
        if devices.changed().await.is_err() {
            return std::future::pending().await;
        }
    }
}

fn load(store: &DeviceTokenStore) -> DeviceHashes {
    match store.list() {
        Ok(devices) => Arc::new(devices.into_iter().map(|d| d.sha256).collect()),
        Err(e) => {
            tracing::warn!("device tokens unreadable, none accepted until fixed: {e}");
            Arc::default()
        }
    }
}

fn start_watcher(
    store: DeviceTokenStore,
    hashes: Arc<watch::Sender<DeviceHashes>>,
) -> notify::Result<RecommendedWatcher> {
    std::fs::create_dir_all(store.dir()).map_err(notify::Error::io)?;
    let dir = store.dir().to_owned();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // Reading the file is an access event itself: reload only on changes.
        let changed = match &event {
            Ok(event) => matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)),
            Err(_) => true,
        };
        if changed {
            let next = load(&store);
            hashes.send_if_modified(|current| {
                let differs = *current != next;
                if differs {
                    *current = next;
                }
                differs
            });
        }
    })?;
    watcher.watch(&dir, RecursiveMode::NonRecursive)?;
    Ok(watcher)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::device_tokens::token_hash;

    #[tokio::test]
    async fn a_revocation_in_the_store_reaches_a_subscriber() {
        let dir = tempfile::tempdir().unwrap();
        let store = DeviceTokenStore::in_data_dir(dir.path());
        let token = store.create("phone").unwrap();
        let registry = DeviceRegistry::watch(dir.path());
        assert!(registry.contains(&token_hash(&token)));
        let mut follow = registry.subscribe();
        store.revoke("phone").unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(20), async {
            while follow.borrow_and_update().contains(&token_hash(&token)) {
                follow.changed().await.unwrap();
            }
        })
        .await
        .unwrap();
        assert!(!registry.contains(&token_hash(&token)));
    }
}
