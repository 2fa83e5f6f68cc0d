//! `terminal.read`: a tool call's terminal channel (or a login's), read
//! while its command runs. A fresh snapshot each time (subscribed only for
//! the moment, as the Changes view reads changesets), so it works the same
//! on a remote host; only the output after what the UI already shows is
//! sent. `terminal.input`: keystrokes for a login this app's client claims,
//! as AHP `terminal/input` (the host refuses any other client's).

use ahp::hosts::HostId;
use ahp_types::actions::TerminalInputAction;
use ahp_types::state::{SnapshotState, TerminalClaim, TerminalLifecycleState, TerminalState};
use ahp_types::StateAction;

use crate::core::Core;
use crate::error::CoreError;
use hangar_desktop_protocol::command::Dispatched;
use hangar_desktop_protocol::terminal::{TerminalArgs, TerminalInputArgs, TerminalRead};

/// The most typed at once (a paste).
const MAX_INPUT: usize = 64 * 1024;

/// The terminal's output after byte `args.from`.
pub async fn read(core: &Core, args: TerminalArgs) -> Result<TerminalRead, CoreError> {
    let host = HostId::new(args.host);
    let result = core.multi().subscribe(&host, args.uri.clone()).await?;
    let _ = core.multi().unsubscribe(&host, args.uri.clone()).await;
    let state = match result.snapshot.map(|s| s.state) {
        Some(SnapshotState::Terminal(state)) => *state,
        _ => return Err(CoreError::Unexpected(format!("{} is not a terminal", args.uri))),
    };
    let me = core.multi().host(&host).await.map(|h| h.client_id);
    Ok(read_from(&state, args.from, me.as_deref()))
}

/// Type `args.data` into a terminal.
pub async fn input(core: &Core, args: TerminalInputArgs) -> Result<Dispatched, CoreError> {
    if args.data.is_empty() || args.data.len() > MAX_INPUT {
        return Err(CoreError::BadArgs {
            command: "terminal.input".to_owned(),
            message: format!("1 to {MAX_INPUT} bytes are typed at once"),
        });
    }
    let action = StateAction::TerminalInput(TerminalInputAction { data: args.data });
    let handle = core.multi().dispatch(&HostId::new(args.host), args.uri, action).await?;
    Ok(Dispatched { client_seq: handle.client_seq })
}

/// `state`'s output after byte `from` (moved forward to a character
/// boundary; from the start when `from` is past the end, e.g. cleared);
/// `me`: this app's client id on the terminal's host.
pub fn read_from(state: &TerminalState, from: usize, me: Option<&str>) -> TerminalRead {
    let all = hangar_host::terminals::terminal_text(state);
    let mut start = if from > all.len() { 0 } else { from };
    while !all.is_char_boundary(start) {
        start += 1;
    }
    let (ended, exit_code) = match &state.lifecycle {
        TerminalLifecycleState::Running(_) => (false, None),
        TerminalLifecycleState::Exited(e) => (true, e.exit_code),
    };
    let claimed = matches!(&state.claim, TerminalClaim::Client(c) if Some(c.client_id.as_str()) == me);
    let input = claimed && !ended && state.is_pty == Some(true);
    TerminalRead {
        title: state.title.clone(),
        text: all[start..].to_owned(),
        length: all.len(),
        ended,
        exit_code,
        input,
    }
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
        let first = read_from(&s, 0, None);
        assert_eq!((first.text.as_str(), first.length, first.ended), ("héllo world", 12, false));
        assert_eq!(read_from(&s, 7, None).text, "world");
        assert_eq!(read_from(&s, 2, None).text, "llo world", "a split character is skipped, not cut");
        assert_eq!(read_from(&s, 12, None).text, "");
        assert_eq!(read_from(&s, 99, None).text, "héllo world", "past the end (cleared): from the start");
        let done = read_from(&state(&["x"], json!({"status": "exited", "exitCode": 3})), 1, None);
        assert_eq!((done.ended, done.exit_code), (true, Some(3)));
    }

    #[test]
    fn only_a_running_pty_this_client_claims_takes_input() {
        let mut s = state(&["Account: "], json!({"status": "running"}));
        assert!(!read_from(&s, 0, Some("c")).input, "pipes take no input");
        s.is_pty = Some(true);
        assert!(read_from(&s, 0, Some("c")).input);
        assert!(!read_from(&s, 0, Some("someone-else")).input, "another client's claim");
        assert!(!read_from(&s, 0, None).input);
        let mut ended = state(&["x"], json!({"status": "exited", "exitCode": 0}));
        ended.is_pty = Some(true);
        assert!(!read_from(&ended, 0, Some("c")).input, "ended");
    }
}
