//! `hangar serve --web`: the UI and the client core behind the host's own
//! port. The host (`hangar_host::server::web_route`) hands every connection
//! that is not an AHP upgrade to [`WebServer`], which serves:
//!
//! - `/` and `/assets/…`: the built UI, embedded (`assets.rs`);
//! - `POST /pair`: a pairing code traded for a device token (`pair.rs`);
//! - `/ipc`: the bridge's command table (`crate::bridge`) for a page
//!   presenting a device token (or the host's) (`ipc.rs`);
//!
//! every request checked and every answer headed by `guard.rs` (same
//! `Origin` only, an allowed `Host`, a strict CSP). The core behind `/ipc`
//! is connected to this host over loopback with the host's token
//! ([`start_core`]); it never opens a host of its own.

mod assets;
mod guard;
mod ipc;
mod pair;

use std::future::Future;
use std::net::IpAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use axum::routing::{get, post};
use axum::Router;
use hangar_host::server::pairing_codes::PairingCodes;
use hangar_host::server::web_route::{WebConn, WebService, WEB_IPC_PATH};
use hangar_host::server::ws_upgrade::UpgradePolicy;
use hyper_util::rt::TokioIo;
use tower::ServiceExt;

use crate::core::Core;
use crate::error::CoreError;
use crate::startup::LOCAL_HOST_ID;

/// What every request of one connection knows about it.
#[derive(Clone)]
pub(crate) struct ConnInfo {
    pub peer: IpAddr,
    pub tls: bool,
    pub policy: Arc<UpgradePolicy>,
}

/// The shared state of the handlers.
pub(crate) struct WebState {
    pub core: Arc<Core>,
    pub pairing: PairingCodes,
}

/// The web side of a `hangar serve --web` listener.
pub struct WebServer {
    router: Router,
}

impl WebServer {
    /// Serve `core`'s command table, and pair devices of `data_dir`.
    pub fn new(core: Arc<Core>, data_dir: &Path) -> Self {
        let state = Arc::new(WebState { core, pairing: PairingCodes::in_data_dir(data_dir) });
        let router = Router::new()
            .route(WEB_IPC_PATH, get(ipc::upgrade))
            .route(pair::PAIR_PATH, post(pair::pair).get(pair::pairing_required))
            .fallback(get(assets::asset))
            .with_state(state)
            .layer(axum::middleware::from_fn(guard::guard));
        Self { router }
    }
}

impl WebService for WebServer {
    fn serve(&self, conn: WebConn) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let router = self.router.clone();
        let info = ConnInfo { peer: conn.peer, tls: conn.tls, policy: conn.policy };
        let service = hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(info.clone());
            router.clone().oneshot(req)
        });
        Box::pin(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(conn.io), service)
                .with_upgrades()
                .await;
            if let Err(e) = served {
                tracing::debug!("web connection: {e}");
            }
        })
    }
}

/// The client core `/ipc` drives, connected to the host at `host_url`
/// (`ws://127.0.0.1:PORT/?tkn=TOKEN`), its own files (outbox, settings) in
/// `core_dir`.
pub async fn start_core(host_url: String, core_dir: &Path) -> Result<Arc<Core>, CoreError> {
    std::fs::create_dir_all(core_dir).map_err(|e| CoreError::EmbeddedHost(format!("{}: {e}", core_dir.display())))?;
    let core = Core::start();
    core.use_data_dir(core_dir);
    core.add_host(LOCAL_HOST_ID, "This computer", host_url).await?;
    Ok(core)
}
