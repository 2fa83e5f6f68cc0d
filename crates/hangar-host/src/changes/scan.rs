//! Reading a session's working directories into a [`Manifest`]: every
//! regular file `.gitignore` lets through (a git repository is not needed),
//! with its identity (size, mtime, inode) and the hash of its content.
//!
//! The rule for big files: a file over [`MAX_STORED`] bytes is listed by its
//! identity alone (`large:` hash), never read, so a change to it is reported
//! but cannot be diffed or restored. Binary files under the limit are kept
//! (they can be restored) but not diffed. A file whose identity did not
//! change since the last scan is not read again, so a later turn costs a walk
//! and a `stat` per file. A file modified within [`RACY_NS`] of a scan is read
//! again at the next one whatever its identity (git's "racy" rule: a rewrite
//! of the same size within one clock tick keeps the same mtime).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Files larger than this are listed, not stored.
pub const MAX_STORED: u64 = 2 * 1024 * 1024;

/// A session whose folders hold more files than this (after `.gitignore`)
/// is not tracked: the scan stops and says so.
pub const MAX_FILES: usize = 250_000;

/// A session whose first scan would keep more than this many bytes is not
/// tracked either (a home folder opened as a working directory).
pub const MAX_BYTES: u64 = 1024 * 1024 * 1024;

/// How big a session's folders may be and still be tracked.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Files listed.
    pub files: usize,
    /// Bytes read by one scan.
    pub bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self { files: MAX_FILES, bytes: MAX_BYTES }
    }
}

/// How recent a modification must be, at a scan, for the next scan to
/// read the file again.
pub const RACY_NS: i64 = 2_000_000_000;

/// A file's identity as `stat` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// Bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Inode number.
    pub ino: u64,
}

impl Stat {
    /// The identity `meta` gives.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        Self { size: meta.len(), mtime_ns: mtime_ns(meta), ino: meta.ino() }
    }
}

/// One file of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its identity at the scan.
    pub stat: Stat,
    /// SHA-256 of its content (hex), or `large:<size>:<mtime>` for a file
    /// over [`MAX_STORED`].
    pub hash: String,
}

/// Every tracked file of a session, by absolute path (a hash map: a
/// `BTreeMap` spent a fifth of a 100,000-file scan comparing paths).
pub type Manifest = HashMap<PathBuf, Entry>;

/// Files whose entry differs from a manifest's: the new entry, or `None`
/// for a file no longer listed.
pub type Delta = HashMap<PathBuf, Option<Entry>>;

/// What differs from `old` in `new`.
pub fn delta(old: &Manifest, new: &Manifest) -> Delta {
    let mut delta: Delta =
        new.iter().filter(|(p, e)| old.get(*p) != Some(*e)).map(|(p, e)| (p.clone(), Some(e.clone()))).collect();
    delta.extend(old.keys().filter(|p| !new.contains_key(*p)).map(|p| (p.clone(), None)));
    delta
}

/// `manifest` with `delta` applied.
pub fn apply(manifest: &mut Manifest, delta: Delta) {
    for (path, entry) in delta {
        match entry {
            Some(e) => manifest.insert(path, e),
            None => manifest.remove(&path),
        };
    }
}

/// Whether a hash names content that can be read back (kept in
/// `changes.db`, or a blob in git's objects: `git:`), not a file too large
/// to keep.
pub fn is_stored(hash: &str) -> bool {
    !hash.starts_with("large:")
}

