//! `hangar serve --web` against a real listener (in this process, plain
//! HTTP on loopback, real files in a temporary data directory): the page's
//! security headers, the `Host` and `Origin` checks, `/pair` once per code,
//! `/ipc` refused without a token, and the AHP endpoint on the same port
//! working as before.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a failed unwrap is a failed test")]

use std::net::SocketAddr;

use hangar_cli::serve::{host_config, listen, ServeArgs};
use hangar_host::server::pairing_codes::PairingCodes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Send `request` (a full HTTP/1.1 request) and read the answer until the
/// server closes (`Connection: close`).
async fn http(addr: SocketAddr, request: String) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let read = tokio::time::timeout(std::time::Duration::from_secs(20), stream.read_to_end(&mut out)).await;
    read.expect("the server answered and closed").unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn get(addr: SocketAddr, path: &str, extra: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n")
}

fn post_pair(addr: SocketAddr, code: &str) -> String {
    let body = format!(r#"{{"code":"{code}"}}"#);
    format!(
        "POST /pair HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn status(response: &str) -> &str {
    response.split(' ').nth(1).unwrap_or("")
}

fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    let head = response.split("\r\n\r\n").next()?;
    head.lines().find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_listener_checks_and_heads_every_request() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let args =
        ServeArgs::try_parse(&["--web", "--listen", "127.0.0.1:0", "--data-dir", data, "--no-discover"]).unwrap();
    let mut listening = listen(host_config(args).unwrap()).await.unwrap();
    let _web = listening.add_web().await.unwrap();
    let addr: SocketAddr = listening.url.trim_start_matches("ws://").trim_end_matches('/').parse().unwrap();
    let token = std::fs::read_to_string(dir.path().join("token")).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(listening.serve(async {
        let _ = stopped.await;
    }));

    let page = http(addr, get(addr, "/", "")).await;
    assert_eq!(status(&page), "200", "{page}");
    let csp = header(&page, "content-security-policy").unwrap();
    assert!(csp.starts_with("default-src 'self'; script-src 'self'"), "{csp}");
    assert!(csp.contains(&format!("connect-src 'self' ws://{addr}")), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(header(&page, "x-content-type-options"), Some("nosniff"));
    assert_eq!(header(&page, "referrer-policy"), Some("no-referrer"));
    assert_eq!(header(&page, "cache-control"), Some("no-store"));
    assert!(header(&page, "content-type").unwrap().starts_with("text/html"));

    let own = http(addr, get(addr, "/", &format!("Origin: http://{addr}\r\n"))).await;
    assert_eq!(status(&own), "200", "its own origin");
    let evil = http(addr, get(addr, "/", "Origin: https://evil.example\r\n")).await;
    assert_eq!(status(&evil), "403", "another origin: {evil}");
    let rebound = http(addr, "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n".into()).await;
    assert_eq!(status(&rebound), "403", "a non-loopback Host on a loopback listener");

    // `Connection: Upgrade, close`: a refused upgrade's answer ends the connection.
    let upgrade = |protocols: &str| {
        format!(
            "GET /ipc HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade, close\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             {protocols}\r\n"
        )
    };
    assert_eq!(status(&http(addr, upgrade("")).await), "401", "/ipc without a token");
    let bad = http(addr, upgrade("Sec-WebSocket-Protocol: hangar-ipc, hangar-token.nope\r\n")).await;
    assert_eq!(status(&bad), "403", "/ipc with a wrong token");

    let codes = PairingCodes::in_data_dir(dir.path());
    let code = codes.mint("phone", jiff::Timestamp::now().as_second()).unwrap();
    assert_eq!(status(&http(addr, post_pair(addr, "WRONGWRONG")).await), "403", "a wrong code");
    let paired = http(addr, post_pair(addr, &code)).await;
    assert_eq!(status(&paired), "200", "{paired}");
    let body: serde_json::Value = serde_json::from_str(paired.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["device"], "phone");
    let device_token = body["token"].as_str().unwrap().to_owned();
    assert_eq!(status(&http(addr, post_pair(addr, &code)).await), "403", "a used code, the same answer");
    let good = upgrade(&format!("Sec-WebSocket-Protocol: hangar-ipc, hangar-token.{device_token}\r\n"));
    // The upgrade succeeds (101) and the socket stays open: read the head only.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(good.as_bytes()).await.unwrap();
    let mut head = [0u8; 256];
    let n = stream.read(&mut head).await.unwrap();
    let head = String::from_utf8_lossy(&head[..n]);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    assert!(head.to_ascii_lowercase().contains("sec-websocket-protocol: hangar-ipc"), "{head}");

    // The AHP endpoint on the same port, with the host's token, as before.
    let (mut ahp, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/?tkn={}", token.trim())).await.unwrap();
    use futures_util::{SinkExt, StreamExt};
    let hello = serde_json::json!({"jsonrpc": "2.0", "id": "1", "method": "initialize", "params":
        {"channel": ahp_types::ROOT_RESOURCE_URI, "protocolVersions": ["1.0.0"], "clientId": "web-test"}});
    ahp.send(tokio_tungstenite::tungstenite::Message::Text(hello.to_string().into())).await.unwrap();
    let answer = ahp.next().await.unwrap().unwrap().into_text().unwrap();
    assert!(answer.contains(r#""id":"1""#) && answer.contains("result"), "{answer}");

    let _ = stop.send(());
    server.await.unwrap();
}
