//! An MCP server's Test (`x-hangar/testMcpServer`) over a real socket: the
//! host starts the server named in the workspace's `.mcp.json` (the fake
//! agent's tiny stdio MCP server), runs MCP `initialize` and `tools/list`
//! with `rmcp`, and answers its tools; a server that dies says why with its
//! stderr; a streamable HTTP server (the fake agent's, with a bearer token)
//! is reached with its headers, and without them says why; an SSE server
//! and an unknown id are clear errors. Needs
//! `cargo build -p hangar-cli -p hangar-fake-agent`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use hangar_e2e::acp::{fake_agent_bin, AgentCmd, Rig};
use hangar_e2e::Launch;
use serde_json::{json, Value};

/// The id of the top-level MCP server named `name` in the session's tree.
fn server_id(tree: &Value, name: &str) -> String {
    tree.as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "mcpServer" && c["name"] == name)
        .and_then(|c| c["id"].as_str())
        .unwrap_or_else(|| panic!("no MCP server {name} in {tree:#}"))
        .to_owned()
}

#[tokio::test]
async fn a_server_is_started_on_the_host_and_its_tools_listed_or_its_failure_explained() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let fake = fake_agent_bin().display().to_string();
    // The fake agent's HTTP MCP server, wanting a bearer token.
    let mut http = Command::new(&fake)
        .args(["--mcp-http-server", "--mcp-http-token", "s3cret"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(http.stdout.take().unwrap()).read_line(&mut url).unwrap();
    let url = url.trim().to_owned();
    let servers = json!({ "mcpServers": {
        "remote": { "type": "http", "url": url, "headers": { "Authorization": "Bearer s3cret" } },
        "nokey": { "type": "http", "url": url },
        "tiny": { "command": fake, "args": ["--mcp-server"] },
        "broken": { "command": fake, "args": ["--mcp-server", "--mcp-server-stderr", "no API key set"] },
        "missing": { "command": "/nonexistent/mcp-server" },
        "web": { "type": "sse", "url": "http://127.0.0.1:9/sse" }
    } });
    std::fs::write(ws.join(".mcp.json"), serde_json::to_string_pretty(&servers).unwrap()).unwrap();
    let rig = Rig::start_with(tmp, AgentCmd::Script(json!({ "turns": [] })), Launch::InProcess, None).await;
    let tree = serde_json::to_value(rig.session_state().await.customizations).unwrap();
    let test = |name: &str| {
        let params = json!({ "channel": rig.session, "id": server_id(&tree, name) });
        rig.client.request::<_, Value>("x-hangar/testMcpServer", params)
    };

    let tested = test("tiny").await.unwrap();
    assert_eq!((tested["server"].as_str(), tested["version"].as_str()), (Some("fake-mcp"), Some("1.0.0")));
    assert_eq!(tested["tools"], json!([{ "name": "echo", "description": "Says back what it is given" }]));

    let failed = |r: Result<Value, ahp::ClientError>| match r {
        Err(ahp::ClientError::Rpc(e)) => (e.code, e.message),
        other => panic!("expected an error, got {other:?}"),
    };
    let (code, message) = failed(test("broken").await);
    assert_eq!(code, -32603);
    assert!(message.contains("It said: no API key set"), "{message}");
    let (_, message) = failed(test("missing").await);
    assert!(message.contains("/nonexistent/mcp-server did not start"), "{message}");
    let (_, message) = failed(test("web").await);
    assert!(message.contains("servers reached over SSE cannot be tested here"), "{message}");

    let tested = test("remote").await.unwrap();
    assert_eq!(tested["server"], "fake-mcp");
    assert_eq!(tested["tools"][0]["name"], "echo");
    let (code, message) = failed(test("nokey").await);
    assert_eq!(code, -32603);
    assert!(message.contains(&url) && message.contains("401"), "{message}");
    let _ = http.kill();
    let _ = http.wait();
    let unknown =
        rig.client.request::<_, Value>("x-hangar/testMcpServer", json!({ "channel": rig.session, "id": "nope" }));
    assert_eq!(failed(unknown.await).0, -32602);
}
