//! (tests only) [`Recorded`]: a [`TerminalEvents`] that keeps what it is
//! told, for the pipe and pseudo-terminal process tests.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::process::{Exit, TerminalEvents};
use crate::locks::lock;

/// The output and the exits a process told, in order.
#[derive(Default)]
pub(super) struct Recorded(Mutex<(String, Vec<Exit>)>);

impl TerminalEvents for Recorded {
    fn output(&self, text: &str) {
        lock(&self.0).0.push_str(text);
    }
    fn exited(&self, exit: &Exit) {
        lock(&self.0).1.push(exit.clone());
    }
}

impl Recorded {
    /// All the output so far.
    pub(super) fn text(&self) -> String {
        lock(&self.0).0.clone()
    }

    /// The exits told so far.
    pub(super) fn exits(&self) -> Vec<Exit> {
        lock(&self.0).1.clone()
    }

    /// Waits until the output holds `needle` (10 s at most).
    pub(super) async fn until(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = self.text();
            if text.contains(needle) || Instant::now() > deadline {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
