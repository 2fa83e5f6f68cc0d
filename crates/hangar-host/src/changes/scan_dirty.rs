//! A scan of only the paths the watcher saw change (`watch.rs`): what a
//! full scan (`scan.rs`) would find different, at the cost of the change.
//!
//! Map:
//! - [`scan_dirty`] — each dirty path: a file is looked at as a full scan
//!   would (`scan::Reader`); a folder (new, renamed in, or changed) is
//!   walked whole, as a full scan walks; a path that is gone takes every
//!   file listed under it with it. The answer is the manifest's delta.
//! - [`Filter`] — whether a full scan's walk would reach a path: no `.git`
//!   or skipped folder on the way, and no ignore file (`.ignore`,
//!   `.gitignore`, the repository's `info/exclude`, as the `ignore` crate
//!   ranks them) excluding it or a folder above it.
//!
//! A dirty ignore file changes what every scan sees, so it asks for a full
//! scan ([`NeedsFullScan`]), as does a delta that takes the session over its
//! file limit (the full scan then says so).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use ignore::gitignore::Gitignore;
use ignore::Match;

use super::scan::{self, Delta, Entry, Limits, Manifest, Reader};
use super::watch::Changed;

/// Why the dirty paths are not enough: scan everything.
#[derive(Debug, PartialEq, Eq)]
pub struct NeedsFullScan(pub String);

/// The delta of `previous` that the `dirty` paths hold.
pub fn scan_dirty(
    dirs: &[PathBuf],
    skip: &[PathBuf],
    limits: Limits,
    previous: &Manifest,
    changed: &Changed,
    reader: &mut Reader<'_>,
) -> Result<Result<Delta, NeedsFullScan>, String> {
    let dirty = &changed.paths;
    if let Some(p) = dirty.iter().find(|p| is_ignore_file(p)) {
        return Ok(Err(NeedsFullScan(format!("{} changed", p.display()))));
    }
    let mut filter = Filter::new(skip);
    let mut delta = Delta::new();
    let mut gone: Vec<&Path> = Vec::new();
    for path in dirty {
        let Some(root) = dirs.iter().find(|d| path.starts_with(d)) else { continue };
        let meta = std::fs::symlink_metadata(path).ok();
        match meta {
            Some(meta) if meta.is_file() && filter.reaches(root, path, false) => {
                match reader.entry(root, path, &meta)? {
                    Some(entry) => put(&mut delta, previous, path, Some(entry)),
                    None => put(&mut delta, previous, path, None),
                }
            }
            Some(meta) if meta.is_dir() && filter.reaches(root, path, true) => {
                let mut seen = HashSet::new();
                for item in scan::walker(path, skip) {
                    let Ok(item) = item else { continue };
                    if !item.file_type().is_some_and(|t| t.is_file()) {
                        continue;
                    }
                    let Ok(meta) = std::fs::symlink_metadata(item.path()) else { continue };
                    if let Some(entry) = reader.entry(root, item.path(), &meta)? {
                        put(&mut delta, previous, item.path(), Some(entry));
                        seen.insert(item.path().to_path_buf());
                    }
                }
                for listed in previous.keys().filter(|p| p.starts_with(path) && !seen.contains(*p)) {
                    put(&mut delta, previous, listed, None);
                }
            }
            // Ignored: nothing was listed there (a change of the ignore
            // rules is a full scan).
            Some(meta) if meta.is_file() || meta.is_dir() => {}
            // Gone, or a symlink now: nothing listed there any more.
            _ if previous.contains_key(path) => put(&mut delta, previous, path, None),
            _ => gone.push(path),
        }
    }
    // Removed or renamed away: if it was a folder the walk reached, what
    // was listed under it is gone (even if the path is a file now).
    for path in &changed.vanished {
        let Some(root) = dirs.iter().find(|d| path.starts_with(d)) else { continue };
        let parent_reached = path.parent().is_some_and(|p| p == root.as_path() || filter.reaches(root, p, true));
        if !previous.contains_key(path) && parent_reached && !gone.contains(&path.as_path()) {
            gone.push(path);
        }
    }
    forget_under(&mut delta, previous, &gone);
    let added = delta.iter().filter(|(p, e)| e.is_some() && !previous.contains_key(*p)).count();
    let removed = delta.values().filter(|e| e.is_none()).count();
    if previous.len() + added - removed.min(previous.len() + added) > limits.files {
        return Ok(Err(NeedsFullScan("over the file limit".into())));
    }
    Ok(Ok(delta))
}

/// Every listed file under the folders `gone` (removed, renamed away)
/// leaves the manifest. A few folders: a pass over the manifest each; many:
/// one pass looking each file's folders up.
fn forget_under(delta: &mut Delta, previous: &Manifest, gone: &[&Path]) {
    if gone.is_empty() {
        return;
    }
    let gone_set: HashSet<&Path> = gone.iter().copied().collect();
    let under = |p: &Path| {
        if gone.len() <= 8 {
            gone.iter().any(|g| p.starts_with(g))
        } else {
            p.ancestors().any(|a| gone_set.contains(a))
        }
    };
    let listed: Vec<&PathBuf> = previous.keys().filter(|p| under(p) && !delta.contains_key(*p)).collect();
    for p in listed {
        put(delta, previous, p, None);
    }
}

/// Record `entry` for `path` unless the manifest already has it.
fn put(delta: &mut Delta, previous: &Manifest, path: &Path, entry: Option<Entry>) {
    if previous.get(path) == entry.as_ref() {
        delta.remove(path);
    } else {
        delta.insert(path.to_path_buf(), entry);
    }
}

