//! # hangar-host — the Agent Host Protocol (AHP 1.0.0) host as a library
//!
//! Map of the crate, top-down as the data flows (a module imports only
//! modules below it):
//!
//! - [`server`]   — the WebSocket JSON-RPC server: upgrade checks, TLS,
//!   frames, the method table. Calls the host.
//! - [`host`]     — [`host::Host`]: opens the data dir, restores state, wires
//!   engine, store, hub and agents; every `impl Host` (the agent layer's
//!   view, change tracking, forked sessions) and the requests the host sends
//!   to clients.
//! - [`config`]   — the host's configuration (TLS identity included); its
//!   file-access defaults come from [`resources`].
//! - [`agents`]   — which agents the host runs and running them:
//!   [`agents::known`] (THE table of the well-known agents' facts), discovery,
//!   install, keys, custom agents, the live registry, the Agents page's
//!   catalog; and [`agents::acp`], the ACP layer (sessions, turns, one typed
//!   router for `session/update`), which reaches the host only through
//!   [`agents::acp::AgentHost`].
//! - Services below the host and the agents:
//!   - [`changes`]  — every file change agents make, kept per turn:
//!     changesets, accept and reject, the audit log (`changes.db`).
//!   - [`customizations`] — rules, agents, skills, prompts, hooks, MCP
//!     servers and plugins found in files: discovered, watched, toggled,
//!     applied.
//!   - [`resources`] — the `resource*` file-system surface and its sandbox;
//!     `@`-mention completions; the home directory and the credential
//!     folders never served.
//!   - [`rules`] — approval rules: the host's own answers to agents'
//!     permission requests (stored in `rules.db`, matched per tool, one
//!     mapping of every agent's tool calls).
//!   - [`terminals`] — programs run in terminals on the host: an agent's
//!     `terminal/create` (pipes), a client's shell and an agent's login
//!     (pseudo-terminals): output, exit.
//!   - [`worktrees`] — a git worktree per session: made on a new branch,
//!     the repository's setup script run in it, removed when nothing would
//!     be lost (forks' copies use its `git worktree add` too).
//! - [`engine`]   — protocol state, changed only by `ahp::reducers`; one
//!   global `serverSeq`; client action validation; summaries; queued
//!   messages; the dispatchable-action table.
//! - [`hub`]      — subscriptions, fan-out after commit, the replay ring.
//! - [`store`]    — SQLite: action log, checkpoints, turns, session index.
//! - [`compat_v0_9`] — serving AHP 0.9 clients: the negotiated generation,
//!   frames lowered to 0.9 and lifted from it.
//! - `process_groups` — signalling a process group and recording agents'
//!   groups, used by both the agents and the terminals.
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
pub mod rules;
pub mod server;
pub mod store;
pub mod terminals;
pub mod worktrees;

pub use rpc_error::RpcError;
