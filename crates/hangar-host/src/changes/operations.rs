//! `accept` and `reject` on a session's pending changes or on one turn's
//! changes, for the whole changeset, one file, or the hunks a line range
//! touches.
//!
//! Reject is conflict-aware: when the file changed again since the agent
//! left it (the user, a later turn), only the agent's change is reverted by
//! a three-way merge; when that cannot be done cleanly, nothing is written
//! and the error names the files. Every file is planned before any is
//! written. A reject is recorded like a turn (`undo-…`), so it can itself be
//! rejected.

use std::path::{Path, PathBuf};

use super::changes_db::{ChangeStoreError, FileChange, Pending};
use super::git_base;
use super::hunks::{as_text, merge, splice, touches};
use super::scan::{self, is_stored};
use super::tracker::{Inner, Tracker};
use crate::locks::lock;

/// What an operation covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every file of the changeset.
    All,
    /// One file.
    File(PathBuf),
    /// The hunks touching zero-based lines `first..=last` of the file's
    /// `after` side.
    Lines(PathBuf, usize, usize),
}

/// Which changeset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The session's pending changes.
    Session,
    /// One turn's changes.
    Turn(String),
    /// What differs from git's `HEAD` (read-only: no operations).
    Uncommitted,
}

/// Why an operation did nothing.
#[derive(Debug, thiserror::Error)]
pub enum OperationError {
    /// The file is not in the changeset.
    #[error("{0} is not in this changeset")]
    NotInChangeset(String),
    /// A clean revert is impossible.
    #[error("nothing was changed: {0} changed again since the agent's edit, and the agent's change cannot be undone without undoing that too")]
    Conflict(String),
    /// A range needs text, or the content was not kept.
    #[error("{0}")]
    Unsupported(String),
    /// A turn is running in the session.
    #[error("a turn is running in this session; wait for it to end or cancel it")]
    TurnRunning,
    /// A commit cannot be made (detached `HEAD`, nothing kept, a hook said
    /// no, …).
    #[error("{0}")]
    Refused(String),
    /// The store.
    #[error(transparent)]
    Store(#[from] ChangeStoreError),
    /// Writing a file.
    #[error("{0}")]
    Io(String),
}

/// The id prefix of a reject's record (a turn changeset): `undo-…`.
pub const UNDO_PREFIX: &str = "undo-";

/// What an operation did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The files and their content hashes: for `accept`, the change kept;
    /// for `reject`, the content before and after the reject.
    pub files: Vec<FileChange>,
    /// For a reject: the id its undo is recorded under (a turn changeset).
    pub undo: Option<String>,
    /// For a commit: the commit made.
    pub commit: Option<super::commit::Commit>,
}

/// One file to revert: the content the change left (`base`) and the
/// content to go back to (`target`).
struct Revert {
    path: PathBuf,
    base: Option<Vec<u8>>,
    target: Option<Vec<u8>>,
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

impl Inner {
    pub(super) fn content(&self, path: &Path, hash: Option<&str>) -> Result<Option<Vec<u8>>, OperationError> {
        let Some(hash) = hash else { return Ok(None) };
        if !is_stored(hash) {
            return Err(OperationError::Unsupported(format!(
                "{} is over {} bytes, so its content was not kept and cannot be restored",
                shown(path),
                scan::MAX_STORED
            )));
        }
        if let Some(id) = git_base::blob_id(hash) {
            return match self.objects.read(id) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) => Err(OperationError::Unsupported(format!("{}: {e}", shown(path)))),
            };
        }
        match self.store.blob(hash)? {
            Some(bytes) => Ok(Some(bytes)),
            None => Err(OperationError::Unsupported(format!("the kept content of {} is missing", shown(path)))),
        }
    }

    /// The changes `source` holds, by file: (path, before, after).
    fn changes(&self, session: &str, source: &Source) -> Result<Vec<FileChange>, OperationError> {
        Ok(match source {
            Source::Session => self
                .store
                .pending(session)?
                .into_iter()
                .map(|p| FileChange { path: p.path, before: p.before, after: p.agent_after })
                .collect(),
            Source::Turn(turn) => self.store.turn_changes(session, turn)?,
            Source::Uncommitted => Vec::new(),
        })
    }
}

/// Narrow `changes` to `scope`'s file.
fn in_scope(changes: Vec<FileChange>, scope: &Scope) -> Result<Vec<FileChange>, OperationError> {
    let path = match scope {
        Scope::All => return Ok(changes),
        Scope::File(path) | Scope::Lines(path, ..) => path,
    };
    let found: Vec<FileChange> = changes.into_iter().filter(|c| &c.path == path).collect();
    if found.is_empty() {
        return Err(OperationError::NotInChangeset(shown(path)));
    }
    Ok(found)
}

