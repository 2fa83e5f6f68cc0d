//! The enabled MCP servers as ACP `mcpServers` entries (the
//! `agent-client-protocol` crate's `McpServer` stdio / http / sse), as far as
//! the agent's `agentCapabilities.mcpCapabilities` allow.
//!
//! The split: the host knows the tree and the toggles, the agent layer knows
//! the agent's capabilities. So [`enabled_launches`] (host side) keeps the
//! launches whose customization is in effect ([`super::enablement::effective`]),
//! and [`for_agent`] (start-up, after `initialize`) turns those into ACP
//! entries, skipping — with a reason — what this agent cannot take: an HTTP
//! or SSE server it does not advertise, or a second server of the same name
//! (the agent keys them by name; the first, most specific, one is kept).
//! [`acp_mcp_servers`] is the two in one.
//!
//! ACP's stdio entry has no working directory: a `cwd` from the file is not
//! passed on (the agent starts the server in its own working directory);
//! this is logged.

use agent_client_protocol::v1::schema::{
    EnvVariable, HttpHeader, McpCapabilities, McpServer, McpServerHttp, McpServerSse, McpServerStdio,
};
use ahp_types::state::Customization;
use serde_json::Value;

use super::enablement::effective;
use super::{McpLaunch, McpTransport};

/// An enabled MCP server that was not passed to the agent, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its customization id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Why, in words ("the agent does not accept HTTP MCP servers").
    pub reason: String,
}

/// The launches whose customization is in effect in `tree` (a disabled
/// server, or one under a disabled plugin, is left out; so is one whose id
/// is not in the tree).
pub fn enabled_launches(launches: &[McpLaunch], tree: &[Customization]) -> Vec<McpLaunch> {
    launches.iter().filter(|l| effective(tree, &l.id)).cloned().collect()
}

/// `launches` as ACP `mcpServers` entries for an agent with capabilities
/// `caps` (the `agentCapabilities` of its `initialize` answer), and those
/// it cannot take. Stdio is always accepted; HTTP and SSE only when
/// `mcpCapabilities.http` / `.sse` say so.
pub fn for_agent(launches: &[McpLaunch], caps: &Value) -> (Vec<Value>, Vec<Skipped>) {
    let mcp: McpCapabilities =
        caps.get("mcpCapabilities").and_then(|v| serde_json::from_value(v.clone()).ok()).unwrap_or_default();
    let mut servers = Vec::new();
    let mut skipped = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for launch in launches {
        let skip = |reason: String| Skipped { id: launch.id.clone(), name: launch.name.clone(), reason };
        if names.contains(&launch.name.as_str()) {
            skipped.push(skip(format!("another MCP server named {:?} is passed to the agent", launch.name)));
            continue;
        }
        let server = match &launch.transport {
            McpTransport::Stdio { command, args, env, cwd } => {
                if let Some(cwd) = cwd {
                    tracing::info!(server = %launch.name, cwd = %cwd.display(), "ACP has no cwd for a stdio MCP server: not passed");
                }
                let env = env.iter().map(|(k, v)| EnvVariable::new(k, v)).collect();
                McpServer::Stdio(McpServerStdio::new(&launch.name, command).args(args.clone()).env(env))
            }
            McpTransport::Http { .. } if !mcp.http => {
                skipped.push(skip("the agent does not accept HTTP MCP servers".to_owned()));
                continue;
            }
            McpTransport::Sse { .. } if !mcp.sse => {
                skipped.push(skip("the agent does not accept SSE MCP servers".to_owned()));
                continue;
            }
            McpTransport::Http { url, headers } => {
                McpServer::Http(McpServerHttp::new(&launch.name, url).headers(http_headers(headers)))
            }
            McpTransport::Sse { url, headers } => {
                McpServer::Sse(McpServerSse::new(&launch.name, url).headers(http_headers(headers)))
            }
        };
        match serde_json::to_value(server) {
            Ok(value) => {
                servers.push(value);
                names.push(&launch.name);
            }
            Err(e) => skipped.push(skip(format!("cannot encode it: {e}"))),
        }
    }
    (servers, skipped)
}

/// [`enabled_launches`] then [`for_agent`].
pub fn acp_mcp_servers(launches: &[McpLaunch], tree: &[Customization], caps: &Value) -> (Vec<Value>, Vec<Skipped>) {
    for_agent(&enabled_launches(launches, tree), caps)
}

