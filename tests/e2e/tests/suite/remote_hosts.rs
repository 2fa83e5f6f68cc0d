//! Remote hosts over real processes (issue 14): `hangar serve` hosts on
//! loopback (one `wss://` with a self-signed certificate), device tokens
//! from `hangar token`, saved with `hangar remote add` into a real Secret
//! Service; a revoked device token is refused and its open connection
//! closed; a changed certificate is refused; the self-signed certificate
//! is made again when the machine's addresses change (and said so); no
//! token is on disk in plain text.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use ahp::{Client, ClientConfig};
use hangar_e2e::{files_containing, hangar_bin, Launch, RawClient, SecretService, TestHost};
use hangar_remote::{ConnectError, Fingerprint};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Error as WsError;

/// Run `hangar ARGS` with `env` (and `XDG_CONFIG_HOME` = `config`), feeding `stdin`.
fn hangar(args: &[&str], config: &Path, env: &[(String, String)], stdin: &str) -> Output {
    let mut cmd = Command::new(hangar_bin());
    // Never the developer's own session bus or keyring: only the test's (in `env`), if any.
    cmd.args(args).env("XDG_CONFIG_HOME", config);
    for var in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "XDG_RUNTIME_DIR"] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// `hangar ARGS` that must succeed; its stdout.
