//! The `resource*` file operations: read, write, list, copy, move, delete,
//! resolve, mkdir. Blocking; [`super::ResourceService::handle`] runs them on
//! tokio's blocking pool.
//!
//! Every operation first turns its URI(s) into canonical paths and asks the
//! [`Policy`]; only then does it touch the file system, using the canonical
//! path. Reads open with `O_NOFOLLOW | O_NONBLOCK` and re-check the type on the
//! open descriptor, so a file swapped for a link or a fifo after the check is
//! not followed or blocked on. Operations on the entry itself (delete, the
//! source of a move, `resolve` with `followSymlinks: false`) use lstat
//! semantics: a link is removed/moved/reported, never its target. Mutations
//! are serialised through one lock, which also makes `append` atomic with
//! respect to other appenders through this host.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use ahp_types::commands::{
    ContentEncoding, DirectoryEntry, ResourceCopyParams, ResourceCopyResult, ResourceDeleteParams,
    ResourceDeleteResult, ResourceListParams, ResourceListResult, ResourceMkdirParams, ResourceMkdirResult,
    ResourceMoveParams, ResourceMoveResult, ResourceReadParams, ResourceReadResult, ResourceResolveParams,
    ResourceResolveResult, ResourceType, ResourceWriteMode, ResourceWriteParams, ResourceWriteResult,
};
use base64::Engine as _;

use super::meta;
use super::policy::{canonicalize_lenient, canonicalize_nofollow, io_error, Canonical, Need, Policy};
use super::uri::{file_uri_to_path, path_to_file_uri, UriError};
use crate::locks::lock;
use crate::RpcError;

/// Largest file `resourceRead` returns (and largest tail an insert moves).
pub const MAX_READ_BYTES: u64 = 32 * 1024 * 1024;
/// Largest decoded payload `resourceWrite` accepts.
pub const MAX_WRITE_BYTES: usize = 32 * 1024 * 1024;
/// Most entries `resourceList` returns.
pub const MAX_LIST_ENTRIES: usize = 100_000;

/// Parse a URI parameter into an absolute path, mapping refusals to codes:
/// other schemes and `..` are `-32009` (no grant can open them), malformed
/// URIs and encoded separators `-32602`.
pub fn parse_uri(uri: &str, field: &str) -> Result<PathBuf, RpcError> {
    file_uri_to_path(uri).map_err(|e| match e {
        UriError::UnsupportedScheme(_) | UriError::DotSegment | UriError::RemoteHost => {
            RpcError::permission_denied(e.to_string(), None)
        }
        UriError::Malformed(_) | UriError::EncodedSeparator => RpcError::invalid_params(field, e.to_string()),
    })
}

/// Refuse everything but regular files, directories and (for lstat) symlinks.
/// An opened regular file with one name only: a file with other hard links
/// may be one outside the allowed folders (a link to `~/.ssh/id_ed25519`
/// placed in a project), so it is neither read nor written in place.
fn single_link(md: &fs::Metadata) -> Result<(), RpcError> {
    use std::os::unix::fs::MetadataExt;
    if md.is_file() && md.nlink() > 1 {
        return Err(RpcError::permission_denied(
            "the file has other hard links, which may be outside the allowed folders; it is not served",
            None,
        ));
    }
    Ok(())
}

fn plain_type(ft: fs::FileType) -> Result<(), RpcError> {
    if ft.is_file() || ft.is_dir() || ft.is_symlink() {
        Ok(())
    } else {
        Err(RpcError::permission_denied("only regular files and directories are served", None))
    }
}

/// How a URI is canonicalized.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Follow {
    /// Follow every link (the target is what counts).
    All,
    /// Keep the last component (the entry itself counts).
    NotLast,
}

/// `resourceCopy` or `resourceMove`: what differs between the two.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Transfer {
    Copy,
    Move,
}

impl Transfer {
    fn op(self) -> &'static str {
        match self {
            Transfer::Copy => "resourceCopy",
            Transfer::Move => "resourceMove",
        }
    }

    /// A copy reads its source; a move also takes it away.
    fn source_need(self) -> Need {
        match self {
            Transfer::Copy => Need::Read,
            Transfer::Move => Need::ReadWrite,
        }
    }

    /// A copy copies what a link points to; a move moves the link itself.
    fn follow(self) -> Follow {
        match self {
            Transfer::Copy => Follow::All,
            Transfer::Move => Follow::NotLast,
        }
    }
}

