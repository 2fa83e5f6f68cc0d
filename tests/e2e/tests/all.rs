//! The end-to-end suites as one test binary (one link instead of one per
//! suite); each suite is a module of `suite/`. Support code lives in the
//! `hangar-e2e` library (`src/`).

// Integration-test helpers are not `#[test]` functions nor in a
// `#[cfg(test)]` module, so clippy.toml's allow-*-in-tests do not reach them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a failed unwrap, expect or panic is a failed test"
)]

mod suite;
