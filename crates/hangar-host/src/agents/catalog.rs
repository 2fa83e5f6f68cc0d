//! The Agents page's view of one host ([`Catalog`]): every well-known
//! agent with where it is (installed by Hangar, found on `PATH` or in an
//! npm prefix, or missing), its version against the one Hangar pins, an
//! install running or failed; the custom agents; whether npm is there.
//! `x-hangar/agents` answers with it, and every change the page makes
//! answers with it again.

use std::path::Path;

use serde::Serialize;

use crate::agents::custom::CustomAgent;
use crate::agents::install::{self, Installs, Progress};
use crate::agents::registry::AgentRegistry;

/// The host's agents, for the Agents page.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// The well-known agents, in a fixed order.
    pub known: Vec<KnownAgent>,
    /// Agents added by hand.
    pub custom: Vec<CustomAgent>,
    /// Why the custom agents file could not be read, if it could not.
    pub custom_error: Option<String>,
    /// Whether npm is on the host's `PATH` (installs need it).
    pub npm: bool,
    /// Whether the host looks for the well-known agents at all (`hangar
    /// serve --no-discover` does not: an install would not be used).
    pub discovers: bool,
    /// The ids sessions can be started with now.
    pub registered: Vec<String>,
}

/// Where a well-known agent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Where {
    /// In Hangar's own install folder: it can be updated and removed here.
    Hangar,
    /// Elsewhere: on `PATH` or in another npm prefix.
    Elsewhere,
    /// Not on this host.
    Missing,
}

/// One well-known agent.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KnownAgent {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its npm package.
    pub package: String,
    /// The version Hangar installs (the one it is tested with).
    pub pinned: String,
    /// Where it is.
    pub location: Where,
    /// The executable found.
    pub program: Option<String>,
    /// The installed version, when known.
    pub version: Option<String>,
    /// An install running, or the last one that failed.
    pub install: Option<Progress>,
}

impl Catalog {
    /// The agents as they are now: `registry`'s, those installed in
    /// `data_dir`, and the `installs` running.
    pub fn of(registry: &AgentRegistry, data_dir: &Path, installs: &Installs) -> Self {
        let (prefixes, path) = registry.search();
        let own = install::prefix(data_dir);
        let known = crate::agents::discovery::survey(path.as_deref(), &prefixes)
            .into_iter()
            .map(|p| {
                let location = match &p.program {
                    Some(program) if program.starts_with(&own) => Where::Hangar,
                    Some(_) => Where::Elsewhere,
                    None => Where::Missing,
                };
                KnownAgent {
                    pinned: install::pinned(&p.id).unwrap_or_default().to_owned(),
                    install: installs.get(&p.id),
                    id: p.id,
                    name: p.display_name,
                    package: p.package,
                    location,
                    program: p.program.map(|x| x.display().to_string()),
                    version: p.version,
                }
            })
            .collect();
        let (custom, custom_error) = match crate::agents::custom::load(data_dir) {
            Ok(custom) => (custom, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        Self {
            known,
            custom,
            custom_error,
            npm: on_path("npm", path.as_deref()),
            discovers: registry.discovers(),
            registered: registry.all().into_iter().map(|a| a.id).collect(),
        }
    }
}

/// Whether an executable `name` is in a directory of `path` (else the
/// host's own `PATH`).
fn on_path(name: &str, path: Option<&std::ffi::OsStr>) -> bool {
    let own = std::env::var_os("PATH");
    let Some(path) = path.or(own.as_deref()) else {
        return false;
    };
    std::env::split_paths(path).any(|dir| crate::agents::discovery::is_executable(&dir.join(name)))
}
