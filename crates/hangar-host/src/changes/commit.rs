//! The session changeset's `commit` operation: a git commit of exactly what
//! the person kept. For every file under the session's folders that differs
//! from `HEAD` or is pending, the committed content is the pending change's
//! base (what is kept of it: accepted hunks in, pending ones out) when the
//! file is pending, and the file on disk otherwise (kept whole, or undone
//! back to what it was). The commit is built in a temporary index
//! (`GIT_INDEX_FILE`), so the working tree, and its pending changes, stay
//! as they are; `git commit` runs the repository's hooks and signing as the
//! person's own git would. Afterwards the repository's index follows the
//! new commit for the committed files only.
//!
//! Why the `git` CLI and not `gix` here: the commit must run the user's
//! hooks and use their identity and signing configuration.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::changes_db::FileChange;
use super::operations::{OperationError, Outcome};
use super::scan::hash_of;
use super::tracker::Tracker;
use super::uncommitted;
use crate::locks::lock;

/// The operation's id on the session changeset.
pub const COMMIT_OPERATION: &str = "commit";

/// A commit made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// Its id.
    pub id: String,
    /// The branch it is on.
    pub branch: String,
}

/// `git -C top args…` with the index at `index` and `input` on standard
/// input; standard output (trimmed) or standard error.
fn run(top: &Path, args: &[&str], index: Option<&Path>, input: Option<&[u8]>) -> Result<String, String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(top).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
    if let Some(index) = index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    let mut child = cmd.spawn().map_err(|e| format!("running git: {e}"))?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(bytes).map_err(|e| format!("writing to git: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("running git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_owned())
    } else {
        let said = [out.stderr, out.stdout].concat();
        Err(String::from_utf8_lossy(&said).trim().to_owned())
    }
}

fn refuse(reason: impl Into<String>) -> OperationError {
    OperationError::Refused(reason.into())
}

/// The one repository `dirs` are in.
fn repository(dirs: &[PathBuf]) -> Result<PathBuf, OperationError> {
    let mut tops: Vec<PathBuf> = dirs.iter().filter_map(|d| uncommitted::repository(d)).collect();
    tops.dedup();
    match tops.as_slice() {
        [top] => Ok(top.clone()),
        [] => Err(refuse("the session's folder is not in a git repository")),
        _ => Err(refuse("the session's folders are in more than one git repository")),
    }
}

/// The index mode for `rel`: as `HEAD` has it, else from the file on disk.
fn mode_of(top: &Path, rel: &str, path: &Path) -> &'static str {
    let listed = run(top, &["ls-tree", "HEAD", "--", rel], None, None).unwrap_or_default();
    match listed.split_whitespace().next() {
        Some("100755") => "100755",
        Some("100644") => "100644",
        _ if is_executable(path) => "100755",
        _ => "100644",
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    false
}

impl Tracker {
    /// Commit what `session` kept in `dirs` with `message` on the current
    /// branch.
    pub fn commit(&self, session: &str, dirs: &[PathBuf], message: &str) -> Result<Outcome, OperationError> {
        let inner = lock(&self.inner);
        if inner.store.open_turn(session)?.is_some() {
            return Err(OperationError::TurnRunning);
        }
        let top = repository(dirs)?;
        let branch = run(&top, &["symbolic-ref", "--quiet", "--short", "HEAD"], None, None)
            .map_err(|_| refuse(format!("HEAD is detached in {}: check out a branch to commit on", top.display())))?;
        let pending = inner.store.pending(session)?;
        let mut paths: Vec<PathBuf> =
            dirs.iter().flat_map(|d| uncommitted::changes(d).unwrap_or_default()).map(|c| c.path).collect();
        paths.extend(pending.iter().map(|p| p.path.clone()).filter(|p| dirs.iter().any(|d| p.starts_with(d))));
        paths.sort();
        paths.dedup();
        // git refuses an empty index file: a path in a fresh folder.
        let scratch = tempfile::tempdir().map_err(|e| OperationError::Io(format!("a temporary index: {e}")))?;
        let index_path = scratch.path().join("index");
        let index = Some(index_path.as_path());
        let git = |args: &[&str], input: Option<&[u8]>| run(&top, args, index, input).map_err(OperationError::Io);
        git(&["read-tree", "HEAD"], None)?;
        let mut staged = Vec::new();
        for path in &paths {
            let Ok(rel) = path.strip_prefix(&top) else { continue };
            let rel = rel.to_string_lossy().replace('\\', "/");
            let kept = match pending.iter().find(|p| &p.path == path) {
                Some(p) => inner.content(path, p.before.as_deref())?,
                None => std::fs::read(path).ok(),
            };
            match &kept {
                Some(bytes) => {
                    let id = git(&["hash-object", "-w", "--stdin"], Some(bytes))?;
                    let entry = format!("{},{id},{rel}", mode_of(&top, &rel, path));
                    git(&["update-index", "--add", "--cacheinfo", &entry], None)?;
                }
                None => drop(git(&["update-index", "--force-remove", "--", &rel], None)?),
            }
            staged.push((rel, FileChange { path: path.clone(), before: None, after: kept.as_deref().map(hash_of) }));
        }
        let differ = git(&["diff", "--cached", "--name-only", "-z", "HEAD"], None)?;
        let differ: Vec<&str> = differ.split('\0').filter(|s| !s.is_empty()).collect();
        if differ.is_empty() {
            return Err(refuse("nothing kept to commit: every change is still pending, was undone, or is committed"));
        }
        run(&top, &["commit", "--quiet", "-m", message], index, None)
            .map_err(|said| refuse(format!("git commit failed: {said}")))?;
        let id = git(&["rev-parse", "HEAD"], None)?;
        let mut reset = vec!["reset", "--quiet", "--"];
        reset.extend(differ.iter().copied());
        if let Err(e) = run(&top, &reset, None, None) {
            tracing::warn!(session, "bringing the index up to the new commit: {e}");
        }
        let files = staged.into_iter().filter(|(rel, _)| differ.contains(&rel.as_str())).map(|(_, f)| f).collect();
        Ok(Outcome { files, undo: None, commit: Some(Commit { id, branch }) })
    }
}
