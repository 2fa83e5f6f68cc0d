//! End-to-end tests of the filesystem surface through `ResourceService::handle`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ahp_types::commands::CreateResourceWatchParams;
use ahp_types::state::{ResourceChange, ResourceChangeType};
use serde_json::{json, Value};

use super::uri::path_to_file_uri;
use super::watch::MAX_DELAY;
use super::{RequestPolicy, ResourceService};
use crate::RpcError;

type TestResult = Result<(), Box<dyn std::error::Error>>;

struct Fx {
    _dir: tempfile::TempDir,
    /// Canonical temp root.
    root: PathBuf,
    ws: PathBuf,
    svc: ResourceService,
    dirs: Arc<Mutex<Vec<PathBuf>>>,
}

impl Fx {
    fn new(policy: impl FnOnce(&Path) -> RequestPolicy) -> Result<Self, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let root = std::fs::canonicalize(dir.path())?;
        let ws = root.join("ws");
        std::fs::create_dir_all(ws.join("sub/deeper"))?;
        std::fs::write(ws.join("a.txt"), "hello")?;
        std::fs::write(ws.join("bin.dat"), [0u8, 159, 146, 150, 0, 1])?;
        std::fs::write(ws.join("sub/deeper/n.md"), "# n")?;
        std::os::unix::fs::symlink("/etc", ws.join("link_etc"))?;
        std::os::unix::fs::symlink("/etc/passwd", ws.join("link_passwd"))?;
        std::os::unix::fs::symlink("/dev/zero", ws.join("link_zero"))?;
        std::os::unix::fs::symlink(ws.join("a.txt"), ws.join("link_a"))?;
        std::fs::create_dir_all(root.join("outside"))?;
        std::fs::write(root.join("outside/secret.txt"), "secret")?;
        std::fs::create_dir_all(root.join("browse/inner"))?;
        std::fs::write(root.join("browse/file.txt"), "b")?;
        let dirs = Arc::new(Mutex::new(vec![ws.clone()]));
        let d2 = dirs.clone();
        // `ws` is a browse root too: a session may have it as its working
        // directory whatever the grant policy.
        let svc = ResourceService::open(
            &root.join("data"),
            vec![root.join("browse"), ws.clone()],
            Arc::new(move || d2.lock().map(|d| d.clone()).unwrap_or_default()),
            policy(&root),
            &[root.join("outside/.ssh")],
        )?;
        Ok(Self { _dir: dir, root, ws, svc, dirs })
    }

    fn uri(&self, rel: &str) -> String {
        path_to_file_uri(&self.root.join(rel))
    }

    async fn call(&self, method: &str, mut params: Value) -> Result<Value, RpcError> {
        if let Some(obj) = params.as_object_mut() {
            obj.entry("channel").or_insert(json!("ahp-root://"));
        }
        self.svc.handle(method, params).await
    }

    async fn code(&self, method: &str, params: Value) -> i32 {
        match self.call(method, params).await {
            Ok(v) => panic!("{method} unexpectedly succeeded: {v}"),
            Err(e) => e.code,
        }
    }

    async fn read_text(&self, rel: &str) -> Result<String, RpcError> {
        let v = self.call("resourceRead", json!({"uri": self.uri(rel), "encoding": "utf-8"})).await?;
        Ok(v["data"].as_str().unwrap_or_default().to_owned())
    }
}

fn fx() -> Result<Fx, Box<dyn std::error::Error>> {
    Fx::new(|_| RequestPolicy::GrantAll)
}

const DENIED: i32 = -32009;
const NOT_FOUND: i32 = -32008;
const EXISTS: i32 = -32010;
const CONFLICT: i32 = -32011;
const INVALID: i32 = -32602;

#[tokio::test]
async fn read_text_binary_and_encodings() -> TestResult {
    let f = fx()?;
    let v = f.call("resourceRead", json!({"uri": f.uri("ws/a.txt")})).await?;
    assert_eq!(v, json!({"data": "hello", "encoding": "utf-8", "contentType": "text/plain"}));
    let v = f.call("resourceRead", json!({"uri": f.uri("ws/bin.dat")})).await?;
    assert_eq!((v["data"].as_str(), v["encoding"].as_str()), (Some("AJ+SlgAB"), Some("base64")));
    let v = f.call("resourceRead", json!({"uri": f.uri("ws/a.txt"), "encoding": "base64"})).await?;
    assert_eq!(v["data"], "aGVsbG8=");
    // utf-8 requested on binary falls back to base64.
    let v = f.call("resourceRead", json!({"uri": f.uri("ws/bin.dat"), "encoding": "utf-8"})).await?;
    assert_eq!(v["encoding"], "base64");
    // Through a link that stays inside the root.
    assert_eq!(f.read_text("ws/link_a").await?, "hello");
    assert_eq!(f.read_text("ws/sub/deeper/n.md").await?, "# n");
    Ok(())
}

#[tokio::test]
async fn read_errors() -> TestResult {
    let f = fx()?;
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("ws/missing.txt")})).await, NOT_FOUND);
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("ws/sub")})).await, INVALID);
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("ws/a.txt/under")})).await, NOT_FOUND);
    assert_eq!(f.code("resourceRead", json!({})).await, INVALID);
    assert_eq!(f.code("resourceRead", json!({"uri": 5})).await, INVALID);
    // Size cap (sparse file, no real I/O).
    let big = std::fs::File::create(f.ws.join("big.bin"))?;
    big.set_len(super::MAX_READ_BYTES + 1)?;
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("ws/big.bin")})).await, DENIED);
    // Absence outside the roots is not revealed.
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("outside/nothing")})).await, DENIED);
    Ok(())
}

