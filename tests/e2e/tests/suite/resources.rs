//! The file-system surface over a real socket with the official client:
//! every operation, every error code, escape attempts refused while the
//! connection keeps working, grants, watches and `@` completions.
//! Host processes: each gets a `HOME` of its own (the defaults of browse
//! roots, grant policy and protected folders derive from it), and watches
//! are counted on the host process's inotify descriptors.

use ahp::{Client, ClientError, ResourceRequestHandlers, SubscriptionEvent};
use ahp_types::commands::{ResourceRequestParams, ResourceRequestResult};
use ahp_types::JsonRpcError;
use hangar_e2e::{Launch, RawClient, TestHost, WAIT};
use serde_json::{json, Value};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

const ROOT: &str = "ahp-root://";

struct Fixture {
    _home: tempfile::TempDir,
    home: std::path::PathBuf,
    proj: std::path::PathBuf,
    host: TestHost,
    client: Client,
    chat: String,
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

async fn setup() -> Fixture {
    setup_with(|_| Vec::new()).await
}

/// A host on a temporary HOME (with a project, a folder elsewhere and a
/// `.ssh`), started with the flags `extra` gives for that home, one client
/// and a session on the project.
async fn setup_with(extra: impl FnOnce(&Path) -> Vec<String>) -> Fixture {
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path().canonicalize().unwrap();
    let proj = home.join("proj");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::write(proj.join("hello.txt"), "hello world\n").unwrap();
    std::fs::write(proj.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(proj.join("logo.bin"), [0u8, 159, 146, 150, 255]).unwrap();
    std::fs::write(proj.join(".gitignore"), "target/\n").unwrap();
    std::fs::create_dir_all(proj.join("target")).unwrap();
    std::fs::write(proj.join("target/main.o"), "obj").unwrap();
    std::os::unix::fs::symlink("/etc", proj.join("etc-link")).unwrap();
    std::fs::create_dir_all(home.join("elsewhere")).unwrap();
    std::fs::write(home.join("elsewhere/notes.md"), "# notes\n").unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY\n").unwrap();
    let data = home.join(".hangar-data");
    let extra = extra(&home);
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let host = TestHost::try_start_in(Launch::Process(&[("HOME", home.to_str().unwrap())]), &data, &extra).unwrap();
    let (client, init) = hangar_e2e::initialized(&host, "files").await;
    assert_eq!(init.completion_trigger_characters, Some(vec!["@".to_owned(), "/".to_owned()]));
    assert_eq!(init.default_directory, Some(uri(&home)));
    let _: Value = client
        .request("createSession", json!({"channel": "ahp-session:/files", "workingDirectories": [uri(&proj)]}))
        .await
        .unwrap();
    let snap: Value = client.request("subscribe", json!({"channel": "ahp-session:/files"})).await.unwrap();
    let chat = snap["snapshot"]["state"]["defaultChat"].as_str().unwrap().to_owned();
    Fixture { _home: home_dir, home, proj, host, client, chat }
}

async fn call(c: &Client, method: &str, params: Value) -> Result<Value, (i32, Value)> {
    let mut params = params;
    params["channel"] = json!(ROOT);
    match c.request::<_, Value>(method, params).await {
        Ok(v) => Ok(v),
        Err(ClientError::Rpc(e)) => Err((e.code, e.data.unwrap_or(Value::Null))),
        Err(other) => panic!("transport failure: {other}"),
    }
}

async fn create_session(c: &Client, channel: &str, dir: &str) -> Result<Value, (i32, Value)> {
    match c.request::<_, Value>("createSession", json!({"channel": channel, "workingDirectories": [dir]})).await {
        Ok(v) => Ok(v),
        Err(ClientError::Rpc(e)) => Err((e.code, e.data.unwrap_or(Value::Null))),
        Err(other) => panic!("transport failure: {other}"),
    }
}

fn code(r: Result<Value, (i32, Value)>) -> i32 {
    match r {
        Ok(v) => panic!("expected an error, got {v}"),
        Err((code, _)) => code,
    }
}

#[tokio::test]
async fn every_operation_and_error_code() {
    let f = setup().await;
    let c = &f.client;
    let hello = uri(&f.proj.join("hello.txt"));

    let read = call(c, "resourceRead", json!({"uri": hello})).await.unwrap();
    assert_eq!(read["data"], "hello world\n");
    assert_eq!(read["encoding"], "utf-8");
    let bin =
        call(c, "resourceRead", json!({"uri": uri(&f.proj.join("logo.bin")), "encoding": "base64"})).await.unwrap();
    assert_eq!(bin["data"], "AJ+Slv8=");

    let stat = call(c, "resourceResolve", json!({"uri": hello})).await.unwrap();
    let etag = stat["etag"].as_str().unwrap().to_owned();
    assert_eq!(stat["size"], 12);
    call(c, "resourceWrite", json!({"uri": hello, "data": "hello ACP\n", "encoding": "utf-8", "ifMatch": etag}))
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(f.proj.join("hello.txt")).unwrap(), "hello ACP\n");
    assert_eq!(
        code(call(c, "resourceWrite", json!({"uri": hello, "data": "x", "encoding": "utf-8", "ifMatch": etag})).await),
        -32011
    );
    call(c, "resourceWrite", json!({"uri": hello, "data": "more\n", "encoding": "utf-8", "mode": "append"}))
        .await
        .unwrap();
    call(
        c,
        "resourceWrite",
        json!({"uri": hello, "data": ">> ", "encoding": "utf-8", "mode": "insert", "position": 0}),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(f.proj.join("hello.txt")).unwrap(), ">> hello ACP\nmore\n");
    assert_eq!(
        code(
            call(c, "resourceWrite", json!({"uri": hello, "data": "x", "encoding": "utf-8", "createOnly": true})).await
        ),
        -32010
    );

    let listed = call(c, "resourceList", json!({"uri": uri(&f.proj)})).await.unwrap();
    let names: Vec<&str> = listed["entries"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"hello.txt") && names.contains(&"src"), "{names:?}");
    assert!(call(c, "resourceList", json!({"uri": hello})).await.is_err(), "listing a file is an error");
    assert_eq!(code(call(c, "resourceList", json!({"uri": uri(&f.proj.join("nope"))})).await), -32008);

