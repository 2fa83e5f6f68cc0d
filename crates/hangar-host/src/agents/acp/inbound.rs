//! What the agent sends the host, as the reader hands it on: a request to
//! answer, a notification, or the end of the stream. Below both the NDJSON
//! loop (`rpc.rs`) and its fast path (`chunk_lines.rs`).

use serde_json::Value;

/// Something the agent sent us.
#[derive(Debug)]
pub enum Inbound {
    /// A request we must answer.
    Request {
        /// Its id, as the agent wrote it.
        id: Value,
        /// Method.
        method: String,
        /// Params.
        params: Value,
    },
    /// A notification.
    Notification {
        /// Method.
        method: String,
        /// Params.
        params: Value,
    },
    /// The stream ended.
    Closed,
}
