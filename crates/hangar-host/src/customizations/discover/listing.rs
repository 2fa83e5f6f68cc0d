//! Listing the known folders, and only them: the files of one folder (its
//! sub-folders when nesting matters, bounded in depth and count), the
//! `SKILL.md` of each skill folder, and whether a folder may be written.

use std::path::{Path, PathBuf};

use super::super::Roots;

/// How deep nested rules, agents and commands are looked for.
const MAX_DEPTH: usize = 8;
/// How many files one known folder may yield (a runaway folder costs no more).
const MAX_FILES: usize = 2_000;

/// The files below `folder` whose names end with one of `suffixes`, sorted;
/// `Ok(None)` when the folder does not exist; `Err` when it can't be read.
pub fn files(folder: &Path, suffixes: &[&str], recursive: bool) -> Result<Option<Vec<PathBuf>>, String> {
    let Some(entries) = entries(folder)? else {
        return Ok(None);
    };
    let mut found = Vec::new();
    let mut pending: Vec<(Vec<(PathBuf, bool)>, usize)> = vec![(entries, 0)];
    while let Some((entries, depth)) = pending.pop() {
        for (path, is_dir) in entries {
            if found.len() >= MAX_FILES {
                break;
            }
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if is_dir {
                if recursive && depth + 1 < MAX_DEPTH && !name.starts_with('.') {
                    // A sub-folder that can't be read hides only itself.
                    if let Ok(Some(inner)) = self::entries(&path) {
                        pending.push((inner, depth + 1));
                    }
                }
            } else if suffixes.iter().any(|suffix| name.len() > suffix.len() && name.ends_with(suffix)) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(Some(found))
}

/// The `SKILL.md` of each `<folder>/<name>/`, sorted by name.
pub fn skill_files(folder: &Path) -> Result<Option<Vec<PathBuf>>, String> {
    let Some(entries) = entries(folder)? else {
        return Ok(None);
    };
    let mut found: Vec<PathBuf> = entries
        .into_iter()
        .filter(|(_, is_dir)| *is_dir)
        .map(|(dir, _)| dir.join("SKILL.md"))
        .filter(|file| file.is_file())
        .take(MAX_FILES)
        .collect();
    found.sort();
    Ok(Some(found))
}

/// The sub-folders of `folder`, sorted (empty when it is missing).
pub fn folders(folder: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = match entries(folder) {
        Ok(Some(entries)) => entries.into_iter().filter(|(_, is_dir)| *is_dir).map(|(p, _)| p).collect(),
        _ => Vec::new(),
    };
    found.sort();
    found
}

/// The entries of a folder with "is a folder" (links followed).
fn entries(folder: &Path) -> Result<Option<Vec<(PathBuf, bool)>>, String> {
    let read = match std::fs::read_dir(folder) {
        Ok(read) => read,
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(e.to_string()),
    };
    Ok(Some(
        read.filter_map(Result::ok)
            .map(|entry| {
                let path = entry.path();
                let is_dir = match entry.file_type() {
                    Ok(kind) if kind.is_symlink() => path.is_dir(),
                    Ok(kind) => kind.is_dir(),
                    Err(_) => false,
                };
                (path, is_dir)
            })
            .collect(),
    ))
}

/// Whether a client may create or change files in `folder`: it lies in a
/// working directory or home, and it (or, while it does not exist, its
/// nearest existing ancestor) is writable by this process.
pub fn writable(folder: &Path, roots: &Roots) -> bool {
    let inside = roots.working_dirs.iter().chain(roots.home.iter()).any(|root| folder.starts_with(root));
    inside
        && folder
            .ancestors()
            .find(|p| p.exists())
            .is_some_and(|existing| rustix::fs::access(existing, rustix::fs::Access::WRITE_OK).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_filtered_by_suffix_and_nest_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join(".hidden")).unwrap();
        for file in ["x.prompt.md", "y.md", "a/z.prompt.md", "a/b/w.prompt.md", ".hidden/h.prompt.md", ".prompt.md"] {
            std::fs::write(root.join(file), "").unwrap();
        }
        let flat = files(root, &[".prompt.md"], false).unwrap().unwrap();
        assert_eq!(flat, [root.join("x.prompt.md")]);
        let nested = files(root, &[".prompt.md"], true).unwrap().unwrap();
        assert_eq!(nested, [root.join("a/b/w.prompt.md"), root.join("a/z.prompt.md"), root.join("x.prompt.md")]);
        assert_eq!(files(&root.join("missing"), &[".md"], true).unwrap(), None);
    }
}
