//! Processes run in terminals on the host: an ACP agent's `terminal/create`
//! (a command it runs for a tool call), a client's `createTerminal` (a shell)
//! and an agent's login, each one an AHP terminal channel any client can
//! watch.
//!
//! Map:
//! - `output.rs`  — [`Output`]: what `terminal/output` returns, at most a byte
//!   limit cut from the beginning; [`Utf8Stream`]: bytes read in pieces as
//!   text, a character split between two reads kept whole.
//! - `mod.rs`     — [`terminal_text`]: the raw output a terminal state holds.
//! - `process.rs` — [`TerminalProcess`]: one command in its own process group,
//!   stdout and stderr read into its [`Output`] and told to a
//!   [`TerminalEvents`], its exit kept for every waiter.
//! - `pty.rs`     — [`PtyProcess`]: one program in a pseudo-terminal
//!   (`portable-pty`): input, resize, kill of every process group of its
//!   session, output told to a [`TerminalEvents`], exit kept for every waiter.
//! - `live.rs`    — [`LiveTerminals`]: the host's running pseudo-terminals by
//!   channel URI, where a client's `terminal/input` and `terminal/resized`
//!   are carried out.
//! - `recorded.rs` — (tests only) a `TerminalEvents` that keeps what it is
//!   told.
//!
//! A terminal's [`Size`] is the engine's (it checks `terminal/resized`);
//! process groups are signalled through `crate::process_groups`, which the
//! agents use too.
//!
//! An agent's commands get pipes (`isPty: false`): their output is plain
//! text, as the ACP agents expect of `terminal/output`, and nobody types in
//! them. Shells and logins get a pseudo-terminal (`isPty: true`): a person
//! answers them through `terminal/input`.

mod live;
mod output;
mod process;
mod pty;
#[cfg(test)]
mod recorded;

pub use crate::engine::{BadSize, Size, MAX_CELLS};
pub use live::LiveTerminals;
pub use output::{Output, Utf8Stream};
pub use process::{Exit, Launch, TerminalEvents, TerminalProcess};
pub use pty::{PtyError, PtyProcess};

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
