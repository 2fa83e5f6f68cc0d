//! Settings → *Open from other devices* against the real embedded host and
//! the real listener, through the command table as the UI sends it: off by
//! default; on loopback the page answers only requests naming a loopback
//! `Host` and its own `Origin` (another site's page gets 403), a pairing
//! link works once and Revoke removes the device; the port survives a
//! restart; *on my network* serves only over TLS, with the fingerprint
//! Settings shows being the certificate's; the certificate is made again
//! when this computer's addresses change (given to the listener as a list)
//! and Settings says so with the new fingerprint; a port another program
//! holds is shown as the problem.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a failed unwrap is a failed test")]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hangar_desktop::commands::call_wire;
use hangar_desktop::core::Core;
use hangar_desktop::startup::Started;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn start(dir: &Path) -> Started {
    let args: Vec<String> = ["--no-discover", "--data-dir", &dir.join("data").display().to_string()]
        .into_iter()
        .chain(["--config-dir", &dir.join("config").display().to_string()])
        .map(str::to_owned)
        .collect();
    let options = hangar_desktop::options::AppOptions::from_args(&args).unwrap();
    hangar_desktop::startup::start(&options).await.unwrap()
}

async fn call(core: &Arc<Core>, name: &str, args: Value) -> Result<Value, String> {
    let reply = call_wire(core, name, args, None).await.map_err(|e| e.to_string())?;
    Ok(serde_json::to_value(reply).unwrap())
}

/// Turn *Open from other devices* on (or off) through `settings.save`.
async fn set_access(core: &Arc<Core>, enabled: bool, on_network: bool) {
    let mut settings = call(core, "settings.get", json!({})).await.unwrap()["settings"].clone();
    settings["openFromDevices"]["enabled"] = json!(enabled);
    settings["openFromDevices"]["onNetwork"] = json!(on_network);
    call(core, "settings.save", settings).await.unwrap();
}

/// One request on a fresh connection (`Connection: close`), the whole answer.
async fn send(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut out)).await;
    read.expect("the listener answered and closed").unwrap_or_default();
    String::from_utf8_lossy(&out).into_owned()
}

fn request(method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut r = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    r + "\r\n" + body
}

fn status(answer: &str) -> &str {
    answer.split(' ').nth(1).unwrap_or("")
}

fn served_addr(view: &Value) -> SocketAddr {
    let url = view["url"].as_str().expect("served");
    let host_port = url.split("://").nth(1).unwrap().trim_end_matches('/');
    let port: u16 = host_port.rsplit(':').next().unwrap().parse().unwrap();
    SocketAddr::from(([127, 0, 0, 1], port))
}

