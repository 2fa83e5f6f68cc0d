//! Start-up shared by the app and the bridge: the embedded host, the core,
//! the local host registered in the multi-host client like any other, then
//! every saved remote host (`hangar remote list`: `CONFIG/hangar/hosts.json`,
//! or `--config-dir DIR`). The options themselves: [`crate::options`].

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::core::Core;
use crate::embedded_host::{agent_specs, default_data_dir, discovery, EmbeddedHost};
use crate::error::CoreError;
use crate::options::AppOptions;

/// The id of the embedded host in the multi-host client.
pub const LOCAL_HOST_ID: &str = "local";

/// A started desktop core with its embedded host.
pub struct Started {
    /// The core.
    pub core: Arc<Core>,
    /// The embedded host (kept alive for the app's lifetime).
    pub host: EmbeddedHost,
}

/// `--data-dir DIR`, else `HANGAR_DESKTOP_DATA_DIR`, else the platform
/// default.
pub fn data_dir(options: &AppOptions) -> Result<PathBuf, CoreError> {
    if let Some(d) = &options.data_dir {
        return Ok(d.clone());
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
pub fn browse_roots(options: &AppOptions) -> Vec<PathBuf> {
    let mut out = options.browse_roots.clone();
    if let Some(env) = std::env::var_os("HANGAR_BROWSE_ROOTS") {
        out.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
    }
    out
}

/// This computer's addresses as a test gives them (`--machine-addresses`,
/// else `HANGAR_MACHINE_ADDRESSES`, comma-separated), so a test moves the
/// computer without root; `None`: the network interfaces'.
pub fn machine_addresses(options: &AppOptions) -> Result<Option<Vec<IpAddr>>, CoreError> {
    if let Some(addresses) = &options.machine_addresses {
        return Ok(Some(addresses.clone()));
    }
    let Ok(list) = std::env::var("HANGAR_MACHINE_ADDRESSES") else { return Ok(None) };
    let parse = |a: &str| {
        a.trim()
            .parse::<IpAddr>()
            .map_err(|e| CoreError::EmbeddedHost(format!("HANGAR_MACHINE_ADDRESSES: {a:?} is not an IP address: {e}")))
    };
    list.split(',').filter(|a| !a.trim().is_empty()).map(parse).collect::<Result<Vec<_>, _>>().map(Some)
}

/// The saved-host list: `--config-dir DIR` (the folder holding
/// `hosts.json`), else the one `hangar remote` uses (`CONFIG/hangar`).
pub fn saved_hosts(options: &AppOptions) -> Result<hangar_remote::Remotes, hangar_remote::RemoteError> {
    match &options.config_dir {
        Some(dir) => Ok(hangar_remote::Remotes::at(dir)),
        None => hangar_remote::Remotes::open(),
    }
}

/// Start the embedded host and the core (inside a Tokio runtime).
pub async fn start(options: &AppOptions) -> Result<Started, CoreError> {
    let agents = agent_specs(options)?;
    let host = EmbeddedHost::start(data_dir(options)?, agents, discovery(options), browse_roots(options)).await?;
    let core = Core::start();
    core.use_data_dir(&host.data_dir);
    core.add_host(LOCAL_HOST_ID, "This computer", host.url.clone()).await?;
    let listener = crate::device_access::DeviceListener::new(&host.host(), &core);
    if let Some(addresses) = machine_addresses(options)? {
        listener.use_addresses(move || addresses.clone());
    }
    core.use_device_listener(listener);
    // A list that cannot be read leaves the app usable with its own host.
    match saved_hosts(options) {
        Ok(remotes) => match core.load_saved_hosts(remotes).await {
            Ok(n) => tracing::info!("{n} saved remote hosts"),
            Err(e) => tracing::warn!("the saved hosts: {e}"),
        },
        Err(e) => tracing::warn!("the saved hosts: {e}"),
    }
    // Open from other devices, when on: after the saved hosts, so a paired
    // browser sees them all. A port that cannot be had is shown in Settings.
    if let Err(e) = crate::devices_page::apply_setting(&core).await {
        tracing::warn!("open from other devices: {e}");
    }
    Ok(Started { core, host })
}
