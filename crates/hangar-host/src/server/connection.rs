//! One WebSocket connection: the TLS handshake when the listener has TLS,
//! the web service's when its first request is not an AHP upgrade
//! (`web_route.rs`), else authenticate the upgrade, then read frames, answer them, and write the
//! outbound queue, until either side closes or the device token that opened
//! it is revoked. The TLS handshake and the upgrade together must finish
//! within [`HANDSHAKE_TIMEOUT`]: a client that opens a socket and trickles
//! its request (slow loris) is dropped.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Notify};
use tokio_rustls::TlsAcceptor;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;

use super::device_watch::until_revoked;
use super::frames::{error_frame, nesting_exceeds, parse, Incoming};
use super::methods::{answer, handle_notification, handle_request, ConnState};
use super::web_route::{read_route, rewound, ByteStream, Route, WebConn, WebService};
use super::ws_upgrade::UpgradePolicy;
use crate::compat_v0_9::generation::ProtocolGeneration;
use crate::host::Host;
use crate::hub::OutFrame;
use crate::RpcError;

/// How long a new connection has for its TLS handshake and WebSocket
/// upgrade together.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Serve one accepted TCP connection from `peer` until it closes; with
/// `web`, a connection whose first request is not an AHP upgrade goes to it.
pub async fn serve(
    host: Arc<Host>,
    stream: TcpStream,
    peer: IpAddr,
    policy: Arc<UpgradePolicy>,
    tls: Option<TlsAcceptor>,
    web: Option<Arc<dyn WebService>>,
) {
    let started = tokio::time::Instant::now();
    match tls {
        None => route(host, stream, peer, policy, web, false, started).await,
        Some(acceptor) => match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
            Ok(Ok(stream)) => route(host, stream, peer, policy, web, true, started).await,
            Ok(Err(e)) => tracing::debug!("TLS handshake failed: {e}"),
            Err(_) => tracing::debug!("TLS handshake from {peer} timed out"),
        },
    }
}

/// Without `web`, the AHP WebSocket; with it, where the first request says.
async fn route<S: ByteStream + 'static>(
    host: Arc<Host>,
    mut stream: S,
    peer: IpAddr,
    policy: Arc<UpgradePolicy>,
    web: Option<Arc<dyn WebService>>,
    tls: bool,
    started: tokio::time::Instant,
) {
    let Some(web) = web else {
        return serve_stream(host, stream, peer, policy, started).await;
    };
    let mut head = Vec::new();
    let route = match tokio::time::timeout_at(started + HANDSHAKE_TIMEOUT, read_route(&mut stream, &mut head)).await {
        Ok(Ok(route)) => route,
        Ok(Err(e)) => return tracing::debug!("reading a request from {peer}: {e}"),
        Err(_) => return tracing::debug!("request from {peer} timed out"),
    };
    let stream = rewound(stream, head);
    match route {
        Route::Ahp => serve_stream(host, stream, peer, policy, started).await,
        Route::Web => web.serve(WebConn { io: Box::new(stream), peer, tls, policy }).await,
    }
}