#[tokio::test]
async fn escape_attempts_are_refused() -> TestResult {
    let f = fx()?;
    // Outside every root: -32009 with the request that would allow it.
    let err = f.call("resourceRead", json!({"uri": f.uri("outside/secret.txt")})).await.err();
    let err = err.ok_or("read outside succeeded")?;
    assert_eq!(err.code, DENIED);
    let data = err.data.unwrap_or_default();
    assert_eq!(data["request"], json!({"channel": "ahp-root://", "uri": f.uri("outside/secret.txt"), "read": true}));
    // Symlinks out of the root: the request names the real target.
    let err = f.call("resourceRead", json!({"uri": f.uri("ws/link_passwd")})).await.err().ok_or("link escaped")?;
    assert_eq!(err.code, DENIED);
    assert_eq!(err.data.unwrap_or_default()["request"]["uri"], "file:///etc/passwd");
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("ws/link_etc/passwd")})).await, DENIED);
    assert_eq!(f.code("resourceList", json!({"uri": f.uri("ws/link_etc")})).await, DENIED);
    assert_eq!(
        f.code("resourceWrite", json!({"uri": f.uri("ws/link_etc/evil"), "data": "x", "encoding": "utf-8"})).await,
        DENIED
    );
    // `..`, raw and encoded.
    let dotdot = format!("{}/../../../etc/passwd", f.uri("ws"));
    assert_eq!(f.code("resourceRead", json!({"uri": dotdot})).await, DENIED);
    let dotdot = format!("{}/%2e%2e/outside/secret.txt", f.uri("ws"));
    assert_eq!(f.code("resourceRead", json!({"uri": dotdot})).await, DENIED);
    // Encoded separators and NUL.
    for enc in ["%2F", "%2f", "%5C", "%00"] {
        let uri = format!("{}/sub{enc}deeper{enc}n.md", f.uri("ws"));
        assert_eq!(f.code("resourceRead", json!({"uri": uri})).await, INVALID, "{enc}");
    }
    let uri = format!("{}/..%2F..%2Fetc%2Fpasswd", f.uri("ws"));
    assert_eq!(f.code("resourceRead", json!({"uri": uri})).await, INVALID);
    // Other schemes, remote hosts, relative paths.
    for uri in ["http://example.com/etc/passwd", "ahp-session:/abc", "virtual://x/y", "file://evil.example/etc/passwd"]
    {
        assert_eq!(f.code("resourceRead", json!({"uri": uri})).await, DENIED, "{uri}");
    }
    assert_eq!(f.code("resourceRead", json!({"uri": "ws/a.txt"})).await, INVALID);
    assert_eq!(f.code("resourceRead", json!({"uri": "file:ws/a.txt"})).await, INVALID);
    // Devices, fifos: never, even with a grant.
    assert_eq!(f.code("resourceRead", json!({"uri": "file:///dev/zero"})).await, DENIED);
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("ws/link_zero")})).await, DENIED);
    assert_eq!(f.code("resourceRequest", json!({"uri": "file:///dev/zero"})).await, DENIED);
    assert_eq!(f.code("resourceRequest", json!({"uri": "file:///proc/self/environ"})).await, DENIED);
    // A fifo must exist for this to test anything (`unsafe` is forbidden in
    // the workspace, so coreutils' mkfifo makes it rather than libc::mkfifo).
    let fifo = f.ws.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status()?;
    assert!(made.success(), "mkfifo failed: {made}");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&std::fs::symlink_metadata(&fifo)?.file_type()));
    // Opening a fifo would block forever: these must answer (-32009).
    let read = tokio::time::timeout(Duration::from_secs(30), f.code("resourceRead", json!({"uri": f.uri("ws/fifo")})));
    assert_eq!(read.await.ok(), Some(DENIED), "reading a fifo blocked");
    assert_eq!(f.code("resourceResolve", json!({"uri": f.uri("ws/fifo")})).await, DENIED);
    let write = json!({"uri": f.uri("ws/fifo"), "data": "x", "encoding": "utf-8"});
    assert_eq!(f.code("resourceWrite", write).await, DENIED);
    // Deleting the fifo entry itself is fine.
    f.call("resourceDelete", json!({"uri": f.uri("ws/fifo")})).await?;
    assert!(std::fs::symlink_metadata(&fifo).is_err());
    Ok(())
}

#[tokio::test]
async fn data_dir_is_never_served() -> TestResult {
    let dir = tempfile::tempdir()?;
    let ws = std::fs::canonicalize(dir.path())?;
    let ws2 = ws.clone();
    let svc = ResourceService::open(
        &ws.join(".hangar"),
        vec![],
        Arc::new(move || vec![ws2.clone()]),
        RequestPolicy::GrantAll,
        &[],
    )?;
    let uri = path_to_file_uri(&ws.join(".hangar/hangar.db"));
    let err = svc.handle("resourceRead", json!({"channel": "ahp-root://", "uri": uri})).await.err();
    assert_eq!(err.map(|e| e.code), Some(DENIED));
    let err = svc.handle("resourceRequest", json!({"channel": "ahp-root://", "uri": uri, "write": true})).await.err();
    assert_eq!(err.map(|e| e.code), Some(DENIED));
    Ok(())
}

