//! Processes run in terminals on the host: an ACP agent's `terminal/create`
//! (a command it runs for a tool call), each one an AHP terminal channel any
//! client can watch.
//!
//! Map:
//! - `output.rs`  — [`Output`]: what `terminal/output` returns, at most a byte
//!   limit cut from the beginning; [`Utf8Stream`]: bytes read in pieces as
//!   text, a character split between two reads kept whole.
//! - `mod.rs`     — [`terminal_text`]: the raw output a terminal state holds.
//! - `process.rs` — [`TerminalProcess`]: one command in its own process group,
//!   stdout and stderr read into its [`Output`] and told to a
//!   [`TerminalEvents`], its exit kept for every waiter.
//!
//! Not a pseudoterminal: commands get pipes (`isPty: false`), so their output
//! is plain text, as the ACP agents expect of `terminal/output`. Why no pty
//! crate: nothing here needs one yet (agents run non-interactive commands and
//! the desktop shows the output read-only).

mod output;
mod process;

pub use output::{Output, Utf8Stream};
pub use process::{Exit, Launch, TerminalEvents, TerminalProcess};

/// The raw output an AHP terminal state holds, its parts joined (what a
/// client that ignores command boundaries shows).
pub fn terminal_text(state: &ahp_types::state::TerminalState) -> String {
    use ahp_types::state::TerminalContentPart;
    state
        .content
        .iter()
        .map(|p| match p {
            TerminalContentPart::Unclassified(u) => u.value.as_str(),
            TerminalContentPart::Command(c) => c.output.as_str(),
            TerminalContentPart::Unknown(_) => "",
        })
        .collect()
}