    call(c, "resourceMkdir", json!({"uri": uri(&f.proj.join("a/b/c"))})).await.unwrap();
    assert!(f.proj.join("a/b/c").is_dir());
    let copy = uri(&f.proj.join("a/copy.txt"));
    call(c, "resourceCopy", json!({"source": hello, "destination": copy})).await.unwrap();
    assert_eq!(
        code(call(c, "resourceCopy", json!({"source": hello, "destination": copy, "failIfExists": true})).await),
        -32010
    );
    let moved = uri(&f.proj.join("a/b/moved.txt"));
    call(c, "resourceMove", json!({"source": copy, "destination": moved})).await.unwrap();
    assert!(f.proj.join("a/b/moved.txt").exists() && !f.proj.join("a/copy.txt").exists());
    assert_eq!(
        code(call(c, "resourceMove", json!({"source": moved, "destination": hello, "failIfExists": true})).await),
        -32010
    );
    assert_eq!(code(call(c, "resourceDelete", json!({"uri": uri(&f.proj.join("a"))})).await), -32602);
    call(c, "resourceDelete", json!({"uri": uri(&f.proj.join("a")), "recursive": true})).await.unwrap();
    assert!(!f.proj.join("a").exists());
    assert_eq!(code(call(c, "resourceResolve", json!({"uri": uri(&f.proj.join("a"))})).await), -32008);

    // Folder picking: listing works anywhere under home, reading outside the
    // working directories needs a grant.
    call(c, "resourceList", json!({"uri": uri(&f.home)})).await.unwrap();
    let notes = uri(&f.home.join("elsewhere/notes.md"));
    let denied = call(c, "resourceRead", json!({"uri": notes})).await.unwrap_err();
    assert_eq!(denied.0, -32009);
    assert_eq!(denied.1["request"]["uri"], notes.as_str(), "data.request names the grant that would allow it");
    call(c, "resourceRequest", json!({"uri": uri(&f.home.join("elsewhere")), "read": true})).await.unwrap();
    assert_eq!(call(c, "resourceRead", json!({"uri": notes})).await.unwrap()["data"], "# notes\n");
    let grants = call(c, "x-hangar/listGrants", json!({})).await.unwrap();
    assert_eq!(grants["items"].as_array().unwrap().len(), 1);
    call(c, "x-hangar/revokeGrant", json!({"uri": uri(&f.home.join("elsewhere"))})).await.unwrap();
    assert_eq!(code(call(c, "resourceRead", json!({"uri": notes})).await), -32009, "revoked grants stop working");
    assert_eq!(code(call(c, "resourceRequest", json!({"uri": "file:///etc", "read": true})).await), -32009);
}

