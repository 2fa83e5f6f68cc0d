//! JSON-RPC 2.0 over NDJSON with one agent. Two id spaces: our requests use
//! our own numeric counter (`pending`); the agent's requests keep whatever id
//! it chose (numbers from 0, UUID strings) and are answered with it verbatim.
//! Streamed text chunks take a fast path (`chunk_lines.rs`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use super::chunk_lines;
use super::inbound::Inbound;
use super::transport::Transport;

/// An error answer (or the connection ending) for one of our requests.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RpcFailure {
    /// The agent answered with a JSON-RPC error.
    #[error("{message} (code {code})")]
    Error {
        /// Code.
        code: i64,
        /// Message.
        message: String,
        /// Data.
        data: Option<Value>,
    },
    /// The connection closed before the answer.
    #[error("the agent closed the connection")]
    Closed,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, RpcFailure>>>>>;

/// The host's end of an agent connection.
pub struct Connection {
    out: mpsc::UnboundedSender<String>,
    pending: Pending,
    next_id: AtomicU64,
}

impl Connection {
    /// Start the reader and writer tasks; inbound messages go to the
    /// returned receiver in wire order.
    pub fn start(
        transport: Transport,
    ) -> (Self, mpsc::UnboundedReceiver<Inbound>, Option<super::transport::AgentProcess>) {
        let Transport { reader, mut writer, process } = transport;
        let (out, mut out_rx) = mpsc::unbounded_channel::<String>();
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let pending: Pending = Arc::default();
        tokio::spawn(async move {
            while let Some(line) = out_rx.recv().await {
                if writer.write_all(line.as_bytes()).await.is_err() || writer.write_all(b"\n").await.is_err() {
                    break;
                }
                if out_rx.is_empty() && writer.flush().await.is_err() {
                    break;
                }
            }
            let _ = writer.shutdown().await;
        });
        let answers = pending.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::with_capacity(1 << 16, reader);
            let mut raw_line = Vec::new();
            // Text chunks merged while more lines are already buffered.
            let mut merging: Option<chunk_lines::Pending> = None;
            loop {
                if lines.buffer().is_empty() {
                    if let Some(done) = merging.take() {
                        let _ = in_tx.send(done.into_inbound());
                    }
                }
                // Bytes, not `lines()`: a line that is not UTF-8 (an agent's
                // stray output) is skipped below, not taken for the end.
                raw_line.clear();
                match lines.read_until(b'\n', &mut raw_line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                // Checked with `from_utf8` first: its validation is much
                // faster than the lossy decoder's, and nearly every line is
                // valid (the lossy copy only for an agent's stray bytes).
                let text = match std::str::from_utf8(&raw_line) {
                    Ok(valid) => std::borrow::Cow::Borrowed(valid),
                    Err(_) => String::from_utf8_lossy(&raw_line),
                };
                let line = text.trim();
                if line.is_empty() {
                    continue;
                }
                match chunk_lines::feed(line, &mut merging) {
                    chunk_lines::Step::Merged => continue,
                    chunk_lines::Step::Flush(done) => {
                        let _ = in_tx.send(done.into_inbound());
                        continue;
                    }
                    chunk_lines::Step::Other => {
                        if let Some(done) = merging.take() {
                            let _ = in_tx.send(done.into_inbound());
                        }
                    }
                }
                let Ok(msg) = serde_json::from_str::<Value>(line) else {
                    tracing::debug!("ignored a non-JSON line from the agent");
                    continue;
                };
                route(msg, &answers, &in_tx);
            }
            if let Some(done) = merging.take() {
                let _ = in_tx.send(done.into_inbound());
            }
            let waiting: Vec<_> = answers.lock().map(|mut p| p.drain().collect()).unwrap_or_default();
            for (_, tx) in waiting {
                let _ = tx.send(Err(RpcFailure::Closed));
            }
            let _ = in_tx.send(Inbound::Closed);
        });
        (Self { out, pending, next_id: AtomicU64::new(1) }, in_rx, process)
    }

    /// Send a request; the receiver yields the result.
    pub fn request(&self, method: &str, params: Value) -> oneshot::Receiver<Result<Value, RpcFailure>> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        let line = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string();
        if self.out.send(line).is_err() {
            if let Some(tx) = self.pending.lock().ok().and_then(|mut p| p.remove(&id)) {
                let _ = tx.send(Err(RpcFailure::Closed));
            }
        }
        rx
    }

    /// Send a notification.
    pub fn notify(&self, method: &str, params: Value) {
        let _ = self.out.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string());
    }

    /// Answer one of the agent's requests.
    pub fn respond(&self, id: &Value, result: Result<Value, (i64, String)>) {
        let _ = self.out.send(answer_line(id, result));
    }

    /// A handle that answers the agent's requests from another task (an
    /// answer that waits, e.g. `terminal/wait_for_exit`).
    pub fn responder(&self) -> Responder {
        Responder(self.out.clone())
    }
}

/// Answers the agent's requests; see [`Connection::responder`].
#[derive(Clone)]
pub struct Responder(mpsc::UnboundedSender<String>);

impl Responder {
    /// Answer one of the agent's requests (dropped once the agent is gone).
    pub fn respond(&self, id: &Value, result: Result<Value, (i64, String)>) {
        let _ = self.0.send(answer_line(id, result));
    }
}

fn answer_line(id: &Value, result: Result<Value, (i64, String)>) -> String {
    let msg = match result {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err((code, message)) => json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }),
    };
    msg.to_string()
}

fn route(msg: Value, answers: &Pending, inbound: &mpsc::UnboundedSender<Inbound>) {
    let Value::Object(mut msg) = msg else {
        return;
    };
    let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
    let id = msg.remove("id").filter(|id| !id.is_null());
    // Taken, not cloned: a streaming agent sends thousands of these.
    let params = msg.remove("params").unwrap_or(Value::Null);
    match (method, id) {
        (Some(method), Some(id)) => {
            let _ = inbound.send(Inbound::Request { id, method, params });
        }
        (Some(method), None) => {
            let _ = inbound.send(Inbound::Notification { method, params });
        }
        (None, Some(id)) => {
            let Some(id) = id.as_u64() else {
                return;
            };
            let Some(tx) = answers.lock().ok().and_then(|mut p| p.remove(&id)) else {
                return;
            };
            let answer = match msg.get("error") {
                Some(err) => Err(RpcFailure::Error {
                    code: err.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                    message: err.get("message").and_then(Value::as_str).unwrap_or("error").to_owned(),
                    data: err.get("data").cloned(),
                }),
                None => Ok(msg.remove("result").unwrap_or(Value::Null)),
            };
            let _ = tx.send(answer);
        }
        (None, None) => {}
    }
}
