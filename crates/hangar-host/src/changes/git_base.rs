//! Git's objects as the earlier content of an unchanged tracked file, so
//! the first scan of a clean checkout copies nothing into `changes.db`.
//!
//! Map:
//! - [`GitIndex`] — a folder's repository index as a full scan uses it: a
//!   file whose `stat` matches its index entry (git's own rule, racy
//!   entries excluded) is named `git:<blob id>` without being read.
//! - [`GitObjects`] — the content of a `git:<blob id>` hash, read from the
//!   object databases of the repositories the tracker has used (kept in
//!   `changes.db`, so a restart still finds them). An object that is gone
//!   (a `gc` after a history rewrite) is an error that says so, never other
//!   bytes.
//! - [`blob_hash`] — the `git:` name of some bytes, so a file rewritten with
//!   its committed content keeps the hash it had.
//!
//! Read with `gix` (no `git` process per file; docs/changesets.md says why
//! `gix` and not `git2`).

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use gix::bstr::BStr;
use gix::index::entry::{Flags, Mode, Stage};

use super::scan::{hash_of, is_stored, MAX_STORED};

/// The prefix of a manifest hash that names a git blob.
pub const GIT_PREFIX: &str = "git:";

/// The blob id a `git:` hash names (`None`: another kind of hash).
pub fn blob_id(hash: &str) -> Option<&str> {
    hash.strip_prefix(GIT_PREFIX)
}

/// The `git:` hash of `bytes` as git would name them in a repository whose
/// ids are as long as `like`'s (SHA-1; `None` for another object format).
pub fn blob_hash(like: &str, bytes: &[u8]) -> Option<String> {
    let kind = gix::hash::Kind::from_hex_len(blob_id(like)?.len())?;
    let id = gix::objs::compute_hash(kind, gix::objs::Kind::Blob, bytes).ok()?;
    Some(format!("{GIT_PREFIX}{id}"))
}

/// Why the content of a `git:` hash could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitBaseError {
    /// The object is in none of the known repositories.
    #[error(
        "its earlier content was git blob {0}, and that object is no longer in the repository \
         ({1}): it cannot be restored"
    )]
    Missing(String, String),
    /// Not a blob id.
    #[error("{0} is not a git blob id")]
    BadId(String),
}

/// One folder's repository index, for a full scan.
pub struct GitIndex {
    /// The repository's git dir (recorded so its objects are found later).
    pub git_dir: PathBuf,
    /// The scanned folder, and the same folder relative to the work tree.
    dir: PathBuf,
    prefix: PathBuf,
    index: gix::index::File,
    /// Index entries modified at or after this are racy (git's rule).
    written: gix::index::entry::stat::Time,
}

impl GitIndex {
    /// The index of the repository `dir` is in; `None` when it is in none,
    /// the repository is bare or its index cannot be read.
    pub fn open(dir: &Path) -> Option<Self> {
        let repo = gix::discover(dir).ok()?;
        let workdir = std::fs::canonicalize(repo.workdir()?).ok()?;
        let prefix = std::fs::canonicalize(dir).ok()?.strip_prefix(&workdir).ok()?.to_path_buf();
        let index = repo.open_index().ok()?;
        let written = index.timestamp().into();
        let git_dir = std::fs::canonicalize(repo.common_dir()).ok()?;
        Some(Self { git_dir, dir: dir.to_path_buf(), prefix, index, written })
    }

    /// `git:<blob id>` when `path` (under the scanned folder) is a tracked
    /// regular file whose `stat` is the one git recorded (size, mtime,
    /// ctime, inode), and git did not record it racily.
    pub fn known(&self, path: &Path, meta: &std::fs::Metadata) -> Option<String> {
        if meta.len() > MAX_STORED {
            return None;
        }
        let rel = self.prefix.join(path.strip_prefix(&self.dir).ok()?);
        let entry = self.index.entry_by_path(BStr::new(rel.as_os_str().as_bytes()))?;
        let blob = matches!(entry.mode, Mode::FILE | Mode::FILE_EXECUTABLE);
        let trusted = !entry.flags.intersects(Flags::INTENT_TO_ADD | Flags::ASSUME_VALID | Flags::SKIP_WORKTREE);
        if !blob || !trusted || entry.stage() != Stage::Unconflicted {
            return None;
        }
        let s = &entry.stat;
        let mtime = (s.mtime.secs, s.mtime.nsecs);
        let same = u64::from(s.size) == meta.len()
            && mtime == (meta.mtime() as u32, meta.mtime_nsec() as u32)
            && (s.ctime.secs, s.ctime.nsecs) == (meta.ctime() as u32, meta.ctime_nsec() as u32)
            && s.ino == meta.ino() as u32;
        let racy = mtime >= (self.written.secs, self.written.nsecs);
        (same && !racy).then(|| format!("{GIT_PREFIX}{}", entry.id))
    }
}

/// The object databases of the repositories whose blobs manifests name.
///
/// Only their paths are kept: a repository is opened for each read (about
/// a millisecond; reads are for diffs and rejects, not scans), because
/// `gix` without its `parallel` feature (rayon, more compile time) holds a
/// repository in `Rc`s, which the tracker's lock cannot hold across threads.
#[derive(Default)]
pub struct GitObjects {
    git_dirs: Vec<PathBuf>,
}

impl GitObjects {
    /// Remember `git_dir` (a no-op when known).
    pub fn add(&mut self, git_dir: &Path) {
        if !self.git_dirs.iter().any(|p| p == git_dir) {
            self.git_dirs.push(git_dir.to_path_buf());
        }
    }

    /// The content of blob `id`.
    pub fn read(&self, id: &str) -> Result<Vec<u8>, GitBaseError> {
        let oid = gix::ObjectId::from_hex(id.as_bytes()).map_err(|_| GitBaseError::BadId(id.to_owned()))?;
        for git_dir in &self.git_dirs {
            let Ok(repo) = gix::open(git_dir) else { continue };
            let found = repo.try_find_object(oid).ok().flatten().map(gix::Object::detach);
            if let Some(object) = found.filter(|o| o.kind == gix::objs::Kind::Blob) {
                return Ok(object.data);
            }
        }
        let known: Vec<String> = self.git_dirs.iter().map(|p| p.display().to_string()).collect();
        let known = if known.is_empty() { "no repository known".to_owned() } else { known.join(", ") };
        Err(GitBaseError::Missing(id.to_owned(), known))
    }

    /// Whether two content hashes name the same bytes: equal hashes, or a
    /// `git:` blob whose content has the other (SHA-256) hash.
    pub fn same_content(&self, a: Option<&str>, b: Option<&str>) -> bool {
        let (Some(a), Some(b)) = (a, b) else { return a == b };
        if a == b {
            return true;
        }
        let (id, other) = match (blob_id(a), blob_id(b)) {
            (Some(id), None) => (id, b),
            (None, Some(id)) => (id, a),
            _ => return false,
        };
        is_stored(other) && self.read(id).is_ok_and(|bytes| hash_of(&bytes) == other)
    }
}
