//! `push`: the branch checked out in the session's folder goes to its
//! upstream (`branch.<name>.remote` / `.merge`), or, when it has none, to
//! `origin` with `--set-upstream`; with the user's own `git`, so their
//! credentials, remotes and `pre-push` hook apply. git's refusal is the
//! error, in its own words.

use std::path::Path;

use serde::Serialize;

use super::command::{self, git};
use super::GitLoopError;

/// What a push did, as `_meta["hangar/push"]` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pushed {
    /// The remote pushed to.
    pub remote: String,
    /// The branch pushed.
    pub branch: String,
    /// Its upstream now (`origin/x`).
    pub upstream: String,
    /// Whether the upstream was set by this push.
    pub set_upstream: bool,
}

/// The branch checked out in `dir`, or why there is none.
pub fn current_branch(dir: &Path) -> Result<String, GitLoopError> {
    git(dir, &["symbolic-ref", "--quiet", "--short", "HEAD"])
        .map_err(|_| GitLoopError::Refused(format!("HEAD is detached in {}: check out a branch first", dir.display())))
}

/// `git config --get key`, when set.
fn config(dir: &Path, key: &str) -> Option<String> {
    git(dir, &["config", "--get", key]).ok().filter(|v| !v.is_empty())
}

/// Push the branch checked out in `dir`.
pub fn push(dir: &Path) -> Result<Pushed, GitLoopError> {
    let branch = current_branch(dir)?;
    let tracked = config(dir, &format!("branch.{branch}.remote"))
        .zip(config(dir, &format!("branch.{branch}.merge")))
        .filter(|(remote, _)| remote != ".");
    let (remote, target, set_upstream) = match tracked {
        Some((remote, merge)) => {
            let target = merge.strip_prefix("refs/heads/").unwrap_or(&merge).to_owned();
            (remote, target, false)
        }
        None if config(dir, "remote.origin.url").is_some() => ("origin".to_owned(), branch.clone(), true),
        None => {
            return Err(GitLoopError::Refused(format!(
                "no remote to push {branch} to: it has no upstream and there is no remote named origin \
                 (add one with `git remote add origin <url>`)"
            )))
        }
    };
    let refspec = format!("refs/heads/{branch}:refs/heads/{target}");
    let mut args = vec!["push"];
    if set_upstream {
        args.push("--set-upstream");
    }
    args.extend([remote.as_str(), refspec.as_str()]);
    let said = command::run("git", dir, &args, command::TIMEOUT)?;
    if !said.ok {
        return Err(GitLoopError::Refused(format!("git push failed: {}", said.both)));
    }
    Ok(Pushed { upstream: format!("{remote}/{target}"), remote, branch, set_upstream })
}
