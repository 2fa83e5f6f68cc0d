//! Session summaries as sidebar rows: status word, unread and archived
//! flags decoded from the `SessionStatus` bits; while a session's agent is
//! starting or failed to start (its mirrored [`Lifecycle`], known for the
//! sessions whose channel the core holds), the status says so instead.

use ahp::hosts::HostHandle;
use ahp_types::state::{SessionState, SessionStatus, SessionSummary};
use serde_json::{json, Value};

use crate::session_start::Lifecycle;

/// The status word the sidebar shows: `starting` / `failed` from the
/// session's lifecycle, else from the status bits.
pub fn status_word(status: u32, lifecycle: Lifecycle) -> &'static str {
    match lifecycle {
        Lifecycle::Creating => return "starting",
        Lifecycle::Failed => return "failed",
        Lifecycle::Ready => {}
    }
    let s = SessionStatus::from_bits(status);
    if s.contains(SessionStatus::InputNeeded) {
        "needs-input"
    } else if s.contains(SessionStatus::InProgress) {
        "working"
    } else if s.contains(SessionStatus::Error) {
        "error"
    } else {
        "idle"
    }
}

/// Whether the status says the session needs the user.
pub fn needs_input(status: u32) -> bool {
    SessionStatus::from_bits(status).contains(SessionStatus::InputNeeded)
}

/// One sidebar row; `session` is the mirrored session state, if held.
pub fn row(host: &HostHandle, s: &SessionSummary, session: Option<&SessionState>) -> Value {
    let bits = SessionStatus::from_bits(s.status);
    json!({
        "host": host.id.as_str(),
        "hostLabel": host.label,
        "uri": s.resource,
        "title": s.title,
        "provider": s.provider,
        "status": status_word(s.status, Lifecycle::of(session)),
        "activity": s.activity,
        "unread": !bits.contains(SessionStatus::IsRead),
        "archived": bits.contains(SessionStatus::IsArchived),
        "folder": s.working_directories.as_ref().and_then(|w| w.first().cloned()),
        "modifiedAt": s.modified_at,
        "defaultChat": s.default_chat,
    })
}

/// A host as the sidebar header shows it.
pub fn host_view(host: &HostHandle) -> Value {
    json!({
        "id": host.id.as_str(),
        "label": host.label,
        "state": format!("{:?}", host.state),
        "connected": host.state.is_connected(),
        "defaultDirectory": host.default_directory,
        "agents": host.agents,
        "error": host.last_error.as_ref().map(|e| e.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_words_follow_the_bits() {
        assert_eq!(status_word(1, Lifecycle::Ready), "idle");
        assert_eq!(status_word(8, Lifecycle::Ready), "working");
        assert_eq!(status_word(24, Lifecycle::Ready), "needs-input");
        assert_eq!(status_word(2, Lifecycle::Ready), "error");
        assert_eq!(status_word(1 | 32 | 64, Lifecycle::Ready), "idle");
        assert!(needs_input(24 | 32));
        assert!(!needs_input(8));
    }

    #[test]
    fn a_starting_or_failed_agent_is_the_row_status_not_idle() {
        // A session whose agent is starting or failed to start is `idle`
        // (with its read bit) in the host's summary.
        assert_eq!(status_word(1 | 32, Lifecycle::Creating), "starting");
        assert_eq!(status_word(1 | 32, Lifecycle::Failed), "failed");
        assert_eq!(status_word(1 | 32, Lifecycle::Ready), "idle");
        assert_eq!(status_word(1 | 32, Lifecycle::of(None)), "idle", "sessions the core does not hold follow the bits");
    }
}