#[tokio::test]
async fn on_loopback_only_its_own_origin_pairs_once_revoke_removes_and_the_port_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let started = start(dir.path()).await;
    let core = started.core.clone();
    let off = call(&core, "devices.get", json!({})).await.unwrap();
    assert!(off["url"].is_null(), "off by default: {off}");
    let refused = call(&core, "devices.pair", json!({"name": "phone"})).await.unwrap_err();
    assert!(refused.contains("turn on"), "{refused}");

    set_access(&core, true, false).await;
    let view = call(&core, "devices.get", json!({})).await.unwrap();
    let addr = served_addr(&view);
    assert!(view["url"].as_str().unwrap().starts_with("http://127.0.0.1:"), "{view}");
    assert!(view["fingerprint"].is_null());
    let own = addr.to_string();
    let origin = format!("http://{addr}");

    let page = send(addr, &request("GET", "/", &[("Host", &own)], "")).await;
    assert_eq!(status(&page), "200", "{page}");
    assert!(page.contains("default-src 'self'"), "the page carries its CSP: {page}");
    let foreign = send(addr, &request("GET", "/", &[("Host", &own), ("Origin", "https://evil.example")], "")).await;
    assert_eq!(status(&foreign), "403", "another site's page is refused: {foreign}");
    let rebound = send(addr, &request("GET", "/", &[("Host", "evil.example")], "")).await;
    assert_eq!(status(&rebound), "403", "a non-loopback Host is refused (DNS rebinding): {rebound}");

    let link = call(&core, "devices.pair", json!({"name": "phone"})).await.unwrap();
    let url = link["url"].as_str().unwrap();
    assert!(url.starts_with(view["url"].as_str().unwrap()) && url.contains("#pair="), "{link}");
    assert!(link["qrSvg"].as_str().unwrap().contains("<svg"), "the QR code is an SVG");
    let code = url.split("#pair=").nth(1).unwrap();
    let body = format!(r#"{{"code":"{code}"}}"#);
    let headers = [("Host", own.as_str()), ("Origin", origin.as_str()), ("Content-Type", "application/json")];
    let paired = send(addr, &request("POST", "/pair", &headers, &body)).await;
    assert_eq!(status(&paired), "200", "{paired}");
    let again = send(addr, &request("POST", "/pair", &headers, &body)).await;
    assert_eq!(status(&again), "403", "a code works once: {again}");

    let listed = call(&core, "devices.get", json!({})).await.unwrap();
    assert_eq!(listed["devices"][0]["name"], "phone", "{listed}");
    let revoked = call(&core, "devices.revoke", json!({"name": "phone"})).await.unwrap();
    assert_eq!(revoked["devices"], json!([]), "{revoked}");
    let unknown = call(&core, "devices.revoke", json!({"name": "phone"})).await.unwrap_err();
    assert!(unknown.contains("no device named"), "{unknown}");

    // A restart: served again, on the same port (a paired link stays valid).
    core.device_listener().unwrap().stop().await;
    core.multi().remove_host(&ahp::hosts::HostId::new("local")).await.unwrap();
    drop(core);
    drop(started);
    // The host lets go of its data directory once nothing holds it.
    let lock = dir.path().join("data").join("hangar.lock");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !std::fs::OpenOptions::new().write(true).open(&lock).is_ok_and(|f| f.try_lock().is_ok()) {
        assert!(std::time::Instant::now() < deadline, "the data directory is still locked");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let started = start(dir.path()).await;
    let after = call(&started.core, "devices.get", json!({})).await.unwrap();
    assert_eq!(served_addr(&after), addr, "the same port after a restart: {after}");
}

#[tokio::test]
async fn on_the_network_it_serves_only_over_tls_with_the_fingerprint_shown() {
    let dir = tempfile::tempdir().unwrap();
    let started = start(dir.path()).await;
    let core = started.core.clone();
    set_access(&core, true, true).await;
    let view = call(&core, "devices.get", json!({})).await.unwrap();
    assert!(view["url"].as_str().unwrap().starts_with("https://"), "{view}");
    let shown = view["fingerprint"].as_str().expect("a fingerprint is shown").to_owned();
    let addr = served_addr(&view);
    let presented = hangar_remote::probe_fingerprint(&format!("wss://{addr}/")).await.unwrap();
    assert_eq!(presented.to_string(), shown, "Settings shows the certificate's fingerprint");
    let plain = send(addr, &request("GET", "/", &[("Host", &addr.to_string())], "")).await;
    assert!(!plain.contains("<html"), "no page without TLS: {plain:?}");

    set_access(&core, false, true).await;
    let off = call(&core, "devices.get", json!({})).await.unwrap();
    assert!(off["url"].is_null(), "{off}");
}

/// The fingerprint the listener presents on loopback, `wss://` being TLS.
async fn presented(view: &Value) -> String {
    hangar_remote::probe_fingerprint(&format!("wss://{}/", served_addr(view))).await.unwrap().to_string()
}

#[tokio::test]
async fn a_new_address_gets_a_new_certificate_at_the_next_start_and_settings_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let started = start(dir.path()).await;
    let core = started.core.clone();
    let listener = core.device_listener().expect("the app has a listener");
    let at = |ip: &str| {
        let ip: std::net::IpAddr = ip.parse().unwrap();
        move || vec![ip]
    };
    listener.use_addresses(at("192.168.1.5"));
    set_access(&core, true, true).await;
    let home = call(&core, "devices.get", json!({})).await.unwrap();
    assert!(home["url"].as_str().unwrap().starts_with("https://192.168.1.5:"), "{home}");
    assert!(home["certificateRenewed"].is_null(), "made, not made again: {home}");
    let first = home["fingerprint"].as_str().unwrap().to_owned();
    assert_eq!(presented(&home).await, first);

    // Same addresses at the next start: the same certificate.
    set_access(&core, false, true).await;
    set_access(&core, true, true).await;
    let same = call(&core, "devices.get", json!({})).await.unwrap();
    assert_eq!((same["fingerprint"].as_str(), same["certificateRenewed"].as_null()), (Some(first.as_str()), Some(())));

    // The computer moved to another network: made again for the new address.
    set_access(&core, false, true).await;
    listener.use_addresses(at("10.0.0.7"));
    set_access(&core, true, true).await;
    let moved = call(&core, "devices.get", json!({})).await.unwrap();
    assert!(moved["url"].as_str().unwrap().starts_with("https://10.0.0.7:"), "{moved}");
    let second = moved["fingerprint"].as_str().unwrap().to_owned();
    assert_ne!(second, first, "a new certificate");
    assert_eq!(presented(&moved).await, second, "and it is the one served");
    assert_eq!(moved["certificateRenewed"], "new address 10.0.0.7 (192.168.1.5 gone)");

    // The address it named is gone, none in its place: made again too.
    set_access(&core, false, true).await;
    listener.use_addresses(Vec::new);
    set_access(&core, true, true).await;
    let offline = call(&core, "devices.get", json!({})).await.unwrap();
    assert!(offline["url"].as_str().unwrap().starts_with("https://localhost:"), "{offline}");
    assert_ne!(offline["fingerprint"].as_str(), Some(second.as_str()));
    assert_eq!(offline["certificateRenewed"], "10.0.0.7 no longer this computer's");
}

#[tokio::test]
async fn a_port_taken_by_another_program_is_shown_as_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let started = start(dir.path()).await;
    let core = started.core.clone();
    let squatter = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = squatter.local_addr().unwrap().port();
    let mut settings = call(&core, "settings.get", json!({})).await.unwrap()["settings"].clone();
    settings["openFromDevices"] = json!({"enabled": true, "onNetwork": false, "port": port});
    call(&core, "settings.save", settings).await.unwrap();
    let view = call(&core, "devices.get", json!({})).await.unwrap();
    assert!(view["url"].is_null(), "{view}");
    let problem = view["problem"].as_str().expect("the problem is shown");
    assert!(problem.contains(&format!("127.0.0.1:{port}")), "{problem}");
    drop(squatter);
}