#[tokio::test]
async fn escape_attempts_are_refused_and_the_connection_keeps_working() {
    let f = setup().await;
    let c = &f.client;
    let p = f.proj.display().to_string();
    // Each attempt with the exact refusal: -32009 where access is denied,
    // -32602 where the URI itself is malformed (an encoded separator).
    let attempts = [
        (format!("file://{p}/etc-link/passwd"), -32009),
        (format!("file://{p}/../../../../etc/passwd"), -32009),
        (format!("file://{p}/..%2F..%2F..%2Fetc%2Fpasswd"), -32602),
        (format!("file://{p}/%2e%2e/%2e%2e/etc/passwd"), -32009),
        ("file:///etc/passwd".to_owned(), -32009),
        ("file:///dev/zero".to_owned(), -32009),
        ("http://example.com/etc/passwd".to_owned(), -32009),
        ("ahp-session:/files".to_owned(), -32009),
        ("file://evil-host/etc/passwd".to_owned(), -32009),
    ];
    for (attempt, expected) in &attempts {
        assert_eq!(code(call(c, "resourceRead", json!({"uri": attempt})).await), *expected, "read {attempt}");
        let write = call(c, "resourceWrite", json!({"uri": attempt, "data": "pwned", "encoding": "utf-8"})).await;
        assert_eq!(code(write), *expected, "write {attempt}");
        assert_eq!(code(call(c, "resourceResolve", json!({"uri": attempt})).await), *expected, "resolve {attempt}");
    }
    assert_eq!(code(call(c, "resourceList", json!({"uri": format!("file://{p}/etc-link")})).await), -32009);
    c.ping().await.unwrap();
    assert!(!std::fs::read_to_string("/etc/passwd").unwrap_or_default().contains("pwned"));
}

#[tokio::test]
async fn watches_deliver_batched_changes_and_completions_rank_mentions() {
    let f = setup().await;
    let c = &f.client;
    let created = call(c, "createResourceWatch", json!({"uri": uri(&f.proj), "recursive": true})).await.unwrap();
    let channel = created["channel"].as_str().unwrap().to_owned();
    assert!(channel.starts_with("ahp-resource-watch:/"));
    let (snap, mut sub) = c.subscribe(channel.clone()).await.unwrap();
    assert!(snap.snapshot.is_some());
    std::fs::write(f.proj.join("src/new_module.rs"), "pub fn x() {}\n").unwrap();
    let changed = tokio::time::timeout(WAIT, async {
        loop {
            if let Some(SubscriptionEvent::Action(env)) = sub.recv().await {
                let v = serde_json::to_value(&env.action).unwrap();
                if v["type"] == "resourceWatch/changed" && v.to_string().contains("new_module.rs") {
                    return v;
                }
            }
        }
    })
    .await
    .expect("a resourceWatch/changed batch");
    assert!(!changed["changes"].to_string().is_empty());

    // The last unsubscribe releases the watch: its channel is gone.
    c.unsubscribe(channel.clone()).await.unwrap();
    c.ping().await.unwrap();
    let gone = c.request::<_, Value>("subscribe", json!({"channel": channel})).await;
    assert!(matches!(gone, Err(ClientError::Rpc(e)) if e.code == -32008), "the watch was released");

    let items: Value = c
        .request("completions", json!({"channel": f.chat, "kind": "userMessage", "text": "look at @mai", "offset": 12}))
        .await
        .unwrap();
    let first = &items["items"][0];
    assert!(first["attachment"].to_string().contains("src/main.rs"), "{items}");
    assert!(!items.to_string().contains("main.o"), ".gitignore is respected");
    drop(f.host);
}

