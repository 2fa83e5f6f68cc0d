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
//!
//! Which scan runs ([`Inner::plan`]): the first scan of a session since the
//! host started is a full one (`scan.rs`), with the session's watcher
//! (`watch.rs`) started just before it, so no write during the walk is
//! missed; each later scan looks only at the paths the watcher saw change
//! (`scan_dirty.rs`). Whenever the watcher cannot vouch for its set (an
//! overflow, an error, no answer to the barrier, a folder it could not
//! watch), the scan is a full one. A full scan of a folder in a git
//! repository names each unchanged tracked file by its blob (`git_base.rs`)
//! instead of copying it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::changes_db::{ChangeStore, ChangeStoreError, FileChange, Pending, Tx};
use super::git_base::{self, GitIndex, GitObjects};
use super::scan::{self, Delta, Manifest, Reader};
use super::scan_dirty::{scan_dirty, NeedsFullScan};
use super::watch::{Changed, Dirty, Watch};
use crate::locks::lock;

/// What a closed turn changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnDelta {
    /// The turn id.
    pub turn: String,
    /// Its files.
    pub changes: Vec<FileChange>,
}

/// How a scan went (the benchmark prints it; tests check it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanKind {
    /// Every file walked and looked at, and why.
    Full(String),
    /// Only the paths the watcher saw change (this many).
    Dirty(usize),
}

/// The sessions' watchers.
struct Watching {
    /// The barrier's markers go here (in the data dir).
    sync_dir: PathBuf,
    sessions: HashMap<String, Watch>,
    /// Sessions whose folders could not be watched, with the reason: full
    /// scans until the host restarts.
    unwatchable: HashMap<String, String>,
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
    /// `None`: every scan is a full one.
    watching: Option<Watching>,
    /// Whether a full scan names unchanged tracked files by their git blob.
    use_git: bool,
    /// Where `git:` content is read from.
    pub objects: GitObjects,
    /// The last scan of each session.
    last_scan: HashMap<String, ScanKind>,
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

