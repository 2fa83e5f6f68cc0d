//! Access policy, decided on canonical paths only.
//!
//! A path is first made canonical ([`canonicalize_lenient`] follows every
//! symlink; [`canonicalize_nofollow`] keeps the last component as it is, for
//! operations on a link itself). For a path that does not exist yet, the
//! longest existing ancestor is canonicalized and the rest appended; a dangling
//! symlink anywhere on the way is refused, since its target cannot be checked.
//!
//! Then [`Policy::check`] allows:
//! - read and write inside a session working directory (from the engine's callback),
//! - what `resourceRequest` grants cover (per flag),
//! - listing (only) inside a browse root,
//!
//! and never anything under `/proc`, `/sys`, `/dev` or the host's data directory
//! (which holds the grants database itself), whatever was granted.
//! A refusal is `-32009` whose `data.request` is the grant that would allow it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ahp_types::commands::ResourceRequestParams;

use super::grants::GrantStore;
use super::home::home_dir;
use super::uri::path_to_file_uri;
use crate::RpcError;

/// How `resourceRequest` is decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestPolicy {
    /// Grant every request (still never the never-served paths).
    GrantAll,
    /// Deny every request with `-32009`.
    DenyAll,
    /// Grant requests for paths inside these folders (compared canonically); deny others.
    GrantUnder(Vec<PathBuf>),
    /// Ask a connected client (`resourceRequest` sent by the host); deny when
    /// none accepts in time.
    Ask,
}

/// A `--grant-policy` value that is none of `deny`, `all`, `ask`, `under:PATH`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("grant policy must be deny, all, ask or under:PATH (got {0:?})")]
pub struct BadRequestPolicy(pub String);

impl std::str::FromStr for RequestPolicy {
    type Err = BadRequestPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "deny" => Ok(RequestPolicy::DenyAll),
            "all" => Ok(RequestPolicy::GrantAll),
            "ask" => Ok(RequestPolicy::Ask),
            _ => match s.strip_prefix("under:") {
                Some(path) if std::path::Path::new(path).is_absolute() => {
                    Ok(RequestPolicy::GrantUnder(vec![PathBuf::from(path)]))
                }
                _ => Err(BadRequestPolicy(s.to_owned())),
            },
        }
    }
}

impl RequestPolicy {
    /// The default for `hangar serve`: grant under the user's home directory
    /// ([`home_dir`]); deny all without one.
    pub fn default_for_home() -> Self {
        match home_dir() {
            Some(home) => RequestPolicy::GrantUnder(vec![home]),
            None => RequestPolicy::DenyAll,
        }
    }

    /// The decision without asking anyone: `Some(granted)`, or `None` for [`RequestPolicy::Ask`].
    pub fn decide(&self, canonical: &std::path::Path) -> Option<bool> {
        match self {
            RequestPolicy::GrantAll => Some(true),
            RequestPolicy::DenyAll => Some(false),
            RequestPolicy::GrantUnder(roots) => {
                Some(roots.iter().filter_map(|r| std::fs::canonicalize(r).ok()).any(|r| canonical.starts_with(r)))
            }
            RequestPolicy::Ask => None,
        }
    }
}

/// Callback listing the working directories of all current sessions.
pub type WorkingDirs = Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync>;

/// The access an operation needs on one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Read contents or metadata.
    Read,
    /// Create, change or remove.
    Write,
    /// Both (e.g. the source of a move).
    ReadWrite,
    /// List a directory (allowed in browse roots as well).
    List,
}

impl Need {
    fn flags(self) -> (bool, bool) {
        match self {
            Need::Read | Need::List => (true, false),
            Need::Write => (false, true),
            Need::ReadWrite => (true, true),
        }
    }
}

/// A canonical path and whether it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// Canonical path (existing prefix resolved, missing tail appended).
    pub path: PathBuf,
    /// Whether the whole path exists (for nofollow: the last component exists, even as a link).
    pub exists: bool,
}

/// Map an I/O error to the protocol's codes (never leaking more than the operation name).
pub fn io_error(op: &str, err: &io::Error) -> RpcError {
    match err.kind() {
        io::ErrorKind::NotFound => RpcError::not_found(format!("{op}: no such file or directory")),
        io::ErrorKind::AlreadyExists => RpcError::already_exists(format!("{op}: already exists")),
        io::ErrorKind::PermissionDenied => {
            RpcError::permission_denied(format!("{op}: denied by the operating system"), None)
        }
        io::ErrorKind::DirectoryNotEmpty => {
            RpcError::invalid_params("recursive", format!("{op}: directory is not empty"))
        }
        io::ErrorKind::NotADirectory => RpcError::invalid_params("uri", format!("{op}: not a directory")),
        io::ErrorKind::IsADirectory => RpcError::invalid_params("uri", format!("{op}: is a directory")),
        _ if err.raw_os_error() == Some(libc::ELOOP) => {
            RpcError::permission_denied(format!("{op}: refusing to follow a symlink"), None)
        }
        _ => RpcError::internal(format!("{op}: {}", err.kind())),
    }
}

