//! A file watcher per session feeding a dirty set between scans, so a scan
//! after the first looks only at the paths that changed.
//!
//! Map:
//! - [`Watch::start`] — raw `notify` events (inotify on Linux, not
//!   debounced: a debouncer could still hold an event when a turn ends) on
//!   every working directory, recursively, plus the sync folder.
//! - [`Watch::take`] — the barrier, then the dirty set: every path an event
//!   named since the last take, or [`Dirty::Lost`] when the watcher cannot
//!   vouch for it (queue overflow, an error, no answer to the barrier).
//! - [`on_event`] — what one event does to the shared state.
//!
//! **The barrier.** An event reaches us on notify's thread some time after
//! the write. So before handing out the dirty set, [`Watch::take`] creates a
//! marker file in the sync folder (in the host's data dir) and waits until
//! the watcher has delivered the marker's own event. One inotify instance
//! queues its events in the order they happened, so every write that
//! finished before the marker was created has been delivered by then. If
//! the marker's event does not come within [`SYNC_TIMEOUT`], the set is
//! [`Dirty::Lost`] and the caller scans everything.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind, RenameMode};
use notify::{EventKind, RecursiveMode, Watcher};

use crate::locks::lock;

/// How long [`Watch::take`] waits for the marker's event.
pub const SYNC_TIMEOUT: Duration = Duration::from_secs(2);

/// More dirty paths than this and a full scan is cheaper to reason about
/// (a build writing its output, a checkout of another branch).
pub const MAX_DIRTY: usize = 50_000;

/// What changed since the last [`Watch::take`].
#[derive(Debug, PartialEq, Eq)]
pub enum Dirty {
    /// The paths events named.
    Paths(Changed),
    /// The watcher cannot say: scan everything. The reason, for the log.
    Lost(String),
}

/// The paths events named since the last take.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changed {
    /// Every path an event named: files and folders created, written,
    /// removed, renamed from or to.
    pub paths: HashSet<PathBuf>,
    /// Those removed or renamed away: if one was a folder, nothing listed
    /// under it is there now, whatever the path holds at the scan.
    pub vanished: HashSet<PathBuf>,
}

/// The state notify's thread fills.
#[derive(Default)]
pub struct State {
    dirty: Changed,
    lost: Option<String>,
    /// The highest marker number seen.
    synced: u64,
}

/// One session's watcher.
pub struct Watch {
    /// The folders watched (a session whose folders change gets a new one).
    pub dirs: Vec<PathBuf>,
    _watcher: notify::RecommendedWatcher,
    shared: Arc<(Mutex<State>, Condvar)>,
    sync_dir: PathBuf,
    /// This watch's marker names: `<id>-<n>`.
    id: String,
    sent: u64,
}

impl Watch {
    /// Watch `dirs` recursively (symlinks not followed) and `sync_dir`.
    /// Fails when a folder cannot be watched (inotify's watch limit,
    /// `fs.inotify.max_user_watches`, is reached; the folder is gone).
    pub fn start(dirs: &[PathBuf], sync_dir: &Path) -> Result<Self, String> {
        std::fs::create_dir_all(sync_dir).map_err(|e| format!("{}: {e}", sync_dir.display()))?;
        let id = format!("{:016x}", rand::random::<u64>());
        let shared: Arc<(Mutex<State>, Condvar)> = Arc::default();
        let handler = {
            let shared = shared.clone();
            let (sync_dir, id) = (sync_dir.to_path_buf(), id.clone());
            move |event: notify::Result<notify::Event>| {
                let (state, cond) = &*shared;
                on_event(&mut lock(state), &sync_dir, &id, event);
                cond.notify_all();
            }
        };
        let config = notify::Config::default().with_follow_symlinks(false);
        let mut watcher = notify::RecommendedWatcher::new(handler, config).map_err(|e| e.to_string())?;
        watcher.watch(sync_dir, RecursiveMode::NonRecursive).map_err(|e| format!("{}: {e}", sync_dir.display()))?;
        for dir in dirs {
            watcher.watch(dir, RecursiveMode::Recursive).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        Ok(Self { dirs: dirs.to_vec(), _watcher: watcher, shared, sync_dir: sync_dir.to_path_buf(), id, sent: 0 })
    }

    /// Every path changed by a write that finished before this call (the
    /// barrier above), and a fresh set from here on.
    pub fn take(&mut self) -> Dirty {
        self.sent += 1;
        let marker = self.sync_dir.join(format!("{}-{}", self.id, self.sent));
        let synced = std::fs::File::create(&marker).map_err(|e| e.to_string()).and_then(|_| self.wait(self.sent));
        let _ = std::fs::remove_file(&marker);
        let mut state = lock(&self.shared.0);
        let dirty = std::mem::take(&mut state.dirty);
        if let Some(reason) = state.lost.take() {
            return Dirty::Lost(reason);
        }
        if let Err(reason) = synced {
            return Dirty::Lost(reason);
        }
        Dirty::Paths(dirty)
    }

    /// Whether the set gathered so far can be trusted (no overflow or error
    /// since the last take).
    pub fn healthy(&self) -> bool {
        lock(&self.shared.0).lost.is_none()
    }

    /// Wait until the marker numbered `n` has been seen.
    fn wait(&self, n: u64) -> Result<(), String> {
        let (state, cond) = &*self.shared;
        let deadline = Instant::now() + SYNC_TIMEOUT;
        let mut guard = lock(state);
        while guard.synced < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!("the file watcher did not deliver its marker within {SYNC_TIMEOUT:?}"));
            }
            guard = match cond.wait_timeout(guard, left) {
                Ok((g, _)) => g,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        Ok(())
    }

