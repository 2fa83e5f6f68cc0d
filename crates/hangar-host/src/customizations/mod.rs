//! Customizations: the rules, agents, skills, prompts, hooks, MCP servers and
//! plugins users keep in files, discovered, watched, toggled and applied by
//! the host, and published as AHP 1.0.0 `SessionState.customizations` (and,
//! for the user-level ones, `RootState.agents[].customizations`).
//!
//! Map:
//! - `mod.rs`      — the contract between the parts: [`Roots`] in,
//!   [`Discovery`] out, [`McpLaunch`] for the agent layer, [`customization_id`].
//! - `discover/`   — reading the known folders and files of each agent
//!   (`../shared/docs/customizations.md`) into the AHP tree: pure, no state.
//! - `enablement.rs` — toggle decisions at `session`/`workspace`/`global`
//!   scope: kept in the data dir, applied to a discovered tree.
//! - `acp_mcp.rs`  — the enabled MCP servers as ACP `mcpServers`.
//! - `hook_test.rs` — a hook's test bench: its command run on the host
//!   with a tool event on stdin, its exit code and outputs reported.
//! - `mcp_test.rs` — a server's Test: started on the host, `initialize` and
//!   `tools/list` with `rmcp`.
//! - `mcp_policy.rs` — which enabled servers a session's agent is given
//!   (shared files and its own; not another agent's private config).
//! - `watcher.rs`  — one debounced `notify` watcher over the known folders
//!   (never the whole tree); a change re-discovers and publishes.
//! - `slash_completions.rs` — enabled prompts and skills as `/` completions.
//! - `annotate.rs` — what each entry does for the session's agent, in
//!   `_meta` (applied by the host, read by the agent itself, or neither).
//! - `service.rs`  — [`service::Customizations`]: every open session's
//!   tree, kept current (discover → decisions → notes → publish); what the
//!   agent layer, `/` completions and custom agents ask of it.
//! - `service_tests.rs` — the service over a scripted discovery.

pub mod acp_mcp;
pub mod annotate;
pub mod discover;
pub mod enablement;
pub mod hook_test;
pub mod mcp_policy;
pub mod mcp_test;
pub mod service;
#[cfg(test)]
mod service_tests;
pub mod slash_completions;
pub mod watcher;

use std::path::PathBuf;

pub use discover::discover;

/// Where to look: the session's working directories and the user's home.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Roots {
    /// The session's working directories (absolute, canonical when possible).
    pub working_dirs: Vec<PathBuf>,
    /// The user's home (for the user-level folders), if known.
    pub home: Option<PathBuf>,
}

/// How an MCP server is reached.
#[derive(Debug, Clone, PartialEq)]
pub enum McpTransport {
    /// A local process.
    Stdio {
        /// Program.
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Environment (values as written in the file, `${VAR}` expanded).
        env: Vec<(String, String)>,
        /// Working directory, when the file names one.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP.
    Http {
        /// Endpoint.
        url: String,
        /// Headers.
        headers: Vec<(String, String)>,
    },
    /// Server-sent events.
    Sse {
        /// Endpoint.
        url: String,
        /// Headers.
        headers: Vec<(String, String)>,
    },
}

/// One discovered MCP server, as the agent layer needs it to pass it on.
#[derive(Debug, Clone, PartialEq)]
pub struct McpLaunch {
    /// The id of its customization in the tree (top-level or plugin child).
    pub id: String,
    /// The server's name (its key in the file).
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
}

/// A folder or file to watch for changes to the customizations.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WatchPoint {
    /// The folder or file (it may not exist yet: then its nearest existing
    /// parent is watched by the watcher).
    pub path: PathBuf,
    /// Whether changes below sub-folders count (skills, nested rules).
    pub recursive: bool,
}

/// What one discovery found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Discovery {
    /// Everything, in a stable order: project containers (per working
    /// directory) first, then user-level ones, then plugins; top-level MCP
    /// servers last. Ids follow [`customization_id`].
    pub tree: Vec<ahp_types::state::Customization>,
    /// The user-level subset (home), for `RootState.agents[].customizations`.
    pub user: Vec<ahp_types::state::Customization>,
    /// Every MCP server entry found, by customization id.
    pub mcp: Vec<McpLaunch>,
    /// What to watch so that any edit, creation or deletion is seen.
    pub watch: Vec<WatchPoint>,
}

/// The stable id of a customization: its kind, the file (or folder) it
/// comes from, and, for an entry inside a shared file, the JSON pointer /
/// TOML path of the entry ("" for a whole file). Re-parsing the same file
/// yields the same id, so toggle decisions survive edits and restarts.
pub fn customization_id(kind: &str, path: &std::path::Path, pointer: &str) -> String {
    // FNV-1a over the bytes: stable across Rust versions and runs (unlike
    // `DefaultHasher`), and short.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in path.as_os_str().as_encoded_bytes().iter().chain([0u8].iter()).chain(pointer.as_bytes()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{kind}-{hash:016x}")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::customization_id;

    #[test]
    fn ids_are_stable_and_tell_entries_of_one_file_apart() {
        let file = Path::new("/w/.mcp.json");
        assert_eq!(customization_id("mcpServer", file, "/mcpServers/a"), "mcpServer-3927704c31b898df");
        assert_ne!(
            customization_id("mcpServer", file, "/mcpServers/a"),
            customization_id("mcpServer", file, "/mcpServers/b")
        );
    }
}