#[tokio::test]
async fn a_client_cannot_make_the_whole_disk_a_working_directory() {
    let f = setup().await;
    let c = &f.client;
    for (i, dir) in ["file:///", "file:///etc", "file:///proc"].iter().enumerate() {
        let (code, data) = create_session(c, &format!("ahp-session:/grab-{i}"), dir).await.expect_err(dir);
        assert_eq!(code, -32009, "{dir}");
        if *dir != "file:///proc" {
            assert_eq!(data["request"]["uri"], *dir, "data.request names the grant that would allow it");
            assert_eq!(data["request"]["write"], true);
        }
    }
    assert_eq!(code(call(c, "resourceRead", json!({"uri": "file:///etc/passwd"})).await), -32009);
    let w = json!({"uri": "file:///etc/hangar-pwned", "data": "x", "encoding": "utf-8"});
    assert_eq!(code(call(c, "resourceWrite", w).await), -32009);
    // A working directory under the allowed root (home) still works.
    let elsewhere = uri(&f.home.join("elsewhere"));
    create_session(c, "ahp-session:/elsewhere", &elsewhere).await.unwrap();
    let notes = call(c, "resourceRead", json!({"uri": uri(&f.home.join("elsewhere/notes.md"))})).await.unwrap();
    assert_eq!(notes["data"], "# notes\n");
    // Even with home itself as a working directory, credentials stay closed.
    create_session(c, "ahp-session:/home", &uri(&f.home)).await.unwrap();
    let key = uri(&f.home.join(".ssh/id_ed25519"));
    assert_eq!(code(call(c, "resourceRead", json!({"uri": key})).await), -32009);
    // …nor are they offered as @ mentions.
    let snap: Value = c.request("subscribe", json!({"channel": "ahp-session:/home"})).await.unwrap();
    let chat = snap["snapshot"]["state"]["defaultChat"].as_str().unwrap().to_owned();
    let mention = json!({"channel": chat, "kind": "userMessage", "text": "@notes", "offset": 6});
    let items: Value = c.request("completions", mention).await.unwrap();
    assert!(items.to_string().contains("elsewhere/notes.md"), "{items}");
    let mention = json!({"channel": chat, "kind": "userMessage", "text": "@id_ed", "offset": 6});
    let items: Value = c.request("completions", mention).await.unwrap();
    assert!(!items.to_string().contains(".ssh"), "{items}");
}

#[tokio::test]
async fn the_default_host_never_grants_credential_folders() {
    let f = setup().await;
    let c = &f.client;
    let ssh = uri(&f.home.join(".ssh"));
    assert_eq!(code(call(c, "resourceRequest", json!({"uri": ssh, "read": true})).await), -32009);
    // Other folders under home are granted by the default policy.
    call(c, "resourceRequest", json!({"uri": uri(&f.home.join("elsewhere")), "read": true})).await.unwrap();
    let grants = call(c, "x-hangar/listGrants", json!({})).await.unwrap();
    assert_eq!(grants["items"].as_array().unwrap().len(), 1, "{grants}");
}

#[tokio::test]
async fn grant_policy_and_browse_roots_come_from_flags() {
    let roots = tempfile::tempdir().unwrap();
    let picker = roots.path().canonicalize().unwrap();
    std::fs::create_dir_all(picker.join("repo")).unwrap();
    let root_flag = picker.display().to_string();
    let f = setup_with(|home| {
        let proj = home.join("proj").display().to_string();
        ["--grant-policy", "deny", "--browse-root", &root_flag, "--browse-root", &proj].map(str::to_owned).to_vec()
    })
    .await;
    let c = &f.client;
    let denied = call(c, "resourceRequest", json!({"uri": uri(&f.home.join("elsewhere")), "read": true})).await;
    assert_eq!(code(denied), -32009, "--grant-policy deny refuses every request");
    call(c, "resourceList", json!({"uri": uri(&picker)})).await.unwrap();
    assert_eq!(code(call(c, "resourceList", json!({"uri": uri(&f.home.join("elsewhere"))})).await), -32009);
    create_session(c, "ahp-session:/picked", &uri(&picker.join("repo"))).await.unwrap();
    let (code, _) = create_session(c, "ahp-session:/home", &uri(&f.home.join("elsewhere"))).await.unwrap_err();
    assert_eq!(code, -32009, "home is no browse root any more");
}