#[tokio::test]
async fn write_modes() -> TestResult {
    let f = fx()?;
    let w = |rel: &str, data: &str, extra: Value| {
        let mut p = json!({"uri": f.uri(rel), "data": data, "encoding": "utf-8"});
        if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(extra.clone());
        }
        p
    };
    assert_eq!(f.call("resourceWrite", w("ws/new/dir/f.txt", "0123456789", json!({}))).await?, json!({}));
    assert_eq!(f.read_text("ws/new/dir/f.txt").await?, "0123456789");
    f.call("resourceWrite", w("ws/new/dir/f.txt", "ab", json!({"mode": "truncate", "position": 4}))).await?;
    assert_eq!(f.read_text("ws/new/dir/f.txt").await?, "0123ab");
    f.call("resourceWrite", w("ws/new/dir/f.txt", "XY", json!({"mode": "append"}))).await?;
    assert_eq!(f.read_text("ws/new/dir/f.txt").await?, "0123abXY");
    f.call("resourceWrite", w("ws/new/dir/f.txt", "--", json!({"mode": "append", "position": 2}))).await?;
    assert_eq!(f.read_text("ws/new/dir/f.txt").await?, "0123ab--XY");
    f.call("resourceWrite", w("ws/new/dir/f.txt", "++", json!({"mode": "insert", "position": 1}))).await?;
    assert_eq!(f.read_text("ws/new/dir/f.txt").await?, "0++123ab--XY");
    f.call("resourceWrite", w("ws/new/dir/f.txt", "full", json!({}))).await?;
    assert_eq!(f.read_text("ws/new/dir/f.txt").await?, "full");
    f.call("resourceWrite", json!({"uri": f.uri("ws/b64.bin"), "data": "AAEC", "encoding": "base64"})).await?;
    assert_eq!(std::fs::read(f.ws.join("b64.bin"))?, vec![0u8, 1, 2]);
    // Append to a file that does not exist yet creates it.
    f.call("resourceWrite", w("ws/log.txt", "l1", json!({"mode": "append"}))).await?;
    assert_eq!(f.read_text("ws/log.txt").await?, "l1");
    // Writing through an inside link writes the target.
    f.call("resourceWrite", w("ws/link_a", "via link", json!({}))).await?;
    assert_eq!(std::fs::read_to_string(f.ws.join("a.txt"))?, "via link");
    Ok(())
}

#[tokio::test]
async fn write_errors_create_only_and_if_match() -> TestResult {
    let f = fx()?;
    let p = |extra: Value| {
        let mut p = json!({"uri": f.uri("ws/a.txt"), "data": "new", "encoding": "utf-8"});
        if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(extra.clone());
        }
        p
    };
    assert_eq!(f.code("resourceWrite", p(json!({"createOnly": true}))).await, EXISTS);
    assert_eq!(std::fs::read_to_string(f.ws.join("a.txt"))?, "hello");
    let fresh = json!({"uri": f.uri("ws/fresh.txt"), "data": "x", "encoding": "utf-8", "createOnly": true});
    f.call("resourceWrite", fresh.clone()).await?;
    assert_eq!(f.code("resourceWrite", fresh).await, EXISTS);

    let etag = f.call("resourceResolve", json!({"uri": f.uri("ws/a.txt")})).await?["etag"].clone();
    assert!(etag.is_string());
    assert_eq!(f.code("resourceWrite", p(json!({"ifMatch": "\"stale\""}))).await, CONFLICT);
    f.call("resourceWrite", p(json!({"ifMatch": etag.clone()}))).await?;
    assert_eq!(f.read_text("ws/a.txt").await?, "new");
    // The old etag no longer matches after the write.
    assert_eq!(f.code("resourceWrite", p(json!({"ifMatch": etag}))).await, CONFLICT);
    let missing = json!({"uri": f.uri("ws/none.txt"), "data": "x", "encoding": "utf-8", "ifMatch": "\"x\""});
    assert_eq!(f.code("resourceWrite", missing).await, CONFLICT);

    assert_eq!(f.code("resourceWrite", p(json!({"position": 99}))).await, INVALID);
    assert_eq!(f.code("resourceWrite", p(json!({"position": -1}))).await, INVALID);
    assert_eq!(f.code("resourceWrite", p(json!({"mode": "append", "position": 99}))).await, INVALID);
    assert_eq!(f.code("resourceWrite", p(json!({"mode": "bogus"}))).await, INVALID);
    assert_eq!(f.code("resourceWrite", p(json!({"encoding": "base64", "data": "!!!"}))).await, INVALID);
    let dir = json!({"uri": f.uri("ws/sub"), "data": "x", "encoding": "utf-8"});
    assert_eq!(f.code("resourceWrite", dir).await, INVALID);
    let outside = json!({"uri": f.uri("outside/x.txt"), "data": "x", "encoding": "utf-8"});
    let err = f.call("resourceWrite", outside).await.err().ok_or("write outside succeeded")?;
    assert_eq!(err.code, DENIED);
    assert_eq!(
        err.data.unwrap_or_default()["request"],
        json!({"channel": "ahp-root://", "uri": f.uri("outside/x.txt"), "write": true})
    );
    assert!(!f.root.join("outside/x.txt").exists());
    Ok(())
}