/// A checked copy or move, holding the mutation lock until it is done.
struct Prepared<'a> {
    source: PathBuf,
    destination: PathBuf,
    /// The source (the entry itself for a move) is a directory.
    source_is_dir: bool,
    _guard: MutexGuard<'a, ()>,
}

/// The file operations, over one policy.
pub struct Ops {
    policy: Arc<Policy>,
    write_lock: Mutex<()>,
}

impl Ops {
    /// Operations checked by `policy`.
    pub fn new(policy: Arc<Policy>) -> Self {
        Self { policy, write_lock: Mutex::new(()) }
    }

    /// The policy.
    pub fn policy(&self) -> &Arc<Policy> {
        &self.policy
    }

    fn lock(&self) -> MutexGuard<'_, ()> {
        lock(&self.write_lock)
    }

    /// Parse, canonicalize and check one URI.
    fn target(&self, uri: &str, field: &str, need: Need, follow: Follow, channel: &str) -> Result<Canonical, RpcError> {
        let path = parse_uri(uri, field)?;
        let canonical = match follow {
            Follow::All => canonicalize_lenient(&path)?,
            Follow::NotLast => canonicalize_nofollow(&path)?,
        };
        self.policy.check(&canonical.path, need, channel)?;
        Ok(canonical)
    }

    /// `resourceRead`.
    pub fn read(&self, p: &ResourceReadParams) -> Result<ResourceReadResult, RpcError> {
        let t = self.target(&p.uri, "uri", Need::Read, Follow::All, &p.channel)?;
        if !t.exists {
            return Err(RpcError::not_found("resourceRead: no such file"));
        }
        let md = fs::metadata(&t.path).map_err(|e| io_error("resourceRead", &e))?;
        if md.is_dir() {
            return Err(RpcError::invalid_params("uri", "resourceRead: is a directory"));
        }
        plain_type(md.file_type())?;
        if md.len() > MAX_READ_BYTES {
            return Err(too_large());
        }
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&t.path)
            .map_err(|e| io_error("resourceRead", &e))?;
        let fmd = file.metadata().map_err(|e| io_error("resourceRead", &e))?;
        if !fmd.is_file() {
            return Err(RpcError::permission_denied("only regular files and directories are served", None));
        }
        single_link(&fmd)?;
        let mut bytes = Vec::with_capacity(fmd.len().min(MAX_READ_BYTES) as usize);
        file.take(MAX_READ_BYTES + 1).read_to_end(&mut bytes).map_err(|e| io_error("resourceRead", &e))?;
        if bytes.len() as u64 > MAX_READ_BYTES {
            return Err(too_large());
        }
        let is_utf8 = std::str::from_utf8(&bytes).is_ok();
        let content_type = Some(meta::sniff(&t.path, &bytes, is_utf8));
        let want_text = match p.encoding {
            Some(ContentEncoding::Utf8) => is_utf8,
            Some(ContentEncoding::Base64) => false,
            None => is_utf8 && !bytes.contains(&0),
        };
        if want_text {
            let data = String::from_utf8(bytes).map_err(|_| RpcError::internal("resourceRead: utf-8"))?;
            Ok(ResourceReadResult { data, encoding: ContentEncoding::Utf8, content_type })
        } else {
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            Ok(ResourceReadResult { data, encoding: ContentEncoding::Base64, content_type })
        }
    }

    /// `resourceWrite`.
    pub fn write(&self, p: &ResourceWriteParams) -> Result<ResourceWriteResult, RpcError> {
        let data = match p.encoding {
            ContentEncoding::Utf8 => p.data.as_bytes().to_vec(),
            ContentEncoding::Base64 => base64::engine::general_purpose::STANDARD
                .decode(p.data.as_bytes())
                .map_err(|e| RpcError::invalid_params("data", format!("invalid base64: {e}")))?,
        };
        if data.len() > MAX_WRITE_BYTES {
            return Err(RpcError::invalid_params("data", "payload exceeds the 32 MiB write limit"));
        }
        let position = u64::try_from(p.position.unwrap_or(0))
            .map_err(|_| RpcError::invalid_params("position", "must not be negative"))?;
        let mode = p.mode.unwrap_or(ResourceWriteMode::Truncate);
        let t = self.target(&p.uri, "uri", Need::Write, Follow::All, &p.channel)?;

        let _guard = self.lock();
        let existing = match fs::metadata(&t.path) {
            Ok(md) => Some(md),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_error("resourceWrite", &e)),
        };
        if let Some(md) = &existing {
            if md.is_dir() {
                return Err(RpcError::invalid_params("uri", "resourceWrite: is a directory"));
            }
            plain_type(md.file_type())?;
            if p.create_only == Some(true) {
                return Err(RpcError::already_exists("resourceWrite: file exists and createOnly is set"));
            }
        }
        if let Some(expected) = &p.if_match {
            let current = existing.as_ref().map(meta::etag);
            if current.as_deref() != Some(expected.as_str()) {
                return Err(RpcError::conflict("resourceWrite: etag does not match (ifMatch)"));
            }
        }
        let len = existing.as_ref().map_or(0, fs::Metadata::len);
        if position > len {
            return Err(RpcError::invalid_params("position", "beyond the end of the file"));
        }
        if existing.is_none() {
            if let Some(parent) = t.path.parent() {
                fs::create_dir_all(parent).map_err(|e| io_error("resourceWrite", &e))?;
            }
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(existing.is_none() && p.create_only != Some(true))
            .create_new(existing.is_none() && p.create_only == Some(true))
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&t.path)
            .map_err(|e| io_error("resourceWrite", &e))?;
        let fmd = file.metadata().map_err(|e| io_error("resourceWrite", &e))?;
        if !fmd.is_file() {
            return Err(RpcError::permission_denied("only regular files and directories are served", None));
        }
        single_link(&fmd)?;
        let len = fmd.len();
        let io = |e: std::io::Error| io_error("resourceWrite", &e);
        match mode {
            ResourceWriteMode::Truncate => {
                if position > len {
                    return Err(RpcError::invalid_params("position", "beyond the end of the file"));
                }
                file.set_len(position).map_err(io)?;
                file.seek(SeekFrom::Start(position)).map_err(io)?;
                file.write_all(&data).map_err(io)?;
            }
            ResourceWriteMode::Append => {
                let at = len
                    .checked_sub(position)
                    .ok_or_else(|| RpcError::invalid_params("position", "more bytes back than the file has"))?;
                splice(&mut file, at, len, &data)?;
            }
            ResourceWriteMode::Insert => {
                if position > len {
                    return Err(RpcError::invalid_params("position", "beyond the end of the file"));
                }
                splice(&mut file, position, len, &data)?;
            }
        }
        file.flush().map_err(io)?;
        Ok(ResourceWriteResult {})
    }

    /// `resourceList`.
    pub fn list(&self, p: &ResourceListParams) -> Result<ResourceListResult, RpcError> {
        let t = self.target(&p.uri, "uri", Need::List, Follow::All, &p.channel)?;
        if !t.exists {
            return Err(RpcError::not_found("resourceList: no such directory"));
        }
        let md = fs::metadata(&t.path).map_err(|e| io_error("resourceList", &e))?;
        if !md.is_dir() {
            return Err(RpcError::invalid_params("uri", "resourceList: not a directory"));
        }
        let mut entries = Vec::new();
        for entry in fs::read_dir(&t.path).map_err(|e| io_error("resourceList", &e))? {
            let Ok(entry) = entry else { continue };
            let Ok(name) = entry.file_name().into_string() else { continue };
            let Ok(ft) = entry.file_type() else { continue };
            let is_dir =
                if ft.is_symlink() { fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) } else { ft.is_dir() };
            entries.push(DirectoryEntry { name, r#type: if is_dir { "directory" } else { "file" }.to_owned() });
            if entries.len() >= MAX_LIST_ENTRIES {
                break;
            }
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(ResourceListResult { entries })
    }

    /// `resourceResolve`.
    pub fn resolve(&self, p: &ResourceResolveParams) -> Result<ResourceResolveResult, RpcError> {
        let follow = p.follow_symlinks.unwrap_or(true);
        let mode = if follow { Follow::All } else { Follow::NotLast };
        let t = self.target(&p.uri, "uri", Need::Read, mode, &p.channel)?;
        if !t.exists {
            return Err(RpcError::not_found("resourceResolve: no such file or directory"));
        }
        let md = if follow { fs::metadata(&t.path) } else { fs::symlink_metadata(&t.path) }
            .map_err(|e| io_error("resourceResolve", &e))?;
        let ft = md.file_type();
        plain_type(ft)?;
        let r#type = if ft.is_symlink() {
            ResourceType::Symlink
        } else if ft.is_dir() {
            ResourceType::Directory
        } else {
            ResourceType::File
        };
        let uri = if follow { path_to_file_uri(&t.path) } else { p.uri.clone() };
        Ok(ResourceResolveResult {
            uri,
            size: (!ft.is_dir()).then(|| i64::try_from(md.len()).unwrap_or(i64::MAX)),
            mtime: meta::iso(md.modified()),
            ctime: meta::iso(md.created()),
            content_type: if ft.is_file() { meta::content_type_for(&t.path).map(str::to_owned) } else { None },
            etag: Some(meta::etag(&md)),
            r#type,
        })
    }

    /// `resourceMkdir`.
    pub fn mkdir(&self, p: &ResourceMkdirParams) -> Result<ResourceMkdirResult, RpcError> {
        let t = self.target(&p.uri, "uri", Need::Write, Follow::All, &p.channel)?;
        let _guard = self.lock();
        if t.exists {
            let md = fs::metadata(&t.path).map_err(|e| io_error("resourceMkdir", &e))?;
            return if md.is_dir() {
                Ok(ResourceMkdirResult {})
            } else {
                Err(RpcError::already_exists("resourceMkdir: exists and is not a directory"))
            };
        }
        fs::create_dir_all(&t.path).map_err(|e| match e.raw_os_error() {
            Some(libc::ENOTDIR) | Some(libc::EEXIST) => {
                RpcError::already_exists("resourceMkdir: a path component exists and is not a directory")
            }
            _ => io_error("resourceMkdir", &e),
        })?;
        Ok(ResourceMkdirResult {})
    }

    /// `resourceDelete`.
    pub fn delete(&self, p: &ResourceDeleteParams) -> Result<ResourceDeleteResult, RpcError> {
        let t = self.target(&p.uri, "uri", Need::Write, Follow::NotLast, &p.channel)?;
        if !t.exists {
            return Err(RpcError::not_found("resourceDelete: no such file or directory"));
        }
        if self.policy.is_root(&t.path) {
            return Err(RpcError::permission_denied("resourceDelete: refusing to delete an allowed root", None));
        }
        let _guard = self.lock();
        let md = fs::symlink_metadata(&t.path).map_err(|e| io_error("resourceDelete", &e))?;
        let result = if md.is_dir() {
            if p.recursive == Some(true) {
                fs::remove_dir_all(&t.path)
            } else {
                fs::remove_dir(&t.path)
            }
        } else {
            fs::remove_file(&t.path)
        };
        result.map_err(|e| match e.raw_os_error() {
            Some(libc::ENOTEMPTY) | Some(libc::EEXIST) => {
                RpcError::invalid_params("recursive", "resourceDelete: directory is not empty")
            }
            _ => io_error("resourceDelete", &e),
        })?;
        Ok(ResourceDeleteResult {})
    }

    /// `resourceCopy`.
    pub fn copy(&self, p: &ResourceCopyParams) -> Result<ResourceCopyResult, RpcError> {
        let transfer = Transfer::Copy;
        if let Some(t) = self.prepare(transfer, &p.source, &p.destination, p.fail_if_exists, &p.channel)? {
            copy_tree(&t.source, &t.destination).map_err(|e| io_error(transfer.op(), &e))?;
        }
        Ok(ResourceCopyResult {})
    }

    /// `resourceMove`.
    pub fn rename(&self, p: &ResourceMoveParams) -> Result<ResourceMoveResult, RpcError> {
        let transfer = Transfer::Move;
        let Some(t) = self.prepare(transfer, &p.source, &p.destination, p.fail_if_exists, &p.channel)? else {
            return Ok(ResourceMoveResult {});
        };
        match fs::rename(&t.source, &t.destination) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {
                copy_tree(&t.source, &t.destination).map_err(|e| io_error(transfer.op(), &e))?;
                let removed = if t.source_is_dir { fs::remove_dir_all(&t.source) } else { fs::remove_file(&t.source) };
                removed.map_err(|e| io_error(transfer.op(), &e))?;
            }
            Err(e) => return Err(io_error(transfer.op(), &e)),
        }
        Ok(ResourceMoveResult {})
    }

    /// The checks a copy and a move share, in order: both URIs pass the
    /// policy, the source exists (a move never takes an allowed root), then
    /// under the mutation lock: the source is a plain entry, a directory is
    /// not put inside itself, an existing destination is refused
    /// (`failIfExists`) or cleared. `None`: the destination is the source,
    /// nothing to do.
    fn prepare(
        &self,
        transfer: Transfer,
        source: &str,
        destination: &str,
        fail_if_exists: Option<bool>,
        channel: &str,
    ) -> Result<Option<Prepared<'_>>, RpcError> {
        let op = transfer.op();
        let src = self.target(source, "source", transfer.source_need(), transfer.follow(), channel)?;
        let dst = self.target(destination, "destination", Need::Write, transfer.follow(), channel)?;
        if !src.exists {
            return Err(RpcError::not_found(format!("{op}: no such source")));
        }
        if transfer == Transfer::Move && self.policy.is_root(&src.path) {
            return Err(RpcError::permission_denied(format!("{op}: refusing to move an allowed root"), None));
        }
        let guard = self.lock();
        let smd = match transfer.follow() {
            Follow::All => fs::metadata(&src.path),
            Follow::NotLast => fs::symlink_metadata(&src.path),
        }
        .map_err(|e| io_error(op, &e))?;
        plain_type(smd.file_type())?;
        if smd.is_dir() && dst.path.starts_with(&src.path) && dst.path != src.path {
            return Err(RpcError::invalid_params("destination", format!("{op}: destination is inside the source")));
        }
        if dst.exists {
            if fail_if_exists == Some(true) {
                return Err(RpcError::already_exists(format!("{op}: destination exists and failIfExists is set")));
            }
            if dst.path == src.path {
                return Ok(None);
            }
            self.clear_destination(&dst.path, smd.is_dir(), op)?;
        }
        if let Some(parent) = dst.path.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error(op, &e))?;
        }
        Ok(Some(Prepared { source: src.path, destination: dst.path, source_is_dir: smd.is_dir(), _guard: guard }))
    }

    /// Remove an existing destination before it is overwritten. A file
    /// overwritten by a file is left for the copy/rename to replace.
    fn clear_destination(&self, dst: &Path, source_is_dir: bool, op: &str) -> Result<(), RpcError> {
        if self.policy.is_root(dst) {
            return Err(RpcError::permission_denied(format!("{op}: refusing to overwrite an allowed root"), None));
        }
        let dmd = fs::symlink_metadata(dst).map_err(|e| io_error(op, &e))?;
        let removed = if dmd.is_dir() {
            fs::remove_dir_all(dst)
        } else if source_is_dir || dmd.file_type().is_symlink() {
            fs::remove_file(dst)
        } else {
            Ok(())
        };
        removed.map_err(|e| io_error(op, &e))
    }
}