/// A relative `HOME` is no home: the default grant policy denies instead of
/// granting under whatever folder it resolves to from the host's cwd (the
/// same rule as the default browse roots and protected folders).
#[tokio::test]
async fn a_relative_home_grants_nothing_by_default() {
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(home.join("proj")).unwrap();
    // The host runs in this test's cwd; climb to `/` and back down to `home`.
    let cwd = std::env::current_dir().unwrap();
    let up = "../".repeat(cwd.components().count());
    let relative = format!("{up}{}", home.strip_prefix("/").unwrap().display());
    assert_eq!(cwd.join(&relative).canonicalize().unwrap(), home, "{relative} names the temporary home");
    let data = tempfile::tempdir().unwrap();
    let host = TestHost::try_start_in(Launch::Process(&[("HOME", relative.as_str())]), data.path(), &[]).unwrap();
    let (c, _init) = hangar_e2e::initialized(&host, "files").await;
    let asked = call(&c, "resourceRequest", json!({"uri": uri(&home.join("proj")), "read": true})).await;
    assert_eq!(code(asked), -32009);
}

/// Under `--grant-policy ask` the host asks a connected client with its own
/// `resourceRequest` and grants what it accepts; a refusal, or silence past
/// the timeout, is `-32009`.
#[tokio::test]
async fn grant_policy_ask_asks_a_connected_client() {
    let f =
        setup_with(|_| ["--grant-policy", "ask", "--grant-ask-timeout-secs", "10"].map(str::to_owned).to_vec()).await;
    let c = &f.client;
    let (desktop, _) = hangar_e2e::initialized(&f.host, "desktop").await;
    let asked = Arc::new(Mutex::new(Vec::<ResourceRequestParams>::new()));
    let seen = asked.clone();
    desktop.set_resource_request_handlers(ResourceRequestHandlers::new().on_resource_request(
        move |p: ResourceRequestParams| {
            let accept = p.uri.ends_with("/elsewhere");
            seen.lock().unwrap().push(p);
            async move {
                match accept {
                    true => Ok(ResourceRequestResult {}),
                    false => Err(JsonRpcError { code: -32009, message: "the user said no".into(), data: None }),
                }
            }
        },
    ));
    std::fs::create_dir_all(f.home.join("private")).unwrap();
    std::fs::write(f.home.join("private/diary.txt"), "dear diary\n").unwrap();
    let notes = uri(&f.home.join("elsewhere/notes.md"));
    let diary = uri(&f.home.join("private/diary.txt"));
    assert_eq!(code(call(c, "resourceRead", json!({"uri": notes})).await), -32009, "nothing granted yet");

    // The desktop accepts: the grant is recorded and reading works.
    call(c, "resourceRequest", json!({"uri": uri(&f.home.join("elsewhere")), "read": true})).await.unwrap();
    assert_eq!(call(c, "resourceRead", json!({"uri": notes})).await.unwrap()["data"], "# notes\n");
    // The desktop refuses: -32009, and the file stays closed.
    let refused = call(c, "resourceRequest", json!({"uri": uri(&f.home.join("private")), "read": true})).await;
    assert_eq!(code(refused), -32009);
    assert_eq!(code(call(c, "resourceRead", json!({"uri": diary})).await), -32009);
    let asked_uris: Vec<String> = asked.lock().unwrap().iter().map(|p| p.uri.clone()).collect();
    assert_eq!(asked_uris, [uri(&f.home.join("elsewhere")), uri(&f.home.join("private"))]);
    assert!(asked.lock().unwrap().iter().all(|p| p.read == Some(true) && p.write.is_none()));

    // Nobody who answers: the desktop has no handler any more (skipped), a
    // silent client never answers; after the timeout the request is denied.
    desktop.clear_server_request_handler();
    let mut silent = RawClient::initialized(&f.host, "silent").await;
    let request = call(c, "resourceRequest", json!({"uri": uri(&f.home.join("private")), "read": true}));
    let (outcome, received) = tokio::join!(request, async {
        loop {
            let msg = silent.next_json().await.expect("the silent client stays connected");
            if msg["method"] == "resourceRequest" {
                return msg;
            }
        }
    });
    assert_eq!(code(outcome), -32009, "no answer in time means no");
    assert_eq!(received["params"]["uri"], uri(&f.home.join("private")));
    assert_eq!(code(call(c, "resourceRead", json!({"uri": diary})).await), -32009);
    let grants = call(c, "x-hangar/listGrants", json!({})).await.unwrap();
    assert_eq!(grants["items"].as_array().unwrap().len(), 1, "only the accepted grant: {grants}");

    // A client active on a session is asked before the others.
    desktop.set_resource_request_handlers(
        ResourceRequestHandlers::new().on_resource_request(|_| async { Ok(ResourceRequestResult {}) }),
    );
    let (active, _) = hangar_e2e::initialized(&f.host, "active").await;
    let me = json!({"clientId": "active", "tools": []});
    let _: Value =
        active.request("createSession", json!({"channel": "ahp-session:/active", "activeClient": me})).await.unwrap();
    active.set_resource_request_handlers(ResourceRequestHandlers::new().on_resource_request(|_| async {
        Err(JsonRpcError { code: -32009, message: "not from this window".into(), data: None })
    }));
    let private = json!({"uri": uri(&f.home.join("private")), "read": true});
    assert_eq!(code(call(c, "resourceRequest", private.clone()).await), -32009, "the active client said no");
    // Without a handler there it is skipped, and the desktop says yes.
    active.clear_server_request_handler();
    call(c, "resourceRequest", private).await.unwrap();
    assert_eq!(call(c, "resourceRead", json!({"uri": diary})).await.unwrap()["data"], "dear diary\n");
}

