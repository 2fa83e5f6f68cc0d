//! `terminal.read`: a tool call's terminal channel, read while its command
//! runs. A fresh snapshot each time (subscribed only for the moment, as the
//! Changes view reads changesets), so it works the same on a remote host;
//! only the output after what the UI already shows is sent.

use ahp::hosts::HostId;
use ahp_types::state::{SnapshotState, TerminalLifecycleState, TerminalState};

use crate::core::Core;
use crate::error::CoreError;
use crate::protocol::terminal::{TerminalArgs, TerminalRead};

/// The terminal's output after byte `args.from`.
pub async fn read(core: &Core, args: TerminalArgs) -> Result<TerminalRead, CoreError> {
    let host = HostId::new(args.host);
    let result = core.multi().subscribe(&host, args.uri.clone()).await?;
    let _ = core.multi().unsubscribe(&host, args.uri.clone()).await;
    let state = match result.snapshot.map(|s| s.state) {
        Some(SnapshotState::Terminal(state)) => *state,
        _ => return Err(CoreError::Unexpected(format!("{} is not a terminal", args.uri))),
    };
    Ok(read_from(&state, args.from))
}

/// `state`'s output after byte `from` (moved forward to a character
/// boundary; from the start when `from` is past the end, e.g. cleared).
pub fn read_from(state: &TerminalState, from: usize) -> TerminalRead {
    let all = hangar_host::terminals::terminal_text(state);
    let mut start = if from > all.len() { 0 } else { from };
    while !all.is_char_boundary(start) {
        start += 1;
    }
    let (ended, exit_code) = match &state.lifecycle {
        TerminalLifecycleState::Running(_) => (false, None),
        TerminalLifecycleState::Exited(e) => (true, e.exit_code),
    };
    TerminalRead { title: state.title.clone(), text: all[start..].to_owned(), length: all.len(), ended, exit_code }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(chunks: &[&str], lifecycle: serde_json::Value) -> TerminalState {
        let content: Vec<_> = chunks.iter().map(|c| json!({"type": "unclassified", "value": c})).collect();
        serde_json::from_value(json!({"title": "make", "content": content, "lifecycle": lifecycle,
            "claim": {"kind": "client", "clientId": "c"}}))
        .unwrap()
    }

    #[test]
    fn only_the_output_after_what_is_shown_is_sent() {
        let s = state(&["héllo ", "world"], json!({"status": "running"}));
        let first = read_from(&s, 0);
        assert_eq!((first.text.as_str(), first.length, first.ended), ("héllo world", 12, false));
        assert_eq!(read_from(&s, 7).text, "world");
        assert_eq!(read_from(&s, 2).text, "llo world", "a split character is skipped, not cut");
        assert_eq!(read_from(&s, 12).text, "");
        assert_eq!(read_from(&s, 99).text, "héllo world", "past the end (cleared): from the start");
        let done = read_from(&state(&["x"], json!({"status": "exited", "exitCode": 3})), 1);
        assert_eq!((done.ended, done.exit_code), (true, Some(3)));
    }
}
