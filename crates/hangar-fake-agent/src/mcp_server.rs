//! `hangar-fake-agent --mcp-server`: a tiny stdio MCP server for tests (a
//! customization's Test button). It answers `initialize` (echoing the
//! client's protocol version), `tools/list` (one tool, `echo`) and `ping`,
//! ignores notifications, and answers anything else with "method not
//! found". `--mcp-server-stderr TEXT` writes TEXT to stderr and exits 3
//! first (a server that fails to start). [`answer`] is shared with the
//! HTTP server (`mcp_http.rs`).

use std::io::{BufRead, Write};

use serde_json::{json, Value};

/// Run the server on stdin/stdout until stdin closes.
pub fn run(args: &[String]) {
    if let Some(i) = args.iter().position(|a| a == "--mcp-server-stderr") {
        eprintln!("{}", args.get(i + 1).map_or("failed", String::as_str));
        std::process::exit(3);
    }
    let mut out = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(reply) = answer(&msg) else { continue };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}

/// The answer to one JSON-RPC message (`None` for a notification).
pub fn answer(msg: &Value) -> Option<Value> {
    let id = msg.get("id").cloned()?;
    let method = msg.get("method").and_then(Value::as_str).unwrap_or_default();
    Some(match method {
        "initialize" => json!({ "jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": { "tools": {} },
            "serverInfo": { "name": "fake-mcp", "version": "1.0.0" },
        } }),
        "tools/list" => json!({ "jsonrpc": "2.0", "id": id, "result": { "tools": [
            { "name": "echo", "description": "Says back what it is given",
              "inputSchema": { "type": "object", "properties": { "text": { "type": "string" } } } }
        ] } }),
        "ping" => json!({ "jsonrpc": "2.0", "id": id, "result": {} }),
        _ => json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "method not found" } }),
    })
}
