//! [`Tracker`]: what each turn changed in a session's working directories,
//! whoever wrote it (the agent's `fs/write_text_file`, its own I/O, a shell
//! command), and the session's pending changes.
//!
//! A turn is bracketed by two scans: [`Tracker::begin_turn`] records the
//! state before the prompt is sent (anything changed since the last turn is
//! the user's and becomes the new baseline), [`Tracker::end_turn`] compares
//! after the turn ends. A turn left open by a crash is closed by the next
//! `begin_turn`. All of it is serialized by one lock: scans of two sessions
//! do not overlap.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::changes_db::{ChangeStore, ChangeStoreError, FileChange, Pending, Tx};
use super::scan::{self, Manifest};
use crate::locks::lock;

/// What a closed turn changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnDelta {
    /// The turn id.
    pub turn: String,
    /// Its files.
    pub changes: Vec<FileChange>,
}

/// The tracker's state behind its lock.
pub(super) struct Inner {
    pub store: ChangeStore,
    /// Manifests read from the store or the last scan, by session.
    manifests: HashMap<String, Manifest>,
    /// Never scanned (the host's data dir, credential folders).
    skip: Vec<PathBuf>,
    /// Sessions found too big to track, with the reason: not scanned again
    /// until the host restarts.
    untracked: HashMap<String, String>,
    limits: scan::Limits,
}

impl Inner {
    /// `session`'s manifest (read from the store the first time).
    pub fn manifest(&mut self, session: &str) -> Result<&mut Manifest, ChangeStoreError> {
        if !self.manifests.contains_key(session) {
            let stored = self.store.manifest(session)?;
            self.manifests.insert(session.to_owned(), stored);
        }
        self.manifests.get_mut(session).ok_or_else(|| ChangeStoreError::Io("manifest cache".into()))
    }

    /// Replace `session`'s cached manifest (after an operation wrote files).
    pub fn set_manifest(&mut self, session: &str, manifest: Manifest) {
        self.manifests.insert(session.to_owned(), manifest);
    }

    /// Look at `paths` again: those whose identity changed since the last
    /// scan are read (content kept) into the manifest.
    fn refresh<'a>(&mut self, session: &str, paths: impl Iterator<Item = &'a Path>) -> Result<(), ChangeStoreError> {
        let old = self.manifest(session)?.clone();
        let mut new = old.clone();
        let changed: Vec<&Path> = paths
            .filter(|p| {
                let now = std::fs::symlink_metadata(p).ok().map(|m| scan::Stat::of(&m));
                match (old.get(*p), now) {
                    (Some(e), Some(now)) => e.stat != now,
                    (None, None) => false,
                    _ => true,
                }
            })
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        self.store.transaction(|tx| {
            for path in &changed {
                let mut failed = None;
                match scan::entry_of(path, &mut |h, b| {
                    if let Err(e) = tx.put_blob(h, b) {
                        failed.get_or_insert(e);
                    }
                }) {
                    Some(entry) => new.insert(path.to_path_buf(), entry),
                    None => new.remove(*path),
                };
                if let Some(e) = failed {
                    return Err(e);
                }
            }
            tx.save_manifest(session, &old, &new)
        })?;
        self.manifests.insert(session.to_owned(), new);
        Ok(())
    }

    /// Rescan `dirs` in one transaction (blobs, manifest, then `more`).
    fn rescan<R>(
        &mut self,
        session: &str,
        dirs: &[PathBuf],
        more: impl FnOnce(&Tx<'_>, &Manifest, &Manifest) -> Result<R, ChangeStoreError>,
    ) -> Result<R, ChangeStoreError> {
        let old = self.manifest(session)?.clone();
        let (new, result) = self.store.transaction(|tx| {
            let mut failed = None;
            let (new, _) = scan::scan(dirs, &self.skip, self.limits, &old, &mut |hash, bytes| {
                if let Err(e) = tx.put_blob(hash, bytes) {
                    failed.get_or_insert(e);
                }
            })
            .map_err(ChangeStoreError::Io)?;
            if let Some(e) = failed {
                return Err(e);
            }
            tx.save_manifest(session, &old, &new)?;
            let result = more(tx, &old, &new)?;
            Ok((new, result))
        })?;
        self.manifests.insert(session.to_owned(), new);
        Ok(result)
    }

    /// Close `turn`: record its changes and fold them into the pending set.
    fn close(&mut self, session: &str, turn: &str, dirs: &[PathBuf]) -> Result<TurnDelta, ChangeStoreError> {
        let pending: BTreeMap<PathBuf, Pending> =
            self.store.pending(session)?.into_iter().map(|p| (p.path.clone(), p)).collect();
        let changes = self.rescan(session, dirs, |tx, old, new| {
            let changes = compare(old, new);
            tx.add_turn_changes(session, turn, &changes)?;
            for c in &changes {
                let before = pending.get(&c.path).map_or(c.before.clone(), |p| p.before.clone());
                if before == c.after {
                    tx.remove_pending(session, &c.path)?;
                } else {
                    // Touched again: its "viewed" mark is cleared.
                    let p = Pending { path: c.path.clone(), before, agent_after: c.after.clone(), reviewed: false };
                    tx.set_pending(session, &p)?;
                }
            }
            tx.set_open_turn(session, None)?;
            tx.mark_turn_end(session, turn)?;
            Ok(changes)
        })?;
        Ok(TurnDelta { turn: turn.to_owned(), changes })
    }
}

