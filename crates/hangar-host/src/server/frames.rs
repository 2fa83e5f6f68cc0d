//! Reading and writing JSON-RPC frames.
//!
//! `ahp-types` decodes messages with an untagged enum whose request id is a
//! `u64`: a request with a string id would silently become a notification.
//! So frames are read as raw JSON first, the id is kept as the client sent it
//! (number or string), and only `params` are decoded into the crate's types.

use serde::Deserialize;
use serde_json::error::Category;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::RpcError;

/// One decoded incoming frame. `params` stay raw JSON until the handler
/// decodes them into the crate's typed params (no intermediate JSON tree).
#[derive(Debug)]
pub enum Incoming {
    /// A request to answer.
    Request {
        /// The id, exactly as sent.
        id: Value,
        /// Method name.
        method: String,
        /// Params (`null` when absent).
        params: Box<RawValue>,
    },
    /// A notification.
    Notification {
        /// Method name.
        method: String,
        /// Params (`null` when absent).
        params: Box<RawValue>,
    },
    /// A response to a request the host sent (see [`crate::host::client_requests`]).
    Response {
        /// The id, as the client echoed it.
        id: Value,
        /// `result`, when present (even `null`).
        result: Option<Box<RawValue>>,
        /// `error`, when present.
        error: Option<Box<RawValue>>,
    },
    /// Not a valid message; answer the error to `id` (`null` if unknown).
    Invalid {
        /// The id, when one could be read.
        id: Value,
        /// What was wrong.
        error: RpcError,
    },
}

/// The JSON-RPC fields the host reads; anything else is ignored.
#[derive(Deserialize)]
struct Message {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Box<RawValue>>,
}

/// A field that is present, even as `null`, is `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(d).map(Some)
}

/// Whether `text` nests arrays/objects deeper than `max` (strings skipped).
pub fn nesting_exceeds(text: &str, max: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in text.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Decode one text frame.
pub fn parse(text: &str) -> Incoming {
    let msg: Message = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) if matches!(e.classify(), Category::Syntax | Category::Eof) => {
            return Incoming::Invalid { id: Value::Null, error: RpcError::parse_error(format!("parse error: {e}")) }
        }
        Err(_) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::invalid_request("a message must be a JSON-RPC 2.0 object"),
            }
        }
    };
    let id_ok = match &msg.id {
        None | Some(Value::Null) | Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        Some(_) => false,
    };
    if !id_ok {
        return Incoming::Invalid {
            id: Value::Null,
            error: RpcError::invalid_request("id must be an integer or a string"),
        };
    }
    if msg.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
        return Incoming::Invalid {
            id: msg.id.unwrap_or(Value::Null),
            error: RpcError::invalid_request("jsonrpc must be \"2.0\""),
        };
    }
    // Absent params read as `null`.
    let params = msg.params.unwrap_or_default();
    match (msg.method, msg.id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Request { id, method, params },
        (Some(Value::String(method)), None) => Incoming::Notification { method, params },
        (Some(_), id) => Incoming::Invalid {
            id: id.unwrap_or(Value::Null),
            error: RpcError::invalid_request("method must be a string"),
        },
        (None, id) if msg.result.is_some() || msg.error.is_some() => {
            Incoming::Response { id: id.unwrap_or(Value::Null), result: msg.result, error: msg.error }
        }
        (None, id) => {
            Incoming::Invalid { id: id.unwrap_or(Value::Null), error: RpcError::invalid_request("missing method") }
        }
    }
}

/// A success response.
pub fn result_frame(id: &Value, result: &impl serde::Serialize) -> String {
    match serde_json::to_value(result) {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string(),
        Err(e) => error_frame(id, &RpcError::internal(format!("cannot encode the result: {e}"))),
    }
}

/// An error response.
pub fn error_frame(id: &Value, error: &RpcError) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_wire() }).to_string()
}

/// Answer request `id` on `conn` with what `work` comes to, in a task of its
/// own (off the connection's read loop: a slow method blocks no other).
pub fn answer_later<F, Fut>(host: &std::sync::Arc<crate::host::Host>, conn: crate::hub::ConnId, id: Value, work: F)
where
    F: FnOnce(std::sync::Arc<crate::host::Host>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<Value, RpcError>> + Send + 'static,
{
    let host = host.clone();
    tokio::spawn(async move {
        let frame = match work(host.clone()).await {
            Ok(result) => result_frame(&id, &result),
            Err(error) => error_frame(&id, &error),
        };
        host.hub.send(conn, frame.into());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_ids_are_requests() {
        match parse(r#"{"jsonrpc":"2.0","id":"a-1","method":"ping","params":{}}"#) {
            Incoming::Request { id, method, .. } => {
                assert_eq!(id, json!("a-1"));
                assert_eq!(method, "ping");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_frames_get_errors() {
        assert!(matches!(parse("{nope"), Incoming::Invalid { error, .. } if error.code == -32700));
        assert!(matches!(parse("[1]"), Incoming::Invalid { error, .. } if error.code == -32600));
        assert!(
            matches!(parse(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#), Incoming::Invalid { error, .. } if error.code == -32600)
        );
        assert!(
            matches!(parse(r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#), Incoming::Invalid { error, .. } if error.code == -32600)
        );
        assert!(matches!(parse(r#"{"jsonrpc":"2.0","method":"x"}"#), Incoming::Notification { .. }));
    }

    #[test]
    fn responses_keep_their_id_result_and_error() {
        match parse(r#"{"jsonrpc":"2.0","id":3,"result":null}"#) {
            Incoming::Response { id, result, error } => {
                assert_eq!(
                    (id, result.map(|r| r.get().to_owned()), error.is_none()),
                    (json!(3), Some("null".to_owned()), true)
                );
            }
            other => panic!("{other:?}"),
        }
        match parse(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32009,"message":"no"}}"#) {
            Incoming::Response { id, result, error } => {
                assert_eq!((id, result.is_none()), (json!(4), true));
                assert!(error.is_some_and(|e| e.get().contains("-32009")));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn depth_ignores_brackets_in_strings() {
        assert!(!nesting_exceeds(r#"{"a":"[[[[[[[[["}"#, 2));
        assert!(nesting_exceeds("[[[[", 3));
        assert!(!nesting_exceeds("[[[]]]", 3));
    }
}