fn ok(args: &[&str], config: &Path, env: &[(String, String)], stdin: &str) -> String {
    let out = hangar(args, config, env, stdin);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hangar {args:?} failed: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// `hangar ARGS` that must fail; its stderr.
fn fails(args: &[&str], config: &Path, env: &[(String, String)], stdin: &str) -> String {
    let out = hangar(args, config, env, stdin);
    assert!(!out.status.success(), "hangar {args:?} should have failed: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stderr).unwrap()
}

/// A device token minted on `host`'s data directory.
fn device_token(host: &TestHost, name: &str) -> String {
    let data_dir = host.data_dir.display().to_string();
    ok(&["token", "create", name, "--data-dir", &data_dir], &host.data_dir, &[], "").trim().to_owned()
}

fn tls_fingerprint(host: &TestHost) -> String {
    let ready: Value = serde_json::from_str(&host.ready_line).unwrap();
    ready["tlsFingerprint"].as_str().unwrap_or_else(|| panic!("no tlsFingerprint in {}", host.ready_line)).to_owned()
}

fn initialize() -> Value {
    json!({"channel": "ahp-root://", "protocolVersions": ["1.0.0"], "clientId": "device"})
}

#[tokio::test]
async fn remote_add_keeps_both_hosts_tokens_in_the_keyring_and_none_on_disk() {
    let Some(keyring) = SecretService::start() else { return };
    let plain = TestHost::start(Launch::Process(&[]), &[]);
    let tls = TestHost::start(Launch::Process(&[]), &["--tls-self-signed"]);
    assert!(plain.url.starts_with("ws://") && tls.url.starts_with("wss://"), "{} {}", plain.url, tls.url);
    let fingerprint = tls_fingerprint(&tls);
    let (plain_token, tls_token) = (device_token(&plain, "laptop"), device_token(&tls, "laptop"));
    let config = tempfile::tempdir().unwrap();
    let env = keyring.env();
    let cfg = config.path();

    ok(&["remote", "add", "plain", &plain.url, "--token-stdin"], cfg, &env, &plain_token);
    let tls_args = ["remote", "add", "tls", &tls.url, "--token-stdin", "--accept-fingerprint", &fingerprint];
    ok(&tls_args, cfg, &env, &tls_token);

    let listed: Value = serde_json::from_str(&ok(&["remote", "list", "--json"], cfg, &env, "")).unwrap();
    let hosts = listed.as_array().unwrap();
    assert_eq!(hosts.len(), 2, "{listed}");
    assert_eq!((hosts[0]["name"].as_str(), hosts[0]["url"].as_str()), (Some("plain"), Some(plain.url.as_str())));
    assert_eq!(hosts[0].get("fingerprint"), None, "a ws:// host pins nothing");
    assert_eq!(hosts[1]["fingerprint"].as_str(), Some(fingerprint.as_str()));
    assert!(hosts.iter().all(|h| h["tokenStorage"] == "keyring"), "{listed}");
    let table = ok(&["remote", "list"], cfg, &env, "");
    assert!(table.contains(&plain.url) && table.contains(&fingerprint), "{table}");

    // Each token comes back out of the keyring in a later process, and works.
    ok(&["remote", "check", "plain"], cfg, &env, "");
    ok(&["remote", "check", "tls"], cfg, &env, "");

    // No token in plain text in the config dir, the hosts' data dirs, or the keyring's own files.
    for dir in [cfg, plain.data_dir.as_path(), tls.data_dir.as_path(), keyring.home()] {
        for token in [&plain_token, &tls_token] {
            assert_eq!(
                files_containing(dir, token),
                Vec::<String>::new(),
                "token in plain text under {}",
                dir.display()
            );
        }
    }

    // rename keeps the token; remove takes it out of the keyring too.
    ok(&["remote", "rename", "plain", "desk"], cfg, &env, "");
    ok(&["remote", "check", "desk"], cfg, &env, "");
    ok(&["remote", "remove", "desk"], cfg, &env, "");
    assert!(fails(&["remote", "check", "desk"], cfg, &env, "").contains("no saved host named \"desk\""));
    let listed: Value = serde_json::from_str(&ok(&["remote", "list", "--json"], cfg, &env, "")).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
}

#[tokio::test]
async fn without_a_keyring_remote_add_says_what_to_install_and_saves_nothing() {
    let host = TestHost::start(Launch::Process(&[]), &[]);
    let token = device_token(&host, "laptop");
    let config = tempfile::tempdir().unwrap();
    let cfg = config.path();
    // No session bus: no Secret Service.
    let err = fails(&["remote", "add", "h", &host.url, "--token-stdin"], cfg, &[], &token);
    assert!(
        err.contains("no OS keyring") && err.contains("gnome-keyring") && err.contains("--insecure-token-file"),
        "{err}"
    );
    let listed: Value = serde_json::from_str(&ok(&["remote", "list", "--json"], cfg, &[], "")).unwrap();
    assert_eq!(listed, json!([]));
    assert_eq!(files_containing(cfg, &token), Vec::<String>::new());

    // The explicit opt-in: a 0600 file, and the host works.
    ok(&["remote", "add", "h", &host.url, "--token-stdin", "--insecure-token-file"], cfg, &[], &token);
    let files = files_containing(cfg, &token);
    assert_eq!(files.len(), 1, "{files:?}");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&files[0]).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    ok(&["remote", "check", "h"], cfg, &[], "");
}

#[tokio::test]
async fn a_revoked_device_token_is_refused_and_its_open_connection_closed() {
    let host = TestHost::start(Launch::Process(&[]), &[]);
    let token = device_token(&host, "phone");
    let other = device_token(&host, "tablet");
    let mut phone = RawClient::connect(&format!("{}?tkn={token}", host.url)).await.unwrap();
    let reply = phone.request(json!(1), "initialize", initialize()).await;
    assert!(reply.get("result").is_some(), "{reply}");
    let mut tablet = RawClient::connect(&format!("{}?tkn={other}", host.url)).await.unwrap();
    tablet.request(json!(1), "initialize", initialize()).await;
    let mut owner = RawClient::initialized(&host, "owner").await;

    let data_dir = host.data_dir.display().to_string();
    let listed = ok(&["token", "list", "--data-dir", &data_dir, "--json"], &host.data_dir, &[], "");
    assert!(listed.contains("\"phone\"") && !listed.contains(&token), "{listed}");
    ok(&["token", "revoke", "phone", "--data-dir", &data_dir], &host.data_dir, &[], "");

    phone.expect_closed().await;
    match RawClient::connect(&format!("{}?tkn={token}", host.url)).await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), 403),
        other => panic!("a revoked token must be refused, got {:?}", other.map(|_| "a connection")),
    }
    let refused = hangar_remote::connect(&host.url, &token, None).await;
    assert!(matches!(refused, Err(ConnectError::TokenRefused { status: 403, .. })), "{refused:?}");
    // The other device and the host's own token are untouched.
    let still = tablet.request(json!(2), "listSessions", json!({"channel": "ahp-root://"})).await;
    assert!(still.get("result").is_some(), "{still}");
    let owner_ok = owner.request(json!(2), "listSessions", json!({"channel": "ahp-root://"})).await;
    assert!(owner_ok.get("result").is_some(), "{owner_ok}");
}