    /// Content by hash: kept in `changes.db`, or a blob in git's objects
    /// (`None` when it is in neither).
    pub fn content_of(&self, hash: &str) -> Result<Option<Vec<u8>>, ChangeStoreError> {
        match git_base::blob_id(hash) {
            Some(id) => Ok(self.objects.read(id).ok()),
            None => self.store.blob(hash),
        }
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

    /// Whether `session`'s next scan can be of the watcher's dirty set:
    /// its watcher covers `dirs` and has lost nothing so far.
    fn watched(&self, session: &str, dirs: &[PathBuf]) -> bool {
        let watch = self.watching.as_ref().and_then(|w| w.sessions.get(session));
        watch.is_some_and(|w| w.dirs == dirs && w.healthy())
    }

    /// Which paths the next scan of `session` looks at: `Some` (the
    /// watcher's dirty set) or `None`, every file, with the reason. Before
    /// a full scan the watcher is (re)started, so it sees every write from
    /// the start of the walk on.
    fn plan(&mut self, session: &str, dirs: &[PathBuf]) -> Result<Changed, String> {
        let Some(w) = &mut self.watching else { return Err("the watcher is off".into()) };
        if let Some(reason) = w.unwatchable.get(session) {
            return Err(format!("the folders are not watched: {reason}"));
        }
        let why = match w.sessions.get_mut(session) {
            Some(watch) if watch.dirs == dirs => match watch.take() {
                Dirty::Paths(paths) => return Ok(paths),
                Dirty::Lost(reason) => reason,
            },
            Some(_) => "the working directories changed".to_owned(),
            None => "the first scan since the host started".to_owned(),
        };
        w.sessions.remove(session);
        match Watch::start(dirs, &w.sync_dir) {
            Ok(watch) => {
                w.sessions.insert(session.to_owned(), watch);
            }
            Err(e) => {
                tracing::info!(session, "change tracking: folders not watched ({e}); every scan walks them");
                w.unwatchable.insert(session.to_owned(), e);
            }
        }
        Err(why)
    }

    /// Rescan `dirs` in one transaction (blobs, manifest, then `more`
    /// with the manifest before and what changed).
    fn rescan<R>(
        &mut self,
        session: &str,
        dirs: &[PathBuf],
        more: impl FnOnce(&Tx<'_>, &Manifest, &Delta, &GitObjects) -> Result<R, ChangeStoreError>,
    ) -> Result<R, ChangeStoreError> {
        let plan = self.plan(session, dirs);
        let mut manifest = match self.manifests.remove(session) {
            Some(m) => m,
            None => self.store.manifest(session)?,
        };
        let (skip, limits, use_git, objects) = (&self.skip, self.limits, self.use_git, &mut self.objects);
        let scanned = self.store.transaction(|tx| {
            let mut failed = None;
            let scanned = {
                let mut keep = |hash: &str, bytes: &[u8]| {
                    if let Err(e) = tx.put_blob(hash, bytes) {
                        failed.get_or_insert(e);
                    }
                };
                scan_once(dirs, skip, limits, &manifest, plan, use_git, &mut keep)
            };
            let (delta, whole, kind, repos) = scanned?;
            if let Some(e) = failed {
                return Err(e);
            }
            for repo in &repos {
                tx.add_git_repo(repo)?;
                objects.add(repo);
            }
            tx.save_delta(session, &manifest, &delta)?;
            let result = more(tx, &manifest, &delta, objects)?;
            Ok((delta, whole, kind, result))
        });
        match scanned {
            Ok((delta, whole, kind, result)) => {
                if delta.len() > 1000 {
                    // A first scan: its rows would otherwise stay in the log too.
                    if let Err(e) = self.store.checkpoint() {
                        tracing::warn!("changes.db checkpoint: {e}");
                    }
                }
                match whole {
                    Some(new) => manifest = new,
                    None => scan::apply(&mut manifest, delta),
                }
                self.manifests.insert(session.to_owned(), manifest);
                self.last_scan.insert(session.to_owned(), kind);
                Ok(result)
            }
            Err(e) => {
                // The watcher's set was drained: only a full scan is sure now.
                self.manifests.insert(session.to_owned(), manifest);
                if let Some(w) = &mut self.watching {
                    w.sessions.remove(session);
                }
                Err(e)
            }
        }
    }

    /// Record the files as they are now (what changed since the last turn
    /// is the person's), opening `turn` when given. A tree too big to
    /// track is not scanned again until the host restarts.
    fn record_baseline(&mut self, session: &str, dirs: &[PathBuf], turn: Option<&str>) -> Result<(), ChangeStoreError> {
        let result = self.rescan(session, dirs, |tx, _, _, _| match turn {
            Some(turn) => tx.set_open_turn(session, Some(turn)),
            None => Ok(()),
        });
        if let Err(ChangeStoreError::Io(reason)) = &result {
            self.untracked.insert(session.to_owned(), reason.clone());
        }
        result
    }

    /// Close `turn`: record its changes and fold them into the pending set.
    fn close(&mut self, session: &str, turn: &str, dirs: &[PathBuf]) -> Result<TurnDelta, ChangeStoreError> {
        let pending: BTreeMap<PathBuf, Pending> =
            self.store.pending(session)?.into_iter().map(|p| (p.path.clone(), p)).collect();
        let changes = self.rescan(session, dirs, |tx, old, delta, objects| {
            let changes = compare(old, delta);
            tx.add_turn_changes(session, turn, &changes)?;
            for c in &changes {
                let before = pending.get(&c.path).map_or(c.before.clone(), |p| p.before.clone());
                if objects.same_content(before.as_deref(), c.after.as_deref()) {
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

/// One scan: of the dirty paths when `plan` has them (unless they ask for
/// a full scan), else of everything, naming unchanged tracked files by
/// their git blob when `use_git`. Returns the delta, the whole new manifest
/// for a full scan, how it went, and the git dirs it used.
type Scanned = (Delta, Option<Manifest>, ScanKind, Vec<PathBuf>);

fn scan_once(
    dirs: &[PathBuf],
    skip: &[PathBuf],
    limits: scan::Limits,
    old: &Manifest,
    plan: Result<Changed, String>,
    use_git: bool,
    keep: &mut dyn FnMut(&str, &[u8]),
) -> Result<Scanned, ChangeStoreError> {
    let why = match plan {
        Ok(dirty) => {
            let mut reader = Reader::new(old, &|_, _| None, keep, limits);
            match scan_dirty(dirs, skip, limits, old, &dirty, &mut reader).map_err(ChangeStoreError::Io)? {
                Ok(delta) => return Ok((delta, None, ScanKind::Dirty(dirty.paths.len()), Vec::new())),
                Err(NeedsFullScan(why)) => why,
            }
        }
        Err(why) => why,
    };
    let indexes: Vec<GitIndex> =
        if use_git { dirs.iter().filter_map(|d| GitIndex::open(d)).collect() } else { Vec::new() };
    let known = |path: &Path, meta: &std::fs::Metadata| indexes.iter().find_map(|g| g.known(path, meta));
    let (new, _) = scan::scan_with(dirs, skip, limits, old, &known, keep).map_err(ChangeStoreError::Io)?;
    let delta = scan::delta(old, &new);
    let repos = indexes.into_iter().map(|g| g.git_dir).collect();
    Ok((delta, Some(new), ScanKind::Full(why), repos))
}

/// Files whose content differs in `delta` from `old`.
fn compare(old: &Manifest, delta: &Delta) -> Vec<FileChange> {
    let mut out: Vec<FileChange> = delta
        .iter()
        .filter_map(|(path, new)| {
            let before = old.get(path).map(|e| e.hash.clone());
            let after = new.as_ref().map(|e| e.hash.clone());
            (before != after).then(|| FileChange { path: path.clone(), before, after })
        })
        .collect();
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
    ///
    /// Both the watcher and git's objects are used (see the module doc);
    /// [`Tracker::with_watcher`] and [`Tracker::with_git`] turn them off.
    pub fn open(data_dir: &Path, skip: Vec<PathBuf>) -> Result<Self, ChangeStoreError> {
        let store = ChangeStore::open(&data_dir.join("changes.db"))?;
        let mut objects = GitObjects::default();
        for repo in store.git_repos()? {
            objects.add(&repo);
        }
        let watching = Watching {
            sync_dir: data_dir.join("changes-watch"),
            sessions: HashMap::new(),
            unwatchable: HashMap::new(),
        };
        let inner = Inner {
            store,
            manifests: HashMap::new(),
            skip,
            untracked: HashMap::new(),
            limits: Default::default(),
            watching: Some(watching),
            use_git: true,
            objects,
            last_scan: HashMap::new(),
        };
        Ok(Self { inner: Mutex::new(inner) })
    }

    /// The same tracker with the watcher on or off (off: every scan is a
    /// full one, as before the watcher; the benchmark's baseline).
    pub fn with_watcher(self, on: bool) -> Self {
        let mut inner = lock(&self.inner);
        if !on {
            inner.watching = None;
        }
        drop(inner);
        self
    }

    /// The same tracker with git's index used at full scans or not (off:
    /// every file is read and kept, as before; the benchmark's baseline).
    pub fn with_git(self, on: bool) -> Self {
        lock(&self.inner).use_git = on;
        self
    }

    /// Hand `session`'s watcher an event as notify would (tests: an
    /// overflow cannot be caused on demand).
    #[cfg(test)]
    pub(super) fn feed_watcher(&self, session: &str, event: notify::Result<notify::Event>) {
        let inner = lock(&self.inner);
        if let Some(watch) = inner.watching.as_ref().and_then(|w| w.sessions.get(session)) {
            super::watch::on_event(&mut lock(watch.state()), Path::new("/nowhere"), "test", event);
        }
    }

    /// How the last scan of `session` went.
    pub fn last_scan(&self, session: &str) -> Option<ScanKind> {
        lock(&self.inner).last_scan.get(session).cloned()
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
        inner.record_baseline(session, dirs, Some(turn))?;
        Ok(closed)
    }

    /// Ahead of a first prompt (a session created, or opened by a client
    /// since the host started): the full scan and the watcher's start that
    /// the next [`Tracker::begin_turn`] would otherwise wait for, so that
    /// turn scans only what changed since. What it records is what
    /// `begin_turn` would: the files as they are, changes since the last
    /// turn being the person's.
    ///
    /// Does nothing (`Ok(false)`) when the watcher is off, the session is
    /// watched already, is untracked, or has a turn open (a turn left open
    /// by a crash is closed by `begin_turn`, which publishes it).
    pub fn prepare(&self, session: &str, dirs: &[PathBuf]) -> Result<bool, ChangeStoreError> {
        let mut inner = lock(&self.inner);
        if inner.watching.is_none() || inner.untracked.contains_key(session) || inner.watched(session, dirs) {
            return Ok(false);
        }
        if inner.store.open_turn(session)?.is_some() {
            return Ok(false);
        }
        inner.record_baseline(session, dirs, None)?;
        Ok(true)
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

    /// Stored content: kept in `changes.db`, or a blob in git's objects.
    pub fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>, ChangeStoreError> {
        lock(&self.inner).content_of(hash)
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
