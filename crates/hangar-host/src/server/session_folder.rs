//! The folder a request runs something in for a session: the session's
//! first working directory that is a `file:` URI, else `/`. Shared by the
//! methods that run a command on the host for a session (hook test, MCP
//! test, an agent's sign-in).

use std::path::PathBuf;

use crate::host::Host;
use crate::resources::uri::file_uri_to_path;
use crate::RpcError;

/// Session `channel`'s folder; `RpcError::session_not_found` when there is
/// no such session.
pub fn session_folder(host: &Host, channel: &str) -> Result<PathBuf, RpcError> {
    let dirs = host
        .with_engine_locked(|e| e.session_state(channel).map(|s| s.working_directories.clone()))
        .ok_or_else(|| RpcError::session_not_found(channel))?;
    Ok(dirs.iter().flatten().find_map(|u| file_uri_to_path(u).ok()).unwrap_or_else(|| PathBuf::from("/")))
}