/// inotify watches the host process holds now (its resource watches' notify
/// watchers): a side-effect-free look at whether a watch was released.
fn inotify_watches(host: &TestHost) -> usize {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{}/fdinfo", host.pid())) else {
        return 0;
    };
    let infos = fds.flatten().map(|fd| std::fs::read_to_string(fd.path()).unwrap_or_default());
    infos.map(|info| info.lines().filter(|l| l.starts_with("inotify wd:")).count()).sum()
}

/// The host's inotify watches once the count has held still for 300 ms
/// (a session's change tracker starts its watcher in the background).
async fn settled_inotify_watches(host: &TestHost) -> usize {
    let deadline = tokio::time::Instant::now() + WAIT;
    let (mut last, mut since) = (inotify_watches(host), tokio::time::Instant::now());
    while since.elapsed() < std::time::Duration::from_millis(300) {
        assert!(tokio::time::Instant::now() < deadline, "the host's inotify watches never settled");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let now = inotify_watches(host);
        if now != last {
            (last, since) = (now, tokio::time::Instant::now());
        }
    }
    last
}

/// Wait until the host holds exactly `n` inotify watches.
async fn wait_for_inotify_watches(host: &TestHost, n: usize) {
    let waited = tokio::time::timeout(WAIT, async {
        while inotify_watches(host) != n {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
    assert!(waited.await.is_ok(), "the host holds {} inotify watches, expected {n}", inotify_watches(host));
}

async fn subscribe_code(c: &Client, channel: &str) -> Option<i32> {
    match c.request::<_, Value>("subscribe", json!({"channel": channel})).await {
        Ok(_) => None,
        Err(ClientError::Rpc(e)) => Some(e.code),
        Err(other) => panic!("transport failure: {other}"),
    }
}

#[tokio::test]
async fn a_watch_lives_while_anyone_subscribes_and_goes_with_its_connections() {
    let f = setup().await;
    let c = &f.client;
    // The session's own change tracking watches its folder from a thread
    // started at `subscribe`: count from once that has settled.
    let before = settled_inotify_watches(&f.host).await;
    let src = uri(&f.proj.join("src"));
    let watch = |c| {
        let params = json!({"uri": src, "recursive": true});
        async move { call(c, "createResourceWatch", params).await.unwrap()["channel"].as_str().unwrap().to_owned() }
    };

    // Two subscribers; the creator leaves, the other one still gets changes.
    let channel = watch(c).await;
    let (other, _) = hangar_e2e::initialized(&f.host, "other").await;
    let (_, mut other_sub) = other.subscribe(channel.clone()).await.unwrap();
    let _ = c.subscribe(channel.clone()).await.unwrap();
    c.unsubscribe(channel.clone()).await.unwrap();
    std::fs::write(f.proj.join("src/still_watched.rs"), "").unwrap();
    let env = hangar_e2e::wait_for_action(&mut other_sub, |e| {
        serde_json::to_value(&e.action).unwrap().to_string().contains("still_watched.rs")
    })
    .await;
    assert_eq!(hangar_e2e::action_type(&env), "resourceWatch/changed");
    // The last subscriber's connection drops: the watch is released.
    assert!(inotify_watches(&f.host) > before);
    drop(other_sub);
    drop(other);
    wait_for_inotify_watches(&f.host, before).await;
    assert_eq!(subscribe_code(c, &channel).await, Some(-32008), "the watch channel is gone");

    // Created but never subscribed: released when its creator's connection closes.
    let (creator, _) = hangar_e2e::initialized(&f.host, "creator").await;
    let orphan = watch(&creator).await;
    assert!(inotify_watches(&f.host) > before);
    drop(creator);
    wait_for_inotify_watches(&f.host, before).await;
    assert_eq!(subscribe_code(c, &orphan).await, Some(-32008), "the unsubscribed watch is gone");
}

#[tokio::test]
async fn watches_per_connection_are_capped() {
    let f = setup_with(|_| ["--max-watches-per-connection", "2"].map(str::to_owned).to_vec()).await;
    let c = &f.client;
    let params = json!({"uri": uri(&f.proj), "recursive": false});
    let first = call(c, "createResourceWatch", params.clone()).await.unwrap();
    call(c, "createResourceWatch", params.clone()).await.unwrap();
    let (code, data) = call(c, "createResourceWatch", params.clone()).await.unwrap_err();
    assert_eq!((code, data["limit"].as_u64()), (-32600, Some(2)), "{data}");
    // Another connection has its own allowance; releasing one frees a slot.
    let (other, _) = hangar_e2e::initialized(&f.host, "other").await;
    call(&other, "createResourceWatch", params.clone()).await.unwrap();
    let first = first["channel"].as_str().unwrap().to_owned();
    let _ = c.subscribe(first.clone()).await.unwrap();
    c.unsubscribe(first).await.unwrap();
    c.ping().await.unwrap();
    call(c, "createResourceWatch", params).await.unwrap();
}

#[tokio::test]
async fn write_modes_resolve_delete_and_mkdir_over_the_socket() {
    let f = setup().await;
    let c = &f.client;
    let file = uri(&f.proj.join("modes.txt"));
    let write = |data: &str, extra: Value| {
        let mut params = json!({"uri": file, "data": data, "encoding": "utf-8"});
        params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        params
    };
    let on_disk = || std::fs::read_to_string(f.proj.join("modes.txt")).unwrap();

    // Base64 in, exact bytes on disk.
    let b64 = json!({"uri": uri(&f.proj.join("blob.bin")), "data": "AP8BAg==", "encoding": "base64"});
    call(c, "resourceWrite", b64).await.unwrap();
    assert_eq!(std::fs::read(f.proj.join("blob.bin")).unwrap(), [0u8, 255, 1, 2]);

    // Truncate at a position keeps the bytes before it; append with a
    // position writes that many bytes before the end.
    call(c, "resourceWrite", write("0123456789", json!({}))).await.unwrap();
    call(c, "resourceWrite", write("ab", json!({"mode": "truncate", "position": 4}))).await.unwrap();
    assert_eq!(on_disk(), "0123ab");
    call(c, "resourceWrite", write("--", json!({"mode": "append", "position": 1}))).await.unwrap();
    assert_eq!(on_disk(), "0123a--b");
    let past_end = write("x", json!({"mode": "truncate", "position": 99}));
    assert_eq!(code(call(c, "resourceWrite", past_end).await), -32602);
    assert_eq!(on_disk(), "0123a--b", "a refused write changes nothing");

    // Resolve without following: the link itself, even though it points out.
    let link = uri(&f.proj.join("etc-link"));
    let stat = call(c, "resourceResolve", json!({"uri": link, "followSymlinks": false})).await.unwrap();
    assert_eq!((stat["type"].as_str(), stat["uri"].as_str()), (Some("symlink"), Some(link.as_str())));
    assert_eq!(code(call(c, "resourceResolve", json!({"uri": link})).await), -32009, "following it leads out");

    // Deleting a single file; then it is gone.
    call(c, "resourceDelete", json!({"uri": file})).await.unwrap();
    assert!(!f.proj.join("modes.txt").exists());
    assert_eq!(code(call(c, "resourceResolve", json!({"uri": file})).await), -32008);

    // mkdir over an existing file is -32010; over a folder it is fine (mkdir -p).
    let hello = uri(&f.proj.join("hello.txt"));
    assert_eq!(code(call(c, "resourceMkdir", json!({"uri": hello})).await), -32010);
    assert!(f.proj.join("hello.txt").is_file());
    call(c, "resourceMkdir", json!({"uri": uri(&f.proj.join("src"))})).await.unwrap();
}

#[tokio::test]
async fn hard_links_proc_devices_long_and_non_utf8_names() {
    let f = setup().await;
    let c = &f.client;
    // A hard link in the project to the private key: neither read, nor
    // written through, nor copied.
    std::fs::hard_link(f.home.join(".ssh/id_ed25519"), f.proj.join("innocent.txt")).unwrap();
    let linked = uri(&f.proj.join("innocent.txt"));
    assert_eq!(code(call(c, "resourceRead", json!({"uri": linked})).await), -32009);
    let write = call(c, "resourceWrite", json!({"uri": linked, "data": "pwned", "encoding": "utf-8"})).await;
    assert_eq!(code(write), -32009);
    let copy = call(c, "resourceCopy", json!({"source": linked, "destination": uri(&f.proj.join("copy.txt"))})).await;
    assert!(copy.is_err(), "{copy:?}");
    assert!(!f.proj.join("copy.txt").exists());
    assert_eq!(std::fs::read_to_string(f.home.join(".ssh/id_ed25519")).unwrap(), "PRIVATE KEY\n");

    // /proc and device files, directly and through a link in the project.
    std::os::unix::fs::symlink("/dev/zero", f.proj.join("zero")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", f.proj.join("env")).unwrap();
    for target in ["file:///proc/self/environ", "file:///proc/1/mem", "file:///dev/random"] {
        assert_eq!(code(call(c, "resourceRead", json!({"uri": target})).await), -32009, "{target}");
    }
    for link in ["zero", "env"] {
        let u = uri(&f.proj.join(link));
        assert_eq!(code(call(c, "resourceRead", json!({"uri": u})).await), -32009, "{link}");
    }

    // A name longer than the file system allows: a clear error, not a crash.
    let long = uri(&f.proj.join("n".repeat(300)));
    let long_write = call(c, "resourceWrite", json!({"uri": long, "data": "x", "encoding": "utf-8"})).await;
    let long_code = code(long_write);
    assert!([-32602, -32603].contains(&long_code), "{long_code}");
    // A non-UTF-8 name inside the project is served byte-exact; outside it is refused.
    let odd = format!("{}/caf%E9-%FF.txt", uri(&f.proj));
    call(c, "resourceWrite", json!({"uri": odd, "data": "latin-1 name", "encoding": "utf-8"})).await.unwrap();
    let on_disk = std::ffi::OsStr::from_bytes(b"caf\xe9-\xff.txt");
    assert_eq!(std::fs::read_to_string(f.proj.join(on_disk)).unwrap(), "latin-1 name");
    let read = call(c, "resourceRead", json!({"uri": odd})).await.unwrap();
    assert_eq!(read["data"], "latin-1 name");
    let outside = format!("{}/%FF.txt", uri(&f.home.join(".ssh")));
    assert_eq!(code(call(c, "resourceRead", json!({"uri": outside})).await), -32009);
    c.ping().await.unwrap();
}