fn text<'a>(path: &Path, bytes: Option<&'a [u8]>) -> Result<&'a str, OperationError> {
    match bytes {
        None => Ok(""),
        Some(b) => as_text(b).ok_or_else(|| {
            OperationError::Unsupported(format!("{} is not a text file: pick the whole file", shown(path)))
        }),
    }
}

/// What `path` should hold after reverting, or a conflict.
fn plan(revert: &Revert) -> Result<Option<Vec<u8>>, OperationError> {
    let current = std::fs::read(&revert.path).ok();
    if current == revert.base || current == revert.target {
        return Ok(revert.target.clone());
    }
    let conflict = || OperationError::Conflict(shown(&revert.path));
    let (Some(base), Some(current), Some(target)) = (&revert.base, &current, &revert.target) else {
        return Err(conflict());
    };
    let (Some(base), Some(current), Some(target)) = (as_text(base), as_text(current), as_text(target)) else {
        return Err(conflict());
    };
    merge(base, current, target).map(|m| Some(m.into_bytes())).ok_or_else(conflict)
}

/// Write `content` to `path` (atomically, keeping its permissions), or
/// delete it for `None`.
fn put(path: &Path, content: Option<&[u8]>) -> Result<(), OperationError> {
    let fail = |e: std::io::Error| OperationError::Io(format!("{}: {e}", shown(path)));
    let Some(content) = content else {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(e)),
            _ => Ok(()),
        };
    };
    let parent = path.parent().ok_or_else(|| OperationError::Io(format!("{} has no folder", shown(path))))?;
    std::fs::create_dir_all(parent).map_err(fail)?;
    let mut tmp = tempfile::NamedTempFile::new_in(parent).map_err(fail)?;
    std::io::Write::write_all(&mut tmp, content).map_err(fail)?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(fail)?;
    }
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

impl Tracker {
    /// Keep: the changes leave the pending set; the disk is not touched.
    pub fn accept(&self, session: &str, source: &Source, scope: &Scope) -> Result<Outcome, OperationError> {
        let mut inner = lock(&self.inner);
        if inner.store.open_turn(session)?.is_some() {
            return Err(OperationError::TurnRunning);
        }
        let changes = in_scope(inner.changes(session, source)?, scope)?;
        let pending: Vec<Pending> = inner.store.pending(session)?;
        let mut new_base = None;
        if let Scope::Lines(path, first, last) = scope {
            let p =
                pending.iter().find(|p| &p.path == path).ok_or_else(|| OperationError::NotInChangeset(shown(path)))?;
            let before = inner.content(path, p.before.as_deref())?;
            let now = std::fs::read(path).ok();
            let (b, n) = (text(path, before.as_deref())?, text(path, now.as_deref())?);
            let base = splice(b, n, &|h| touches(h, *first, *last));
            new_base = Some((scan::hash_of(base.as_bytes()), base, now.map(|n| scan::hash_of(&n))));
        }
        inner.store.transaction(|tx| {
            for c in &changes {
                let Some(p) = pending.iter().find(|p| p.path == c.path) else { continue };
                match &new_base {
                    Some((hash, base, now)) if Some(hash) != now.as_ref() => {
                        tx.put_blob(hash, base.as_bytes())?;
                        tx.set_pending(session, &Pending { before: Some(hash.clone()), ..p.clone() })?;
                    }
                    _ => tx.remove_pending(session, &p.path)?,
                }
            }
            Ok(())
        })?;
        Ok(Outcome { files: changes, undo: None, commit: None })
    }

