//! The host the app carries inside itself: `hangar_host` on
//! `127.0.0.1:0` with a fresh random token each launch and its data under
//! the platform data dir (`~/.local/share/hangar-desktop` on Linux).
//! The app then connects to it like to any other host.

use std::path::PathBuf;
use std::sync::Arc;

use hangar_host::agents::registry::Discovery;
use hangar_host::agents::AgentSpec;
use hangar_host::config::HostConfig;
use hangar_host::host::Host;
use rand::Rng;
use tokio::sync::oneshot;

use crate::error::CoreError;
use crate::options::AppOptions;

/// A running embedded host.
pub struct EmbeddedHost {
    /// `ws://127.0.0.1:PORT/?tkn=TOKEN`.
    pub url: String,
    /// The data directory.
    pub data_dir: PathBuf,
    host: Arc<Host>,
    stop: Option<oneshot::Sender<()>>,
}

/// The default data directory.
pub fn default_data_dir() -> Result<PathBuf, CoreError> {
    dirs::data_dir()
        .map(|d| d.join("hangar-desktop"))
        .ok_or_else(|| CoreError::EmbeddedHost("no platform data directory; set HANGAR_DESKTOP_DATA_DIR".into()))
}

/// Agents from `ID=COMMAND` strings: command-line `--agent` flags, then the
/// `HANGAR_AGENTS` environment variable (entries separated by `;`), the
/// same `ID=COMMAND` form `hangar serve --agent` takes.
pub fn agent_specs(options: &AppOptions) -> Result<Vec<AgentSpec>, CoreError> {
    let mut out = Vec::new();
    for spec in &options.agents {
        out.push(AgentSpec::parse(spec).map_err(|e| CoreError::EmbeddedHost(e.to_string()))?);
    }
    if let Ok(env) = std::env::var("HANGAR_AGENTS") {
        for spec in env.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            out.push(AgentSpec::parse(spec).map_err(|e| CoreError::EmbeddedHost(e.to_string()))?);
        }
    }
    Ok(out)
}

/// Where the embedded host looks for the well-known ACP agents, after the
/// ones installed from the Agents page (its own data dir): those
/// `hangar agents install` put in `hangar serve`'s default data dir, then
/// `PATH`. `None` (no discovery) with `--no-discover` or
/// `HANGAR_NO_DISCOVER=1`.
pub fn discovery(options: &AppOptions) -> Option<Discovery> {
    let off = options.no_discover || std::env::var_os("HANGAR_NO_DISCOVER").is_some();
    (!off).then(|| Discovery {
        path: std::env::var_os("PATH"),
        npm_prefixes: dirs::data_dir()
            .map(|d| hangar_host::agents::install::prefix(&d.join("hangar")))
            .into_iter()
            .collect(),
    })
}

fn random_token() -> String {
    let mut rng = rand::thread_rng();
    (0..32).map(|_| format!("{:02x}", rng.gen::<u8>())).collect()
}

impl EmbeddedHost {
    /// Open the host on `data_dir` and serve it on a free loopback port.
    /// `browse_roots`, when not empty, replaces the host's default (home).
    pub async fn start(
        data_dir: PathBuf,
        agents: Vec<AgentSpec>,
        discovery: Option<Discovery>,
        browse_roots: Vec<PathBuf>,
    ) -> Result<Self, CoreError> {
        std::fs::create_dir_all(&data_dir)
            .map_err(|e| CoreError::EmbeddedHost(format!("{}: {e}", data_dir.display())))?;
        let token = random_token();
        let mut config = HostConfig::new(data_dir.clone(), token.clone());
        config.agents = agents;
        config.discovery = discovery;
        if !browse_roots.is_empty() {
            config.browse_roots = browse_roots;
        }
        let listener =
            tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| CoreError::EmbeddedHost(e.to_string()))?;
        let addr = listener.local_addr().map_err(|e| CoreError::EmbeddedHost(e.to_string()))?;
        config.listen = addr;
        let host = Host::open(config).map_err(|e| CoreError::EmbeddedHost(e.to_string()))?;
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(hangar_host::server::serve(host.clone(), listener, async move {
            let _ = stopped.await;
        }));
        Ok(Self { url: format!("ws://{addr}/?tkn={token}"), data_dir, host, stop: Some(stop) })
    }

    /// The host itself (for another listener of it: *Open from other
    /// devices*, `device_access.rs`).
    pub fn host(&self) -> Arc<Host> {
        self.host.clone()
    }

    /// Stop listening and shut the host down.
    pub fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
            self.host.shutdown();
        }
    }
}

impl Drop for EmbeddedHost {
    fn drop(&mut self) {
        self.shutdown();
    }
}
