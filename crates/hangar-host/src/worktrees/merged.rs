//! Whether every change of a worktree's branch is already in its base, so
//! removing the branch loses no work: merged, fast-forwarded, and also
//! *squash-merged* (GitHub's "Squash and merge", then the base pulled) or
//! cherry-picked, where the base has the changes under other commit ids
//! and `git rev-list base..branch` still counts every commit.
//!
//! The checks, cheapest first, each run only when the one before did not
//! find the branch merged (so a branch that is merged the ordinary way
//! costs one `rev-list`):
//! 1. `git rev-list --count <base>..<branch>`: no commit of its own.
//! 2. `git merge-tree --write-tree <base> <branch>` gives `<base>`'s own
//!    tree: merging the branch would change nothing. One three-way merge of
//!    the trees, with no walk of the base's history; it sees a squash (and
//!    per-commit picks) even when the base moved on around it, the squash's
//!    context lines differ, or a conflict was resolved the branch's way.
//!    It writes only tree objects, which `git gc` prunes.
//! 3. `git cherry <base> <branch>`: every commit has an equivalent patch
//!    (same patch id) in the base (a `-` line), for picks whose lines the
//!    base changed again afterwards (then 2 conflicts).
//! 4. The technique of `git-delete-squashed`: the branch as one commit
//!    (`git commit-tree <branch>^{tree} -p <merge base>`) has an
//!    equivalent patch in the base, for a squash whose lines the base
//!    changed again afterwards. It writes one unreferenced commit object.
//!
//! Why the `git` CLI and no library: `gix` has no patch ids and no
//! tree merge of this kind; and these are four short-lived commands run
//! only when a person removes a worktree.

use std::path::Path;

use super::{git, WorktreeError};

/// How many commits of `branch` (a full ref or a commit) have a change
/// `base` does not have: 0 when every change of it is in `base`.
pub fn unmerged(repository: &Path, base: &str, branch: &str) -> Result<u64, WorktreeError> {
    let ahead = git(repository, &["rev-list", "--count", &format!("{base}..{branch}")])?;
    if ahead.parse::<u64>().is_ok_and(|n| n == 0) {
        return Ok(0);
    }
    if merging_changes_nothing(repository, base, branch) {
        return Ok(0);
    }
    let cherry = git(repository, &["cherry", base, branch])?;
    let missing = cherry.lines().filter(|l| l.starts_with('+')).count() as u64;
    if missing == 0 || squashed_into(repository, base, branch) {
        return Ok(0);
    }
    Ok(missing)
}

/// Whether merging `branch` into `base` leaves `base`'s tree as it is.
/// A conflict, or a git too old for `merge-tree --write-tree` (2.38), is
/// "no".
fn merging_changes_nothing(repository: &Path, base: &str, branch: &str) -> bool {
    let merged = git(repository, &["merge-tree", "--write-tree", "--no-messages", base, branch]);
    let base_tree = git(repository, &["rev-parse", "--verify", "--quiet", &format!("{base}^{{tree}}")]);
    match (merged, base_tree) {
        (Ok(merged), Ok(tree)) => merged.lines().next() == Some(tree.as_str()),
        _ => false,
    }
}

/// Whether the whole of `branch`, squashed into one commit on its merge
/// base with `base`, has an equivalent patch in `base`.
fn squashed_into(repository: &Path, base: &str, branch: &str) -> bool {
    let squash = git(repository, &["merge-base", base, branch]).and_then(|fork| {
        let tree = format!("{branch}^{{tree}}");
        // A throwaway object: any identity will do, and none may be configured.
        let who = ["-c", "user.name=hangar", "-c", "user.email=hangar@localhost"];
        git(repository, &[&who[..], &["commit-tree", &tree, "-p", &fork, "-m", "hangar: squash check"]].concat())
    });
    let Ok(squash) = squash else { return false };
    git(repository, &["cherry", base, &squash]).is_ok_and(|c| c.starts_with('-'))
}