#[tokio::test]
async fn list_directories_and_browse_roots() -> TestResult {
    let f = fx()?;
    let v = f.call("resourceList", json!({"uri": f.uri("ws")})).await?;
    let entries: Vec<(String, String)> = v["entries"]
        .as_array()
        .ok_or("no entries")?
        .iter()
        .map(|e| (e["name"].as_str().unwrap_or("").to_owned(), e["type"].as_str().unwrap_or("").to_owned()))
        .collect();
    let expect = [
        ("a.txt", "file"),
        ("bin.dat", "file"),
        ("link_a", "file"),
        ("link_etc", "directory"),
        ("link_passwd", "file"),
        ("link_zero", "file"),
        ("sub", "directory"),
    ];
    assert_eq!(entries, expect.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>());
    // Browse roots: listing only.
    let v = f.call("resourceList", json!({"uri": f.uri("browse")})).await?;
    assert_eq!(v["entries"], json!([{"name": "file.txt", "type": "file"}, {"name": "inner", "type": "directory"}]));
    f.call("resourceList", json!({"uri": f.uri("browse/inner")})).await?;
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("browse/file.txt")})).await, DENIED);
    assert_eq!(f.code("resourceResolve", json!({"uri": f.uri("browse/file.txt")})).await, DENIED);
    // Errors.
    assert_eq!(f.code("resourceList", json!({"uri": f.uri("ws/a.txt")})).await, INVALID);
    assert_eq!(f.code("resourceList", json!({"uri": f.uri("ws/nope")})).await, NOT_FOUND);
    assert_eq!(f.code("resourceList", json!({"uri": f.uri("outside")})).await, DENIED);
    assert_eq!(f.code("resourceList", json!({"uri": "file:///"})).await, DENIED);
    Ok(())
}

#[tokio::test]
async fn resolve_stat_and_realpath() -> TestResult {
    let f = fx()?;
    let v = f.call("resourceResolve", json!({"uri": f.uri("ws/a.txt")})).await?;
    assert_eq!((v["type"].as_str(), v["size"].as_i64()), (Some("file"), Some(5)));
    assert_eq!(v["uri"], f.uri("ws/a.txt"));
    assert_eq!(v["contentType"], "text/plain");
    assert!(v["mtime"].as_str().is_some_and(|s| s.contains('T')));
    let etag = v["etag"].clone();
    let v = f.call("resourceResolve", json!({"uri": f.uri("ws/sub")})).await?;
    assert_eq!(v["type"], "directory");
    assert!(v.get("size").is_none());
    // Follow (default): the canonical URI of the target.
    let v = f.call("resourceResolve", json!({"uri": f.uri("ws/link_a")})).await?;
    assert_eq!((v["type"].as_str(), v["uri"].as_str()), (Some("file"), Some(f.uri("ws/a.txt").as_str())));
    assert_eq!(v["etag"], etag);
    // No follow: the link itself, URI unchanged; allowed even when it points outside.
    let v = f.call("resourceResolve", json!({"uri": f.uri("ws/link_etc"), "followSymlinks": false})).await?;
    assert_eq!((v["type"].as_str(), v["uri"].as_str()), (Some("symlink"), Some(f.uri("ws/link_etc").as_str())));
    assert_eq!(f.code("resourceResolve", json!({"uri": f.uri("ws/link_etc")})).await, DENIED);
    assert_eq!(f.code("resourceResolve", json!({"uri": f.uri("ws/missing")})).await, NOT_FOUND);
    assert_eq!(f.code("resourceResolve", json!({"uri": f.uri("outside/secret.txt")})).await, DENIED);
    // The etag changes with the content.
    std::fs::write(f.ws.join("a.txt"), "changed!")?;
    let v = f.call("resourceResolve", json!({"uri": f.uri("ws/a.txt")})).await?;
    assert_ne!(v["etag"], etag);
    Ok(())
}

#[tokio::test]
async fn mkdir_is_mkdir_p() -> TestResult {
    let f = fx()?;
    f.call("resourceMkdir", json!({"uri": f.uri("ws/x/y/z")})).await?;
    assert!(f.ws.join("x/y/z").is_dir());
    assert_eq!(f.call("resourceMkdir", json!({"uri": f.uri("ws/x/y")})).await?, json!({}));
    assert_eq!(f.code("resourceMkdir", json!({"uri": f.uri("ws/a.txt")})).await, EXISTS);
    assert_eq!(f.code("resourceMkdir", json!({"uri": f.uri("ws/a.txt/under")})).await, EXISTS);
    assert_eq!(f.code("resourceMkdir", json!({"uri": f.uri("outside/new")})).await, DENIED);
    assert_eq!(f.code("resourceMkdir", json!({"uri": f.uri("ws/link_etc/new")})).await, DENIED);
    assert!(!f.root.join("outside/new").exists());
    Ok(())
}