/// The content hash of `bytes`.
pub fn hash_of(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// What one scan cost, for the benchmark.
#[derive(Debug, Default, Clone, Copy)]
pub struct ScanStats {
    /// Files listed.
    pub files: usize,
    /// Files read and hashed (new or changed identity).
    pub read: usize,
    /// Bytes read.
    pub bytes: u64,
}

/// Where a scan may find a file's content without reading it (git's index,
/// `git_base.rs`): its hash, or `None`.
pub type Known<'a> = &'a dyn Fn(&Path, &std::fs::Metadata) -> Option<String>;

/// Walk `dirs` (never entering `skip`: the host's own data, credential
/// folders); reuse `previous`'s hash where a file's identity is unchanged;
/// hand every newly read content to `keep` (hash, bytes).
pub fn scan(
    dirs: &[PathBuf],
    skip: &[PathBuf],
    limits: Limits,
    previous: &Manifest,
    keep: &mut dyn FnMut(&str, &[u8]),
) -> Result<(Manifest, ScanStats), String> {
    scan_with(dirs, skip, limits, previous, &|_, _| None, keep)
}

/// [`scan`], naming a file `known` gives a hash for without reading it.
pub fn scan_with(
    dirs: &[PathBuf],
    skip: &[PathBuf],
    limits: Limits,
    previous: &Manifest,
    known: Known<'_>,
    keep: &mut dyn FnMut(&str, &[u8]),
) -> Result<(Manifest, ScanStats), String> {
    let mut manifest = Manifest::new();
    let mut reader = Reader::new(previous, known, keep, limits);
    for dir in dirs {
        for item in walker(dir, skip) {
            let Ok(item) = item else { continue };
            if !item.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let path = item.path();
            let Ok(meta) = std::fs::symlink_metadata(path) else { continue };
            reader.stats.files += 1;
            if reader.stats.files > limits.files {
                return Err(too_many_files(dir, limits));
            }
            if let Some(entry) = reader.entry(dir, path, &meta)? {
                manifest.insert(path.to_path_buf(), entry);
            }
        }
    }
    Ok((manifest, reader.stats))
}

/// The walk of one folder as every scan does it: `.gitignore`s (the
/// folder's, its parents', `.git/info/exclude`) respected without needing a
/// repository, hidden files seen, `.git/`, symlinks and `skip` left out.
pub fn walker(dir: &Path, skip: &[PathBuf]) -> ignore::Walk {
    let skip = skip.to_vec();
    ignore::WalkBuilder::new(dir)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .parents(true)
        .follow_links(false)
        .filter_entry(move |e| e.file_name() != ".git" && !skip.iter().any(|s| e.path().starts_with(s)))
        .build()
}

/// The error of a folder over the file limit.
pub fn too_many_files(dir: &Path, limits: Limits) -> String {
    format!(
        "{} holds more than {} files that .gitignore does not exclude: its changes are not tracked",
        dir.display(),
        limits.files
    )
}

/// Reads files as a scan does: a file whose identity is unchanged keeps its
/// hash, one `known` names is not read, any other is read, hashed and kept.
pub struct Reader<'a> {
    previous: &'a Manifest,
    known: Known<'a>,
    keep: &'a mut dyn FnMut(&str, &[u8]),
    limits: Limits,
    started: i64,
    /// What it cost so far.
    pub stats: ScanStats,
}

impl<'a> Reader<'a> {
    /// A reader for one scan, starting now.
    pub fn new(previous: &'a Manifest, known: Known<'a>, keep: &'a mut dyn FnMut(&str, &[u8]), limits: Limits) -> Self {
        Self { previous, known, keep, limits, started: now_ns(), stats: ScanStats::default() }
    }

    /// The entry of `path` (a regular file under `dir`, `meta` its
    /// `symlink_metadata`); `None` when it cannot be read.
    pub fn entry(&mut self, dir: &Path, path: &Path, meta: &std::fs::Metadata) -> Result<Option<Entry>, String> {
        let stat = Stat::of(meta);
        let recorded = recorded_stat(stat, self.started);
        let old = self.previous.get(path);
        if let Some(old) = old.filter(|e| e.stat == stat) {
            return Ok(Some(Entry { stat: recorded, hash: old.hash.clone() }));
        }
        if let Some(hash) = (self.known)(path, meta) {
            return Ok(Some(Entry { stat: recorded, hash }));
        }
        if stat.size > MAX_STORED {
            return Ok(Some(Entry { stat: recorded, hash: format!("large:{}:{}", stat.size, stat.mtime_ns) }));
        }
        let Ok(bytes) = std::fs::read(path) else { return Ok(None) };
        self.stats.read += 1;
        self.stats.bytes += bytes.len() as u64;
        if self.stats.bytes > self.limits.bytes {
            return Err(format!(
                "{} holds more than {} MiB that .gitignore does not exclude: its changes are not tracked",
                dir.display(),
                self.limits.bytes >> 20
            ));
        }
        // Rewritten with the content git has: the same name, nothing kept.
        if let Some(old) = old.filter(|o| super::git_base::blob_hash(&o.hash, &bytes).as_ref() == Some(&o.hash)) {
            return Ok(Some(Entry { stat: recorded, hash: old.hash.clone() }));
        }
        let hash = hash_of(&bytes);
        (self.keep)(&hash, &bytes);
        Ok(Some(Entry { stat: recorded, hash }))
    }
}

