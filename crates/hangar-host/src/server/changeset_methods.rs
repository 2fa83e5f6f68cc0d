//! `invokeChangesetOperation`: run off the connection's read loop (a reject
//! reads and writes files), answered when done.

use std::sync::Arc;

use ahp_types::commands::InvokeChangesetOperationParams;
use serde_json::Value;

use super::frames::{error_frame, result_frame};
use crate::host::Host;
use crate::hub::ConnId;

/// Run the operation for `client_id` and answer `conn`.
pub fn invoke(host: &Arc<Host>, conn: ConnId, id: Value, client_id: String, params: InvokeChangesetOperationParams) {
    let host = host.clone();
    tokio::task::spawn_blocking(move || {
        let frame = match host.invoke_changeset_operation(&client_id, &params) {
            Ok(result) => result_frame(&id, &result),
            Err(error) => error_frame(&id, &error),
        };
        host.hub.send(conn, frame.into());
    });
}