#[tokio::test]
async fn copy_files_and_trees() -> TestResult {
    let f = fx()?;
    let cp = |s: &str, d: &str, fail: bool| json!({"source": f.uri(s), "destination": f.uri(d), "failIfExists": fail});
    f.call("resourceCopy", cp("ws/a.txt", "ws/copy/a2.txt", false)).await?;
    assert_eq!(f.read_text("ws/copy/a2.txt").await?, "hello");
    assert_eq!(f.code("resourceCopy", cp("ws/bin.dat", "ws/copy/a2.txt", true)).await, EXISTS);
    f.call("resourceCopy", cp("ws/bin.dat", "ws/copy/a2.txt", false)).await?;
    assert_eq!(std::fs::read(f.ws.join("copy/a2.txt"))?, std::fs::read(f.ws.join("bin.dat"))?);
    // Trees, with links recreated as links (not followed).
    std::os::unix::fs::symlink("/etc", f.ws.join("sub/etc_link"))?;
    f.call("resourceCopy", cp("ws/sub", "ws/sub2", false)).await?;
    assert_eq!(std::fs::read_to_string(f.ws.join("sub2/deeper/n.md"))?, "# n");
    assert!(std::fs::symlink_metadata(f.ws.join("sub2/etc_link"))?.file_type().is_symlink());
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("ws/sub2/etc_link/passwd")})).await, DENIED);
    // Overwrite a directory with a directory.
    f.call("resourceCopy", cp("ws/copy", "ws/sub2", false)).await?;
    assert!(f.ws.join("sub2/a2.txt").exists() && !f.ws.join("sub2/deeper").exists());
    // Errors.
    assert_eq!(f.code("resourceCopy", cp("ws/sub", "ws/sub/inside", false)).await, INVALID);
    assert_eq!(f.code("resourceCopy", cp("ws/nope", "ws/n2", false)).await, NOT_FOUND);
    assert_eq!(f.code("resourceCopy", cp("outside/secret.txt", "ws/stolen.txt", false)).await, DENIED);
    assert_eq!(f.code("resourceCopy", cp("ws/a.txt", "outside/planted.txt", false)).await, DENIED);
    assert_eq!(f.code("resourceCopy", cp("ws/link_passwd", "ws/passwd", false)).await, DENIED);
    assert!(!f.ws.join("stolen.txt").exists() && !f.root.join("outside/planted.txt").exists());
    Ok(())
}

#[tokio::test]
async fn move_files_dirs_and_links() -> TestResult {
    let f = fx()?;
    let mv = |s: &str, d: &str, fail: bool| json!({"source": f.uri(s), "destination": f.uri(d), "failIfExists": fail});
    f.call("resourceWrite", json!({"uri": f.uri("ws/m.txt"), "data": "m", "encoding": "utf-8"})).await?;
    f.call("resourceMove", mv("ws/m.txt", "ws/moved/m2.txt", false)).await?;
    assert!(!f.ws.join("m.txt").exists());
    assert_eq!(f.read_text("ws/moved/m2.txt").await?, "m");
    assert_eq!(f.code("resourceMove", mv("ws/moved/m2.txt", "ws/a.txt", true)).await, EXISTS);
    f.call("resourceMove", mv("ws/moved/m2.txt", "ws/a.txt", false)).await?;
    assert_eq!(f.read_text("ws/a.txt").await?, "m");
    f.call("resourceMove", mv("ws/sub", "ws/moved/sub", false)).await?;
    assert!(f.ws.join("moved/sub/deeper/n.md").exists());
    // A link is moved as a link (even one pointing outside).
    f.call("resourceMove", mv("ws/link_etc", "ws/moved/le", false)).await?;
    assert_eq!(std::fs::read_link(f.ws.join("moved/le"))?, PathBuf::from("/etc"));
    // Errors.
    assert_eq!(f.code("resourceMove", mv("ws/moved", "ws/moved/inner", false)).await, INVALID);
    assert_eq!(f.code("resourceMove", mv("ws/nope", "ws/n2", false)).await, NOT_FOUND);
    assert_eq!(f.code("resourceMove", mv("ws/a.txt", "outside/a.txt", false)).await, DENIED);
    assert_eq!(f.code("resourceMove", mv("outside/secret.txt", "ws/s.txt", false)).await, DENIED);
    assert_eq!(f.code("resourceMove", mv("ws", "ws2", false)).await, DENIED);
    assert!(f.root.join("outside/secret.txt").exists() && f.ws.join("a.txt").exists());
    Ok(())
}

#[tokio::test]
async fn delete_files_and_directories() -> TestResult {
    let f = fx()?;
    f.call("resourceDelete", json!({"uri": f.uri("ws/bin.dat")})).await?;
    assert!(!f.ws.join("bin.dat").exists());
    assert_eq!(f.code("resourceDelete", json!({"uri": f.uri("ws/sub")})).await, INVALID);
    assert!(f.ws.join("sub/deeper/n.md").exists());
    f.call("resourceDelete", json!({"uri": f.uri("ws/sub"), "recursive": true})).await?;
    assert!(!f.ws.join("sub").exists());
    std::fs::create_dir(f.ws.join("empty"))?;
    f.call("resourceDelete", json!({"uri": f.uri("ws/empty")})).await?;
    // A link is removed, not its target.
    f.call("resourceDelete", json!({"uri": f.uri("ws/link_a")})).await?;
    assert!(f.ws.join("a.txt").exists() && !f.ws.join("link_a").exists());
    f.call("resourceDelete", json!({"uri": f.uri("ws/link_etc"), "recursive": true})).await?;
    assert!(Path::new("/etc/passwd").exists());
    assert_eq!(f.code("resourceDelete", json!({"uri": f.uri("ws/missing")})).await, NOT_FOUND);
    assert_eq!(f.code("resourceDelete", json!({"uri": f.uri("ws"), "recursive": true})).await, DENIED);
    assert_eq!(f.code("resourceDelete", json!({"uri": f.uri("outside/secret.txt")})).await, DENIED);
    assert_eq!(f.code("resourceDelete", json!({"uri": f.uri("browse/file.txt")})).await, DENIED);
    assert!(f.ws.is_dir() && f.root.join("outside/secret.txt").exists());
    Ok(())
}

