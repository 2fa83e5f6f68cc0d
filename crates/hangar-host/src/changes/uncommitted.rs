//! The `uncommitted` changeset: a working directory that is a git
//! repository, diffed against `HEAD` with the `git` CLI (`git status
//! --porcelain -z` for the files, `git show HEAD:<path>` for their old
//! content). No `git` binary, or a folder that is not a repository: no
//! such changeset. Why the CLI and not `gix`: it is on every machine that
//! has repositories, it honours the user's git configuration exactly, and
//! it adds no large dependency for a read-only view.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Files listed with their content; beyond this, only their names.
const MAX_FILES: usize = 500;

/// One changed file: its path and content at `HEAD` and now (`None`:
/// absent; `Some(None)` on `before`: not read, past [`MAX_FILES`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uncommitted {
    /// Absolute path.
    pub path: PathBuf,
    /// Content at `HEAD`.
    pub before: Option<Vec<u8>>,
    /// Content on disk.
    pub after: Option<Vec<u8>>,
}

fn git(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    out.status.success().then_some(out.stdout)
}

/// The repository's top folder when `dir` is inside one.
pub fn repository(dir: &Path) -> Option<PathBuf> {
    let out = git(dir, &["rev-parse", "--show-toplevel"])?;
    let top = String::from_utf8(out).ok()?;
    Some(PathBuf::from(top.trim_end()))
}

/// The files of `dir`'s repository that differ from `HEAD` (untracked ones
/// included, ignored ones not), under `dir`.
pub fn changes(dir: &Path) -> Option<Vec<Uncommitted>> {
    let top = repository(dir)?;
    let status = git(&top, &["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"])?;
    let has_head = git(&top, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_some();
    let mut out = Vec::new();
    for entry in status.split(|b| *b == 0).filter(|e| e.len() > 3) {
        let (code, rel) = (&entry[..2], String::from_utf8_lossy(&entry[3..]).into_owned());
        let path = top.join(&rel);
        if !path.starts_with(dir) {
            continue;
        }
        let in_head = has_head && code != b"??" && code[0] != b'A';
        let before = in_head.then(|| git(&top, &["show", &format!("HEAD:{rel}")])).flatten();
        let after = std::fs::read(&path).ok();
        out.push(Uncommitted { path, before, after });
        if out.len() >= MAX_FILES {
            break;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        let ok = Command::new("git").arg("-C").arg(dir).args(args).status().is_ok_and(|s| s.success());
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn lists_what_differs_from_head_with_the_old_content() {
        if Command::new("git").arg("--version").output().is_err() {
            eprintln!("skipped: no git");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        assert_eq!(changes(&dir), None, "not a repository");
        run(&dir, &["init", "-q"]);
        std::fs::write(dir.join("kept.txt"), "same\n").unwrap();
        std::fs::write(dir.join("edit.txt"), "old\n").unwrap();
        std::fs::write(dir.join("gone.txt"), "bye\n").unwrap();
        std::fs::write(dir.join(".gitignore"), "*.log\n").unwrap();
        run(&dir, &["add", "."]);
        run(&dir, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one"]);
        std::fs::write(dir.join("edit.txt"), "new\n").unwrap();
        std::fs::remove_file(dir.join("gone.txt")).unwrap();
        std::fs::write(dir.join("new.txt"), "hi\n").unwrap();
        std::fs::write(dir.join("noise.log"), "x\n").unwrap();
        let mut got = changes(&dir).unwrap();
        got.sort_by(|a, b| a.path.cmp(&b.path));
        let text = |b: &Option<Vec<u8>>| b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned());
        let view: Vec<String> = got
            .iter()
            .map(|c| {
                format!("{} {:?} {:?}", c.path.file_name().unwrap().to_string_lossy(), text(&c.before), text(&c.after))
            })
            .collect();
        assert_eq!(
            view,
            [
                r#"edit.txt Some("old\n") Some("new\n")"#,
                r#"gone.txt Some("bye\n") None"#,
                r#"new.txt None Some("hi\n")"#,
            ]
        );
    }
}