/// Files whose content differs between two manifests.
fn compare(old: &Manifest, new: &Manifest) -> Vec<FileChange> {
    let mut out = Vec::new();
    for (path, entry) in new {
        match old.get(path) {
            Some(o) if o.hash == entry.hash => {}
            o => out.push(FileChange {
                path: path.clone(),
                before: o.map(|o| o.hash.clone()),
                after: Some(entry.hash.clone()),
            }),
        }
    }
    for (path, o) in old {
        if !new.contains_key(path) {
            out.push(FileChange { path: path.clone(), before: Some(o.hash.clone()), after: None });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The change tracker of every session on this host.
pub struct Tracker {
    pub(super) inner: Mutex<Inner>,
}

impl Tracker {
    /// Open `changes.db` in `data_dir`; folders under `skip` are never
    /// scanned.
    pub fn open(data_dir: &Path, skip: Vec<PathBuf>) -> Result<Self, ChangeStoreError> {
        let store = ChangeStore::open(&data_dir.join("changes.db"))?;
        let inner =
            Inner { store, manifests: HashMap::new(), skip, untracked: HashMap::new(), limits: Default::default() };
        Ok(Self { inner: Mutex::new(inner) })
    }

    /// The same tracker with other size limits (tests).
    pub fn with_limits(self, limits: scan::Limits) -> Self {
        lock(&self.inner).limits = limits;
        self
    }

    /// Before `turn`'s prompt is sent: close a turn left open (returned),
    /// then record the working directories as they are now.
    pub fn begin_turn(
        &self,
        session: &str,
        turn: &str,
        dirs: &[PathBuf],
    ) -> Result<Option<TurnDelta>, ChangeStoreError> {
        let mut inner = lock(&self.inner);
        if let Some(reason) = inner.untracked.get(session) {
            return Err(ChangeStoreError::Io(reason.clone()));
        }
        let open = inner.store.open_turn(session)?;
        if open.as_deref() == Some(turn) {
            return Ok(None);
        }
        let closed = match open {
            Some(other) => Some(inner.close(session, &other, dirs)?),
            None => None,
        };
        if let Err(e) = inner.rescan(session, dirs, |tx, _, _| tx.set_open_turn(session, Some(turn))) {
            if let ChangeStoreError::Io(reason) = &e {
                inner.untracked.insert(session.to_owned(), reason.clone());
            }
            return Err(e);
        }
        Ok(closed)
    }

    /// After `turn` ended: what it changed (`None` when it was not open).
    pub fn end_turn(&self, session: &str, turn: &str, dirs: &[PathBuf]) -> Result<Option<TurnDelta>, ChangeStoreError> {
        let mut inner = lock(&self.inner);
        if inner.store.open_turn(session)?.as_deref() != Some(turn) {
            return Ok(None);
        }
        inner.close(session, turn, dirs).map(Some)
    }

    /// Whether `session` has a turn open.
    pub fn turn_open(&self, session: &str) -> Result<bool, ChangeStoreError> {
        Ok(lock(&self.inner).store.open_turn(session)?.is_some())
    }

    /// Stored content.
    pub fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>, ChangeStoreError> {
        lock(&self.inner).store.blob(hash)
    }

    /// `session`'s pending files, each with its current content hash
    /// (`None`: the file is gone). Each pending file is looked at again, so
    /// an edit made since the last turn shows ("after" is now).
    ///
    /// While a turn runs, the manifest must stay as the turn found the files
    /// (its end compares against it), so the files are read without
    /// recording them: otherwise a client looking at the changeset mid-turn
    /// would hide the agent's edits of pending files from that turn.
    pub fn pending(&self, session: &str) -> Result<Vec<(Pending, Option<String>)>, ChangeStoreError> {
        let mut inner = lock(&self.inner);
        let pending = inner.store.pending(session)?;
        if inner.store.open_turn(session)?.is_some() {
            return inner.store.transaction(|tx| {
                let mut failed = None;
                let rows = pending
                    .into_iter()
                    .map(|p| {
                        let now = scan::entry_of(&p.path, &mut |h, b| {
                            if let Err(e) = tx.put_blob(h, b) {
                                failed.get_or_insert(e);
                            }
                        });
                        (p, now.map(|e| e.hash))
                    })
                    .collect();
                failed.map_or(Ok(rows), Err)
            });
        }
        inner.refresh(session, pending.iter().map(|p| p.path.as_path()))?;
        let manifest = inner.manifest(session)?;
        Ok(pending
            .into_iter()
            .map(|p| {
                let now = manifest.get(&p.path).map(|e| e.hash.clone());
                (p, now)
            })
            .collect())
    }

    /// The turns of `session` that changed files, oldest first.
    pub fn turns(&self, session: &str) -> Result<Vec<String>, ChangeStoreError> {
        lock(&self.inner).store.turns(session)
    }

    /// What `turn` changed.
    pub fn turn_changes(&self, session: &str, turn: &str) -> Result<Vec<FileChange>, ChangeStoreError> {
        lock(&self.inner).store.turn_changes(session, turn)
    }

    /// Every session the store knows changes of.
    pub fn sessions(&self) -> Result<Vec<String>, ChangeStoreError> {
        lock(&self.inner).store.sessions()
    }

    /// Keep the contents of `items` (content-addressed, one transaction) and
    /// name them by hash.
    pub fn keep_contents(
        &self,
        items: &[super::uncommitted::Uncommitted],
    ) -> Result<Vec<FileChange>, ChangeStoreError> {
        lock(&self.inner).store.transaction(|tx| {
            let keep = |bytes: &Option<Vec<u8>>| -> Result<Option<String>, ChangeStoreError> {
                let Some(bytes) = bytes else { return Ok(None) };
                let hash = scan::hash_of(bytes);
                tx.put_blob(&hash, bytes)?;
                Ok(Some(hash))
            };
            items
                .iter()
                .map(|i| Ok(FileChange { path: i.path.clone(), before: keep(&i.before)?, after: keep(&i.after)? }))
                .collect()
        })
    }

    /// Set the "viewed" mark of pending files.
    pub fn set_reviewed(&self, session: &str, paths: &[PathBuf], reviewed: bool) -> Result<(), ChangeStoreError> {
        lock(&self.inner).store.transaction(|tx| tx.set_reviewed(session, paths, reviewed))
    }

    /// `session`'s audit log.
    pub fn audit(&self, session: &str) -> Result<Vec<serde_json::Value>, ChangeStoreError> {
        lock(&self.inner).store.audit(session)
    }

    /// Append to the audit log.
    pub fn record(&self, session: &str, at: &str, entry: &serde_json::Value) -> Result<(), ChangeStoreError> {
        lock(&self.inner).store.transaction(|tx| tx.audit(session, at, entry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(text: &str) -> Option<String> {
        Some(scan::hash_of(text.as_bytes()))
    }

    #[test]
    fn a_turn_lists_what_it_changed_and_the_user_edits_between_turns_are_not_its() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().to_path_buf();
        let dirs = vec![root.clone()];
        std::fs::write(root.join("keep.txt"), "same\n").unwrap();
        std::fs::write(root.join("edit.txt"), "one\n").unwrap();
        std::fs::write(root.join("gone.txt"), "bye\n").unwrap();
        let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
        assert_eq!(tracker.begin_turn("s", "t1", &dirs).unwrap(), None);
        std::fs::write(root.join("edit.txt"), "two\n").unwrap();
        std::fs::write(root.join("new.txt"), "hi\n").unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        let delta = tracker.end_turn("s", "t1", &dirs).unwrap().unwrap();
        let got: Vec<_> = delta
            .changes
            .iter()
            .map(|c| (c.path.file_name().unwrap().to_owned(), c.before.clone(), c.after.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("edit.txt".into(), hash("one\n"), hash("two\n")),
                ("gone.txt".into(), hash("bye\n"), None),
                ("new.txt".into(), None, hash("hi\n")),
            ]
        );
        // The user edits keep.txt between turns; turn 2 writes nothing.
        std::fs::write(root.join("keep.txt"), "user\n").unwrap();
        tracker.begin_turn("s", "t2", &dirs).unwrap();
        assert_eq!(tracker.end_turn("s", "t2", &dirs).unwrap().unwrap().changes, []);
        assert_eq!(tracker.pending("s").unwrap().len(), 3);
        // The old content is kept for a reject.
        assert_eq!(tracker.blob(&hash("bye\n").unwrap()).unwrap().unwrap(), b"bye\n");
    }

    #[test]
    fn a_look_at_the_pending_changes_mid_turn_does_not_hide_the_turns_edits() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let dirs = vec![ws.path().to_path_buf()];
        let a = ws.path().join("a.txt");
        std::fs::write(&a, "zero\n").unwrap();
        let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
        tracker.begin_turn("s", "t1", &dirs).unwrap();
        std::fs::write(&a, "one\n").unwrap();
        tracker.end_turn("s", "t1", &dirs).unwrap();
        tracker.set_reviewed("s", std::slice::from_ref(&a), true).unwrap();
        tracker.begin_turn("s", "t2", &dirs).unwrap();
        std::fs::write(&a, "two!\n").unwrap();
        // A client reads the changeset while the turn runs: "after" is now.
        assert_eq!(tracker.pending("s").unwrap()[0].1, hash("two!\n"));
        let delta = tracker.end_turn("s", "t2", &dirs).unwrap().unwrap();
        assert_eq!(delta.changes.len(), 1, "the turn's edit is still its own");
        let (p, now) = tracker.pending("s").unwrap().remove(0);
        assert!(!p.reviewed, "touched again: the viewed mark is cleared");
        assert_eq!((p.before, now), (hash("zero\n"), hash("two!\n")));
    }

    #[test]
    fn a_folder_with_too_many_files_is_not_tracked_and_not_scanned_again() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let dirs = vec![ws.path().to_path_buf()];
        for i in 0..4 {
            std::fs::write(ws.path().join(format!("f{i}.txt")), "x").unwrap();
        }
        let limits = scan::Limits { files: 3, bytes: 1 << 20 };
        let tracker = Tracker::open(data.path(), Vec::new()).unwrap().with_limits(limits);
        let err = tracker.begin_turn("s", "t1", &dirs).unwrap_err();
        assert!(err.to_string().contains("more than 3 files"), "{err}");
        assert!(!tracker.turn_open("s").unwrap());
        // Remembered: the next turn fails at once, even with the folder emptied.
        for i in 0..4 {
            std::fs::remove_file(ws.path().join(format!("f{i}.txt"))).unwrap();
        }
        assert!(tracker.begin_turn("s", "t2", &dirs).unwrap_err().to_string().contains("more than 3 files"));
    }

    #[test]
    fn a_turn_left_open_by_a_crash_is_closed_by_the_next_one_and_a_self_revert_is_not_pending() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let dirs = vec![ws.path().to_path_buf()];
        std::fs::write(ws.path().join("a.txt"), "a\n").unwrap();
        {
            let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
            tracker.begin_turn("s", "t1", &dirs).unwrap();
            std::fs::write(ws.path().join("a.txt"), "b\n").unwrap();
        }
        let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
        let closed = tracker.begin_turn("s", "t2", &dirs).unwrap().unwrap();
        assert_eq!(closed.turn, "t1");
        assert_eq!(closed.changes.len(), 1);
        std::fs::write(ws.path().join("a.txt"), "a\n").unwrap();
        tracker.end_turn("s", "t2", &dirs).unwrap();
        assert_eq!(tracker.pending("s").unwrap(), []);
        assert_eq!(tracker.turns("s").unwrap(), ["t1", "t2"]);
    }
}