#[tokio::test]
async fn request_grant_list_revoke() -> TestResult {
    let f = Fx::new(|root| RequestPolicy::GrantUnder(vec![root.join("outside")]))?;

    let secret = f.uri("outside/secret.txt");
    let err = f.call("resourceRead", json!({"uri": secret})).await.err().ok_or("read outside succeeded")?;
    let request = err.data.unwrap_or_default()["request"].clone();
    assert_eq!(f.call("resourceRequest", request).await?, json!({}));
    assert_eq!(f.read_text("outside/secret.txt").await?, "secret");
    // Read was granted, not write.
    let w = json!({"uri": secret, "data": "x", "encoding": "utf-8"});
    assert_eq!(f.code("resourceWrite", w.clone()).await, DENIED);
    // A request with neither flag means read; granting the folder for write widens.
    f.call("resourceRequest", json!({"uri": f.uri("outside"), "write": true})).await?;
    f.call("resourceWrite", w.clone()).await?;
    // Outside the GrantUnder roots: denied.
    assert_eq!(f.code("resourceRequest", json!({"uri": f.uri("browse")})).await, DENIED);
    assert_eq!(f.code("resourceRequest", json!({"uri": "http://x/y"})).await, DENIED);

    let list = f.call("x-hangar/listGrants", json!({})).await?;
    let items = list["items"].as_array().ok_or("no items")?.clone();
    assert_eq!(items.len(), 2);
    assert_eq!((items[0]["uri"].as_str(), items[0]["read"].as_bool()), (Some(secret.as_str()), Some(true)));
    assert_eq!((items[1]["uri"].as_str(), items[1]["write"].as_bool()), (Some(f.uri("outside").as_str()), Some(true)));

    // Revoke both (by id and by uri); later operations fail with -32009.
    f.call("x-hangar/revokeGrant", json!({"id": items[0]["id"]})).await?;
    f.call("x-hangar/revokeGrant", json!({"uri": f.uri("outside")})).await?;
    assert_eq!(f.code("resourceRead", json!({"uri": secret})).await, DENIED);
    assert_eq!(f.code("resourceWrite", w).await, DENIED);
    assert_eq!(f.code("x-hangar/revokeGrant", json!({"id": 999})).await, NOT_FOUND);
    assert_eq!(f.code("x-hangar/revokeGrant", json!({})).await, INVALID);
    assert_eq!(f.call("x-hangar/listGrants", json!({})).await?, json!({"items": []}));
    Ok(())
}

#[tokio::test]
async fn a_request_without_flags_grants_read_only() -> TestResult {
    let f = fx()?;
    assert_eq!(f.call("resourceRequest", json!({"uri": f.uri("outside")})).await?, json!({}));
    assert_eq!(f.read_text("outside/secret.txt").await?, "secret");
    let w = json!({"uri": f.uri("outside/secret.txt"), "data": "x", "encoding": "utf-8"});
    assert_eq!(f.code("resourceWrite", w).await, DENIED);
    let items = f.call("x-hangar/listGrants", json!({})).await?["items"].clone();
    assert_eq!((items[0]["read"].as_bool(), items[0]["write"].as_bool()), (Some(true), Some(false)));
    Ok(())
}

#[tokio::test]
async fn protected_folders_are_never_granted_or_served() -> TestResult {
    let f = fx()?;
    std::fs::create_dir_all(f.root.join("outside/.ssh"))?;
    std::fs::write(f.root.join("outside/.ssh/id_ed25519"), "key")?;
    assert_eq!(f.code("resourceRequest", json!({"uri": f.uri("outside/.ssh"), "read": true})).await, DENIED);
    // A grant of the parent does not open the protected folder inside it.
    f.call("resourceRequest", json!({"uri": f.uri("outside"), "read": true})).await?;
    assert_eq!(f.read_text("outside/secret.txt").await?, "secret");
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("outside/.ssh/id_ed25519")})).await, DENIED);
    assert_eq!(f.code("resourceList", json!({"uri": f.uri("outside/.ssh")})).await, DENIED);
    Ok(())
}

