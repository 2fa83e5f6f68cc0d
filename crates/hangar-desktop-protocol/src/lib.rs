//! # hangar-desktop-protocol — the desktop's core↔UI wire types
//!
//! Map of the crate (one module a line):
//! - [`command`]       — the commands table: [`Command`], [`Reply`], [`COMMANDS`], [`command::WireError`].
//! - [`app`]           — the app stream: [`AppOp`], hosts, session rows, inbox.
//! - [`host`]          — a host's connection in words, "Add host", the host menu.
//! - [`chat`]          — a chat stream: [`ChatOp`], turns, chat meta, the session's start.
//! - [`changes`]       — the Changes view: changed files, a file's diff, Keep / Undo, "viewed".
//! - [`customization`] — the session's customizations and the scope a toggle is for.
//! - [`part`]          — a turn's response parts as views (markdown, tool calls, input requests).
//! - [`terminal`]      — a tool call's terminal; keystrokes for a login (`terminal.input`).
//! - [`sign_in`]       — the ways to sign an agent in, and `agent.signIn`.
//! - [`search`]        — `search`: one query on every host, merged; each host's part in it.
//! - [`agents`]        — the Agents page: well-known agents, installs, custom agents.
//! - [`past_sessions`] — `agents.pastSessions`: an agent's own earlier sessions in a folder.
//! - [`rules`]         — the Rules page: a host's approval rules, the agents' own, `rules.*`.
//! - [`usage`]         — the Usage page: `usage.get`, per host or all hosts merged.
//! - [`settings`]      — the app's Settings (`settings.json`) and the About box.
//! - [`devices`]       — Settings → *Open from other devices*: the setting, pairing, paired devices.
//! - [`input`]         — input-request questions and answers, as views and as arguments.
//! - `bindings`        — (tests) `export_bindings` writes the TypeScript into `ui/src/gen/`.
//!
//! Where each command is defined: every command, with its wire name, its
//! argument type, its result type and (for a stream) its events, is one line
//! of the `commands!` table in `command.rs`, and nowhere else; its argument
//! and result types live in the module its line names (`chat.*` in [`chat`],
//! `host.*` in [`host`], `agents.*` in [`agents`], and so on). The core runs
//! them in `hangar-desktop`'s `commands.rs` (`call(core, Command, stream)`).
//!
//! The desktop's own core↔UI protocol: every command the UI sends (its
//! arguments and its result) and every view and op the core streams back.
//! Data only, no I/O: serde gives the wire shape, `ts-rs` the TypeScript the
//! UI imports from `ui/src/gen/` (written by the `export_bindings` test).
//! A crate of its own, as codex-rs keeps its wire types in
//! `app-server-protocol`: the core and its bridge depend on it, and a reader
//! finds every command in one place.
//!
//! Why `ts-rs` and not `specta` / `tauri-specta`: the same commands travel
//! over two transports — Tauri IPC (two generic commands, `core_call` /
//! `core_stream`) and the loopback WebSocket bridge the UI tests use — so
//! the boundary is one serde-tagged [`Command`] enum, not a set of Tauri
//! command functions for `tauri-specta` to wrap; `ts-rs` exports exactly
//! the serde shape of any type (as codex does for its app-server
//! protocol), is a stable release, and needs nothing from Tauri.
//!
//! Types from `ahp-types` never reach the UI as they are: they are mapped
//! into these views (so every field the UI reads has a precise TS type),
//! except a message attachment, which the UI only hands back
//! ([`command::Attachment`]).

pub mod agents;
pub mod app;
#[cfg(test)]
mod bindings;
pub mod changes;
pub mod chat;
pub mod command;
pub mod customization;
pub mod devices;
pub mod git;
pub mod host;
pub mod input;
pub mod part;
pub mod past_sessions;
pub mod review;
pub mod rules;
pub mod search;
pub mod settings;
pub mod sign_in;
pub mod terminal;
pub mod usage;

pub use app::AppOp;
pub use chat::ChatOp;
pub use command::{Command, Reply, COMMANDS};

/// What a stream's sink receives: app ops on the app stream, chat ops on a
/// chat stream.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum StreamEvent {
    /// An app-stream op.
    App(AppOp),
    /// A chat-stream op.
    Chat(ChatOp),
}
