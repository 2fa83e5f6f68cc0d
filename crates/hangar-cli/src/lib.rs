//! # hangar-cli — the `hangar` command line
//!
//! Map:
//! - [`serve`] runs the headless host (`hangar serve`): its arguments, the
//!   host configuration they make (with `hangar_host::agents::discovery` finding
//!   well-known ACP agents on `PATH` / in npm prefixes; TLS from PEM files or
//!   self-signed), the listening host.
//! - [`web_serve`] — `hangar serve --web`: the client core over loopback and
//!   the web UI (`hangar_desktop::web`) on the host's port.
//! - `pairing.rs` — `hangar token create NAME --pair`: the one-time pairing
//!   URL, printed and as a terminal QR code.
//! - `token_file.rs` creates and reads the host's token file.
//! - `listing.rs` prints `token list` / `remote list` / `agents list` (table or `--json`).
//! - [`token`] — `hangar token create|list|revoke`: per-device tokens of the
//!   host's data directory (`hangar_host::server::device_tokens`).
//! - [`remote`] — `hangar remote add|list|remove|rename`: the hosts this
//!   machine connects to (`hangar_remote`: list, keyring, pinning).
//! - [`reindex`] — `hangar reindex`: the search index built again from the
//!   store (`hangar_host::store::search`).
//! - [`agents`] — `hangar agents list`: the well-known ACP agents, installed
//!   (where, which version) or missing (`hangar_host::agents::discovery::survey`).
//!
//! `main.rs` (the binary) parses the command line and dispatches.
//!
//! A library as well as a binary so that the end-to-end suites
//! (`tests/e2e`) can start the very same `serve` inside the test process.

pub mod agents;
mod listing;
mod pairing;
pub mod reindex;
pub mod remote;
pub mod serve;
pub mod token;
mod token_file;
pub mod web_serve;