#[test]
fn working_directories_are_checked_like_the_policy() -> TestResult {
    let f = Fx::new(|root| RequestPolicy::GrantUnder(vec![root.join("outside")]))?;
    let ok = |rel: &str| f.svc.check_working_dir(&f.root.join(rel));
    ok("browse/inner")?; // inside a browse root
    ok("ws/sub")?; // inside an existing working directory
    ok("outside")?; // the policy would grant it
    let refused = |path: &Path| f.svc.check_working_dir(path).err().map(|e| (e.code, e.data.unwrap_or_default()));
    for dir in [Path::new("/"), Path::new("/etc"), &f.root] {
        let (code, data) = refused(dir).ok_or("working directory accepted")?;
        assert_eq!(code, DENIED, "{}", dir.display());
        assert_eq!(data["request"]["uri"], path_to_file_uri(&std::fs::canonicalize(dir)?));
        assert_eq!((data["request"]["read"].as_bool(), data["request"]["write"].as_bool()), (Some(true), Some(true)));
    }
    // Never-served folders: no grant helps, so no data.request.
    for dir in [f.root.join("data"), PathBuf::from("/proc"), f.root.join("outside/.ssh")] {
        std::fs::create_dir_all(f.root.join("outside/.ssh"))?;
        assert_eq!(refused(&dir), Some((DENIED, json!({}))), "{}", dir.display());
    }
    Ok(())
}

#[tokio::test]
async fn a_working_directory_swapped_for_a_symlink_opens_nothing_new() -> TestResult {
    let f = Fx::new(|_| RequestPolicy::DenyAll)?;
    let proj = f.root.join("browse/proj");
    std::fs::create_dir_all(&proj)?;
    std::fs::write(proj.join("p.txt"), "p")?;
    f.svc.check_working_dir(&proj)?;
    if let Ok(mut d) = f.dirs.lock() {
        d.push(proj.clone());
    }
    assert_eq!(f.read_text("browse/proj/p.txt").await?, "p");
    // After createSession, the folder becomes a link to somewhere else.
    std::fs::remove_dir_all(&proj)?;
    std::os::unix::fs::symlink(f.root.join("outside"), &proj)?;
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("outside/secret.txt")})).await, DENIED);
    assert_eq!(f.code("resourceRead", json!({"uri": f.uri("browse/proj/secret.txt")})).await, DENIED);
    let w = json!({"uri": f.uri("outside/new.txt"), "data": "x", "encoding": "utf-8"});
    assert_eq!(f.code("resourceWrite", w).await, DENIED);
    Ok(())
}

#[test]
fn grant_policies_parse() {
    assert_eq!("deny".parse(), Ok(RequestPolicy::DenyAll));
    assert_eq!("all".parse(), Ok(RequestPolicy::GrantAll));
    assert_eq!("ask".parse(), Ok(RequestPolicy::Ask));
    assert_eq!("under:/srv/x".parse(), Ok(RequestPolicy::GrantUnder(vec![PathBuf::from("/srv/x")])));
    assert!("under:relative".parse::<RequestPolicy>().is_err());
    assert!("sometimes".parse::<RequestPolicy>().is_err());
}

#[tokio::test]
async fn grants_persist_and_policies_decide() -> TestResult {
    let f = fx()?;
    let secret = f.uri("outside/secret.txt");
    f.call("resourceRequest", json!({"uri": secret, "read": true})).await?;
    // A new service on the same data dir sees the grant.
    let d2 = f.dirs.clone();
    let again = ResourceService::open(
        &f.root.join("data"),
        vec![],
        Arc::new(move || d2.lock().map(|d| d.clone()).unwrap_or_default()),
        RequestPolicy::DenyAll,
        &[],
    )?;
    let v = again.handle("resourceRead", json!({"channel": "ahp-root://", "uri": secret})).await?;
    assert_eq!(v["data"], "secret");
    let err = again
        .handle("resourceRequest", json!({"channel": "ahp-root://", "uri": f.uri("outside"), "write": true}))
        .await
        .err();
    assert_eq!(err.map(|e| e.code), Some(DENIED));
    // Working directories are live: removing one withdraws access.
    if let Ok(mut d) = f.dirs.lock() {
        d.clear();
    }
    let err = f.call("resourceRead", json!({"uri": f.uri("ws/a.txt")})).await.err();
    assert_eq!(err.map(|e| e.code), Some(DENIED));
    Ok(())
}

#[tokio::test]
async fn dispatch_surface() -> TestResult {
    let f = fx()?;
    for m in super::METHODS {
        assert!(ResourceService::serves(m));
    }
    assert!(!ResourceService::serves("createResourceWatch"));
    assert_eq!(f.code("resourceBogus", json!({})).await, -32601);
    Ok(())
}

fn collect() -> (Arc<Mutex<Vec<ResourceChange>>>, super::OnChange) {
    let seen: Arc<Mutex<Vec<ResourceChange>>> = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let cb: super::OnChange = Box::new(move |batch: Vec<ResourceChange>| {
        assert!(!batch.is_empty(), "empty batch delivered");
        if let Ok(mut s) = s2.lock() {
            s.extend(batch);
        }
    });
    (seen, cb)
}

fn wait_for(seen: &Mutex<Vec<ResourceChange>>, pred: impl Fn(&[ResourceChange]) -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if seen.lock().map(|s| pred(&s)).unwrap_or(false) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    false
}

fn watch_params(uri: String, recursive: bool, excludes: Option<Value>) -> CreateResourceWatchParams {
    CreateResourceWatchParams {
        channel: "ahp-root://".into(),
        meta: None,
        uri,
        recursive: Some(recursive),
        excludes,
        includes: None,
    }
}

