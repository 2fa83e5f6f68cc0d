//! The loopback WebSocket bridge: serves `ui/dist` over HTTP and answers
//! the same command table as the Tauri app on `/ipc`, so the real UI runs
//! in a plain browser (headless Chromium in the UI tests).
//!
//! Frames: request `{id, cmd, args, stream}` → reply `{id, ok}` or
//! `{id, err}`; a command opened with `stream: true` also sends
//! `{stream: id, event}` frames. Binds loopback only; a development and
//! test tool, not part of the installed app.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::caller::Caller;
use crate::commands;
use crate::core::{Core, Sink};
use hangar_desktop_protocol::StreamEvent;

async fn ipc(State(core): State<Arc<Core>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| connection(core, socket, Caller::App, std::future::pending()))
}

/// The commands one connection's frames run in order, one after another.
const ORDERED: [&str; 4] = ["chat.send", "chat.queue", "chat.removeQueued", "chat.reorderQueued"];

/// The largest command frame `/ipc` takes.
pub const MAX_MESSAGE_BYTES: usize = 8 << 20;

/// Answer the command table on `socket` until it closes, or until `stop`
/// resolves with the close frame to send (a revoked device of `hangar serve
/// --web`); the streams it opened are closed either way.
pub async fn connection(core: Arc<Core>, socket: WebSocket, caller: Caller, stop: impl Future<Output = CloseFrame>) {
    let (mut tx, mut rx) = socket.split();
    let (out, mut outq) = mpsc::unbounded_channel::<Message>();
    let writer = tokio::spawn(async move {
        while let Some(m) = outq.recv().await {
            let last = matches!(m, Message::Close(_));
            if tx.send(m).await.is_err() || last {
                break;
            }
        }
    });
    let text = |v: Value| Message::Text(v.to_string().into());
    let mut streams: Vec<u64> = Vec::new();
    let (opened_tx, mut opened_rx) = mpsc::unbounded_channel::<u64>();
    tokio::pin!(stop);
    let mut stopped = false;
    // The last ordered command's end: the next one waits for it.
    let mut last_ordered: Option<oneshot::Receiver<()>> = None;
    loop {
        let msg = tokio::select! {
            msg = rx.next() => msg,
            frame = &mut stop => {
                stopped = out.send(Message::Close(Some(frame))).is_ok();
                break;
            }
        };
        let Some(Ok(msg)) = msg else { break };
        let Message::Text(body) = msg else { continue };
        let req: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let id = req["id"].clone();
        let cmd = req["cmd"].as_str().unwrap_or_default().to_owned();
        let args = req.get("args").cloned().unwrap_or(Value::Null);
        let sink: Option<Sink> = if req["stream"].as_bool() == Some(true) {
            let out = out.clone();
            let sid = id.clone();
            Some(Arc::new(move |event: StreamEvent| {
                let frame = serde_json::to_value(event).map(|event| json!({ "stream": sid, "event": event }));
                frame.is_ok_and(|frame| out.send(text(frame)).is_ok())
            }))
        } else {
            None
        };
        let core = core.clone();
        let out = out.clone();
        let opened_tx = opened_tx.clone();
        // Commands that add to or change a chat's messages run one after
        // another in the order they came (every other command runs at
        // once): two messages sent in a quick row reach the host in order.
        let (after, done) = if ORDERED.contains(&cmd.as_str()) {
            let (done, next) = oneshot::channel::<()>();
            (last_ordered.replace(next), Some(done))
        } else {
            (None, None)
        };
        tokio::spawn(async move {
            if let Some(previous) = after {
                // Sent or dropped when the previous one ended.
                let _ = previous.await;
            }
            let called = match caller.admit(&core, &cmd, args) {
                Ok(args) => commands::call_wire(&core, &cmd, args, sink).await,
                Err(e) => Err(e),
            };
            let reply = match called {
                Ok(reply) => {
                    if let Some(s) = reply.stream_id() {
                        let _ = opened_tx.send(s);
                    }
                    json!({ "id": id, "ok": reply })
                }
                Err(e) => json!({ "id": id, "err": e.to_string() }),
            };
            let _ = out.send(text(reply));
            drop(done);
        });
        while let Ok(s) = opened_rx.try_recv() {
            streams.push(s);
        }
    }
    while let Ok(s) = opened_rx.try_recv() {
        streams.push(s);
    }
    for s in streams {
        core.close_stream(s);
    }
    if stopped {
        // The writer ends once the close frame is out.
        let _ = writer.await;
    } else {
        writer.abort();
    }
}

/// Serve `ui_dir` and `/ipc` on `addr`; returns the bound address and the
/// server future.
pub async fn serve(
    core: Arc<Core>,
    ui_dir: PathBuf,
    addr: SocketAddr,
) -> std::io::Result<(SocketAddr, impl std::future::Future<Output = std::io::Result<()>>)> {
    let app = Router::new()
        .route("/ipc", get(ipc))
        .fallback_service(tower_http::services::ServeDir::new(ui_dir))
        .with_state(core);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    Ok((bound, async move { axum::serve(listener, app).await }))
}
