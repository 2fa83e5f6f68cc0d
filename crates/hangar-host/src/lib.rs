//! # hangar-host — the Agent Host Protocol (AHP 1.0.0) host as a library
//!
//! Map of the crate:
//! - [`host`]     — [`host::Host`]: opens the data dir, restores state, wires
//!   engine, store, hub and agents; active-client grace periods.
//! - [`server`]   — the WebSocket JSON-RPC server: upgrade checks, frames, the
//!   method table.
//! - [`engine`]   — protocol state, changed only by `ahp::reducers`; one global
//!   `serverSeq`; client action validation; summaries; queued messages.
//! - [`hub`]      — subscriptions, fan-out after commit, the replay ring.
//! - [`outgoing`] — requests the host sends to clients, and their answers.
//! - [`store`]    — SQLite: action log, checkpoints, turns, session index.
//! - [`protocol`] — tables the official crates lack (dispatchable actions,
//!   version filtering).
//! - [`agent_catalog`] — the Agents page's view of the host: each
//!   well-known agent's state and version, installs running, custom agents.
//! - [`agent_install`] — `hangar agents install|remove` and the Agents
//!   page: the well-known agents installed with npm into `DATA_DIR/agents`
//!   at a pinned version, with progress.
//! - [`agent_keys`] — agents' API keys in the OS keyring, set in their
//!   environment at start.
//! - [`agents`]   — one agent as the host runs it, and as `RootState.agents`
//!   shows it.
//! - [`agent_registry`] — the live list: explicit, custom, then discovered
//!   agents, made again when one is installed, removed or added.
//! - [`custom_agents`] — agents added by hand (command, args, env), kept in
//!   the data dir.
//! - [`discovery`] — well-known ACP agents found on `PATH` / in npm prefixes,
//!   and the survey the Agents page shows.
//! - [`providers`] — the agent layer: runs agents for sessions and turns; it
//!   reaches the host only through [`providers::AgentHost`] (which
//!   [`host::Host`] implements), so the ACP mapping is testable without one.
//! - [`resources`] — the `resource*` file-system surface and its sandbox;
//!   also the home directory and the credential folders never served.
//! - [`config`] — the host's configuration; its file-access defaults come from
//!   [`resources`] (one way: `resources` never imports `config`).
//! - [`changes`]  — every file change agents make, kept per turn: changesets,
//!   accept and reject, the audit log of decisions on edits.
//! - [`customizations`] — rules, agents, skills, prompts, hooks, MCP servers
//!   and plugins found in files: discovered, watched, toggled, applied.
//! - [`terminals`] — programs run in terminals on the host: an agent's
//!   `terminal/create` (pipes), a client's shell (`createTerminal`) and an
//!   agent's login (pseudo-terminals that take input): process groups,
//!   output, exit.
//! - [`rpc_error`] — JSON-RPC errors.
//! - [`locks`]    — taking a `std::sync` lock past a panicked holder (the one
//!   helper every module uses).
//!
//! Data flow: a client's `dispatchAction` (or an agent) → [`engine::Engine::emit`]
//! → reducer → envelope with the next `serverSeq` → store writer (commit) →
//! [`hub::Hub::publish`] → each subscriber's outbound queue.

pub mod agents;
pub mod changes;
pub mod compat_v0_9;
pub mod config;
pub mod customizations;
pub mod engine;
pub mod host;
pub mod hub;
pub mod locks;
pub(crate) mod process_groups;
pub mod resources;
pub mod rpc_error;
pub mod server;
pub mod store;
pub mod terminals;

pub use rpc_error::RpcError;
