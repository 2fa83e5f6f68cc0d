//! Session summaries as sidebar rows: status word, unread and archived
//! flags decoded from the `SessionStatus` bits.

use ahp::hosts::HostHandle;
use ahp_types::state::{SessionStatus, SessionSummary};
use serde_json::{json, Value};

/// The status word the sidebar shows.
pub fn status_word(status: u32) -> &'static str {
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

/// One sidebar row.
pub fn row(host: &HostHandle, s: &SessionSummary) -> Value {
    let bits = SessionStatus::from_bits(s.status);
    json!({
        "host": host.id.as_str(),
        "hostLabel": host.label,
        "uri": s.resource,
        "title": s.title,
        "provider": s.provider,
        "status": status_word(s.status),
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
        assert_eq!(status_word(1), "idle");
        assert_eq!(status_word(8), "working");
        assert_eq!(status_word(24), "needs-input");
        assert_eq!(status_word(2), "error");
        assert_eq!(status_word(1 | 32 | 64), "idle");
        assert!(needs_input(24 | 32));
        assert!(!needs_input(8));
    }
}