#[cfg(test)]
pub(crate) mod tests {
    //! Real repositories in temp dirs; the helpers serve `remove`'s tests too.
    use super::*;

    pub(crate) fn run(dir: &Path, args: &[&str]) {
        git(dir, args).unwrap();
    }

    pub(crate) fn commit(dir: &Path, file: &str, text: &str) {
        std::fs::write(dir.join(file), text).unwrap();
        run(dir, &["add", file]);
        run(dir, &["commit", "-q", "-m", &format!("{file}: {text}")]);
    }

    /// `dir` made a repository on `main` with a commit identity and
    /// `f.txt` (five lines) committed.
    pub(crate) fn repository(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        for args in [&["init", "-q", "-b", "main"][..], &["config", "user.name", "t"], &["config", "user.email", "t@t"]]
        {
            run(dir, args);
        }
        commit(dir, "f.txt", "1\n2\n3\n4\n5\n");
    }

    /// GitHub's "Squash and merge" of `branch` into the checked-out `main`,
    /// then `main` pulled: the branch's changes as one new commit.
    pub(crate) fn squash_merge(dir: &Path, branch: &str) {
        run(dir, &["merge", "-q", "--squash", branch]);
        run(dir, &["commit", "-q", "-m", "squashed"]);
    }

    /// [`repository`], and `topic` from it changing `f.txt`'s middle line
    /// in one commit and adding `g.txt` in another.
    fn repository_with_topic(dir: &Path) {
        repository(dir);
        run(dir, &["checkout", "-q", "-b", "topic"]);
        commit(dir, "f.txt", "1\n2\nthree\n4\n5\n");
        commit(dir, "g.txt", "g\n");
        run(dir, &["checkout", "-q", "main"]);
    }

    fn unmerged_topic(dir: &Path) -> u64 {
        unmerged(dir, "refs/heads/main", "refs/heads/topic").unwrap()
    }

    #[test]
    fn a_squash_whose_patch_differs_from_the_branchs_counts_as_merged() {
        let tmp = tempfile::tempdir().unwrap();
        repository_with_topic(tmp.path());
        // Main changed a line within the diff's context first: no patch id matches.
        commit(tmp.path(), "f.txt", "one\n2\n3\n4\n5\n");
        squash_merge(tmp.path(), "topic");
        assert_eq!(unmerged_topic(tmp.path()), 0, "merging the branch would change nothing");
    }

    #[test]
    fn picked_commits_count_as_merged_after_the_base_changed_their_lines_again() {
        let tmp = tempfile::tempdir().unwrap();
        repository_with_topic(tmp.path());
        // Main moves on first, so a pick is a new commit, not topic's own.
        commit(tmp.path(), "m.txt", "main moved on\n");
        assert_eq!(unmerged_topic(tmp.path()), 2);
        run(tmp.path(), &["cherry-pick", "topic~1"]);
        assert_eq!(unmerged_topic(tmp.path()), 1, "one of two picked");
        run(tmp.path(), &["cherry-pick", "topic"]);
        commit(tmp.path(), "f.txt", "1\n2\nTHREE\n4\n5\n");
        assert_eq!(unmerged_topic(tmp.path()), 0, "each commit has its pick in main");
    }

    #[test]
    fn a_squash_counts_as_merged_after_the_base_changed_its_lines_again() {
        let tmp = tempfile::tempdir().unwrap();
        repository_with_topic(tmp.path());
        squash_merge(tmp.path(), "topic");
        commit(tmp.path(), "f.txt", "1\n2\nTHREE\n4\n5\n");
        assert_eq!(unmerged_topic(tmp.path()), 0, "the branch as one commit is in main");
        commit(tmp.path(), "g.txt", "changed on main\n");
        run(tmp.path(), &["checkout", "-q", "topic"]);
        commit(tmp.path(), "h.txt", "h\n");
        assert_eq!(unmerged_topic(tmp.path()), 3, "a commit more on the branch: nothing counts as merged");
    }
}
