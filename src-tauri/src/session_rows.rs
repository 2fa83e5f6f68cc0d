//! Session summaries as sidebar rows: status word, unread and archived
//! flags decoded from the `SessionStatus` bits; while a session's agent is
//! starting or failed to start (its mirrored [`Lifecycle`], known for the
//! sessions whose channel the core holds), the status says so instead.
//! The row's branch state is the summary's `_meta["hangar/git"]`.
//! [`back_report`]: a host's rows, just after it came back, as what resumed
//! and what needs the person.

use ahp::hosts::HostHandle;
use ahp_types::common::JsonObject;
use ahp_types::state::{SessionState, SessionStatus as StatusBits, SessionSummary};

use crate::session_start::Lifecycle;
use hangar_desktop_protocol::app::{
    AgentView, BackReport, ChangeCounts, HostView, ModelView, ReportedSession, SessionRow, SessionStatus,
};
use hangar_desktop_protocol::git::GitState;
use hangar_desktop_protocol::host::{HostConnection, RemoteView};

/// The `_meta` key of a session summary's branch state (docs/changesets.md).
pub const GIT_META: &str = "hangar/git";

/// A summary's `_meta["hangar/git"]`, if it has one.
pub fn git_meta(meta: Option<&JsonObject>) -> Option<&serde_json::Value> {
    meta?.get(GIT_META).filter(|g| g.is_object())
}

/// The status word the sidebar shows: `starting` / `failed` from the
/// session's lifecycle, else from the status bits.
pub fn status_word(status: u32, lifecycle: Lifecycle) -> SessionStatus {
    match lifecycle {
        Lifecycle::Creating => return SessionStatus::Starting,
        Lifecycle::Failed => return SessionStatus::Failed,
        Lifecycle::Ready => {}
    }
    let s = StatusBits::from_bits(status);
    if s.contains(StatusBits::InputNeeded) {
        SessionStatus::NeedsInput
    } else if s.contains(StatusBits::InProgress) {
        SessionStatus::Working
    } else if s.contains(StatusBits::Error) {
        SessionStatus::Error
    } else {
        SessionStatus::Idle
    }
}

/// Whether the session's start was refused until the person signs its
/// agent in (`creationError.errorType: "authRequired"`).
fn wants_sign_in(session: Option<&SessionState>) -> bool {
    Lifecycle::of(session) == Lifecycle::Failed
        && session.and_then(|s| s.creation_error.as_ref()).is_some_and(|e| e.error_type == "authRequired")
}

/// Whether the status says the session needs the user.
pub fn needs_input(status: u32) -> bool {
    StatusBits::from_bits(status).contains(StatusBits::InputNeeded)
}

/// One sidebar row; `session` is the mirrored session state, if held.
pub fn row(
    host: &HostHandle,
    s: &SessionSummary,
    session: Option<&SessionState>,
    git: Option<&serde_json::Value>,
) -> SessionRow {
    let bits = StatusBits::from_bits(s.status);
    SessionRow {
        host: host.id.as_str().to_owned(),
        host_label: host.label.clone(),
        uri: s.resource.clone(),
        title: s.title.clone(),
        provider: s.provider.clone(),
        status: if wants_sign_in(session) {
            SessionStatus::SignIn
        } else {
            status_word(s.status, Lifecycle::of(session))
        },
        // Hosts announce an ended activity as "" (a partial update cannot clear a field).
        activity: s.activity.clone().filter(|a| !a.is_empty()),
        unread: !bits.contains(StatusBits::IsRead),
        archived: bits.contains(StatusBits::IsArchived),
        folder: s.working_directories.as_ref().and_then(|w| w.first().cloned()),
        modified_at: s.modified_at.clone(),
        default_chat: s.default_chat.clone(),
        changes: s.changes.as_ref().map(|c| ChangeCounts {
            files: c.files.unwrap_or(0),
            added: c.additions.unwrap_or(0),
            removed: c.deletions.unwrap_or(0),
        }),
        git: git.and_then(|g| serde_json::from_value::<Box<GitState>>(g.clone()).ok()),
    }
}

/// A host as the sidebar header shows it, with its connection in words and,
/// for a saved remote host, its URL and pin.
pub fn host_view(host: &HostHandle, connection: HostConnection, remote: Option<RemoteView>) -> HostView {
    let agents = host.agents.iter().map(|a| AgentView {
        provider: a.provider.clone(),
        display_name: a.display_name.clone(),
        description: a.description.clone(),
        models: a.models.iter().map(|m| ModelView { id: m.id.clone(), name: m.name.clone() }).collect(),
    });
    HostView {
        id: host.id.as_str().to_owned(),
        label: host.label.clone(),
        state: format!("{:?}", host.state),
        connected: host.state.is_connected(),
        default_directory: host.default_directory.clone(),
        agents: agents.collect(),
        error: host.last_error.as_ref().map(ToString::to_string),
        connection,
        remote,
        back: None,
    }
}

