//! `hangar-fake-agent --mcp-http-server [--mcp-http-token TOKEN]`: the tiny
//! MCP server of `mcp_server.rs` over MCP's streamable HTTP transport, for a
//! Test of an HTTP server. It listens on 127.0.0.1 (a free port), prints
//! `http://127.0.0.1:PORT/mcp` on stdout, and answers each `POST /mcp` with
//! the JSON-RPC answer as `application/json` (202 for a notification), a
//! `GET` (the optional event stream) with 405, and, with a token, any
//! request without `Authorization: Bearer TOKEN` with 401. Written on std
//! alone, as the rest of this binary: HTTP/1.1 with `Content-Length`
//! bodies, keep-alive, one thread per connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use serde_json::Value;

use crate::mcp_server::answer;

/// Serve until killed.
pub fn run(args: &[String]) {
    let token = args.iter().position(|a| a == "--mcp-http-token").and_then(|i| args.get(i + 1)).cloned();
    let listener = match TcpListener::bind("127.0.0.1:0") {
        Ok(l) => l,
        Err(e) => {
            eprintln!("hangar-fake-agent: cannot listen: {e}");
            std::process::exit(3);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
    println!("http://127.0.0.1:{port}/mcp");
    let _ = std::io::stdout().flush();
    for stream in listener.incoming().flatten() {
        let token = token.clone();
        std::thread::spawn(move || serve(stream, token.as_deref()));
    }
}

/// One connection's requests, until it closes.
fn serve(stream: TcpStream, token: Option<&str>) {
    let Ok(mut out) = stream.try_clone() else { return };
    let mut input = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if input.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let (mut length, mut auth) = (0usize, None::<String>);
        loop {
            let mut line = String::new();
            if input.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                match name.trim().to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    "authorization" => auth = Some(value.trim().to_owned()),
                    _ => {}
                }
            }
        }
        let mut body = vec![0u8; length];
        if input.read_exact(&mut body).is_err() {
            return;
        }
        let method = request_line.split_whitespace().next().unwrap_or_default();
        let allowed = token.is_none_or(|t| auth.as_deref() == Some(&format!("Bearer {t}")));
        let (status, reply) = if !allowed {
            ("401 Unauthorized", None)
        } else if method != "POST" {
            ("405 Method Not Allowed", None)
        } else {
            match serde_json::from_slice::<Value>(&body).ok().as_ref().and_then(answer) {
                Some(reply) => ("200 OK", Some(reply.to_string())),
                None => ("202 Accepted", None),
            }
        };
        let body = reply.unwrap_or_default();
        let kind = if body.is_empty() { "" } else { "Content-Type: application/json\r\n" };
        let head = format!("HTTP/1.1 {status}\r\n{kind}Content-Length: {}\r\n\r\n", body.len());
        if out.write_all(head.as_bytes()).and_then(|()| out.write_all(body.as_bytes())).is_err() {
            return;
        }
    }
}
