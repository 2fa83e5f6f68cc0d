//! A merge back's conflicts in detail: `git merge-tree --write-tree` wrote
//! a tree whose conflicted files carry git's markers (`<<<<<<< ours`,
//! `||||||| base` with `merge.conflictStyle=diff3`, `=======`,
//! `>>>>>>> theirs`); each block becomes a [`Hunk`] with both sides, so a
//! client can show the conflict as a conflict (`data.files` of the
//! `-32011` answer, docs/changesets.md). The tree's blobs are read
//! in-process with `gix`. Bounded: at most [`MAX_FILES`] files, and each
//! side of a hunk at most [`MAX_LINES`] lines (`truncated` says so).

use std::path::Path;

use serde::Serialize;

/// Files described (the rest are only named in `conflicts`).
pub const MAX_FILES: usize = 50;
/// Lines kept of each side of a hunk.
pub const MAX_LINES: usize = 200;

/// One conflicting block of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// The line of its `<<<<<<<` marker in the merged file (1-based).
    pub line: usize,
    /// The lines of the branch merged into (the folder's).
    pub ours: Vec<String>,
    /// The lines of their common ancestor, when git wrote them (diff3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<Vec<String>>,
    /// The lines of the session's branch.
    pub theirs: Vec<String>,
    /// A side had more than [`MAX_LINES`] lines.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A conflicting file and its blocks (none for a conflict without markers:
/// a file deleted on one side, a binary file, a rename).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileConflict {
    /// Relative to the repository's top folder.
    pub path: String,
    /// Its conflicting blocks, in file order.
    pub hunks: Vec<Hunk>,
}

/// Which part of a block a line is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Ours,
    Base,
    Theirs,
}

/// Whether `line` is a conflict marker made of `c` (seven, then a space
/// and a label or nothing).
fn is_marker(line: &str, c: char) -> bool {
    let mut chars = line.chars();
    chars.by_ref().take(7).filter(|x| *x == c).count() == 7 && matches!(chars.next(), None | Some(' '))
}

/// The conflicting blocks of a file's text with git's markers.
pub fn parse(text: &str) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let mut open: Option<(Hunk, Part)> = None;
    for (i, line) in text.lines().enumerate() {
        match open.as_mut() {
            None if is_marker(line, '<') => {
                let hunk = Hunk { line: i + 1, ours: Vec::new(), base: None, theirs: Vec::new(), truncated: false };
                open = Some((hunk, Part::Ours));
            }
            None => {}
            Some((hunk, part)) => {
                if is_marker(line, '|') && *part == Part::Ours {
                    hunk.base = Some(Vec::new());
                    *part = Part::Base;
                } else if is_marker(line, '=') && *part != Part::Theirs {
                    *part = Part::Theirs;
                } else if is_marker(line, '>') && *part == Part::Theirs {
                    if let Some((hunk, _)) = open.take() {
                        hunks.push(hunk);
                    }
                } else {
                    let side = match part {
                        Part::Ours => &mut hunk.ours,
                        Part::Base => hunk.base.get_or_insert_with(Vec::new),
                        Part::Theirs => &mut hunk.theirs,
                    };
                    if side.len() < MAX_LINES {
                        side.push(line.to_owned());
                    } else {
                        hunk.truncated = true;
                    }
                }
            }
        }
    }
    hunks
}

/// The conflicts of `files` in the tree `tree` (the id `git merge-tree`
/// printed) of the repository at `repo`; a file whose blob cannot be read
/// or is not text is listed with no hunks.
pub fn read(repo: &Path, tree: &str, files: &[String]) -> Vec<FileConflict> {
    let repository = gix::discover(repo).ok();
    let tree = gix::ObjectId::from_hex(tree.as_bytes()).ok();
    let tree = repository.as_ref().zip(tree).and_then(|(r, id)| r.find_tree(id).ok());
    files
        .iter()
        .take(MAX_FILES)
        .map(|path| {
            let text = tree.as_ref().and_then(|t| {
                let object = t.lookup_entry_by_path(path).ok()??.object().ok()?;
                String::from_utf8(object.data.clone()).ok()
            });
            FileConflict { path: path.clone(), hunks: text.as_deref().map(parse).unwrap_or_default() }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_has_both_sides_and_where_it_starts() {
        let text = "a\n<<<<<<< main\nours 1\nours 2\n=======\ntheirs\n>>>>>>> refs/heads/hangar/x\nb\n\
                    <<<<<<< main\n=======\nadded\n>>>>>>> refs/heads/hangar/x\n";
        let hunks = parse(text);
        assert_eq!(hunks.len(), 2);
        assert_eq!(
            (hunks[0].line, hunks[0].ours.clone(), hunks[0].theirs.clone()),
            (2, vec!["ours 1".to_owned(), "ours 2".to_owned()], vec!["theirs".to_owned()])
        );
        assert_eq!((hunks[1].line, hunks[1].ours.len(), hunks[1].theirs.clone()), (9, 0, vec!["added".to_owned()]));
        assert_eq!(hunks[0].base, None);
    }

    #[test]
    fn diff3_blocks_keep_the_base_and_lookalike_lines_are_content() {
        let text = "<<<<<<< main\nours\n||||||| base\nold\n=======\n======== not a marker\ntheirs\n>>>>>>> b\n";
        let hunks = parse(text);
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].base, Some(vec!["old".to_owned()]));
        assert_eq!(hunks[0].theirs, ["======== not a marker", "theirs"]);
    }

    #[test]
    fn a_long_side_is_cut_and_says_so() {
        let long: String = (0..MAX_LINES + 5).map(|i| format!("l{i}\n")).collect();
        let text = format!("<<<<<<< a\n{long}=======\nx\n>>>>>>> b\n");
        let hunks = parse(&text);
        assert_eq!(hunks[0].ours.len(), MAX_LINES);
        assert!(hunks[0].truncated);
    }
}
