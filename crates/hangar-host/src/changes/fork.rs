//! A working copy of a session's folders as a turn left them, for a chat
//! forked from that turn; the original folders are not touched.
//!
//! Each working directory gets its own copy under the host's worktrees
//! folder: a `git worktree` (detached at `HEAD`) when the folder is the top
//! of a repository, so the fork has the repository's history and can be
//! committed and merged like a branch; an empty folder otherwise. Then every
//! file the tracker lists (what `.gitignore` lets through) is written with
//! the content it had at the turn's end, and files the turn's end did not
//! have are removed. Ignored files (`node_modules`, build output) are not
//! copied: the tracker never kept them. A file too large to keep is copied
//! from the original when it has not changed since; otherwise it is left
//! out and named in [`WorkingCopy::not_restored`].

use std::path::{Path, PathBuf};
use std::process::Command;

use super::changes_db::FileHashes;
use super::scan::{self, Limits, Manifest};
use super::Tracker;
use crate::locks::lock;

/// Why a working copy could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    /// The turn's end is not in the file history.
    #[error(
        "the files as turn {0} left them are not known (it has not ended, or it ended before Hangar kept file history)"
    )]
    UnknownTurn(String),
    /// `changes.db`.
    #[error(transparent)]
    Store(#[from] super::changes_db::ChangeStoreError),
    /// Writing the copy.
    #[error("{0}")]
    Io(String),
}

/// The folders made for a fork.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkingCopy {
    /// One per source working directory, in the same order.
    pub dirs: Vec<PathBuf>,
    /// Which of them are git worktrees.
    pub worktrees: Vec<bool>,
    /// Files the turn's end had that could not be written (too large to
    /// keep, and changed since).
    pub not_restored: Vec<PathBuf>,
}

