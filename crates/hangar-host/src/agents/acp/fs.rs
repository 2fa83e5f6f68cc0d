//! The ACP client file system (`fs/read_text_file`, `fs/write_text_file`),
//! confined to the session's working directories: every path is
//! canonicalized (for a new file, its parent) and must lie under a
//! canonicalized root and outside the paths the host never serves
//! (credential folders, its data dir: [`Scope`]). Anything else is refused
//! with an ACP error.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// Largest file served.
const MAX_READ: u64 = 32 * 1024 * 1024;

/// An ACP error answer: (code, message).
pub type FsError = (i64, String);

fn denied(path: &str) -> FsError {
    (-32002, format!("access denied: {path} is outside the session's working directories"))
}

/// Where a session's files may be read and written: under its canonical
/// working directories, never under a never-served path (the same list the
/// `resource*` methods refuse, `resources::policy::Policy::never_served`).
/// Used for the agent's `fs/*` requests and for files attached to prompts.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    roots: Vec<PathBuf>,
    never: Vec<PathBuf>,
}

impl Scope {
    /// From the session's `file:` working-directory URIs and the host's
    /// canonical never-served paths.
    pub fn new(working_directories: &[String], never: &[PathBuf]) -> Self {
        let roots = working_directories
            .iter()
            .filter_map(|uri| crate::resources::uri::file_uri_to_path(uri).ok())
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        Self { roots, never: never.to_vec() }
    }

    /// True when the canonical path lies inside a root and outside every
    /// never-served path.
    pub fn admits(&self, canonical: &Path) -> bool {
        self.roots.iter().any(|root| canonical.starts_with(root))
            && !self.never.iter().any(|n| canonical.starts_with(n))
    }
}

fn confine(scope: &Scope, raw: &str, must_exist: bool) -> Result<PathBuf, FsError> {
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err((-32602, format!("path must be absolute: {raw}")));
    }
    let canonical = match std::fs::canonicalize(path) {
        Ok(p) => p,
        Err(_) if !must_exist => {
            let parent = path.parent().ok_or_else(|| denied(raw))?;
            let name = path.file_name().ok_or_else(|| denied(raw))?;
            std::fs::canonicalize(parent).map_err(|e| (-32002, format!("{raw}: {e}")))?.join(name)
        }
        Err(e) => return Err((-32002, format!("{raw}: {e}"))),
    };
    if scope.admits(&canonical) {
        Ok(canonical)
    } else {
        Err(denied(raw))
    }
}

/// `fs/read_text_file {path, line?, limit?}` → `{content}`.
pub fn read_text_file(scope: &Scope, params: &Value) -> Result<Value, FsError> {
    let raw = params.get("path").and_then(Value::as_str).ok_or((-32602, "missing path".to_owned()))?;
    let path = confine(scope, raw, true)?;
    let meta = std::fs::metadata(&path).map_err(|e| (-32002, format!("{raw}: {e}")))?;
    if !meta.is_file() {
        return Err((-32602, format!("not a file: {raw}")));
    }
    if meta.len() > MAX_READ {
        return Err((-32603, format!("{raw} is larger than {MAX_READ} bytes")));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| (-32603, format!("{raw}: {e}")))?;
    let line = params.get("line").and_then(Value::as_u64).unwrap_or(1).max(1) as usize;
    let limit = params.get("limit").and_then(Value::as_u64).map(|l| l as usize);
    let content = if line == 1 && limit.is_none() {
        text
    } else {
        let lines = text.split_inclusive('\n').skip(line - 1);
        match limit {
            Some(n) => lines.take(n).collect(),
            None => lines.collect(),
        }
    };
    Ok(json!({ "content": content }))
}

/// `fs/write_text_file {path, content}` → `null`.
pub fn write_text_file(scope: &Scope, params: &Value) -> Result<Value, FsError> {
    let raw = params.get("path").and_then(Value::as_str).ok_or((-32602, "missing path".to_owned()))?;
    let content = params.get("content").and_then(Value::as_str).ok_or((-32602, "missing content".to_owned()))?;
    let path = confine(scope, raw, false)?;
    if path.is_dir() {
        return Err((-32602, format!("is a directory: {raw}")));
    }
    std::fs::write(&path, content).map_err(|e| (-32603, format!("{raw}: {e}")))?;
    Ok(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::home::FakeHome;

    #[test]
    fn confines_to_roots() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("a.txt"), "1\n2\n3\n").unwrap();
        std::fs::write(dir.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link")).unwrap();
        let scope = Scope::new(&[crate::resources::uri::path_to_file_uri(&root)], &[]);
        let read = |p: &Path, extra: Value| {
            let mut params = json!({ "path": p.to_str().unwrap() });
            if let (Some(o), Value::Object(e)) = (params.as_object_mut(), extra) {
                o.extend(e);
            }
            read_text_file(&scope, &params)
        };
        assert_eq!(read(&root.join("a.txt"), json!({})).unwrap()["content"], "1\n2\n3\n");
        assert_eq!(read(&root.join("a.txt"), json!({"line": 2, "limit": 1})).unwrap()["content"], "2\n");
        assert!(read(&dir.path().join("secret"), json!({})).is_err());
        assert!(read(&root.join("link"), json!({})).is_err());
        assert!(read(&root.join("../secret"), json!({})).is_err());
        let w = |p: PathBuf| write_text_file(&scope, &json!({ "path": p.to_str().unwrap(), "content": "new" }));
        assert!(w(root.join("b.txt")).is_ok());
        assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "new");
        assert!(w(dir.path().join("out.txt")).is_err());
        assert!(w(root.join("link")).is_err());
    }

    #[test]
    fn never_served_paths_inside_a_root_are_refused() {
        let FakeHome { home, ssh, .. } = &FakeHome::new().unwrap();
        std::fs::write(home.join("notes.txt"), "fine").unwrap();
        let scope = Scope::new(&[crate::resources::uri::path_to_file_uri(home)], std::slice::from_ref(ssh));
        let read = |p: PathBuf| read_text_file(&scope, &json!({ "path": p.to_str().unwrap() }));
        assert_eq!(read(home.join("notes.txt")).unwrap()["content"], "fine");
        assert_eq!(read(ssh.join("id_ed25519")).unwrap_err().0, -32002);
        let w =
            write_text_file(&scope, &json!({ "path": ssh.join("authorized_keys").to_str().unwrap(), "content": "k" }));
        assert_eq!(w.unwrap_err().0, -32002);
        assert!(!ssh.join("authorized_keys").exists());
    }
}
