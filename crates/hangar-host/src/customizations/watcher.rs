//! One debounced `notify` watcher over the known customization folders of
//! every open session, never over a whole working directory.
//!
//! [`CustomizationWatcher::sync`] takes the union of the sessions'
//! [`WatchPoint`]s and adds or removes OS watches to match. A point whose
//! folder does not exist yet is watched through its nearest existing
//! ancestor, non-recursively: creating `.claude/agents` shows up as an event
//! in `.claude` (or the working directory), the owner re-discovers, and the
//! next `sync` watches the new folder itself. Events are debounced by
//! `notify-debouncer-mini` ([`DEBOUNCE`]) and delivered as the set of changed
//! paths; what they mean is the owner's business.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};

use super::WatchPoint;
use crate::locks::lock;

/// Quiet time before a batch of changes is delivered.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Receives the paths that changed (never empty).
pub type OnPaths = Box<dyn Fn(Vec<PathBuf>) + Send + 'static>;

/// The watcher. Dropping it stops every watch.
pub struct CustomizationWatcher {
    inner: Mutex<Inner>,
}

struct Inner {
    debouncer: Debouncer<RecommendedWatcher>,
    /// What is watched now, with its mode (recursive wins over not).
    watched: BTreeMap<PathBuf, bool>,
}

impl CustomizationWatcher {
    /// A watcher delivering changed paths to `on_paths`.
    pub fn new(on_paths: OnPaths) -> Result<Self, notify::Error> {
        let debouncer = new_debouncer(DEBOUNCE, move |result: DebounceEventResult| match result {
            Ok(events) => {
                let paths: BTreeSet<PathBuf> = events.into_iter().map(|e| e.path).collect();
                if !paths.is_empty() {
                    on_paths(paths.into_iter().collect());
                }
            }
            Err(e) => tracing::warn!("customization watcher: {e}"),
        })?;
        Ok(Self { inner: Mutex::new(Inner { debouncer, watched: BTreeMap::new() }) })
    }

    /// Watch exactly `points` (after resolving missing folders to their
    /// nearest existing ancestor). A folder that cannot be watched (e.g. the
    /// inotify limit) is logged and skipped; the others still are.
    pub fn sync<'a>(&self, points: impl IntoIterator<Item = &'a WatchPoint>) {
        let wanted = resolve(points);
        let mut inner = lock(&self.inner);
        let stale: Vec<(PathBuf, bool)> = inner
            .watched
            .iter()
            .filter(|(path, recursive)| wanted.get(*path) != Some(*recursive))
            .map(|(p, r)| (p.clone(), *r))
            .collect();
        for (path, _) in stale {
            let _ = inner.debouncer.watcher().unwatch(&path);
            inner.watched.remove(&path);
        }
        for (path, recursive) in wanted {
            if inner.watched.contains_key(&path) {
                continue;
            }
            let mode = if recursive { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
            match inner.debouncer.watcher().watch(&path, mode) {
                Ok(()) => {
                    inner.watched.insert(path, recursive);
                }
                Err(e) => tracing::warn!("cannot watch {}: {e}", path.display()),
            }
        }
    }

    /// How many OS-level watches are registered (for tests and figures).
    pub fn watched(&self) -> Vec<(PathBuf, bool)> {
        lock(&self.inner).watched.iter().map(|(p, r)| (p.clone(), *r)).collect()
    }
}

/// Each point as an existing path and mode; recursive wins on a tie.
fn resolve<'a>(points: impl IntoIterator<Item = &'a WatchPoint>) -> BTreeMap<PathBuf, bool> {
    let mut wanted: BTreeMap<PathBuf, bool> = BTreeMap::new();
    for point in points {
        let Some((path, recursive)) = existing(&point.path, point.recursive) else {
            continue;
        };
        let entry = wanted.entry(path).or_insert(false);
        *entry |= recursive;
    }
    wanted
}

/// `path` itself when it exists, else its nearest existing ancestor
/// (non-recursive: only the creation of the missing child matters).
fn existing(path: &Path, recursive: bool) -> Option<(PathBuf, bool)> {
    if path.exists() {
        return Some((path.to_path_buf(), recursive));
    }
    path.ancestors().skip(1).find(|a| a.is_dir()).map(|a| (a.to_path_buf(), false))
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    fn point(path: &Path, recursive: bool) -> WatchPoint {
        WatchPoint { path: path.to_path_buf(), recursive }
    }

    #[test]
    fn a_missing_folder_is_watched_through_its_nearest_existing_ancestor() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".claude")).unwrap();
        let (tx, _rx) = mpsc::channel();
        let watcher = CustomizationWatcher::new(Box::new(move |p| drop(tx.send(p)))).unwrap();
        watcher.sync(&[point(&root.join(".claude/agents"), true), point(&root, false)]);
        assert_eq!(watcher.watched(), vec![(root.clone(), false), (root.join(".claude"), false)]);
        std::fs::create_dir(root.join(".claude/agents")).unwrap();
        watcher.sync(&[point(&root.join(".claude/agents"), true), point(&root, false)]);
        assert_eq!(watcher.watched(), vec![(root.clone(), false), (root.join(".claude/agents"), true)]);
    }

    #[test]
    fn a_change_in_a_watched_folder_is_delivered_and_one_outside_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let agents = root.join(".claude/agents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        let (tx, rx) = mpsc::channel();
        let watcher = CustomizationWatcher::new(Box::new(move |p| drop(tx.send(p)))).unwrap();
        watcher.sync(&[point(&agents, true), point(&root, false)]);
        std::fs::write(root.join("src/deep/lib.rs"), "fn main() {}").unwrap();
        std::fs::write(agents.join("reviewer.md"), "---\nname: reviewer\n---\n").unwrap();
        let paths = rx.recv_timeout(Duration::from_secs(20)).expect("the agent file's change is delivered");
        assert!(paths.iter().any(|p| p.ends_with("reviewer.md")), "{paths:?}");
        assert!(!paths.iter().any(|p| p.starts_with(root.join("src/deep"))), "no watch below src: {paths:?}");
    }
}
