//! The live list of agents the host runs. It is made of, in this order
//! (an id taken earlier wins):
//! 1. the agents the host was started with (`--agent ID=COMMAND`);
//! 2. the custom agents saved in the data dir (`custom.rs`);
//! 3. the well-known agents found in Hangar's own install folder
//!    (`DATA_DIR/agents`, where the Agents page installs them), then, when
//!    discovery is on, in the configured npm prefixes and on `PATH`
//!    (`discovery.rs`).
//!
//! [`AgentRegistry::reload`] makes the list again, so an agent installed,
//! removed or added while the host runs is usable at once: the host then
//! publishes `root/agentsChanged`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::RwLock;

use crate::agents::AgentSpec;

/// Where discovery looks, besides Hangar's own install folder.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// A `PATH`-style list (the host's own `PATH` as it started).
    pub path: Option<OsString>,
    /// npm prefixes searched after Hangar's own (`--npm-prefix`).
    pub npm_prefixes: Vec<PathBuf>,
}

/// The agents, current.
#[derive(Debug)]
pub struct AgentRegistry {
    explicit: Vec<AgentSpec>,
    discovery: Option<Discovery>,
    data_dir: PathBuf,
    live: RwLock<Vec<AgentSpec>>,
}

impl AgentRegistry {
    /// The list for these sources, made now.
    pub fn new(explicit: Vec<AgentSpec>, discovery: Option<Discovery>, data_dir: PathBuf) -> Self {
        let me = Self { explicit, discovery, data_dir, live: RwLock::new(Vec::new()) };
        me.reload();
        me
    }

    /// Every agent, in order.
    pub fn all(&self) -> Vec<AgentSpec> {
        self.live.read().map(|l| l.clone()).unwrap_or_default()
    }

    /// Agent `id`.
    pub fn get(&self, id: &str) -> Option<AgentSpec> {
        self.live.read().ok()?.iter().find(|a| a.id == id).cloned()
    }

    /// Whether the host has an agent at all.
    pub fn is_empty(&self) -> bool {
        self.live.read().map(|l| l.is_empty()).unwrap_or(true)
    }

    /// Whether discovery beyond Hangar's own install folder is on.
    pub fn discovers(&self) -> bool {
        self.discovery.is_some()
    }

    /// The npm prefixes searched, Hangar's own first, and the `PATH`
    /// searched (none without discovery).
    pub fn search(&self) -> (Vec<PathBuf>, Option<OsString>) {
        let mut prefixes = vec![crate::agents::install::prefix(&self.data_dir)];
        let path = self.discovery.as_ref().and_then(|d| {
            prefixes.extend(d.npm_prefixes.iter().cloned());
            d.path.clone()
        });
        (prefixes, path)
    }

    /// Make the list again from its sources; whether it changed.
    pub fn reload(&self) -> bool {
        let mut agents = self.explicit.clone();
        match crate::agents::custom::load(&self.data_dir) {
            Ok(custom) => {
                for agent in custom {
                    if !agents.iter().any(|a| a.id == agent.id) {
                        agents.push(agent.spec());
                    }
                }
            }
            Err(e) => tracing::warn!("custom agents left out: {e}"),
        }
        let taken: Vec<String> = agents.iter().map(|a| a.id.clone()).collect();
        let (prefixes, path) = self.search();
        for agent in crate::agents::discovery::discover(path.as_deref(), &prefixes, &taken) {
            tracing::info!("found agent {} ({})", agent.id, agent.command.join(" "));
            agents.push(agent);
        }
        let Ok(mut live) = self.live.write() else {
            return false;
        };
        let changed = *live != agents;
        *live = agents;
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::custom::{save, CustomAgent};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn explicit_then_custom_then_discovered_and_a_reload_sees_new_ones() {
        let data = tempfile::tempdir().unwrap();
        let path_dir = tempfile::tempdir().unwrap();
        let explicit = AgentSpec::parse("mine=/bin/true").unwrap();
        let discovery = Discovery { path: Some(path_dir.path().as_os_str().to_owned()), npm_prefixes: Vec::new() };
        let registry = AgentRegistry::new(vec![explicit], Some(discovery), data.path().to_owned());
        assert_eq!(registry.all().len(), 1);
        assert!(!registry.reload(), "nothing changed");

        let custom = CustomAgent {
            id: "mine".into(),
            name: String::new(),
            command: "/bin/false".into(),
            args: Vec::new(),
            env: Default::default(),
        };
        save(data.path(), CustomAgent { id: "extra".into(), ..custom.clone() }).unwrap();
        // A custom agent with an id given on the command line is left out.
        save(data.path(), custom).unwrap();
        // Installed into Hangar's own folder while the host runs.
        let bin = crate::agents::install::prefix(data.path()).join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("gemini"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(bin.join("gemini"), std::fs::Permissions::from_mode(0o755)).unwrap();

        assert!(registry.reload());
        let ids: Vec<String> = registry.all().into_iter().map(|a| a.id).collect();
        assert_eq!(ids, ["mine", "extra", "gemini"]);
        assert_eq!(registry.get("mine").unwrap().command, ["/bin/true"]);
        assert_eq!(registry.get("gemini").unwrap().command[1], "--acp");
    }

    #[test]
    fn without_discovery_only_agents_installed_by_hangar_are_picked_up() {
        let data = tempfile::tempdir().unwrap();
        let path_dir = tempfile::tempdir().unwrap();
        let exe = |dir: &std::path::Path, name: &str| {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(name), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        exe(path_dir.path(), "codex-acp");
        let registry = AgentRegistry::new(Vec::new(), None, data.path().to_owned());
        assert!(registry.is_empty());
        exe(&crate::agents::install::prefix(data.path()).join("node_modules/.bin"), "gemini");
        assert!(registry.reload());
        let ids: Vec<String> = registry.all().into_iter().map(|a| a.id).collect();
        assert_eq!(ids, ["gemini"]);
    }
}
