//! Making a session's worktree: `git worktree add -b <branch> <dest> HEAD`
//! in the repository that holds the chosen folder, with the repository's
//! hooks off (the worktree is the host's doing, not a checkout the person
//! ran). The session works in the worktree's copy of the chosen folder (a
//! subfolder of the repository maps to the same subfolder). The original
//! folder is not touched; on failure nothing is left behind.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{git, Worktree, WorktreeError};

/// What [`add`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The worktree.
    pub worktree: Worktree,
    /// The session's working directory in it.
    pub dir: PathBuf,
}

/// `git worktree add` of `dest` in `repo` from `HEAD`, with the
/// repository's hooks off: on `new_branch` when given, detached otherwise
/// (a fork's copy).
pub fn git_worktree_add(repo: &Path, dest: &Path, new_branch: Option<&str>) -> Result<(), WorktreeError> {
    let mut cmd = Command::new("git");
    cmd.args(["-c", "core.hooksPath=/dev/null", "-C"]).arg(repo).args(["worktree", "add", "--quiet"]);
    match new_branch {
        Some(branch) => cmd.args(["-b", branch]),
        None => cmd.arg("--detach"),
    };
    let out = cmd.arg(dest).arg("HEAD").output().map_err(|e| WorktreeError::GitMissing(e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(WorktreeError::Git {
            what: "git worktree add".to_owned(),
            reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

/// Make a worktree for `folder` under `dest_root` (which must not exist
/// yet) on `branch`, or on `hangar/<slug of name_hint>` made unique.
pub fn add(folder: &Path, branch: Option<&str>, name_hint: &str, dest_root: &Path) -> Result<Added, WorktreeError> {
    Command::new("git").arg("--version").output().map_err(|e| WorktreeError::GitMissing(e.to_string()))?;
    let folder = folder.canonicalize().map_err(|e| WorktreeError::Io(format!("{}: {e}", folder.display())))?;
    let not_a_repo = || WorktreeError::NotARepository(folder.clone());
    let top = git(&folder, &["rev-parse", "--show-toplevel"]).map_err(|_| not_a_repo())?;
    let top = PathBuf::from(top).canonicalize().map_err(|_| not_a_repo())?;
    let base_commit = git(&top, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .map_err(|_| WorktreeError::NoCommit(top.clone()))?;
    let base = git(&top, &["symbolic-ref", "--quiet", "--short", "HEAD"]).unwrap_or_else(|_| base_commit.clone());
    let branch = match branch {
        Some(name) => {
            check_branch_name(&top, name)?;
            if branch_exists(&top, name) {
                return Err(WorktreeError::BranchExists(name.to_owned()));
            }
            name.to_owned()
        }
        None => unused_branch(&top, &format!("hangar/{}", slug(name_hint))),
    };
    let name = top.file_name().map_or_else(|| "repository".into(), std::ffi::OsStr::to_os_string);
    let dest = dest_root.join(name);
    std::fs::create_dir_all(dest_root).map_err(|e| WorktreeError::Io(format!("{}: {e}", dest_root.display())))?;
    if let Err(e) = git_worktree_add(&top, &dest, Some(&branch)) {
        let _ = std::fs::remove_dir_all(dest_root);
        return Err(e);
    }
    // A folder `HEAD` does not have (untracked, empty) is made empty.
    let dir = dest.join(folder.strip_prefix(&top).unwrap_or(Path::new("")));
    std::fs::create_dir_all(&dir).map_err(|e| WorktreeError::Io(format!("{}: {e}", dir.display())))?;
    let worktree = Worktree { path: dest, branch, repository: top, base, base_commit, setup: None };
    Ok(Added { worktree, dir })
}

/// A branch name git accepts (and not one `git` would read as an option).
fn check_branch_name(repo: &Path, name: &str) -> Result<(), WorktreeError> {
    let refuse = |reason: String| WorktreeError::BadBranch { name: name.to_owned(), reason };
    if name.starts_with('-') {
        return Err(refuse("a branch name cannot start with '-'".to_owned()));
    }
    git(repo, &["check-ref-format", "--branch", name]).map(drop).map_err(|e| match e {
        WorktreeError::Git { reason, .. } => refuse(reason),
        other => other,
    })
}

fn branch_exists(repo: &Path, name: &str) -> bool {
    git(repo, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{name}")]).is_ok()
}

/// `wanted`, or `wanted-2`, `wanted-3`, … whichever is free first.
fn unused_branch(repo: &Path, wanted: &str) -> String {
    (1..)
        .map(|n| if n == 1 { wanted.to_owned() } else { format!("{wanted}-{n}") })
        .find(|name| !branch_exists(repo, name))
        .unwrap_or_else(|| wanted.to_owned())
}

/// Lower-case letters, digits and single dashes, at most 32 characters;
/// `session` when nothing is left.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 32 {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "session".to_owned()
    } else {
        out.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slug_is_short_lower_case_and_dashed() {
        assert_eq!(slug("Fix the Login page!"), "fix-the-login-page");
        assert_eq!(slug("ahp-session:/1234"), "ahp-session-1234");
        assert_eq!(slug("***"), "session");
        assert_eq!(slug(&"x".repeat(50)).len(), 32);
    }
}