/// Headers as ACP's.
fn http_headers(headers: &[(String, String)]) -> Vec<HttpHeader> {
    headers.iter().map(|(k, v)| HttpHeader::new(k, v)).collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use ahp_types::state::Customization;
    use serde_json::{json, Value};

    use super::{acp_mcp_servers, for_agent, Skipped};
    use crate::customizations::{McpLaunch, McpTransport};

    fn stdio(id: &str, name: &str) -> McpLaunch {
        McpLaunch {
            id: id.to_owned(),
            name: name.to_owned(),
            transport: McpTransport::Stdio {
                command: "/usr/bin/srv".to_owned(),
                args: vec!["--x".to_owned()],
                env: vec![("TOKEN".to_owned(), "t".to_owned())],
                cwd: Some(PathBuf::from("/w")),
            },
        }
    }

    fn http(id: &str, name: &str) -> McpLaunch {
        let headers = vec![("Authorization".to_owned(), "Bearer b".to_owned())];
        McpLaunch {
            id: id.to_owned(),
            name: name.to_owned(),
            transport: McpTransport::Http { url: "https://h/mcp".to_owned(), headers },
        }
    }

    fn sse(id: &str, name: &str) -> McpLaunch {
        McpLaunch {
            id: id.to_owned(),
            name: name.to_owned(),
            transport: McpTransport::Sse { url: "https://s/sse".to_owned(), headers: Vec::new() },
        }
    }

    const STDIO_JSON: &str =
        r#"{"name":"one","command":"/usr/bin/srv","args":["--x"],"env":[{"name":"TOKEN","value":"t"}]}"#;

    #[test]
    fn each_transport_in_acps_shape() {
        let caps = json!({ "mcpCapabilities": { "http": true, "sse": true } });
        let (servers, skipped) = for_agent(&[stdio("a", "one"), http("b", "two"), sse("c", "three")], &caps);
        assert_eq!(skipped, vec![]);
        assert_eq!(servers[0], serde_json::from_str::<Value>(STDIO_JSON).unwrap());
        assert_eq!(
            servers[1],
            json!({ "type": "http", "name": "two", "url": "https://h/mcp",
                    "headers": [{ "name": "Authorization", "value": "Bearer b" }] })
        );
        assert_eq!(servers[2], json!({ "type": "sse", "name": "three", "url": "https://s/sse", "headers": [] }));
    }

    #[test]
    fn what_the_agent_cannot_take_is_skipped_with_a_reason() {
        let launches = [stdio("a", "one"), http("b", "two"), sse("c", "three")];
        for caps in [json!({}), json!({ "mcpCapabilities": { "http": false } }), Value::Null] {
            let (servers, skipped) = for_agent(&launches, &caps);
            assert_eq!(servers, vec![serde_json::from_str::<Value>(STDIO_JSON).unwrap()], "{caps}");
            let reasons: Vec<&str> = skipped.iter().map(|s| s.reason.as_str()).collect();
            assert_eq!(
                reasons,
                ["the agent does not accept HTTP MCP servers", "the agent does not accept SSE MCP servers"]
            );
            assert_eq!((skipped[0].id.as_str(), skipped[0].name.as_str()), ("b", "two"));
        }
        let (servers, skipped) = for_agent(&launches, &json!({ "mcpCapabilities": { "sse": true } }));
        assert_eq!((servers.len(), skipped.len()), (2, 1));
        assert_eq!(servers[1]["type"], "sse");
    }

    #[test]
    fn a_second_server_of_the_same_name_is_skipped() {
        let (servers, skipped) = for_agent(&[stdio("a", "one"), stdio("b", "one")], &json!({}));
        assert_eq!(servers.len(), 1);
        let why = "another MCP server named \"one\" is passed to the agent".to_owned();
        assert_eq!(skipped, vec![Skipped { id: "b".to_owned(), name: "one".to_owned(), reason: why }]);
    }

    #[test]
    fn only_enabled_servers_are_passed() {
        let tree: Vec<Customization> = serde_json::from_value(json!([
            { "type": "mcpServer", "id": "a", "uri": "file:///w/.mcp.json", "name": "one",
              "state": { "kind": "stopped" }, "enablement": [{ "kind": "global", "enabled": false }] },
            { "type": "mcpServer", "id": "b", "uri": "file:///w/.mcp.json", "name": "two",
              "state": { "kind": "stopped" } },
            { "type": "plugin", "id": "p", "uri": "file:///p", "name": "p",
              "enablement": [{ "kind": "session", "enabled": false }],
              "children": [{ "type": "mcpServer", "id": "c", "uri": "file:///p/.mcp.json", "name": "three",
                             "state": { "kind": "stopped" } }] },
        ]))
        .unwrap();
        let launches = [stdio("a", "one"), stdio("b", "two"), stdio("c", "three"), stdio("gone", "four")];
        let (servers, skipped) = acp_mcp_servers(&launches, &tree, &json!({}));
        let names: Vec<&Value> = servers.iter().map(|s| &s["name"]).collect();
        assert_eq!(names, ["two"], "disabled, under a disabled plugin, and not in the tree: left out");
        assert_eq!(skipped, vec![], "a disabled server is not 'skipped'");
    }
}
