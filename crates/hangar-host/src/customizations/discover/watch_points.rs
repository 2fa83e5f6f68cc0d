//! What to watch so that any edit, creation or deletion of a known file is
//! seen: every known folder (recursively only where nesting matters:
//! nested rules, agents, commands and prompts, skills, plugins) and the
//! parent folder of every known single file, non-recursively. A root
//! itself (working directory, home) is only ever watched non-recursively.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::super::{Roots, WatchPoint};
use super::layout::{rooted, Find};

/// Every known file and folder for `roots`, as the table names them (what
/// discovery looks at first; the benchmark `stat`s them as its baseline).
pub fn known_paths(roots: &Roots) -> Vec<PathBuf> {
    rooted(roots).map(|(root, place)| root.join(place.rel)).collect()
}

/// The watch points for `roots`, sorted, each path once.
pub fn watch_points(roots: &Roots) -> Vec<WatchPoint> {
    let mut points: BTreeMap<PathBuf, bool> = BTreeMap::new();
    for (root, place) in rooted(roots) {
        let target = root.join(place.rel);
        let (path, recursive) = match place.find {
            Find::File => (target.parent().unwrap_or(root).to_path_buf(), false),
            Find::Files { recursive, .. } => (target, recursive),
            Find::SkillDirs | Find::Plugins { .. } => (target, true),
        };
        // A root is never watched recursively, whatever a row says.
        let recursive = recursive && !roots.working_dirs.contains(&path) && roots.home.as_ref() != Some(&path);
        *points.entry(path).or_insert(false) |= recursive;
    }
    points.into_iter().map(|(path, recursive)| WatchPoint { path, recursive }).collect()
}