fn is_ignore_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    matches!(name, ".gitignore" | ".ignore") || path.ends_with(".git/info/exclude") || path.ends_with(".git/info")
}

/// Whether a full scan's walk reaches a path (see the module doc).
pub struct Filter {
    skip: Vec<PathBuf>,
    /// Each folder's ignore files, read once per scan.
    rules: HashMap<PathBuf, Rules>,
}

/// One folder's ignore files (an absent file is an empty matcher).
struct Rules {
    ignore: Gitignore,
    gitignore: Gitignore,
    /// `.git/info/exclude`, when the folder is a repository's top.
    exclude: Option<Gitignore>,
}

impl Filter {
    /// A filter that never passes into `skip`.
    pub fn new(skip: &[PathBuf]) -> Self {
        Self { skip: skip.to_vec(), rules: HashMap::new() }
    }

    /// Whether the walk of `root` reaches `path` (a folder if `is_dir`).
    pub fn reaches(&mut self, root: &Path, path: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(root) else { return false };
        if rel.components().any(|c| c.as_os_str() == ".git") || self.skip.iter().any(|s| path.starts_with(s)) {
            return false;
        }
        // Each folder on the way down, then the path itself.
        let mut at = root.to_path_buf();
        let parts: Vec<_> = rel.components().collect();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let last = i + 1 == parts.len();
            if self.ignored(&at, !last || is_dir) {
                return false;
            }
        }
        true
    }

    /// Whether the ignore files of `path`'s parent folders exclude it, as
    /// the `ignore` crate decides: the nearest `.ignore` that matches, else
    /// the nearest `.gitignore` up to the repository's top, else that top's
    /// `info/exclude`.
    fn ignored(&mut self, path: &Path, is_dir: bool) -> bool {
        let parents: Vec<&Path> = path.ancestors().skip(1).collect();
        for dir in &parents {
            match self.rules_of(dir).ignore.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        for dir in &parents {
            let rules = self.rules_of(dir);
            match rules.gitignore.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
            if let Some(exclude) = &rules.exclude {
                return exclude.matched(path, is_dir).is_ignore();
            }
        }
        false
    }

    fn rules_of(&mut self, dir: &Path) -> &Rules {
        self.rules.entry(dir.to_path_buf()).or_insert_with(|| Rules {
            ignore: Gitignore::new(dir.join(".ignore")).0,
            gitignore: Gitignore::new(dir.join(".gitignore")).0,
            exclude: dir.join(".git").exists().then(|| Gitignore::new(dir.join(".git/info/exclude")).0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(root: &Path) -> Manifest {
        scan::scan(&[root.to_path_buf()], &[], Limits::default(), &Manifest::new(), &mut |_, _| {}).unwrap().0
    }

    fn apply(mut m: Manifest, delta: Delta) -> Manifest {
        for (path, entry) in delta {
            match entry {
                Some(e) => m.insert(path, e),
                None => m.remove(&path),
            };
        }
        m
    }

    fn hashes(m: &Manifest) -> std::collections::BTreeMap<PathBuf, String> {
        m.iter().map(|(p, e)| (p.clone(), e.hash.clone())).collect()
    }

    #[test]
    fn the_dirty_paths_give_what_a_full_scan_gives() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        let w = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w(".gitignore", "target/\n*.log\n!keep.log\n");
        w("sub/.gitignore", "gen/\n");
        w("a.txt", "a");
        w("old/x.txt", "x");
        w("old/deep/y.txt", "y");
        w("gone.txt", "g");
        let before = full(&root);
        let mut dirty = Changed::default();
        let mut touch = |rel: &str| dirty.paths.insert(root.join(rel));
        // A file edited, one removed, a folder renamed, a new folder with
        // files, files the walk never reaches.
        w("a.txt", "a2");
        touch("a.txt");
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        touch("gone.txt");
        std::fs::rename(root.join("old"), root.join("new")).unwrap();
        touch("old");
        touch("new");
        // ... and a file where the folder was.
        w("old", "a file now");
        w("made/one.txt", "1");
        w("made/two/three.txt", "3");
        touch("made");
        w("target/out.o", "o");
        touch("target");
        touch("target/out.o");
        w("run.log", "l");
        touch("run.log");
        w("keep.log", "k");
        touch("keep.log");
        w("sub/gen/g.txt", "g");
        touch("sub/gen/g.txt");
        w(".git/HEAD", "h");
        touch(".git/HEAD");
        touch("never-existed.txt");
        dirty.vanished.insert(root.join("old"));
        dirty.vanished.insert(root.join("gone.txt"));
        let mut keep = |_: &str, _: &[u8]| {};
        let mut reader = Reader::new(&before, &|_, _| None, &mut keep, Limits::default());
        let delta = scan_dirty(std::slice::from_ref(&root), &[], Limits::default(), &before, &dirty, &mut reader)
            .unwrap()
            .unwrap();
        assert_eq!(hashes(&apply(before, delta)), hashes(&full(&root)));
    }

    #[test]
    fn a_changed_ignore_file_asks_for_a_full_scan() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        let dirty = Changed { paths: HashSet::from([root.join(".gitignore")]), ..Default::default() };
        let mut keep = |_: &str, _: &[u8]| {};
        let m = Manifest::new();
        let mut reader = Reader::new(&m, &|_, _| None, &mut keep, Limits::default());
        let got = scan_dirty(std::slice::from_ref(&root), &[], Limits::default(), &m, &dirty, &mut reader).unwrap();
        assert!(got.is_err());
    }
}
