//! The WebSocket JSON-RPC server.
//!
//! Map:
//! - `upgrade.rs`    — token, Origin and Host checks on the HTTP upgrade.
//! - `connection.rs` — one connection: read, answer, write, limits.
//! - `frames.rs`     — raw JSON-RPC decoding (string ids!) and encoding.
//! - `methods.rs`    — the method table.
//! - `resource_methods.rs` — `resource*`, watches and `completions`, run off
//!   the read loop.
//! - `grant_ask.rs`  — `resourceRequest` under the grant policy; asks a
//!   client when the policy is `ask`.

mod connection;
mod frames;
mod grant_ask;
mod methods;
mod resource_methods;
pub mod upgrade;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::host::Host;
use upgrade::UpgradePolicy;

/// Accept connections on `listener` until `shutdown` resolves.
pub async fn serve(host: Arc<Host>, listener: TcpListener, shutdown: impl Future<Output = ()>) {
    let loopback = listener.local_addr().map(|a| a.ip().is_loopback()).unwrap_or(true);
    let policy = Arc::new(UpgradePolicy {
        token: host.config.token.clone(),
        allowed_origins: host.config.allowed_origins.clone(),
        loopback_only_host: loopback,
    });
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(connection::serve(host.clone(), stream, policy.clone()));
                }
                Err(e) => tracing::warn!("accept failed: {e}"),
            },
            () = &mut shutdown => break,
        }
    }
}
