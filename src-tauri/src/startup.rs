//! Start-up shared by the app and the bridge: the embedded host, the core,
//! and the local host registered in the multi-host client like any other.

use std::path::PathBuf;
use std::sync::Arc;

use crate::core::Core;
use crate::embedded_host::{agent_specs, default_data_dir, EmbeddedHost};
use crate::error::CoreError;

/// The id of the embedded host in the multi-host client.
pub const LOCAL_HOST_ID: &str = "local";

/// A started desktop core with its embedded host.
pub struct Started {
    /// The core.
    pub core: Arc<Core>,
    /// The embedded host (kept alive for the app's lifetime).
    pub host: EmbeddedHost,
}

/// `--data-dir DIR` from the arguments, else `HANGAR_DESKTOP_DATA_DIR`, else
/// the platform default.
pub fn data_dir(args: &[String]) -> Result<PathBuf, CoreError> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--data-dir" {
            if let Some(d) = it.next() {
                return Ok(PathBuf::from(d));
            }
        }
        if let Some(d) = a.strip_prefix("--data-dir=") {
            return Ok(PathBuf::from(d));
        }
    }
    match std::env::var_os("HANGAR_DESKTOP_DATA_DIR") {
        Some(d) => Ok(PathBuf::from(d)),
        None => default_data_dir(),
    }
}

/// Folders the embedded host lets sessions work in and folder pickers list
/// (`hangar serve --browse-root`): every `--browse-root DIR`, then the
/// `HANGAR_BROWSE_ROOTS` environment variable (`:`-separated). Empty means
/// the host's default, the user's home.
pub fn browse_roots(args: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let dir = if a == "--browse-root" { it.next().cloned() } else { a.strip_prefix("--browse-root=").map(str::to_owned) };
        out.extend(dir.map(PathBuf::from));
    }
    if let Some(env) = std::env::var_os("HANGAR_BROWSE_ROOTS") {
        out.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
    }
    out
}

/// Start the embedded host and the core (inside a Tokio runtime).
pub async fn start(args: &[String]) -> Result<Started, CoreError> {
    let agents = agent_specs(args)?;
    let host = EmbeddedHost::start(data_dir(args)?, agents, browse_roots(args)).await?;
    let core = Core::start();
    core.add_host(LOCAL_HOST_ID, "This computer", host.url.clone()).await?;
    Ok(Started { core, host })
}
