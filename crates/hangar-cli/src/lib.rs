//! # hangar-cli — the `hangar` command line
//!
//! Map: [`serve`] runs the headless host (`hangar serve`): its arguments,
//! the host configuration they make (with `hangar_host::discovery` finding
//! well-known ACP agents on `PATH` / in npm prefixes), the listening host;
//! `token_file.rs` creates and reads the token file. `main.rs` (the binary)
//! parses the command line and dispatches.
//!
//! A library as well as a binary so that the end-to-end suites
//! (`tests/e2e`) can start the very same `serve` inside the test process.

pub mod serve;
mod token_file;