    /// Undo: restore the `before` content for `scope` (a created file is
    /// deleted, a deleted one recreated), keeping later edits by a
    /// three-way merge. `undo_id` names the record of this reject.
    pub fn reject(
        &self,
        session: &str,
        source: &Source,
        scope: &Scope,
        undo_id: &str,
    ) -> Result<Outcome, OperationError> {
        let mut inner = lock(&self.inner);
        if inner.store.open_turn(session)?.is_some() {
            return Err(OperationError::TurnRunning);
        }
        let changes = in_scope(inner.changes(session, source)?, scope)?;
        let mut reverts = Vec::new();
        for c in &changes {
            let base = inner.content(&c.path, c.after.as_deref())?;
            let mut target = inner.content(&c.path, c.before.as_deref())?;
            if let Scope::Lines(_, first, last) = scope {
                let (b, a) = (text(&c.path, target.as_deref())?, text(&c.path, base.as_deref())?);
                target = Some(splice(b, a, &|h| !touches(h, *first, *last)).into_bytes());
            }
            reverts.push(Revert { path: c.path.clone(), base, target });
        }
        let planned: Vec<(PathBuf, Option<Vec<u8>>)> =
            reverts.iter().map(|r| plan(r).map(|content| (r.path.clone(), content))).collect::<Result<_, _>>()?;
        let mut record = Vec::new();
        let mut replaced = Vec::new();
        for (path, content) in &planned {
            let before = std::fs::read(path).ok();
            put(path, content.as_deref())?;
            let before_hash = before.as_deref().map(scan::hash_of);
            record.push(FileChange {
                path: path.clone(),
                before: before_hash.clone(),
                after: content.as_deref().map(scan::hash_of),
            });
            replaced.extend(before_hash.zip(before));
        }
        let pending: Vec<Pending> = inner.store.pending(session)?;
        let mut manifest = inner.manifest(session)?.clone();
        let old_manifest = manifest.clone();
        // Undoing an undo (a redo) brings the change back as pending.
        let redo = matches!(source, Source::Turn(t) if t.starts_with(UNDO_PREFIX));
        let inner = &mut *inner;
        inner.store.transaction(|tx| {
            for (hash, bytes) in &replaced {
                tx.put_blob(hash, bytes)?;
            }
            for ((path, content), written) in planned.iter().zip(&record) {
                match content.as_deref().and_then(|_| scan::entry_of(path, &mut |h, b| keep(tx, h, b))) {
                    Some(entry) => manifest.insert(path.clone(), entry),
                    None => manifest.remove(path),
                };
                let now = content.as_deref().map(scan::hash_of);
                if let Some(p) = pending.iter().find(|p| &p.path == path) {
                    if inner.objects.same_content(p.before.as_deref(), now.as_deref()) {
                        tx.remove_pending(session, path)?;
                    } else {
                        tx.set_pending(session, &Pending { agent_after: now.clone(), ..p.clone() })?;
                    }
                } else if redo && !inner.objects.same_content(written.before.as_deref(), now.as_deref()) {
                    let back = Pending {
                        path: path.clone(),
                        before: written.before.clone(),
                        agent_after: now,
                        reviewed: false,
                    };
                    tx.set_pending(session, &back)?;
                }
            }
            tx.save_manifest(session, &old_manifest, &manifest)?;
            tx.add_turn_changes(session, undo_id, &record)?;
            Ok(())
        })?;
        inner.set_manifest(session, manifest);
        Ok(Outcome { files: record, undo: Some(undo_id.to_owned()), commit: None })
    }
}

