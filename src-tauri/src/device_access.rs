//! Settings → *Open from other devices*: a second listener of the embedded
//! host that also serves the web UI (`crate::web::WebServer`, the same
//! server `hangar serve --web` uses) with `/ipc` backed by the app's OWN
//! core, so a paired browser sees every host the app knows.
//!
//! Off by default. On loopback (`127.0.0.1`, plain HTTP) unless *on my
//! network*, which binds every address and always serves over TLS with
//! the self-signed certificate kept in the embedded host's data directory
//! (`hangar_host::server::tls`). The port is chosen once and kept in the
//! settings, so a paired device's link survives a restart. Pairing codes
//! and device tokens are the embedded host's (`DATA_DIR/devices/`, hashes
//! only): revoking one closes its open pages at once. The certificate
//! follows this computer's addresses: each start of the listener on the
//! network makes it again when the addresses it names are no longer this
//! computer's (`tls::self_signed_current`), and the status says so. Where
//! the addresses come from is an input ([`DeviceListener::use_addresses`]),
//! the network interfaces unless a test gives a list.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use hangar_desktop_protocol::devices::DeviceAccess;
use hangar_host::host::Host;
use hangar_host::server::tls_names::{certificate_names, interface_addresses};
use hangar_host::server::web_route::WebService;
use hangar_host::server::{serve_with, tls, ListenOptions};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::core::Core;
use crate::web::WebServer;

/// How long a port just released by the previous listener is tried again.
const REBIND_FOR: Duration = Duration::from_secs(3);

/// The listener while it runs.
struct Running {
    on_network: bool,
    port: u16,
    url: String,
    fingerprint: Option<String>,
    /// Why the certificate was made again as this listener started.
    renewed: Option<String>,
    /// Stops the listener when dropped.
    _stop: oneshot::Sender<()>,
}

#[derive(Default)]
struct Served {
    running: Option<Running>,
    problem: Option<String>,
}

/// What Settings shows of the listener now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// The page's address, while served.
    pub url: Option<String>,
    /// The certificate's fingerprint, when over TLS.
    pub fingerprint: Option<String>,
    /// Why the certificate was made again as the listener started.
    pub renewed: Option<String>,
    /// Why it is not served, when it should be.
    pub problem: Option<String>,
}

/// The *Open from other devices* listener of the app's embedded host.
pub struct DeviceListener {
    /// Weak: the core (which holds this) lives as long as its tasks, and
    /// must not keep the host (and its data directory's lock) after it stops.
    host: Weak<Host>,
    data_dir: PathBuf,
    core: Weak<Core>,
    served: tokio::sync::Mutex<Served>,
    /// This computer's network addresses (loopback ones are left out).
    addresses: std::sync::Mutex<Arc<dyn Fn() -> Vec<IpAddr> + Send + Sync>>,
}

impl DeviceListener {
    /// Not serving yet; [`DeviceListener::apply`] starts it.
    pub fn new(host: &Arc<Host>, core: &Arc<Core>) -> Arc<Self> {
        Arc::new(Self {
            host: Arc::downgrade(host),
            data_dir: host.config.data_dir.clone(),
            core: Arc::downgrade(core),
            served: tokio::sync::Mutex::new(Served::default()),
            addresses: std::sync::Mutex::new(Arc::new(interface_addresses)),
        })
    }

    /// Take this computer's addresses from `addresses` from the next start
    /// of the listener on (instead of the network interfaces).
    pub fn use_addresses(&self, addresses: impl Fn() -> Vec<IpAddr> + Send + Sync + 'static) {
        *self.addresses.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(addresses);
    }

    fn addresses(&self) -> Vec<IpAddr> {
        let source = self.addresses.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        source()
    }

    /// The embedded host's data directory (its device tokens and codes).
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone()
    }

    /// Serve as `setting` says (started, moved or stopped); returns the
    /// port served on, to keep in the settings. A failure is kept as the
    /// status's problem.
    pub async fn apply(&self, setting: DeviceAccess) -> Option<u16> {
        let mut served = self.served.lock().await;
        served.problem = None;
        if !setting.enabled {
            served.running = None;
            return None;
        }
        if let Some(r) = &served.running {
            if r.on_network == setting.on_network && setting.port.is_none_or(|p| p == r.port) {
                return Some(r.port);
            }
        }
        served.running = None;
        match self.start(setting).await {
            Ok(running) => {
                let port = running.port;
                tracing::info!("open from other devices: {}", running.url);
                served.running = Some(running);
                Some(port)
            }
            Err(problem) => {
                tracing::warn!("open from other devices: {problem}");
                served.problem = Some(problem);
                None
            }
        }
    }

    /// Stop serving, whatever the settings say (the app closing): the
    /// listener's task holds the core, so it must end for the core to go.
    pub async fn stop(&self) {
        self.served.lock().await.running = None;
    }

    /// The listener's address, fingerprint or problem.
    pub async fn status(&self) -> Status {
        let served = self.served.lock().await;
        Status {
            url: served.running.as_ref().map(|r| r.url.clone()),
            fingerprint: served.running.as_ref().and_then(|r| r.fingerprint.clone()),
            renewed: served.running.as_ref().and_then(|r| r.renewed.clone()),
            problem: served.problem.clone(),
        }
    }

    async fn start(&self, setting: DeviceAccess) -> Result<Running, String> {
        let core = self.core.upgrade().ok_or("the app is closing")?;
        let host = self.host.upgrade().ok_or("the embedded host has stopped")?;
        let ip = if setting.on_network { IpAddr::V4(Ipv4Addr::UNSPECIFIED) } else { IpAddr::V4(Ipv4Addr::LOCALHOST) };
        let listener = bind(SocketAddr::new(ip, setting.port.unwrap_or(0))).await?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let data_dir = self.data_dir();
        let (tls, fingerprint, renewed, shown) = if setting.on_network {
            let names = certificate_names(self.addresses());
            let (identity, renewed) = tls::self_signed_current(&data_dir, &names).map_err(|e| e.to_string())?;
            if let Some(why) = &renewed {
                tracing::info!("open from other devices: the certificate was made again ({why})");
            }
            let fingerprint = hangar_remote::Fingerprint::of_der(&identity.certificate).to_string();
            let shown = names.iter().find(|n| n.parse::<Ipv4Addr>().is_ok_and(|ip| !ip.is_loopback())).cloned();
            (Some(identity.server_config), Some(fingerprint), renewed, shown.unwrap_or_else(|| "localhost".into()))
        } else {
            (None, None, None, "127.0.0.1".to_owned())
        };
        let scheme = if tls.is_some() { "https" } else { "http" };
        let url = format!("{scheme}://{shown}:{port}/");
        let web: Arc<dyn WebService> = Arc::new(WebServer::new(core, &data_dir));
        let (stop, stopped) = oneshot::channel::<()>();
        let stopped = async move {
            let _ = stopped.await;
        };
        tokio::spawn(serve_with(host, listener, stopped, ListenOptions { tls, web: Some(web) }));
        Ok(Running { on_network: setting.on_network, port, url, fingerprint, renewed, _stop: stop })
    }
}

/// Bind `addr`, trying again for a moment while the previous listener
/// (stopped just before) still holds its port.
async fn bind(addr: SocketAddr) -> Result<TcpListener, String> {
    let deadline = Instant::now() + REBIND_FOR;
    loop {
        match TcpListener::bind(addr).await {
            Ok(l) => return Ok(l),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse && addr.port() != 0 && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => return Err(format!("listening on {addr}: {e}")),
        }
    }
}