    /// The shared state, for tests that feed it events.
    #[cfg(test)]
    pub fn state(&self) -> &Mutex<State> {
        &self.shared.0
    }
}

/// What one event (or error) from notify does to `state`.
pub fn on_event(state: &mut State, sync_dir: &Path, id: &str, event: notify::Result<notify::Event>) {
    let event = match event {
        Ok(event) => event,
        Err(e) => {
            state.lost.get_or_insert_with(|| format!("the file watcher reported an error: {e}"));
            return;
        }
    };
    if event.need_rescan() {
        // inotify's IN_Q_OVERFLOW: events were dropped.
        state.lost.get_or_insert_with(|| "the file watcher's event queue overflowed".to_owned());
        return;
    }
    // A read changes nothing; a close after a write does (a write through
    // `mmap` shows only there).
    if matches!(event.kind, EventKind::Access(kind) if kind != AccessKind::Close(AccessMode::Write)) {
        return;
    }
    let vanishing = match event.kind {
        EventKind::Remove(_) => event.paths.len(),
        EventKind::Modify(ModifyKind::Name(RenameMode::From | RenameMode::Both)) => 1,
        _ => 0,
    };
    for (i, path) in event.paths.into_iter().enumerate() {
        if path.parent() == Some(sync_dir) {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if let Some(n) = name.strip_prefix(id).and_then(|r| r.strip_prefix('-')).and_then(|n| n.parse().ok()) {
                state.synced = state.synced.max(n);
            }
            continue;
        }
        // Git's own files (objects, a `gc` packing them) are never tracked;
        // only `info/exclude` changes what a scan sees.
        if path.components().any(|c| c.as_os_str() == ".git") && !path.ends_with("info/exclude") {
            continue;
        }
        if state.dirty.paths.len() >= MAX_DIRTY {
            state.lost.get_or_insert_with(|| format!("more than {MAX_DIRTY} paths changed"));
            return;
        }
        if i < vanishing {
            state.dirty.vanished.insert(path.clone());
        }
        state.dirty.paths.insert(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_write_before_a_take_is_in_its_set_and_reads_are_not() {
        let ws = tempfile::tempdir().unwrap();
        let sync = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::write(root.join("read.txt"), "r").unwrap();
        let mut watch = Watch::start(std::slice::from_ref(&root), sync.path()).unwrap();
        assert_eq!(watch.take(), Dirty::Paths(Changed::default()));
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::create_dir(root.join("d")).unwrap();
        let _ = std::fs::read(root.join("read.txt")).unwrap();
        // Right after the writes: the barrier makes the take see them.
        let Dirty::Paths(Changed { paths: dirty, .. }) = watch.take() else { panic!("lost") };
        assert!(dirty.contains(&root.join("a.txt")), "{dirty:?}");
        assert!(dirty.contains(&root.join("d")), "{dirty:?}");
        assert!(!dirty.contains(&root.join("read.txt")), "{dirty:?}");
        assert_eq!(watch.take(), Dirty::Paths(Changed::default()));
    }

    #[test]
    fn an_overflow_or_an_error_loses_the_set_once() {
        let ws = tempfile::tempdir().unwrap();
        let sync = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        let mut watch = Watch::start(std::slice::from_ref(&root), sync.path()).unwrap();
        let overflow = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        on_event(&mut lock(watch.state()), sync.path(), "x", Ok(overflow));
        assert!(matches!(watch.take(), Dirty::Lost(r) if r.contains("overflowed")));
        on_event(&mut lock(watch.state()), sync.path(), "x", Err(notify::Error::generic("boom")));
        assert!(matches!(watch.take(), Dirty::Lost(r) if r.contains("boom")));
        assert_eq!(watch.take(), Dirty::Paths(Changed::default()));
    }
}
