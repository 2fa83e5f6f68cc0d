//! Real git repositories for tests: `git` run as a person would, and a
//! small repository made in a temp dir.

use std::path::Path;

/// `git -C dir args…` (with a test identity); its output, trimmed. Panics
/// when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com", "-C"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
}

/// Write `text` to `path`, making its folder.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `path`'s text, if it is there.
pub fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// `ws` made a repository on `main` (with a local identity, so the host's
/// own commits work) holding `hello.txt`, `sub/tracked.txt`, `.gitignore`
/// (`setup-ran`) and the executable `.hangar/setup` given, all committed.
pub fn repository(ws: &Path, setup: &str) {
    use std::os::unix::fs::PermissionsExt;
    write(&ws.join("hello.txt"), "hello world\n");
    write(&ws.join("sub/tracked.txt"), "original\n");
    write(&ws.join(".gitignore"), "setup-ran\n");
    write(&ws.join(".hangar/setup"), setup);
    std::fs::set_permissions(ws.join(".hangar/setup"), std::fs::Permissions::from_mode(0o755)).unwrap();
    git(ws, &["init", "--quiet", "-b", "main"]);
    git(ws, &["config", "user.name", "Test"]);
    git(ws, &["config", "user.email", "test@example.com"]);
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "--quiet", "-m", "start"]);
}
