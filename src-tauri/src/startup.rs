//! Start-up shared by the app and the bridge: the embedded host, the core,
//! the local host registered in the multi-host client like any other, then
//! every saved remote host (`hangar remote list`: `CONFIG/hangar/hosts.json`,
//! or `--config-dir DIR`).

use std::path::PathBuf;
use std::sync::Arc;

use crate::core::Core;
use crate::embedded_host::{agent_specs, default_data_dir, discovery, EmbeddedHost};
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

/// The values of a command-line flag, in order: `FLAG VALUE` and
/// `FLAG=VALUE` both count.
pub fn flag_values<'a>(args: &'a [String], flag: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let mut it = args.iter();
    std::iter::from_fn(move || {
        for a in it.by_ref() {
            if a == flag {
                return it.next().map(String::as_str);
            }
            if let Some(v) = a.strip_prefix(flag).and_then(|rest| rest.strip_prefix('=')) {
                return Some(v);
            }
        }
        None
    })
}

/// `--data-dir DIR` from the arguments, else `HANGAR_DESKTOP_DATA_DIR`, else
/// the platform default.
pub fn data_dir(args: &[String]) -> Result<PathBuf, CoreError> {
    if let Some(d) = flag_values(args, "--data-dir").next() {
        return Ok(PathBuf::from(d));
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
    let mut out: Vec<PathBuf> = flag_values(args, "--browse-root").map(PathBuf::from).collect();
    if let Some(env) = std::env::var_os("HANGAR_BROWSE_ROOTS") {
        out.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
    }
    out
}

/// The saved-host list: `--config-dir DIR` (the folder holding
/// `hosts.json`), else the one `hangar remote` uses (`CONFIG/hangar`).
pub fn saved_hosts(args: &[String]) -> Result<hangar_remote::Remotes, hangar_remote::RemoteError> {
    match flag_values(args, "--config-dir").next() {
        Some(dir) => Ok(hangar_remote::Remotes::at(dir)),
        None => hangar_remote::Remotes::open(),
    }
}

/// `--blank`: open the app's window on an empty page, without the host, the
/// core or the UI; the baseline that the app's memory figures are measured
/// against (`ui/tests/window/idle-rss.mjs`, docs/performance.md).
pub fn blank(args: &[String]) -> bool {
    args.iter().any(|a| a == "--blank")
}

/// Start the embedded host and the core (inside a Tokio runtime).
pub async fn start(args: &[String]) -> Result<Started, CoreError> {
    let agents = agent_specs(args)?;
    let host = EmbeddedHost::start(data_dir(args)?, agents, discovery(args), browse_roots(args)).await?;
    let core = Core::start();
    core.add_host(LOCAL_HOST_ID, "This computer", host.url.clone()).await?;
    // A list that cannot be read leaves the app usable with its own host.
    match saved_hosts(args) {
        Ok(remotes) => match core.load_saved_hosts(remotes).await {
            Ok(n) => tracing::info!("{n} saved remote hosts"),
            Err(e) => tracing::warn!("the saved hosts: {e}"),
        },
        Err(e) => tracing::warn!("the saved hosts: {e}"),
    }
    Ok(Started { core, host })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_in_both_forms() {
        let args: Vec<String> =
            ["app", "--browse-root", "/a", "--data-dir=/d", "--browse-root=/b", "--browse-rootx=/no", "--browse-root"]
                .map(str::to_owned)
                .to_vec();
        assert_eq!(flag_values(&args, "--browse-root").collect::<Vec<_>>(), ["/a", "/b"]);
        assert_eq!(data_dir(&args).unwrap(), PathBuf::from("/d"));
        assert!(!blank(&args));
        assert!(blank(&["--data-dir".to_owned(), "/d".to_owned(), "--blank".to_owned()]));
    }
}
