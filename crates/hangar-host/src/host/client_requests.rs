//! Requests the host sends to a client (e.g. `resourceRequest` under
//! `--grant-policy ask`) and the routing of the client's responses back to
//! the waiting caller.
//!
//! Each request gets a fresh numeric id, unique across connections; the
//! pending entry is keyed by `(connection, id)` so a response is only
//! accepted from the connection that was asked. A request ends with the
//! client's result, its error, a timeout, or the connection closing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::hub::{ConnId, Hub};

/// Why a host-to-client request has no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutgoingError {
    /// The client answered with a JSON-RPC error.
    #[error("the client answered {code}: {message}")]
    Rejected {
        /// Its error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// No answer in time.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The connection closed before it answered.
    #[error("the connection closed before answering")]
    Closed,
}

type Answer = Result<Value, OutgoingError>;

/// Pending host-to-client requests, by connection and id.
#[derive(Default)]
pub struct OutgoingRequests {
    next_id: AtomicU64,
    pending: Mutex<HashMap<(ConnId, u64), oneshot::Sender<Answer>>>,
}

impl OutgoingRequests {
    fn lock(&self) -> MutexGuard<'_, HashMap<(ConnId, u64), oneshot::Sender<Answer>>> {
        crate::locks::lock(&self.pending)
    }

    /// Send `method(params)` to `conn` and wait up to `timeout` for its answer.
    pub async fn request(&self, hub: &Hub, conn: ConnId, method: &str, params: Value, timeout: Duration) -> Answer {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        self.lock().insert((conn, id), tx);
        let frame = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string();
        if !hub.send(conn, frame.into()) {
            // The connection closed (or was cut off) before the request went
            // out: no answer can come, so don't wait for the timeout.
            self.lock().remove(&(conn, id));
            return Err(OutgoingError::Closed);
        }
        let answer = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(OutgoingError::Closed),
            Err(_) => Err(OutgoingError::Timeout(timeout)),
        };
        self.lock().remove(&(conn, id));
        answer
    }

    /// A response frame arrived on `conn`: hand it to the request waiting
    /// for it. Unknown ids (late, never sent, another connection's) are dropped.
    pub fn resolve(&self, conn: ConnId, id: &Value, result: Option<&RawValue>, error: Option<&RawValue>) {
        let Some(id) = id.as_u64() else {
            return;
        };
        let Some(waiter) = self.lock().remove(&(conn, id)) else {
            tracing::debug!("connection {conn} answered unknown request {id}");
            return;
        };
        let answer = match (result, error) {
            (_, Some(error)) => Err(rejection(error)),
            (Some(result), None) => serde_json::from_str(result.get())
                .map_err(|e| OutgoingError::Rejected { code: -32700, message: format!("unreadable result: {e}") }),
            (None, None) => Ok(Value::Null),
        };
        let _ = waiter.send(answer);
    }

    /// `conn` closed: every request waiting on it ends with [`OutgoingError::Closed`].
    pub fn connection_closed(&self, conn: ConnId) {
        self.lock().retain(|(c, _), _| *c != conn);
    }
}

fn rejection(error: &RawValue) -> OutgoingError {
    let error: Value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
    OutgoingError::Rejected {
        code: error["code"].as_i64().unwrap_or(-32603),
        message: error["message"].as_str().unwrap_or("no message").to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("valid JSON")
    }

    #[tokio::test]
    async fn answers_errors_timeouts_and_closed_connections() {
        let hub = Arc::new(Hub::new(16, 0));
        let (tx, mut rx) = tokio::sync::mpsc::channel(8);
        hub.add_connection(7, tx, Arc::new(tokio::sync::Notify::new()));
        let out = Arc::new(OutgoingRequests::default());

        // Answer each request the way the test script says.
        let answers = [Some(r#"{"ok":true}"#), None, Some("error"), Some("close")];
        let (o, h) = (out.clone(), hub.clone());
        let client = tokio::spawn(async move {
            for answer in answers {
                let frame = rx.recv().await.expect("a request");
                let sent: Value = serde_json::from_str(frame.as_str()).expect("JSON");
                assert_eq!(sent["method"], "resourceRequest");
                // Another connection's answer with the same id is not taken.
                o.resolve(8, &sent["id"], Some(&raw("{}")), None);
                match answer {
                    Some("error") => o.resolve(7, &sent["id"], None, Some(&raw(r#"{"code":-32009,"message":"no"}"#))),
                    Some("close") => o.connection_closed(7),
                    Some(result) => o.resolve(7, &sent["id"], Some(&raw(result)), None),
                    None => {} // never answered
                }
            }
            drop(h);
        });
        let ask = |o: Arc<OutgoingRequests>, h: Arc<Hub>, wait: u64| async move {
            o.request(&h, 7, "resourceRequest", json!({}), Duration::from_secs(wait)).await
        };
        assert_eq!(ask(out.clone(), hub.clone(), 60).await, Ok(json!({"ok": true})));
        assert_eq!(ask(out.clone(), hub.clone(), 1).await, Err(OutgoingError::Timeout(Duration::from_secs(1))));
        let rejected = ask(out.clone(), hub.clone(), 60).await;
        assert_eq!(rejected, Err(OutgoingError::Rejected { code: -32009, message: "no".to_owned() }));
        assert_eq!(ask(out.clone(), hub.clone(), 60).await, Err(OutgoingError::Closed));
        client.await.expect("client script");
        assert!(out.lock().is_empty(), "nothing left pending");
    }

    #[tokio::test]
    async fn a_request_to_a_closed_connection_ends_closed_at_once() {
        let hub = Hub::new(16, 0);
        let (tx, rx) = tokio::sync::mpsc::channel(8);
        hub.add_connection(7, tx, Arc::new(tokio::sync::Notify::new()));
        // The connection closes between being picked and being asked.
        hub.remove_connection(7);
        drop(rx);
        let out = OutgoingRequests::default();
        // A timeout longer than the test runner's patience: waiting for it
        // instead of answering Closed would hang the test.
        let wait = Duration::from_secs(3600);
        let closed =
            tokio::time::timeout(Duration::from_secs(60), out.request(&hub, 7, "resourceRequest", json!({}), wait))
                .await
                .expect("answered before the request's own timeout");
        assert_eq!(closed, Err(OutgoingError::Closed));
        let unknown = out.request(&hub, 99, "resourceRequest", json!({}), Duration::from_secs(60)).await;
        assert_eq!(unknown, Err(OutgoingError::Closed), "a connection that never existed");
        assert!(out.lock().is_empty(), "nothing left pending");
    }
}
