//! `x-hangar/testHook` `{ channel: <session URI>, command, input, timeoutSecs? }`:
//! run a hook's command on this host in the session's first folder with
//! `input` (a recorded tool event, JSON text) on stdin, and answer
//! `{ exitCode, stdout, stderr, timedOut, millis }` (`HookRun`). The command
//! comes from the client's form, saved or not: a client that may write the
//! hook files the agents run may run the hook once itself. Runs off the
//! connection's read loop; at most 60 s (`-32602` for an empty command or
//! an unknown session).

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::frames::answer_later;
use super::session_folder::session_folder;
use crate::customizations::hook_test::{run_hook, HookTestError};
use crate::host::Host;
use crate::hub::ConnId;
use crate::RpcError;

/// The longest a test may run, whatever the hook's own timeout says.
const MAX: Duration = Duration::from_secs(60);

/// The request's params.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestHookParams {
    /// The session (its folder is the hook's working directory).
    pub channel: String,
    /// The hook's shell command.
    pub command: String,
    /// What the agent would write to the hook's stdin.
    pub input: String,
    /// The hook's own timeout in seconds (default and at most 60).
    pub timeout_secs: Option<u64>,
}

/// Run the hook and answer `conn`.
pub fn test_hook(host: &Arc<Host>, conn: ConnId, id: Value, p: TestHookParams) {
    answer_later(host, conn, id, |host| async move { run(&host, &p).await });
}

async fn run(host: &Arc<Host>, p: &TestHookParams) -> Result<Value, RpcError> {
    let cwd = session_folder(host, &p.channel)?;
    let limit = p.timeout_secs.map_or(MAX, |s| Duration::from_secs(s.max(1)).min(MAX));
    let ran = run_hook(&p.command, &p.input, &cwd, limit).await.map_err(|e| match e {
        HookTestError::NoCommand => RpcError::invalid_params("command", e.to_string()),
        HookTestError::Spawn(_) => RpcError::internal(e.to_string()),
    })?;
    serde_json::to_value(ran).map_err(|e| RpcError::internal(e.to_string()))
}