fn keep(tx: &super::changes_db::Tx<'_>, hash: &str, bytes: &[u8]) {
    if let Err(e) = tx.put_blob(hash, bytes) {
        tracing::warn!("keeping restored content: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        _data: tempfile::TempDir,
        _ws: tempfile::TempDir,
        root: PathBuf,
        tracker: Tracker,
    }

    impl Fixture {
        /// A workspace where turn `t1` edited `edit.txt` (two hunks),
        /// created `new.txt` and deleted `gone.txt`.
        fn after_one_turn() -> Self {
            let data = tempfile::tempdir().unwrap();
            let ws = tempfile::tempdir().unwrap();
            let root = ws.path().to_path_buf();
            std::fs::write(root.join("edit.txt"), "a\nb\nc\nd\ne\nf\n").unwrap();
            std::fs::write(root.join("gone.txt"), "bye\n").unwrap();
            let tracker = Tracker::open(data.path(), Vec::new()).unwrap();
            let dirs = [root.clone()];
            tracker.begin_turn("s", "t1", &dirs).unwrap();
            std::fs::write(root.join("edit.txt"), "a\nB\nc\nd\ne\nF\n").unwrap();
            std::fs::write(root.join("new.txt"), "hi\n").unwrap();
            std::fs::remove_file(root.join("gone.txt")).unwrap();
            tracker.end_turn("s", "t1", &dirs).unwrap();
            Self { _data: data, _ws: ws, root, tracker }
        }

        fn read(&self, name: &str) -> Option<String> {
            std::fs::read_to_string(self.root.join(name)).ok()
        }

        fn pending(&self) -> Vec<String> {
            let names = self.tracker.pending("s").unwrap();
            names.iter().map(|(p, _)| p.path.file_name().unwrap().to_string_lossy().into_owned()).collect()
        }
    }

    #[test]
    fn reject_restores_each_kind_of_change_and_can_itself_be_undone() {
        let f = Fixture::after_one_turn();
        let outcome = f.tracker.reject("s", &Source::Session, &Scope::All, "undo-1").unwrap();
        assert_eq!(outcome.files.len(), 3);
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nb\nc\nd\ne\nf\n"));
        assert_eq!(f.read("gone.txt").as_deref(), Some("bye\n"));
        assert_eq!(f.read("new.txt"), None);
        assert!(f.pending().is_empty());
        // The reject is recorded like a turn: rejecting it brings the agent's work back.
        f.tracker.reject("s", &Source::Turn("undo-1".into()), &Scope::All, "undo-2").unwrap();
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nB\nc\nd\ne\nF\n"));
        assert_eq!(f.read("new.txt").as_deref(), Some("hi\n"));
        assert_eq!(f.read("gone.txt"), None);
        // ... and pending again, to keep or undo once more.
        assert_eq!(f.pending(), ["edit.txt", "gone.txt", "new.txt"]);
    }

    #[test]
    fn a_range_undoes_only_the_hunk_it_touches_and_accept_keeps_the_disk() {
        let f = Fixture::after_one_turn();
        let edit = f.root.join("edit.txt");
        f.tracker.reject("s", &Source::Session, &Scope::Lines(edit.clone(), 1, 1), "undo-1").unwrap();
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nb\nc\nd\ne\nF\n"));
        assert_eq!(f.pending(), ["edit.txt", "gone.txt", "new.txt"]);
        f.tracker.accept("s", &Source::Session, &Scope::File(edit)).unwrap();
        assert_eq!(f.pending(), ["gone.txt", "new.txt"]);
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nb\nc\nd\ne\nF\n"));
        f.tracker.accept("s", &Source::Session, &Scope::All).unwrap();
        assert!(f.pending().is_empty());
        assert_eq!(f.read("new.txt").as_deref(), Some("hi\n"));
    }

    #[test]
    fn accepting_a_range_moves_only_that_hunk_into_the_base() {
        let f = Fixture::after_one_turn();
        let edit = f.root.join("edit.txt");
        f.tracker.accept("s", &Source::Session, &Scope::Lines(edit.clone(), 5, 5)).unwrap();
        // Rejecting the rest now undoes only the first hunk.
        f.tracker.reject("s", &Source::Session, &Scope::File(edit), "undo-1").unwrap();
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nb\nc\nd\ne\nF\n"));
    }

    #[test]
    fn a_later_edit_is_kept_by_a_reject_and_an_overlapping_one_refuses_it_touching_nothing() {
        let f = Fixture::after_one_turn();
        let edit = f.root.join("edit.txt");
        std::fs::write(&edit, "a\nB\nc\nUSER\ne\nF\n").unwrap();
        f.tracker.reject("s", &Source::Session, &Scope::File(edit), "undo-1").unwrap();
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nb\nc\nUSER\ne\nf\n"));

        let f = Fixture::after_one_turn();
        let edit = f.root.join("edit.txt");
        std::fs::write(&edit, "a\nMINE\nc\nd\ne\nF\n").unwrap();
        let err = f.tracker.reject("s", &Source::Session, &Scope::All, "undo-1").unwrap_err();
        assert!(matches!(err, OperationError::Conflict(ref p) if p.ends_with("edit.txt")), "{err}");
        // Nothing was written, not even the files that could be reverted.
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nMINE\nc\nd\ne\nF\n"));
        assert_eq!(f.read("new.txt").as_deref(), Some("hi\n"));
        assert_eq!(f.pending().len(), 3);
    }

    #[test]
    fn a_file_outside_the_changeset_is_an_error_that_changes_nothing() {
        let f = Fixture::after_one_turn();
        let other = f.root.join("other.txt");
        let err = f.tracker.reject("s", &Source::Session, &Scope::File(other), "undo-1").unwrap_err();
        assert!(matches!(err, OperationError::NotInChangeset(_)), "{err}");
        assert_eq!(f.pending().len(), 3);
    }

    #[test]
    fn a_turn_changeset_rewinds_that_turn_only() {
        let f = Fixture::after_one_turn();
        let dirs = [f.root.clone()];
        f.tracker.begin_turn("s", "t2", &dirs).unwrap();
        std::fs::write(f.root.join("later.txt"), "t2\n").unwrap();
        f.tracker.end_turn("s", "t2", &dirs).unwrap();
        f.tracker.reject("s", &Source::Turn("t1".into()), &Scope::All, "undo-1").unwrap();
        assert_eq!(f.read("edit.txt").as_deref(), Some("a\nb\nc\nd\ne\nf\n"));
        assert_eq!(f.read("later.txt").as_deref(), Some("t2\n"));
        assert_eq!(f.pending(), ["later.txt"]);
    }
}