/// Canonicalize `path` (absolute, normal components only), following all symlinks.
/// Missing tails are appended to the canonical longest existing ancestor.
pub fn canonicalize_lenient(path: &Path) -> Result<Canonical, RpcError> {
    match std::fs::canonicalize(path) {
        Ok(p) => return Ok(Canonical { path: p, exists: true }),
        // ENOTDIR: a file stands where a folder would be; the tail is missing.
        Err(e) if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR) => {}
        Err(e) => return Err(io_error("resolve", &e)),
    }
    // Walk up until something exists; remember the missing names.
    let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
    let mut cur = path;
    loop {
        if std::fs::symlink_metadata(cur).is_ok() {
            // `cur` exists as an entry but did not canonicalize (above, or it is a
            // dangling link now): refuse rather than guess where it points.
            match std::fs::canonicalize(cur) {
                Ok(base) => {
                    let mut out = base;
                    for name in missing.iter().rev() {
                        out.push(name);
                    }
                    return Ok(Canonical { path: out, exists: false });
                }
                Err(_) => {
                    return Err(RpcError::permission_denied("path goes through a dangling symlink", None));
                }
            }
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name);
                cur = parent;
            }
            _ => return Err(RpcError::not_found("resolve: no existing ancestor")),
        }
    }
}

/// Canonicalize the parent of `path` and append its last component unchanged:
/// the path of the directory entry itself (lstat semantics).
pub fn canonicalize_nofollow(path: &Path) -> Result<Canonical, RpcError> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = canonicalize_lenient(parent)?;
            let full = parent.path.join(name);
            let exists = parent.exists && std::fs::symlink_metadata(&full).is_ok();
            Ok(Canonical { path: full, exists })
        }
        _ => canonicalize_lenient(path),
    }
}

/// The access policy.
pub struct Policy {
    browse_roots: Vec<PathBuf>,
    working_dirs: WorkingDirs,
    grants: Arc<GrantStore>,
    never: Vec<PathBuf>,
    request_policy: RequestPolicy,
}