async fn serve_stream<S>(
    host: Arc<Host>,
    stream: S,
    peer: IpAddr,
    policy: Arc<UpgradePolicy>,
    started: tokio::time::Instant,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let ws_config = WebSocketConfig::default()
        .max_message_size(Some(host.config.max_message_bytes))
        .max_frame_size(Some(host.config.max_message_bytes));
    let mut credential = None;
    #[allow(clippy::result_large_err)] // the signature tungstenite's callback requires
    let check = |req: &_, resp| {
        let checked = policy.check(req, peer).map_err(|refusal| *refusal)?;
        credential = Some(checked);
        Ok(resp)
    };
    let upgrade = tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(ws_config));
    let ws = match tokio::time::timeout_at(started + HANDSHAKE_TIMEOUT, upgrade).await {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            tracing::debug!("upgrade refused or failed: {e}");
            return;
        }
        Err(_) => {
            tracing::debug!("upgrade from {peer} timed out");
            return;
        }
    };
    let revoked = until_revoked(credential, policy.devices.subscribe());
    tokio::pin!(revoked);
    let (mut sink, mut source) = ws.split();
    let id = host.next_conn_id();
    let (tx, mut rx) = mpsc::channel(host.config.outbox_frames);
    let cut_off = Arc::new(Notify::new());
    host.hub.add_connection(id, tx, cut_off.clone());

    let (close_tx, mut close_rx) = mpsc::channel::<CloseFrame>(1);
    let writer = tokio::spawn(async move {
        loop {
            tokio::select! {
                frame = rx.recv() => match frame {
                    Some(frame) => if write_burst(&mut sink, &mut rx, frame).await.is_err() { break },
                    None => break,
                },
                close = close_rx.recv() => {
                    let _ = sink.send(Message::Close(close)).await;
                    break;
                }
            }
        }
        let _ = sink.close().await;
    });

    let mut conn = ConnState { id, client_id: None, generation: ProtocolGeneration::V1 };
    let max_depth = host.config.max_json_depth;
    let close_reason = loop {
        tokio::select! {
            message = source.next() => match message {
                Some(Ok(Message::Text(text))) => {
                    if nesting_exceeds(&text, max_depth) {
                        break Some(CloseFrame { code: CloseCode::Size, reason: "JSON nested too deep".into() });
                    }
                    handle_frame(&host, &mut conn, &text);
                }
                Some(Ok(Message::Binary(_))) => {
                    let err = RpcError::invalid_request("binary frames are not JSON-RPC; send text frames");
                    host.hub.send(id, error_frame(&serde_json::Value::Null, &err).into());
                }
                Some(Ok(Message::Close(_))) | None => break None,
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    tracing::debug!("connection {id} read error: {e}");
                    break Some(CloseFrame { code: CloseCode::Size, reason: "message too large or malformed".into() });
                }
            },
            () = &mut revoked => {
                tracing::info!("connection {id} closed: its device token was revoked");
                break Some(CloseFrame { code: CloseCode::Policy, reason: "device token revoked".into() });
            }
            () = cut_off.notified() => {
                tracing::warn!("connection {id} could not keep up and was cut off; it can reconnect");
                break Some(CloseFrame { code: CloseCode::Again, reason: "too slow: reconnect to catch up".into() });
            }
        }
    };
    host.connection_closed(id);
    if let Some(frame) = close_reason {
        let _ = close_tx.send(frame).await;
    }
    drop(close_tx);
    let _ = writer.await;
}

/// Write `first` and whatever else is already queued (up to a bound), then
/// flush once: one syscall per burst instead of one per frame.
async fn write_burst<S>(sink: &mut S, rx: &mut mpsc::Receiver<OutFrame>, first: OutFrame) -> Result<(), S::Error>
where
    S: futures_util::Sink<Message> + Unpin,
{
    sink.feed(Message::Text(first)).await?;
    for _ in 0..255 {
        match rx.try_recv() {
            Ok(frame) => sink.feed(Message::Text(frame)).await?,
            Err(_) => break,
        }
    }
    sink.flush().await
}

fn handle_frame(host: &Arc<Host>, conn: &mut ConnState, text: &str) {
    match parse(text) {
        Incoming::Request { id, method, params } => {
            let outcome = handle_request(host, conn, &id, &method, params);
            if let Some(frame) = answer(&id, outcome) {
                host.hub.send(conn.id, frame.into());
            }
        }
        Incoming::Notification { method, params } => handle_notification(host, conn, &method, params),
        Incoming::Response { id, result, error } => {
            host.outgoing.resolve(conn.id, &id, result.as_deref(), error.as_deref())
        }
        Incoming::Invalid { id, error } => {
            host.hub.send(conn.id, error_frame(&id, &error).into());
        }
    }
}