/// `stat` as the manifest keeps it: a recent file's mtime is replaced by
/// -1, so no later `stat` matches it and the next scan reads it again.
fn recorded_stat(stat: Stat, scan_started: i64) -> Stat {
    if stat.mtime_ns > scan_started - RACY_NS {
        Stat { mtime_ns: -1, ..stat }
    } else {
        stat
    }
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.mtime().saturating_mul(1_000_000_000).saturating_add(meta.mtime_nsec())
}

/// Read one file as a scan would (for a single file after an operation):
/// `None` when it does not exist.
pub fn entry_of(path: &Path, keep: &mut dyn FnMut(&str, &[u8])) -> Option<Entry> {
    let meta = std::fs::symlink_metadata(path).ok().filter(std::fs::Metadata::is_file)?;
    let stat = Stat::of(&meta);
    let recorded = recorded_stat(stat, now_ns());
    if stat.size > MAX_STORED {
        return Some(Entry { stat: recorded, hash: format!("large:{}:{}", stat.size, stat.mtime_ns) });
    }
    let bytes = std::fs::read(path).ok()?;
    let hash = hash_of(&bytes);
    keep(&hash, &bytes);
    Some(Entry { stat: recorded, hash })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignored_files_and_the_git_folder_are_not_listed_without_a_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n*.log\n").unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("build/out.o"), "x").unwrap();
        std::fs::write(root.join("run.log"), "x").unwrap();
        std::fs::write(root.join(".git/HEAD"), "x").unwrap();
        std::fs::write(root.join("main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join(".env.example"), "A=1\n").unwrap();
        let (m, _) =
            scan(std::slice::from_ref(&root), &[], Limits::default(), &Manifest::new(), &mut |_, _| {}).unwrap();
        let mut names: Vec<_> =
            m.keys().map(|p| p.strip_prefix(&root).unwrap().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, [".env.example", ".gitignore", "main.rs"]);
    }

    #[test]
    fn an_unchanged_file_is_not_read_again_and_a_large_one_never() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        std::fs::write(root.join("big.bin"), vec![7u8; (MAX_STORED + 1) as usize]).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        for name in ["a.txt", "big.bin"] {
            std::fs::File::options().write(true).open(root.join(name)).unwrap().set_modified(old).unwrap();
        }
        let mut kept = Vec::new();
        let (first, s1) = scan(std::slice::from_ref(&root), &[], Limits::default(), &Manifest::new(), &mut |h, _| {
            kept.push(h.to_owned())
        })
        .unwrap();
        assert_eq!((s1.files, s1.read), (2, 1));
        assert!(!is_stored(&first[&root.join("big.bin")].hash));
        let (second, s2) = scan(std::slice::from_ref(&root), &[], Limits::default(), &first, &mut |_, _| {}).unwrap();
        assert_eq!((s2.files, s2.read), (2, 0));
        assert_eq!(first, second);
        assert_eq!(kept, [hash_of(b"one\n")]);
    }

    #[test]
    fn a_file_changed_just_before_a_scan_is_read_again_at_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        let (first, _) =
            scan(std::slice::from_ref(&root), &[], Limits::default(), &Manifest::new(), &mut |_, _| {}).unwrap();
        // Same size, and the mtime set back to what it was: only the racy rule sees it.
        let mtime = std::fs::metadata(root.join("a.txt")).unwrap().modified().unwrap();
        std::fs::write(root.join("a.txt"), "two\n").unwrap();
        std::fs::File::options().write(true).open(root.join("a.txt")).unwrap().set_modified(mtime).unwrap();
        let (second, s2) = scan(std::slice::from_ref(&root), &[], Limits::default(), &first, &mut |_, _| {}).unwrap();
        assert_eq!(s2.read, 1);
        assert_eq!(second[&root.join("a.txt")].hash, hash_of(b"two\n"));
    }
}
