//! The app stream: hosts, session rows and the approval inbox, as a
//! snapshot and then ops.

use serde::Serialize;
use ts_rs::TS;

use super::host::{HostConnection, RemoteView};

/// A model an agent offers.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    /// Model id (sent back with a message).
    pub id: String,
    /// Display name.
    pub name: String,
}

/// An agent a host can start.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentView {
    /// Provider id (`session.create`'s `agent`).
    pub provider: String,
    /// Display name.
    pub display_name: String,
    /// One line about the agent.
    pub description: String,
    /// Models the agent reported.
    pub models: Vec<ModelView>,
}

/// A host as the sidebar header shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HostView {
    /// Host id.
    pub id: String,
    /// Display label.
    pub label: String,
    /// The connection state, in words (`Connected`, `Connecting`, …).
    pub state: String,
    /// Whether the host is connected.
    pub connected: bool,
    /// Where the folder picker starts, if the host said.
    pub default_directory: Option<String>,
    /// Agents the host can start.
    pub agents: Vec<AgentView>,
    /// The last connection error.
    pub error: Option<String>,
    /// The connection in words: what the sidebar shows, with what to do.
    pub connection: HostConnection,
    /// A saved remote host's URL and pin (none for the embedded host).
    pub remote: Option<RemoteView>,
    /// After the host came back from a lost connection: which sessions
    /// resumed and which need the person (until dismissed).
    pub back: Option<BackReport>,
}

/// What a host's return left to the person.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BackReport {
    /// When it came back (RFC 3339).
    pub at: String,
    /// Sessions that carry on as they were.
    pub resumed: Vec<ReportedSession>,
    /// Sessions that wait for the person, failed a turn (one cut off by the
    /// host's restart included) or whose agent did not start.
    pub need_you: Vec<ReportedSession>,
}

/// A session in a [`BackReport`].
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReportedSession {
    /// Session URI.
    pub uri: String,
    /// Title.
    pub title: String,
    /// Its status now.
    pub status: SessionStatus,
}

/// A session's status word in the sidebar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum SessionStatus {
    /// Nothing running.
    Idle,
    /// A turn is running.
    Working,
    /// The agent waits for the user (a confirmation or an input request).
    NeedsInput,
    /// The session's last turn failed.
    Error,
    /// The session's agent is starting.
    Starting,
    /// The session's agent did not start.
    Failed,
    /// The session's agent did not start until the person signs it in.
    SignIn,
}

/// One sidebar row.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    /// Host id.
    pub host: String,
    /// Host label.
    pub host_label: String,
    /// Session URI.
    pub uri: String,
    /// Title.
    pub title: String,
    /// Agent provider id.
    pub provider: String,
    /// Status word.
    pub status: SessionStatus,
    /// What the agent is doing, if it said.
    pub activity: Option<String>,
    /// Not read since its last activity.
    pub unread: bool,
    /// Archived.
    pub archived: bool,
    /// The session's first working directory.
    pub folder: Option<String>,
    /// Last change (RFC 3339).
    pub modified_at: String,
    /// The session's default chat.
    pub default_chat: Option<String>,
    /// Its pending changes, once it has had any.
    pub changes: Option<ChangeCounts>,
    /// Its branch, ahead/behind and pull request, when its folder is in a
    /// git repository (the summary's `_meta["hangar/git"]`).
    pub git: Option<Box<crate::git::GitState>>,
}

/// A session's pending changes in numbers (`+a −d` in the sidebar).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangeCounts {
    /// Files.
    pub files: i64,
    /// Lines added.
    pub added: i64,
    /// Lines removed.
    pub removed: i64,
}

/// Something waiting for the user: a tool call to confirm or an input
/// request to answer.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InboxItem {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// Chat URI.
    pub chat: String,
    /// The chat's title.
    pub chat_title: String,
    /// The running turn.
    pub turn_id: String,
    /// The tool call, or the input request's id.
    pub tool_call_id: String,
    /// What is asked.
    pub title: String,
    /// A tool call to allow or deny (answerable from the inbox); else an
    /// input request (answered in its chat's form).
    pub confirmation: bool,
}

/// An op on the app stream.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum AppOp {
    /// Everything, first on every app stream.
    Snapshot {
        /// Every host.
        hosts: Vec<HostView>,
        /// Every session row.
        sessions: Vec<SessionRow>,
        /// The approval inbox.
        inbox: Vec<InboxItem>,
    },
    /// The hosts changed.
    Hosts {
        /// Every host.
        hosts: Vec<HostView>,
    },
    /// Every session row, again.
    Sessions {
        /// Every session row.
        sessions: Vec<SessionRow>,
    },
    /// One session row, new or changed.
    Session {
        /// The row.
        row: SessionRow,
    },
    /// A session is gone.
    SessionRemoved {
        /// Host id.
        host: String,
        /// Session URI.
        uri: String,
    },
    /// The approval inbox changed.
    Inbox {
        /// Every item.
        items: Vec<InboxItem>,
    },
    /// The host refused an action this app dispatched.
    Rejected {
        /// Host id.
        host: String,
        /// The action's channel.
        channel: String,
        /// Why.
        reason: String,
        /// The action's wire `type`.
        action: String,
    },
}
