//! `x-hangar/testMcpServer` `{ channel: <session URI>, id: <an MCP server's
//! customization id> }`: start that server on this host as the session's
//! agent would, and answer `{ server, version, tools: [{name,
//! description}] }`, or an error saying why it failed (`-32603` with the
//! reason and the end of its stderr; `-32602` for an unknown server). Runs
//! off the connection's read loop; at most 20 s.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::frames::answer_later;
use super::session_folder::session_folder;
use crate::customizations::mcp_test::test_server;
use crate::host::Host;
use crate::hub::ConnId;
use crate::RpcError;

/// How long a Test may take in all.
const LIMIT: Duration = Duration::from_secs(20);

/// The request's params.
#[derive(Debug, Deserialize)]
pub struct TestMcpParams {
    /// The session.
    pub channel: String,
    /// The MCP server's customization id.
    pub id: String,
}

/// Run the test and answer `conn`.
pub fn test_mcp_server(host: &Arc<Host>, conn: ConnId, id: Value, p: TestMcpParams) {
    answer_later(host, conn, id, |host| async move { run(&host, &p).await });
}

async fn run(host: &Arc<Host>, p: &TestMcpParams) -> Result<Value, RpcError> {
    let cwd = session_folder(host, &p.channel)?;
    host.ensure_customizations(&p.channel);
    let launch = host
        .customizations
        .mcp_launch(&p.channel, &p.id)
        .ok_or_else(|| RpcError::invalid_params("id", format!("no MCP server {} in this session", p.id)))?;
    let tested = test_server(&launch, &cwd, LIMIT).await.map_err(|e| RpcError::internal(e.to_string()))?;
    serde_json::to_value(tested).map_err(|e| RpcError::internal(e.to_string()))
}
