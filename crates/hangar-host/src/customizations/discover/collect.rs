//! Walking the table over the roots: which known files exist, grouped into
//! the containers they will be listed in (one per known folder and kind),
//! each file once even when several rows (or roots) name it — its readers
//! merged — plus the MCP files and plugin folders to read. Only the known
//! folders are listed; nothing else below a root is touched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::super::Roots;
use super::layout::{rooted, Find, Kind, Place, Read, Reader, Scope};
use super::listing;
use super::source::Source;

/// A container being filled: a known folder and the kind it holds.
#[derive(Debug)]
pub struct Group {
    /// The folder.
    pub folder: PathBuf,
    /// What it holds.
    pub kind: Kind,
    /// Project or user.
    pub scope: Scope,
    /// The working directory or home it lies in.
    pub root: PathBuf,
    /// Its files.
    pub sources: Vec<Source>,
    /// Every agent that reads something here.
    pub readers: Vec<Reader>,
    /// Why the folder can't be listed.
    pub error: Option<String>,
}

/// A folder that holds plugins.
#[derive(Debug)]
pub struct PluginRoot {
    /// The folder.
    pub folder: PathBuf,
    /// Its row.
    pub place: &'static Place,
}

/// Everything found, in listing order.
#[derive(Debug, Default)]
pub struct Collected {
    /// Containers.
    pub groups: Vec<Group>,
    /// Files of top-level MCP servers, with their scope.
    pub mcp: Vec<(Source, Scope)>,
    /// Plugin folders, with their scope.
    pub plugins: Vec<(PluginRoot, Scope)>,
}

#[derive(Default)]
struct Index {
    groups: HashMap<(PathBuf, Kind), usize>,
    /// (kind, file) → (group, source), or `usize::MAX` as group for MCP.
    files: HashMap<(Kind, FileId), (usize, usize)>,
}

/// Walk the table over `roots`.
pub fn collect(roots: &Roots) -> Collected {
    let mut out = Collected::default();
    let mut index = Index::default();
    for (root, place) in rooted(roots) {
        visit(&mut out, &mut index, root, place);
    }
    out
}

fn visit(out: &mut Collected, index: &mut Index, root: &Path, place: &'static Place) {
    let target = root.join(place.rel);
    let kind = place.read.kind();
    match place.find {
        Find::Plugins { .. } => out.plugins.push((PluginRoot { folder: target, place }, place.scope)),
        Find::File => {
            let folder = target.parent().unwrap_or(root).to_path_buf();
            let exists = target.is_file();
            if let Read::Mcp(_) = place.read {
                if exists {
                    let src = Source::new(target, place, folder, root.to_path_buf(), place.readers);
                    add_mcp(out, index, src);
                }
                return;
            }
            if exists || place.offer {
                let group = group(out, index, &folder, kind, place, root);
                if exists {
                    add(out, index, group, Source::new(target, place, folder, root.to_path_buf(), place.readers));
                }
            }
        }
        Find::Files { .. } | Find::SkillDirs => {
            let listed = match place.find {
                Find::Files { suffixes, recursive } => listing::files(&target, suffixes, recursive),
                _ => listing::skill_files(&target),
            };
            match listed {
                Ok(None) if !place.offer => {}
                Ok(files) => {
                    let group = group(out, index, &target, kind, place, root);
                    for file in files.unwrap_or_default() {
                        add(
                            out,
                            index,
                            group,
                            Source::new(file, place, target.clone(), root.to_path_buf(), place.readers),
                        );
                    }
                }
                Err(e) => {
                    let group = group(out, index, &target, kind, place, root);
                    out.groups[group].error = Some(format!("{}: {e}", place.rel));
                }
            }
        }
    }
}

/// The group of `folder` and `kind`, made on first use; `place`'s readers
/// join it.
fn group(out: &mut Collected, index: &mut Index, folder: &Path, kind: Kind, place: &Place, root: &Path) -> usize {
    let at = *index.groups.entry((folder.to_path_buf(), kind)).or_insert_with(|| {
        out.groups.push(Group {
            folder: folder.to_path_buf(),
            kind,
            scope: place.scope,
            root: root.to_path_buf(),
            sources: Vec::new(),
            readers: Vec::new(),
            error: None,
        });
        out.groups.len() - 1
    });
    let readers = &mut out.groups[at].readers;
    readers.extend_from_slice(place.readers);
    readers.sort();
    readers.dedup();
    at
}

/// Which file `path` is: its device and inode (links followed, one
/// `stat`), else the path itself.
fn identity(path: &Path) -> FileId {
    use std::os::unix::fs::MetadataExt as _;
    match std::fs::metadata(path) {
        Ok(meta) => FileId::Inode(meta.dev(), meta.ino()),
        Err(_) => FileId::Path(path.to_path_buf()),
    }
}

/// One file, however it was reached.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileId {
    Inode(u64, u64),
    Path(PathBuf),
}

/// Add `src` to `group`, or merge its readers into the file's first listing.
fn add(out: &mut Collected, index: &mut Index, group: usize, src: Source) {
    let key = (src.place.read.kind(), identity(&src.path));
    match index.files.get(&key) {
        Some(&(g, s)) => merge(&mut out.groups[g].sources[s], &src),
        None => {
            index.files.insert(key, (group, out.groups[group].sources.len()));
            out.groups[group].sources.push(src);
        }
    }
}

fn add_mcp(out: &mut Collected, index: &mut Index, src: Source) {
    let key = (Kind::McpServer, identity(&src.path));
    match index.files.get(&key) {
        Some(&(_, s)) => merge(&mut out.mcp[s].0, &src),
        None => {
            index.files.insert(key, (usize::MAX, out.mcp.len()));
            let scope = src.place.scope;
            out.mcp.push((src, scope));
        }
    }
}

fn merge(into: &mut Source, other: &Source) {
    into.readers.extend_from_slice(&other.readers);
    into.readers.sort();
    into.readers.dedup();
}