#[tokio::test]
async fn a_changed_certificate_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let args = ["--listen", listen.as_str(), "--tls-self-signed"];
    let mut host = TestHost::start_in(Launch::Process(&[]), data.path(), &args);
    let pinned = tls_fingerprint(&host);
    let token = device_token(&host, "laptop");
    let config = tempfile::tempdir().unwrap();
    let cfg = config.path();

    let wrong = Fingerprint::of_der(b"not the host's certificate").to_string();
    let add = |fingerprint: &str| {
        ["remote", "add", "tls", host.url.as_str(), "--token-stdin", "--insecure-token-file", "--accept-fingerprint"]
            .into_iter()
            .map(str::to_owned)
            .chain([fingerprint.to_owned()])
            .collect::<Vec<_>>()
    };
    let refused = fails(&add(&wrong).iter().map(String::as_str).collect::<Vec<_>>(), cfg, &[], &token);
    assert!(refused.contains(&pinned) && refused.contains("nothing was saved"), "{refused}");
    ok(&add(&pinned).iter().map(String::as_str).collect::<Vec<_>>(), cfg, &[], &token);
    ok(&["remote", "check", "tls"], cfg, &[], "");

    // The desktop's way in: the library's pinned stream under the official AHP client.
    let pin: Fingerprint = pinned.parse().unwrap();
    let stream = hangar_remote::connect(&host.url, &token, Some(pin)).await.unwrap();
    let client =
        Client::connect(ahp_ws::WebSocketTransport::from_stream(stream), ClientConfig::default()).await.unwrap();
    client.initialize("desktop".into(), vec!["1.0.0".into()], vec!["ahp-root://".into()]).await.unwrap();
    client.shutdown().await;

    // Same address, new certificate.
    assert!(host.sigterm().success());
    std::fs::remove_dir_all(data.path().join("tls")).unwrap();
    let host = TestHost::start_in(Launch::Process(&[]), data.path(), &args);
    let changed = tls_fingerprint(&host);
    assert_ne!(changed, pinned);
    let err = fails(&["remote", "check", "tls"], cfg, &[], "");
    assert!(err.contains("different TLS certificate") && err.contains(&pinned) && err.contains(&changed), "{err}");
    let refused = hangar_remote::connect(&host.url, &token, Some(pin)).await;
    match refused {
        Err(ConnectError::CertificateChanged { expected, found, .. }) => {
            assert_eq!((expected, found.to_string()), (pin, changed));
        }
        other => panic!("expected CertificateChanged, got {other:?}"),
    }
}

/// The names the certificate `hangar serve --tls-self-signed` keeps in `data_dir` was made for.
fn certified_names(data_dir: &Path) -> Vec<String> {
    let dir = data_dir.join("tls");
    let pair = hangar_host::server::tls::from_pem_files(&dir.join("cert.pem"), &dir.join("key.pem")).unwrap();
    hangar_host::server::tls_names::names_of(&pair.certificate).unwrap()
}

#[tokio::test]
async fn the_self_signed_certificate_is_made_again_when_the_machines_addresses_change() {
    let data = tempfile::tempdir().unwrap();
    // Listening on every address, the certificate names the machine's ones:
    // given here instead of the network interfaces'.
    let on = |addresses: &'static str| ["--listen", "0.0.0.0:0", "--tls-self-signed", "--machine-addresses", addresses];
    let start = |addresses| TestHost::start_in(Launch::Process(&[]), data.path(), &on(addresses));
    const AGAIN: &str = "made the self-signed TLS certificate again";

    let mut host = start("192.168.1.5");
    let first = tls_fingerprint(&host);
    let printed = host.stop_with("TERM").stderr;
    assert!(printed.contains("made a self-signed TLS certificate") && !printed.contains(AGAIN), "{printed}");
    assert_eq!(certified_names(data.path()), ["localhost", "127.0.0.1", "::1", "192.168.1.5"]);

    // The same addresses: the same pair, nothing said.
    let mut host = start("192.168.1.5");
    assert_eq!(tls_fingerprint(&host), first);
    let printed = host.stop_with("TERM").stderr;
    assert!(!printed.contains("made"), "{printed}");

    // A new address: a new pair, said once with why and the new fingerprint.
    let mut host = start("10.0.0.7");
    let moved = tls_fingerprint(&host);
    assert_ne!(moved, first);
    assert_eq!(certified_names(data.path()), ["localhost", "127.0.0.1", "::1", "10.0.0.7"]);
    let printed = host.stop_with("TERM").stderr;
    let said: Vec<&str> = printed.lines().filter(|l| l.contains(AGAIN)).collect();
    assert_eq!(said.len(), 1, "{printed}");
    assert!(said[0].contains("new address 10.0.0.7 (192.168.1.5 gone)") && said[0].contains(&moved), "{}", said[0]);
    assert!(!said[0].contains(&first), "{}", said[0]);

    // The pinned client of the old pair is told the certificate changed; the new pin connects.
    let host = start("10.0.0.7");
    assert_eq!(tls_fingerprint(&host), moved, "then kept");
    let loopback = host.url.replace("0.0.0.0", "127.0.0.1");
    let refused = hangar_remote::connect(&loopback, &host.token, Some(first.parse().unwrap())).await;
    assert!(matches!(refused, Err(ConnectError::CertificateChanged { .. })), "{:?}", refused.map(|_| "connected"));
    hangar_remote::connect(&loopback, &host.token, Some(moved.parse().unwrap())).await.unwrap();
}