#[test]
fn watch_reports_batches_and_stops_on_drop() -> TestResult {
    let f = fx()?;
    let (seen, cb) = collect();
    let handle = f.svc.watch(watch_params(f.uri("ws"), false, None), cb)?;
    assert_eq!(handle.state().root, f.uri("ws"));
    std::fs::write(f.ws.join("w.txt"), "1")?;
    std::fs::write(f.ws.join("sub/deeper/ignored-nonrecursive.txt"), "1")?;
    let want = f.uri("ws/w.txt");
    assert!(wait_for(&seen, |s| s.iter().any(|c| c.uri == want && c.r#type == ResourceChangeType::Added)));
    std::fs::remove_file(f.ws.join("w.txt"))?;
    assert!(wait_for(&seen, |s| s.iter().any(|c| c.uri == want && c.r#type == ResourceChangeType::Deleted)));
    let nested = f.uri("ws/sub/deeper/ignored-nonrecursive.txt");
    assert!(seen.lock().map(|s| s.iter().all(|c| c.uri != nested)).unwrap_or(false));
    drop(handle);
    std::thread::sleep(Duration::from_millis(100));
    let before = seen.lock().map(|s| s.len()).unwrap_or(0);
    std::fs::write(f.ws.join("after-drop.txt"), "1")?;
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(seen.lock().map(|s| s.len()).unwrap_or(0), before);
    Ok(())
}

#[test]
fn watch_recursive_with_excludes_and_access_checks() -> TestResult {
    let f = fx()?;
    let (seen, cb) = collect();
    let _h = f.svc.watch(watch_params(f.uri("ws"), true, Some(json!({"items": ["**/*.log"]}))), cb)?;
    std::fs::write(f.ws.join("sub/deeper/skip.log"), "1")?;
    std::fs::write(f.ws.join("sub/deeper/keep.txt"), "1")?;
    let keep = f.uri("ws/sub/deeper/keep.txt");
    assert!(wait_for(&seen, |s| s.iter().any(|c| c.uri == keep)));
    let skip = f.uri("ws/sub/deeper/skip.log");
    assert!(seen.lock().map(|s| s.iter().all(|c| c.uri != skip)).unwrap_or(false));

    let (_, cb) = collect();
    let err = f.svc.watch(watch_params(f.uri("outside"), true, None), cb).err();
    assert_eq!(err.map(|e| e.code), Some(DENIED));
    let (_, cb) = collect();
    let err = f.svc.watch(watch_params(f.uri("ws/link_etc"), true, None), cb).err();
    assert_eq!(err.map(|e| e.code), Some(DENIED));
    let (_, cb) = collect();
    let err = f.svc.watch(watch_params(f.uri("ws/nope"), true, None), cb).err();
    assert_eq!(err.map(|e| e.code), Some(NOT_FOUND));
    let (_, cb) = collect();
    let err = f.svc.watch(watch_params("ahp-session:/x".into(), true, None), cb).err();
    assert_eq!(err.map(|e| e.code), Some(DENIED));
    Ok(())
}

#[tokio::test]
async fn a_watch_goes_silent_once_its_grant_is_revoked() -> TestResult {
    let f = fx()?;
    f.call("resourceRequest", json!({"uri": f.uri("outside"), "read": true})).await?;
    let (seen, cb) = collect();
    let _handle = f.svc.watch(watch_params(f.uri("outside"), false, None), cb)?;
    let saw = |name: &str| {
        let uri = f.uri(&format!("outside/{name}"));
        move |s: &[ResourceChange]| s.iter().any(|c| c.uri == uri)
    };
    std::fs::write(f.root.join("outside/granted.txt"), "1")?;
    assert!(wait_for(&seen, saw("granted.txt")), "a change while granted is reported");

    f.call("x-hangar/revokeGrant", json!({"uri": f.uri("outside")})).await?;
    std::fs::write(f.root.join("outside/revoked.txt"), "1")?;
    // Several batch windows pass in silence (this can only miss a leak on a
    // very slow machine, never fail a correct watch).
    std::thread::sleep(MAX_DELAY * 5);
    assert!(!saw("revoked.txt")(&seen.lock().map(|s| s.clone()).unwrap_or_default()), "reported after the revoke");

    // The watch itself is alive: granted again, it reports again.
    f.call("resourceRequest", json!({"uri": f.uri("outside"), "read": true})).await?;
    std::fs::write(f.root.join("outside/regranted.txt"), "1")?;
    assert!(wait_for(&seen, saw("regranted.txt")));
    Ok(())
}

#[test]
fn service_completions_smoke() -> TestResult {
    let f = fx()?;
    let params = ahp_types::commands::CompletionsParams {
        channel: "ahp-chat:/c".into(),
        meta: None,
        kind: ahp_types::commands::CompletionItemKind::UserMessage,
        text: "@n.m".into(),
        offset: 4,
    };
    let res = f.svc.completions(std::slice::from_ref(&f.ws), &params)?;
    assert_eq!(res.items.first().map(|i| i.insert_text.as_str()), Some("@sub/deeper/n.md"));
    // A root that is no trusted working directory is not indexed.
    std::fs::write(f.root.join("outside/n.md"), "")?;
    let res = f.svc.completions(&[f.root.join("outside")], &params)?;
    assert!(res.items.is_empty(), "{:?}", res.items);
    Ok(())
}
