//! `hangar serve --web`: the web UI on the host's own port. The client core
//! behind the page's `/ipc` (`hangar_desktop::web`) connects to this very
//! host over a second, loopback-only listener without TLS, with the host's
//! token: no second host is opened on the data directory (it is locked).
//! The address a browser reaches is written to `DATA_DIR/web-url` for
//! `hangar token create NAME --pair`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hangar_host::host::Host;
use hangar_host::server::web_route::WebService;
use hangar_host::server::{serve_with, ListenOptions};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::serve::ServeError;

/// The file, in the data directory, holding the web UI's address while a
/// `--web` host runs.
pub const WEB_URL_FILE: &str = "web-url";
/// The client core's own files (outbox, settings), under the data directory.
const CORE_DIR: &str = "web-client";

/// The web side of the listener and what keeps it running.
pub struct WebSide {
    /// What the host hands non-AHP connections to.
    pub service: Arc<dyn WebService>,
    /// Stops the loopback listener of the core when dropped.
    _stop: oneshot::Sender<()>,
}

/// The page's base URL for a listener on `addr`.
pub fn page_url(addr: SocketAddr, tls: bool) -> String {
    format!("{}://{addr}/", if tls { "https" } else { "http" })
}

/// Start the core connected to `host` and the web service over it; note
/// `page_url` in the data directory.
pub async fn start(host: &Arc<Host>, page_url: &str) -> Result<WebSide, ServeError> {
    let listener = TcpListener::bind("127.0.0.1:0").await.map_err(|e| format!("the web core's listener: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let (stop, stopped) = oneshot::channel::<()>();
    let stopped = async move {
        let _ = stopped.await;
    };
    tokio::spawn(serve_with(host.clone(), listener, stopped, ListenOptions::default()));
    let data_dir = &host.config.data_dir;
    let host_url = format!("ws://{addr}/?tkn={}", host.config.token);
    let core = hangar_desktop::web::start_core(host_url, &data_dir.join(CORE_DIR))
        .await
        .map_err(|e| format!("the web core: {e}"))?;
    write_page_url(data_dir, page_url)?;
    let service: Arc<dyn WebService> = Arc::new(hangar_desktop::web::WebServer::new(core, data_dir));
    Ok(WebSide { service, _stop: stop })
}

fn write_page_url(data_dir: &Path, url: &str) -> Result<(), ServeError> {
    let path = data_dir.join(WEB_URL_FILE);
    std::fs::write(&path, format!("{url}\n")).map_err(|e| format!("writing {}: {e}", path.display()).into())
}

/// The web UI's address noted by a `--web` host of `data_dir`, if any.
pub fn noted_page_url(data_dir: &Path) -> Option<String> {
    let path: PathBuf = data_dir.join(WEB_URL_FILE);
    let text = std::fs::read_to_string(path).ok()?;
    let url = text.trim();
    (!url.is_empty()).then(|| url.to_owned())
}