fn too_large() -> RpcError {
    RpcError::permission_denied("file exceeds the 32 MiB read limit", None)
}

/// Write `data` at `at`, moving the bytes `[at, len)` after it.
fn splice(file: &mut File, at: u64, len: u64, data: &[u8]) -> Result<(), RpcError> {
    let io = |e: std::io::Error| io_error("resourceWrite", &e);
    if len - at > MAX_READ_BYTES {
        return Err(RpcError::invalid_params("position", "would move more than 32 MiB of existing bytes"));
    }
    let mut tail = Vec::with_capacity((len - at) as usize);
    file.seek(SeekFrom::Start(at)).map_err(io)?;
    file.read_to_end(&mut tail).map_err(io)?;
    file.seek(SeekFrom::Start(at)).map_err(io)?;
    file.write_all(data).map_err(io)?;
    file.write_all(&tail).map_err(io)?;
    Ok(())
}

/// Copy a file or a directory tree. Links inside a tree are recreated as
/// links (never followed); fifos, sockets and devices are skipped.
fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    let md = fs::metadata(src)?;
    if md.is_file() {
        copy_file(src, dst)
    } else if md.is_dir() {
        fs::create_dir(dst)?;
        copy_dir_contents(src, dst)
    } else {
        Ok(())
    }
}

fn copy_dir_contents(src: &Path, dst: &Path) -> std::io::Result<()> {
    for entry in fs::read_dir(src)? {
        let entry = entry?;
        let ft = entry.file_type()?;
        let to = dst.join(entry.file_name());
        if ft.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path())?, &to)?;
        } else if ft.is_dir() {
            fs::create_dir(&to)?;
            copy_dir_contents(&entry.path(), &to)?;
        } else if ft.is_file() {
            copy_file(&entry.path(), &to)?;
        }
    }
    Ok(())
}

fn copy_file(src: &Path, dst: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut from = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(src)?;
    let md = from.metadata()?;
    if !md.is_file() {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    if md.nlink() > 1 {
        // See `single_link`: a copy would read what a read may not.
        return Err(std::io::Error::from_raw_os_error(libc::EPERM));
    }
    let mut to = OpenOptions::new().write(true).create(true).truncate(true).custom_flags(libc::O_NOFOLLOW).open(dst)?;
    std::io::copy(&mut from, &mut to)?;
    Ok(())
}
