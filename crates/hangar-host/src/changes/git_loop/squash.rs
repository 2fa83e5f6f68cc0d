//! A squash merge back: the session's branch's changes as one new commit
//! on the folder's branch (`git merge --squash`, then `git commit` with the
//! person's message, their hooks and identity). Called once the merge is
//! known not to conflict; when git refuses on the way (a hook, nothing
//! left to commit) the folder is put back as it was: index and files at
//! `HEAD`, no `SQUASH_MSG` left for the next commit to pick up.

use std::path::Path;

use super::command::{self, git};
use super::GitLoopError;

/// Squash `theirs` onto the branch checked out in the clean folder `repo`
/// as one commit with `message`; the new commit's id.
pub fn squash(repo: &Path, theirs: &str, message: &str) -> Result<String, GitLoopError> {
    if message.trim().is_empty() {
        return Err(GitLoopError::Refused("a squash needs a commit message".into()));
    }
    let said = command::run("git", repo, &["merge", "--squash", theirs], command::TIMEOUT)?;
    let said = match said.ok {
        true => command::run("git", repo, &["commit", "--quiet", "-m", message], command::TIMEOUT)?,
        false => said,
    };
    if !said.ok {
        put_back(repo);
        return Err(GitLoopError::Refused(format!("git could not make the squash commit: {}", said.both)));
    }
    git(repo, &["rev-parse", "HEAD"])
}

/// The folder back at `HEAD` after a squash git gave up on: it was clean
/// before, so nothing of the person's is lost.
fn put_back(repo: &Path) {
    if let Err(e) = git(repo, &["reset", "--hard", "--quiet", "HEAD"]) {
        tracing::warn!(repo = %repo.display(), "putting the folder back after a refused squash: {e}");
    }
    if let Ok(path) = git(repo, &["rev-parse", "--git-path", "SQUASH_MSG"]) {
        let _ = std::fs::remove_file(repo.join(path));
    }
}