/// What `rows` (one host's, just after it came back) leave to the person:
/// archived sessions are left out.
pub fn back_report(rows: &[SessionRow], at: String) -> BackReport {
    let (need_you, resumed): (Vec<&SessionRow>, Vec<&SessionRow>) =
        rows.iter().filter(|r| !r.archived).partition(|r| {
            matches!(
                r.status,
                SessionStatus::NeedsInput | SessionStatus::Error | SessionStatus::Failed | SessionStatus::SignIn
            )
        });
    let reported = |rows: Vec<&SessionRow>| {
        rows.into_iter()
            .map(|r| ReportedSession { uri: r.uri.clone(), title: r.title.clone(), status: r.status })
            .collect()
    };
    BackReport { at, resumed: reported(resumed), need_you: reported(need_you) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_state_is_read_from_the_summarys_meta() {
        let meta: JsonObject = serde_json::from_value(serde_json::json!({ "hangar/git": {
            "branch": "hangar/x", "upstream": "origin/hangar/x", "ahead": 2, "behind": 0, "against": "origin/hangar/x",
            "pullRequest": { "url": "https://github.com/o/r/pull/7", "number": 7, "state": "OPEN" } } }))
        .unwrap();
        let git: GitState = serde_json::from_value(git_meta(Some(&meta)).unwrap().clone()).unwrap();
        assert_eq!((git.branch.as_deref(), git.ahead, git.behind), (Some("hangar/x"), 2, 0));
        assert_eq!(git.pull_request.map(|p| p.number), Some(7));
        assert!(git_meta(Some(&JsonObject::new())).is_none());
    }

    #[test]
    fn a_report_puts_waiting_failed_and_cut_off_sessions_first() {
        let row = |uri: &str, status, archived| SessionRow {
            host: "h".into(),
            host_label: "box".into(),
            uri: uri.into(),
            title: uri.to_uppercase(),
            provider: "fake".into(),
            status,
            activity: None,
            unread: false,
            archived,
            folder: None,
            modified_at: "x".into(),
            default_chat: None,
            changes: None,
            git: None,
        };
        let rows = [
            row("idle", SessionStatus::Idle, false),
            row("asks", SessionStatus::NeedsInput, false),
            row("cut", SessionStatus::Error, false),
            row("working", SessionStatus::Working, false),
            row("old", SessionStatus::Error, true),
        ];
        let report = back_report(&rows, "t".into());
        let uris = |s: &[ReportedSession]| s.iter().map(|r| r.uri.clone()).collect::<Vec<_>>();
        assert_eq!(uris(&report.need_you), ["asks", "cut"]);
        assert_eq!(uris(&report.resumed), ["idle", "working"], "archived sessions are left out");
    }

    #[test]
    fn status_words_follow_the_bits() {
        assert_eq!(status_word(1, Lifecycle::Ready), SessionStatus::Idle);
        assert_eq!(status_word(8, Lifecycle::Ready), SessionStatus::Working);
        assert_eq!(status_word(24, Lifecycle::Ready), SessionStatus::NeedsInput);
        assert_eq!(status_word(2, Lifecycle::Ready), SessionStatus::Error);
        assert_eq!(status_word(1 | 32 | 64, Lifecycle::Ready), SessionStatus::Idle);
        assert!(needs_input(24 | 32));
        assert!(!needs_input(8));
    }

    #[test]
    fn a_starting_or_failed_agent_is_the_row_status_not_idle() {
        // A session whose agent is starting or failed to start is `idle`
        // (with its read bit) in the host's summary.
        assert_eq!(status_word(1 | 32, Lifecycle::Creating), SessionStatus::Starting);
        assert_eq!(status_word(1 | 32, Lifecycle::Failed), SessionStatus::Failed);
        assert_eq!(status_word(1 | 32, Lifecycle::Ready), SessionStatus::Idle);
        assert_eq!(
            status_word(1 | 32, Lifecycle::of(None)),
            SessionStatus::Idle,
            "sessions the core does not hold follow the bits"
        );
    }

    #[test]
    fn a_start_refused_until_the_agent_is_signed_in_says_so() {
        let failed = |error_type: &str| -> SessionState {
            serde_json::from_value(serde_json::json!({"provider": "codex", "title": "", "status": 1,
                "resource": "ahp-session:/s", "createdAt": "x", "modifiedAt": "x", "lifecycle": "failed",
                "chats": [], "activeClients": [],
                "creationError": {"errorType": error_type, "message": "Codex needs you to sign in"}}))
            .unwrap()
        };
        assert!(wants_sign_in(Some(&failed("authRequired"))));
        assert!(!wants_sign_in(Some(&failed("agentStartFailed"))));
        assert!(!wants_sign_in(None));
    }
}
