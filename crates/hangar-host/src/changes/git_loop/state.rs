//! A session's branch state, `_meta["hangar/git"]` on its summary: the
//! branch checked out in its folder, its upstream, and how many commits it
//! is ahead of and behind that upstream (or, without one, the worktree's
//! base branch). Read in-process with `gix`: nothing here needs the user's
//! own git, and no process runs.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// A pull request opened from the session (`gh`'s view of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    /// Its web address.
    pub url: String,
    /// Its number.
    pub number: u64,
    /// `OPEN`, `CLOSED` or `MERGED`, as `gh` says it.
    pub state: String,
}

/// `_meta["hangar/git"]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchState {
    /// The branch checked out (short name); `None` on a detached `HEAD`.
    pub branch: Option<String>,
    /// Its upstream (`origin/x`), when it has one.
    pub upstream: Option<String>,
    /// Commits on the branch that `against` does not have.
    pub ahead: u64,
    /// Commits on `against` that the branch does not have.
    pub behind: u64,
    /// What `ahead` / `behind` count against: the upstream, else the base
    /// branch given, else nothing.
    pub against: Option<String>,
    /// The pull request opened from the session, once there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<PullRequest>,
}

/// The state of the repository holding `dir`, counting against `base`
/// (a local branch's short name) when the branch has no upstream; `None`
/// when `dir` is not in a repository or it cannot be read.
pub fn read(dir: &Path, base: Option<&str>) -> Option<BranchState> {
    let repo = gix::discover(dir).ok()?;
    let head_name = repo.head_name().ok()?;
    let head_id = repo.head_id().ok().map(gix::Id::detach);
    let mut state =
        BranchState { branch: None, upstream: None, ahead: 0, behind: 0, against: None, pull_request: None };
    let Some(name) = head_name else { return Some(state) };
    state.branch = Some(name.shorten().to_string());
    let upstream = repo
        .branch_remote_tracking_ref_name(name.as_ref(), gix::remote::Direction::Fetch)
        .and_then(Result::ok)
        .filter(|r| repo.find_reference(r.as_ref()).is_ok());
    let against = match &upstream {
        Some(full) => Some((full.shorten().to_string(), full.as_bstr().to_string())),
        None => base.map(|b| (b.to_owned(), format!("refs/heads/{b}"))),
    };
    state.upstream = upstream.map(|u| u.shorten().to_string());
    let (Some(head), Some((short, full))) = (head_id, against) else { return Some(state) };
    let Some(other) = repo.find_reference(full.as_str()).ok().and_then(|mut r| r.peel_to_id().ok()) else {
        return Some(state);
    };
    let other = other.detach();
    state.ahead = count(&repo, head, other)?;
    state.behind = count(&repo, other, head)?;
    state.against = Some(short);
    Some(state)
}

/// The commits on `HEAD` of `dir`'s repository that `base` (a local
/// branch, else `origin/<base>`) does not have, oldest first, as (id,
/// subject); all of `HEAD`'s when `base` is not found.
pub fn commits_since(dir: &Path, base: &str) -> Vec<super::draft::Commit> {
    let Ok(repo) = gix::discover(dir) else { return Vec::new() };
    let Ok(head) = repo.head_id() else { return Vec::new() };
    let hidden: Vec<gix::ObjectId> = [format!("refs/heads/{base}"), format!("refs/remotes/origin/{base}")]
        .iter()
        .find_map(|r| repo.find_reference(r.as_str()).ok().and_then(|mut r| r.peel_to_id().ok()))
        .map(gix::Id::detach)
        .into_iter()
        .collect();
    let Ok(walk) = repo.rev_walk([head.detach()]).with_hidden(hidden).all() else { return Vec::new() };
    let mut commits: Vec<super::draft::Commit> = walk
        .filter_map(Result::ok)
        .filter_map(|info| {
            let commit = info.object().ok()?;
            let message = String::from_utf8_lossy(commit.message_raw_sloppy());
            let subject = message.lines().next().unwrap_or_default().to_owned();
            Some((info.id.to_string(), subject))
        })
        .collect();
    commits.reverse();
    commits
}

/// The branch `refs/remotes/origin/HEAD` names (the remote's default).
pub fn remote_default_branch(dir: &Path) -> Option<String> {
    let repo = gix::discover(dir).ok()?;
    let reference = repo.find_reference("refs/remotes/origin/HEAD").ok()?;
    let target = reference.target().try_name()?.shorten().to_string();
    target.strip_prefix("origin/").map(str::to_owned)
}

/// Commits reachable from `from` and not from `hidden`.
fn count(repo: &gix::Repository, from: gix::ObjectId, hidden: gix::ObjectId) -> Option<u64> {
    let walk = repo.rev_walk([from]).with_hidden([hidden]).all().ok()?;
    let mut n = 0;
    for info in walk {
        info.ok()?;
        n += 1;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git").arg("-C").arg(dir).args(args).status().unwrap().success();
        assert!(ok, "git {args:?}");
    }

    fn commit(dir: &Path, name: &str) {
        std::fs::write(dir.join(name), name).unwrap();
        git(dir, &["add", name]);
        git(dir, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", name]);
    }

    #[test]
    fn ahead_and_behind_count_against_the_upstream_else_the_base_branch() {
        let tmp = tempfile::tempdir().unwrap();
        let (bare, ws) = (tmp.path().join("bare.git"), tmp.path().join("ws"));
        git(tmp.path(), &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
        git(tmp.path(), &["init", "-q", "-b", "main", ws.to_str().unwrap()]);
        commit(&ws, "a");
        git(&ws, &["checkout", "-q", "-b", "topic"]);
        commit(&ws, "b");
        commit(&ws, "c");
        let s = read(&ws, Some("main")).unwrap();
        assert_eq!((s.branch.as_deref(), s.upstream, s.ahead, s.behind), (Some("topic"), None, 2, 0));
        assert_eq!(s.against.as_deref(), Some("main"));
        assert_eq!(read(&ws, None).unwrap().against, None);

        git(&ws, &["remote", "add", "origin", bare.to_str().unwrap()]);
        git(&ws, &["push", "-q", "-u", "origin", "topic"]);
        commit(&ws, "d");
        let s = read(&ws, Some("main")).unwrap();
        assert_eq!((s.upstream.as_deref(), s.ahead, s.behind), (Some("origin/topic"), 1, 0));
        git(&ws, &["reset", "-q", "--hard", "HEAD~2"]);
        let s = read(&ws, Some("main")).unwrap();
        assert_eq!((s.ahead, s.behind), (0, 1));

        git(&ws, &["checkout", "-q", "--detach"]);
        assert_eq!(read(&ws, Some("main")).unwrap().branch, None);
        assert!(read(tmp.path(), None).is_none());
    }
}