fn io(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> ForkError {
    move |e| ForkError::Io(format!("{what}: {e}"))
}

/// Whether `dir` is the top folder of a git repository with a commit.
fn repository_top(dir: &Path) -> bool {
    let top = super::uncommitted::repository(dir).and_then(|t| t.canonicalize().ok());
    let has_head = || {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "--verify", "--quiet", "HEAD"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    top.is_some() && top == dir.canonicalize().ok() && has_head()
}

impl Tracker {
    /// Make a copy of `dirs` (the session's working directories) as turn
    /// `turn` of `session` left them, under `dest_root` (which must not
    /// exist yet).
    pub fn working_copy(
        &self,
        session: &str,
        turn: &str,
        dirs: &[PathBuf],
        dest_root: &Path,
    ) -> Result<WorkingCopy, ForkError> {
        let files = {
            let inner = lock(&self.inner);
            inner.store.files_at_turn_end(session, turn)?
        }
        .ok_or_else(|| ForkError::UnknownTurn(turn.to_owned()))?;
        std::fs::create_dir_all(dest_root).map_err(io(format!("creating {}", dest_root.display())))?;
        let mut copy = WorkingCopy { dirs: Vec::new(), worktrees: Vec::new(), not_restored: Vec::new() };
        for (i, dir) in dirs.iter().enumerate() {
            let name = dir.file_name().map_or_else(|| format!("folder-{i}"), |n| n.to_string_lossy().into_owned());
            let dest = if copy.dirs.iter().any(|d: &PathBuf| d.file_name() == Some(name.as_ref())) {
                dest_root.join(format!("{name}-{i}"))
            } else {
                dest_root.join(&name)
            };
            let worktree = repository_top(dir) && crate::worktrees::add::git_worktree_add(dir, &dest, None).is_ok();
            if !worktree {
                std::fs::create_dir_all(&dest).map_err(io(format!("creating {}", dest.display())))?;
            }
            self.restore_into(dir, &dest, &files, &mut copy.not_restored)?;
            copy.dirs.push(dest);
            copy.worktrees.push(worktree);
        }
        Ok(copy)
    }

    /// Write into `dest` every file of `files` under `source`, and remove
    /// the listed files `dest` has that `files` does not.
    fn restore_into(
        &self,
        source: &Path,
        dest: &Path,
        files: &FileHashes,
        not_restored: &mut Vec<PathBuf>,
    ) -> Result<(), ForkError> {
        let (there, _) = scan::scan(&[dest.to_path_buf()], &[], Limits::default(), &Manifest::new(), &mut |_, _| {})
            .map_err(ForkError::Io)?;
        for (path, hash) in files {
            let Ok(rel) = path.strip_prefix(source) else { continue };
            let target = dest.join(rel);
            if there.get(&target).is_some_and(|e| &e.hash == hash) {
                continue;
            }
            let bytes = match scan::is_stored(hash).then(|| self.blob(hash)).transpose()?.flatten() {
                Some(bytes) => bytes,
                None => match unchanged_large(path, hash) {
                    Some(bytes) => bytes,
                    None => {
                        not_restored.push(path.clone());
                        continue;
                    }
                },
            };
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(io(format!("creating {}", parent.display())))?;
            }
            std::fs::write(&target, bytes).map_err(io(format!("writing {}", target.display())))?;
            if let Ok(meta) = std::fs::metadata(path) {
                let _ = std::fs::set_permissions(&target, meta.permissions());
            }
        }
        for target in there.keys() {
            let Ok(rel) = target.strip_prefix(dest) else { continue };
            if !files.contains_key(&source.join(rel)) {
                std::fs::remove_file(target).map_err(io(format!("removing {}", target.display())))?;
            }
        }
        Ok(())
    }
}

/// The content of a file too large to keep, when it is still the one `hash`
/// names (same size and mtime).
fn unchanged_large(path: &Path, hash: &str) -> Option<Vec<u8>> {
    let entry = scan::entry_of(path, &mut |_, _| {})?;
    (entry.hash == hash).then(|| std::fs::read(path).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    fn read(path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }

    /// Turn 1 edits `a.txt` and creates `b.txt`; the user then edits
    /// `a.txt` and adds `user.txt`; turn 2 deletes `b.txt` and edits
    /// `c.txt`. Returns the tracker and the workspace.
    fn two_turns(ws: &Path, data: &Path) -> Tracker {
        let dirs = vec![ws.to_path_buf()];
        std::fs::write(ws.join("a.txt"), "a0\n").unwrap();
        std::fs::write(ws.join("c.txt"), "c0\n").unwrap();
        let tracker = Tracker::open(data, Vec::new()).unwrap();
        tracker.begin_turn("s", "t1", &dirs).unwrap();
        std::fs::write(ws.join("a.txt"), "a1\n").unwrap();
        std::fs::write(ws.join("b.txt"), "b1\n").unwrap();
        tracker.end_turn("s", "t1", &dirs).unwrap();
        std::fs::write(ws.join("a.txt"), "a-user\n").unwrap();
        std::fs::write(ws.join("user.txt"), "mine\n").unwrap();
        tracker.begin_turn("s", "t2", &dirs).unwrap();
        std::fs::remove_file(ws.join("b.txt")).unwrap();
        std::fs::write(ws.join("c.txt"), "c2\n").unwrap();
        tracker.end_turn("s", "t2", &dirs).unwrap();
        tracker
    }

    #[test]
    fn a_copy_has_the_files_as_the_turn_left_them_and_the_original_is_untouched() {
        let (data, ws, out) =
            (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let tracker = two_turns(ws.path(), data.path());
        let dirs = vec![ws.path().to_path_buf()];
        let copy = tracker.working_copy("s", "t1", &dirs, &out.path().join("fork")).unwrap();
        let dest = &copy.dirs[0];
        assert_eq!(copy.worktrees, [false]);
        assert_eq!(read(&dest.join("a.txt")).as_deref(), Some("a1\n"));
        assert_eq!(read(&dest.join("b.txt")).as_deref(), Some("b1\n"));
        assert_eq!(read(&dest.join("c.txt")).as_deref(), Some("c0\n"));
        assert_eq!(read(&dest.join("user.txt")), None, "the user's later file is not in turn 1's end");
        // The original is as it was.
        assert_eq!(read(&ws.path().join("a.txt")).as_deref(), Some("a-user\n"));
        assert_eq!(read(&ws.path().join("b.txt")), None);
        // Turn 2's end is today's disk.
        let copy = tracker.working_copy("s", "t2", &dirs, &out.path().join("fork2")).unwrap();
        assert_eq!(read(&copy.dirs[0].join("a.txt")).as_deref(), Some("a-user\n"));
        assert_eq!(read(&copy.dirs[0].join("user.txt")).as_deref(), Some("mine\n"));
        assert_eq!(read(&copy.dirs[0].join("b.txt")), None);
        // A turn that never ended here is refused.
        let err = tracker.working_copy("s", "t9", &dirs, &out.path().join("fork3")).unwrap_err();
        assert!(matches!(err, ForkError::UnknownTurn(_)), "{err}");
    }

    #[test]
    fn a_repository_gets_a_worktree_with_the_turns_files_over_head() {
        if Command::new("git").arg("--version").output().is_err() {
            eprintln!("git not installed: skipped");
            return;
        }
        let (data, ws, out) =
            (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        git(ws.path(), &["init", "-q"]);
        std::fs::write(ws.path().join("a.txt"), "a0\n").unwrap();
        std::fs::write(ws.path().join("c.txt"), "c0\n").unwrap();
        git(ws.path(), &["add", "."]);
        git(ws.path(), &["commit", "-qm", "base"]);
        // A repository hook must not run: the fork is not the person's checkout.
        let marker = out.path().join("hook-ran");
        let hook = ws.path().join(".git/hooks/post-checkout");
        std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
        std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let tracker = two_turns(ws.path(), data.path());
        let copy = tracker.working_copy("s", "t1", &[ws.path().to_path_buf()], &out.path().join("fork")).unwrap();
        assert!(!marker.exists(), "the repository's post-checkout hook ran");
        let dest = &copy.dirs[0];
        assert_eq!(copy.worktrees, [true]);
        assert!(dest.join(".git").is_file(), "a worktree's .git is a file");
        assert_eq!(read(&dest.join("a.txt")).as_deref(), Some("a1\n"));
        assert_eq!(read(&dest.join("b.txt")).as_deref(), Some("b1\n"));
        let listed = Command::new("git").arg("-C").arg(ws.path()).args(["worktree", "list"]).output().unwrap();
        assert!(String::from_utf8_lossy(&listed.stdout).contains("fork"));
        assert_eq!(read(&ws.path().join("a.txt")).as_deref(), Some("a-user\n"));
    }
}
