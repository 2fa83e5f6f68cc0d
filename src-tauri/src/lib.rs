//! # hangar-desktop — the Hangar desktop app's Rust core
//!
//! Map of the crate:
//! - [`options`]       — the command line (`clap`): `--help`, `--version`,
//!   `--agent`, `--data-dir`, `--browse-root`, `--no-discover`,
//!   `--config-dir`, `--blank`, `--webkit-compositing`; an unknown option
//!   is an error.
//! - [`log_file`]      — the log: stderr and `DATA_DIR/hangar-desktop.log`.
//! - [`startup`]       — start-up shared by the app and the bridge: the
//!   data dir, the embedded host, the core, the local host registered like
//!   any remote.
//! - [`embedded_host`] — `hangar_host` on 127.0.0.1:0 with a per-launch
//!   token, data under the platform data dir; agents from `--agent` /
//!   `HANGAR_AGENTS`, then `hangar_host::agents::discovery` (the same agents
//!   `hangar serve` finds).
//! - [`core`]          — [`core::Core`]: `ahp::hosts::MultiHostClient`, the
//!   `MultiHostStateMirror` (official reducers), subscriptions, the event
//!   pump, re-synchronising after lost events, the approval inbox,
//!   needs-input notifications.
//! - [`host_book`]     — per host, why the last attempt failed, the retry
//!   schedule (backoff with jitter), label; the connection state in words.
//! - [`remote_hosts`]  — saved remote hosts (`hangar_remote`): connecting
//!   with the keyring token and pinned certificate; "Add host" as
//!   `hangar remote add` does it.
//! - [`settings_file`] — the app's settings in `DATA_DIR/settings.json`,
//!   written atomically; a corrupt file moved aside and reported.
//! - [`settings_page`] — the Settings page's commands (view, save, open).
//! - [`device_access`] — Settings → *Open from other devices*: a listener
//!   of the embedded host serving the web UI backed by the app's core.
//! - [`caller`]        — who sends an `/ipc` command: the app, or a paired
//!   browser (which does not pair devices or change that setting).
//! - [`devices_page`]  — its commands: `devices.get`, `devices.pair` (a
//!   pairing link and its QR code), `devices.revoke`.
//! - [`notifications`] — which status change is worth a notification
//!   (approval, question, finished turn, failure) and whether Settings
//!   lets it through.
//! - [`host_software`] — each host's `serverInfo` (the About box).
//! - [`opener`]        — Settings' *Open* buttons (`xdg-open`).
//! - [`event_feed`]    — `MultiHostClient::events()` checked against a tap
//!   on each connection's transport, so lost events are noticed.
//! - [`chat_view`]     — reduced chat state → chat views and incremental ops
//!   (snapshot, part, turnDone, older, meta).
//! - [`part_view`]     — response parts → part views (markdown HTML, tool
//!   calls with diffs, input requests).
//! - [`part_append`]   — the append rule: which blocks of a streaming
//!   markdown part the UI keeps (`partAppend`) and which it is sent.
//! - [`session_start`] — a session's lifecycle as an open chat shows it;
//!   messages held until the agent is ready.
//! - [`outgoing`]      — the actions a typed message becomes.
//! - [`outbox`]        — messages typed while their host is unreachable,
//!   kept on disk (`outbox.json`) until it is back.
//! - [`customizations`] — the session's customizations (AHP tree) → the
//!   panel's view and `customizations` ops; a toggle's full decision list.
//! - [`session_rows`]  — session summaries → sidebar rows.
//! - [`usage_merge`]   — hosts' `x-hangar/usage` answers merged for the Usage page.
//! - [`search_merge`]  — hosts' `x-hangar/search` answers merged into one
//!   list (score, then time), each item tagged with its host.
//! - [`markdown`]      — pulldown-cmark + ammonia: sanitized HTML.
//! - [`file_diff`]     — file-edit diffs (data: URIs → unified lines).
//! - [`changes_view`]  — the Changes view over AHP changesets: changed
//!   files, a file's diff and hunks, Keep / Undo, "viewed".
//! - [`review_diff`]   — that diff: hunks with context, gaps, new-side lines.
//! - [`terminal_view`] — `terminal.read`: a tool call's (or a login's)
//!   terminal output; `terminal.input`: keystrokes for a login it claims.
//! - [`folders`]       — folder-picker listings from `resourceList`.
//! - [`commands`]      — runs the commands: `call(core, Command, stream)`.
//! - [`tauri_app`]     — the Tauri shell: `core_call` / `core_stream`
//!   (a `tauri::ipc::Channel` per stream), notifications; `--blank`: the
//!   same window on `about:blank` (a memory baseline).
//! - [`stream_batch`]  — a stream's events to the window as one message
//!   per frame.
//! - [`webkit_settings`] — WebKitGTK settings of the webviews: no
//!   accelerated compositing unless `--webkit-compositing`.
//! - [`bridge`]        — the same table over a loopback WebSocket, serving
//!   `ui/dist`, for UI tests in headless Chromium.
//! - [`web`]           — `hangar serve --web`: the embedded UI, `/pair` and
//!   an authenticated `/ipc` on the host's own port.
//! - [`error`]         — [`error::CoreError`].
//!
//! The core↔UI wire types — [`hangar_desktop_protocol::Command`] (one
//! serde-tagged enum, an argument struct per command), each command's
//! result, the app and chat ops and views, and the `ts-rs` export into
//! `ui/src/gen/` — are the crate `hangar_desktop_protocol`
//! (`crates/hangar-desktop-protocol`).
//!
//! Data flow: host envelope → `MultiHostClient::events` → [`core::Core`]
//! pump → mirror (reducers) → [`chat_view::ChatProjection`] → a stream's
//! sink ([`hangar_desktop_protocol::StreamEvent`]) → the UI. UI commands →
//! [`commands::call_wire`] → [`commands::call`] → `dispatchAction` or a
//! request on the host → the echo comes back the same way.

pub mod atomic_file;
pub mod bridge;
pub mod caller;
pub mod changes_view;
pub mod chat_view;
pub mod commands;
pub mod commit_draft;
pub mod core;
pub mod customizations;
pub mod device_access;
pub mod devices_page;
pub mod embedded_host;
pub mod error;
pub mod event_feed;
pub mod file_diff;
pub mod folders;
pub mod git_actions;
pub mod host_book;
pub mod host_files;
pub mod host_software;
pub mod log_file;
pub mod markdown;
pub mod notifications;
pub mod opener;
pub mod options;
pub mod outbox;
pub mod outgoing;
pub mod part_append;
pub mod part_view;
pub mod remote_hosts;
pub mod review_commands;
pub mod review_diff;
pub mod review_message;
pub mod review_store;
pub mod search_merge;
pub mod session_rows;
pub mod session_start;
pub mod settings_file;
pub mod settings_page;
pub mod startup;
#[cfg(feature = "app")]
pub mod stream_batch;
#[cfg(feature = "app")]
pub mod tauri_app;
pub mod terminal_view;
pub mod turn_reply;
pub mod usage_merge;
pub mod web;
#[cfg(feature = "app")]
pub mod webkit_settings;
pub mod worktree_close;
