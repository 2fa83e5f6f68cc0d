//! The desktop's own core↔UI protocol: every command the UI sends (its
//! arguments and its result) and every view and op the core streams back.
//! Data only, no I/O: serde gives the wire shape, `ts-rs` the TypeScript the
//! UI imports from `ui/src/gen/` (written by the `export_bindings` test).
//!
//! Why `ts-rs` and not `specta` / `tauri-specta`: the same commands travel
//! over two transports — Tauri IPC (two generic commands, `core_call` /
//! `core_stream`) and the loopback WebSocket bridge the UI tests use — so
//! the boundary is one serde-tagged [`Command`] enum, not a set of Tauri
//! command functions for `tauri-specta` to wrap; `ts-rs` exports exactly
//! the serde shape of any type (as codex does for its app-server
//! protocol), is a stable release, and needs nothing from Tauri.
//!
//! Map:
//! - [`command`] — [`Command`] (`{cmd, args}` on the wire) with one
//!   argument struct per command, [`Reply`] (each command's result) and
//!   [`COMMANDS`], all from one table;
//! - [`app`]     — the app stream: [`AppOp`], hosts, session rows, inbox;
//! - [`host`]    — a host's connection in words, "Add host" and the host
//!   menu's arguments and results;
//! - [`chat`]    — a chat stream: [`ChatOp`], turns, chat meta, the
//!   session's start;
//! - [`changes`] — the Changes view: changed files, a file's diff and
//!   hunks, Keep / Undo and "viewed";
//! - [`customization`] — the session's customizations (containers,
//!   children, decisions per scope) and the scope a toggle is for;
//! - [`part`]    — a turn's response parts as views (markdown HTML, tool
//!   calls with diffs, input requests, errors);
//! - [`terminal`] — a tool call's terminal, read while its command runs;
//!   keystrokes for a login this app claims (`terminal.input`);
//! - [`sign_in`] — the ways to sign an agent in, and `agent.signIn`;
//! - [`agents`]  — the Agents page: a host's well-known agents, installs
//!   with their progress, custom agents, and `agents.*`'s arguments;
//! - [`settings`] — the app's Settings (kept in `settings.json`) and the
//!   About box;
//! - [`input`]   — input-request questions and answers, both as views and as
//!   the arguments the UI sends back (converted to and from `ahp-types`);
//! - `bindings`  — (tests) writes the TypeScript into `ui/src/gen/`.
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
pub mod host;
pub mod input;
pub mod part;
pub mod settings;
pub mod sign_in;
pub mod terminal;

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