impl Policy {
    /// A policy over canonical browse roots, live working dirs and grants.
    /// `data_dir` and everything in `protected` (credential folders) are
    /// never served, whatever a working directory or grant covers.
    /// `request_policy` is the grant policy working directories are vetted by.
    pub fn new(
        browse_roots: Vec<PathBuf>,
        working_dirs: WorkingDirs,
        grants: Arc<GrantStore>,
        data_dir: &Path,
        protected: &[PathBuf],
        request_policy: RequestPolicy,
    ) -> Self {
        let browse_roots = browse_roots.iter().filter_map(|p| std::fs::canonicalize(p).ok()).collect();
        let mut never: Vec<PathBuf> = ["/proc", "/sys", "/dev"].iter().map(PathBuf::from).collect();
        never.push(std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf()));
        // A protected folder that does not exist yet is still protected when it appears.
        never.extend(protected.iter().map(|p| canonicalize_lenient(p).map(|c| c.path).unwrap_or_else(|_| p.clone())));
        Self { browse_roots, working_dirs, grants, never, request_policy }
    }

    /// True if `canonical` is inside a browse root.
    pub fn in_browse_root(&self, canonical: &Path) -> bool {
        self.browse_roots.iter().any(|b| canonical.starts_with(b))
    }

    /// How `resourceRequest` is decided.
    pub fn request_policy(&self) -> &RequestPolicy {
        &self.request_policy
    }

    /// The grant store behind this policy.
    pub fn grants(&self) -> &GrantStore {
        &self.grants
    }

    /// Canonical working directories of all sessions, now — those that may
    /// still be one: a folder swapped for a symlink to `/` after
    /// `createSession` does not open the disk. A folder not made yet (a
    /// customization folder under home such as `~/.claude/skills`) counts
    /// where it would be made: under its nearest existing ancestor, resolved.
    pub fn working_dirs(&self) -> Vec<PathBuf> {
        let dirs = (self.working_dirs)().into_iter().filter_map(|p| canonicalize_lenient(&p).ok().map(|c| c.path));
        dirs.filter(|c| self.may_be_working_dir(c)).collect()
    }

    /// May `canonical` be a session working directory (read and write
    /// inside)? Not when never served; yes inside a browse root or a
    /// read+write grant, or where the grant policy grants without asking.
    pub fn may_be_working_dir(&self, canonical: &Path) -> bool {
        !self.is_never(canonical)
            && (self.in_browse_root(canonical)
                || self.grants.allows(canonical, true, true)
                || self.request_policy.decide(canonical) == Some(true))
    }

    /// The canonical paths never served (everything below them neither).
    pub fn never_served(&self) -> &[PathBuf] {
        &self.never
    }

    /// True for paths no grant can open (`/proc`, `/sys`, `/dev`, the data
    /// dir, protected credential folders).
    pub fn is_never(&self, canonical: &Path) -> bool {
        self.never.iter().any(|n| canonical.starts_with(n))
    }

    /// Allow or refuse `need` on `canonical`; `channel` goes into `data.request`.
    pub fn check(&self, canonical: &Path, need: Need, channel: &str) -> Result<(), RpcError> {
        if self.is_never(canonical) {
            return Err(RpcError::permission_denied("this path is never served", None));
        }
        if self.allows(canonical, need) {
            return Ok(());
        }
        let (read, write) = need.flags();
        let request = ResourceRequestParams {
            channel: channel.to_owned(),
            meta: None,
            uri: path_to_file_uri(canonical),
            read: read.then_some(true),
            write: write.then_some(true),
        };
        Err(RpcError::permission_denied("access outside the allowed roots", Some(request)))
    }

    /// Whether `need` on `canonical` is allowed (the never-served list aside).
    pub fn allows(&self, canonical: &Path, need: Need) -> bool {
        if self.working_dirs().iter().any(|w| canonical.starts_with(w)) {
            return true;
        }
        if need == Need::List && self.in_browse_root(canonical) {
            return true;
        }
        let (read, write) = need.flags();
        self.grants.allows(canonical, read, write)
    }

    /// True if `canonical` is a folder that is itself a working directory or a
    /// granted root: such roots are not deleted, moved away or overwritten.
    /// (A grant on a single file does not protect the file.)
    pub fn is_root(&self, canonical: &Path) -> bool {
        let is_dir = std::fs::symlink_metadata(canonical).is_ok_and(|m| m.is_dir());
        is_dir
            && (self.working_dirs().iter().any(|w| w == canonical)
                || self.grants.list().iter().any(|g| g.path == canonical))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Result<(tempfile::TempDir, Policy), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("sub"))?;
        std::fs::create_dir_all(dir.path().join("browse/inner"))?;
        std::fs::create_dir_all(dir.path().join("data"))?;
        let ws2 = ws.clone();
        let policy = Policy::new(
            vec![dir.path().join("browse")],
            Arc::new(move || vec![ws2.clone()]),
            Arc::new(GrantStore::in_memory()?),
            &dir.path().join("data"),
            &[dir.path().join("ws/.ssh")],
            RequestPolicy::GrantUnder(vec![ws]),
        );
        Ok((dir, policy))
    }

    #[test]
    fn lenient_canonicalization_of_missing_tail() -> Result<(), Box<dyn std::error::Error>> {
        let (dir, _) = fixture()?;
        let root = std::fs::canonicalize(dir.path())?;
        let c = canonicalize_lenient(&dir.path().join("ws/sub/new/deeper.txt"))?;
        assert_eq!(c, Canonical { path: root.join("ws/sub/new/deeper.txt"), exists: false });
        std::os::unix::fs::symlink("/nonexistent-target-xyz", dir.path().join("ws/dangling"))?;
        assert!(canonicalize_lenient(&dir.path().join("ws/dangling/x")).is_err());
        assert!(canonicalize_lenient(&dir.path().join("ws/dangling")).is_err());
        let nf = canonicalize_nofollow(&dir.path().join("ws/dangling"))?;
        assert_eq!(nf, Canonical { path: root.join("ws/dangling"), exists: true });
        Ok(())
    }

    #[test]
    fn roots_browse_and_never() -> Result<(), Box<dyn std::error::Error>> {
        let (dir, policy) = fixture()?;
        let root = std::fs::canonicalize(dir.path())?;
        assert!(policy.check(&root.join("ws/sub/x"), Need::ReadWrite, "ahp-root://").is_ok());
        assert!(policy.check(&root.join("browse/inner"), Need::List, "ahp-root://").is_ok());
        let err = policy.check(&root.join("browse/inner"), Need::Read, "ahp-root://").err();
        let data = err.and_then(|e| e.data).unwrap_or_default();
        assert_eq!(data["request"]["read"], true);
        assert_eq!(data["request"]["channel"], "ahp-root://");
        assert!(data["request"].get("write").is_none());
        let err = policy.check(&root.join("data/hangar.db"), Need::Read, "ahp-root://").err();
        assert_eq!(err.map(|e| (e.code, e.data)), Some((-32009, Some(serde_json::json!({})))));
        assert!(policy.check(Path::new("/dev/zero"), Need::Read, "ahp-root://").is_err());
        // A protected folder inside a working directory stays closed, even before it exists.
        let err = policy.check(&root.join("ws/.ssh/id_ed25519"), Need::Read, "ahp-root://").err();
        assert_eq!(err.map(|e| (e.code, e.data)), Some((-32009, Some(serde_json::json!({})))));
        policy.grants().grant(&root.join("browse"), true, false)?;
        assert!(policy.check(&root.join("browse/inner/f"), Need::Read, "ahp-root://").is_ok());
        assert!(policy.check(&root.join("browse/inner/f"), Need::Write, "ahp-root://").is_err());
        assert!(policy.is_root(&root.join("ws")) && policy.is_root(&root.join("browse")));
        assert!(!policy.is_root(&root.join("ws/sub")));
        Ok(())
    }
}
