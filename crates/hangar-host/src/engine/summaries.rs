//! Derived summaries: a chat's `ChatSummary` inside its session
//! (`session/chatUpdated`), and the `SessionSummary` that `listSessions`
//! serves and `root/sessionSummaryChanged` announces.
//!
//! AHP's partial updates can set a field, not clear it: an activity that
//! ends (the chat went idle) is announced as an empty string.

use std::sync::Arc;

use ahp_types::actions::{PartialChatSummary, SessionChatUpdatedAction, SessionIsReadChangedAction};
use ahp_types::notifications::{PartialSessionSummary, SessionSummaryChangedParams};
use ahp_types::state::{SessionChatSummary, SessionStatus, SessionSummary};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};
use serde::Serialize;
use serde_json::Value;

use super::clock::instant;
use super::Engine;
use crate::compat_v0_9::downgrade;
use crate::hub::{OutFrame, Publication};
use crate::store::StoreOp;

/// Status bits that say what a chat is doing (idle, error, in progress, input needed).
const ACTIVITY_BITS: u32 = 1 | 2 | 8 | 16;
/// Status bits that are flags the user sets.
const FLAG_BITS: u32 = SessionStatus::IsRead.0 | SessionStatus::IsArchived.0;

impl Engine {
    /// Announce on the session any change of the chat's summary fields.
    pub(super) fn sync_chat_summary(&mut self, session: &str, chat: &str) {
        let (Some(chat_entry), Some(session_entry)) = (self.chats.get(chat), self.sessions.get(session)) else {
            return;
        };
        let Some(current) = session_entry.state.chats.iter().find(|c| c.resource == chat) else {
            return;
        };
        let state = &chat_entry.state;
        let mut changes = PartialChatSummary::default();
        let mut changed = false;
        if current.title != state.title {
            changes.title = Some(state.title.clone());
            changed = true;
        }
        if current.status != state.status {
            changes.status = Some(state.status);
            changed = true;
        }
        if current.modified_at != state.modified_at {
            changes.modified_at = Some(state.modified_at.clone());
            changed = true;
        }
        if shown(&current.activity) != shown(&state.activity) {
            // A partial update cannot clear a field: an empty activity is none.
            changes.activity = Some(state.activity.clone().unwrap_or_default());
            changed = true;
        }
        if changed {
            let action = StateAction::SessionChatUpdated(SessionChatUpdatedAction { chat: chat.to_owned(), changes });
            let _ = self.emit_server(session, action);
        }
    }

    /// A turn ended: the session has something the user has not seen.
    pub(super) fn mark_session_unread(&mut self, session: &str) {
        let is_read =
            self.sessions.get(session).is_some_and(|s| SessionStatus(s.state.status).contains(SessionStatus::IsRead));
        if is_read {
            let action = StateAction::SessionIsReadChanged(SessionIsReadChangedAction { is_read: false });
            let _ = self.emit_server(session, action);
        }
    }

    /// The summary of a session as it is now.
    pub(super) fn build_summary(&self, uri: &str) -> Option<SessionSummary> {
        let entry = self.sessions.get(uri)?;
        let state = &entry.state;
        let default_chat = state.default_chat.as_ref().and_then(|c| self.chats.get(c));
        let activity_bits = default_chat.map_or(SessionStatus::Idle.0, |c| c.state.status & ACTIVITY_BITS);
        // The session's own activity bits only matter while its `inputNeeded`
        // list blocks on the user: the official reducer leaves them at "in
        // progress" once the list drains, whatever the chats do.
        let input_bits = if SessionStatus(state.status).contains(SessionStatus::InputNeeded) {
            SessionStatus::InputNeeded.0
        } else {
            0
        };
        let status = (state.status & FLAG_BITS) | input_bits | activity_bits;
        let modified_at = state
            .chats
            .iter()
            .map(|c| c.modified_at.as_str())
            .chain(std::iter::once(entry.created_at.as_str()))
            .max_by_key(|t| instant(t))
            .unwrap_or_default()
            .to_owned();
        Some(SessionSummary {
            provider: state.provider.clone(),
            title: state.title.clone(),
            status,
            activity: state.activity.clone().or_else(|| default_chat.and_then(|c| c.state.activity.clone())),
            origin: state.origin.clone(),
            project: state.project.clone(),
            working_directories: state.working_directories.clone(),
            annotations: None,
            resource: uri.to_owned(),
            created_at: entry.created_at.clone(),
            modified_at,
            changes: self.session_changes(uri),
            meta: summary_meta(entry, self.session_git.get(uri)),
            chats: Some(
                state
                    .chats
                    .iter()
                    .map(|c| SessionChatSummary {
                        resource: c.resource.clone(),
                        title: c.title.clone(),
                        origin: c.origin.clone(),
                        interactivity: c.interactivity,
                        status: Some(c.status),
                        changes: c.changes.clone(),
                    })
                    .collect(),
            ),
            default_chat: state.default_chat.clone(),
        })
    }

    /// Re-derive a session's summary; if it changed, index it and announce
    /// the changed fields.
    pub(super) fn sync_session_summary(&mut self, uri: &str) {
        let Some(summary) = self.build_summary(uri) else {
            return;
        };
        let Some(entry) = self.sessions.get_mut(uri) else {
            return;
        };
        if entry.summary == summary {
            return;
        }
        let changes = changed_fields(&entry.summary, &summary);
        entry.summary = summary;
        self.index_session(uri);
        let only_1_0 = changes.chats.is_some() || changes.default_chat.is_some();
        let mut params =
            SessionSummaryChangedParams { channel: ROOT_RESOURCE_URI.to_owned(), session: uri.to_owned(), changes };
        let frame: OutFrame = notification_frame("root/sessionSummaryChanged", &params).into();
        // 0.9 clients get the same frame unless 1.0-only fields changed.
        let frame_v0_9 = if only_1_0 {
            params.changes.chats = None;
            params.changes.default_chat = None;
            notification_frame("root/sessionSummaryChanged", &params).into()
        } else {
            frame.clone()
        };
        self.writer.publish(Publication::Notification { channel: Arc::from(ROOT_RESOURCE_URI), frame, frame_v0_9 });
    }

    /// Queue the index row of a session.
    pub(super) fn index_session(&mut self, uri: &str) {
        let Some(entry) = self.sessions.get(uri) else {
            return;
        };
        let Ok(summary) = serde_json::to_string(&entry.summary) else {
            return;
        };
        self.writer.write(vec![StoreOp::IndexSession {
            uri: uri.into(),
            created_at: entry.created_at.clone(),
            modified_at: entry.summary.modified_at.clone(),
            summary,
        }]);
    }

    /// Publish a root notification in order with the actions around it.
    /// `summary_field` names the params field holding a (partial) summary,
    /// which 0.9 clients get without the 1.0-only fields.
    pub(super) fn notify_root(&mut self, method: &str, params: Value, summary_field: &str) {
        let mut old = params.clone();
        if let Some(summary) = old.get_mut(summary_field) {
            downgrade::summary(summary);
        }
        self.publish_root_notification(method, &params, &old);
    }

    /// Publish `method` to root subscribers: `params` for 1.x clients,
    /// `params_v0_9` for 0.9 ones.
    pub(super) fn publish_root_notification(
        &mut self,
        method: &str,
        params: &impl Serialize,
        params_v0_9: &impl Serialize,
    ) {
        self.writer.publish(Publication::Notification {
            channel: Arc::from(ROOT_RESOURCE_URI),
            frame: notification_frame(method, params).into(),
            frame_v0_9: notification_frame(method, params_v0_9).into(),
        });
    }
}

/// A JSON-RPC notification frame.
fn notification_frame(method: &str, params: &impl Serialize) -> String {
    let params = serde_json::to_string(params).unwrap_or_else(|_| "{}".to_owned());
    format!(r#"{{"jsonrpc":"2.0","method":{},"params":{params}}}"#, Value::from(method))
}

/// The fields of `new` that differ from `old`, as a partial summary.
/// An activity as a client shows it: empty is none.
fn shown(activity: &Option<String>) -> Option<&str> {
    activity.as_deref().filter(|a| !a.is_empty())
}

fn changed_fields(old: &SessionSummary, new: &SessionSummary) -> PartialSessionSummary {
    fn diff<T: PartialEq + Clone>(old: &T, new: &T) -> Option<T> {
        (old != new).then(|| new.clone())
    }
    fn diff_opt<T: PartialEq + Clone>(old: &Option<T>, new: &Option<T>) -> Option<T> {
        if old != new {
            new.clone()
        } else {
            None
        }
    }
    PartialSessionSummary {
        provider: diff(&old.provider, &new.provider),
        title: diff(&old.title, &new.title),
        status: diff(&old.status, &new.status),
        // A partial update cannot clear a field: an empty activity is none.
        activity: (shown(&old.activity) != shown(&new.activity)).then(|| new.activity.clone().unwrap_or_default()),
        origin: diff_opt(&old.origin, &new.origin),
        project: diff_opt(&old.project, &new.project),
        working_directories: diff_opt(&old.working_directories, &new.working_directories),
        annotations: diff_opt(&old.annotations, &new.annotations),
        resource: None,
        created_at: diff(&old.created_at, &new.created_at),
        modified_at: diff(&old.modified_at, &new.modified_at),
        changes: diff_opt(&old.changes, &new.changes),
        meta: diff_opt(&old.meta, &new.meta),
        chats: diff_opt(&old.chats, &new.chats),
        default_chat: diff_opt(&old.default_chat, &new.default_chat),
    }
}

/// A summary's `_meta`: where its title came from, the session's worktree
/// when it has one, and its branch state (`git`) when it is in a repository.
fn summary_meta(entry: &super::channels::SessionEntry, git: Option<&Value>) -> Option<serde_json::Map<String, Value>> {
    let mut meta = serde_json::Map::new();
    if let Some(source) = entry.title_source.as_str() {
        meta.insert(super::titles::TITLE_SOURCE_META.to_owned(), Value::from(source));
    }
    if let Some(worktree) = entry.state.meta.as_ref().and_then(|m| m.get(super::sessions::WORKTREE_META)) {
        meta.insert(super::sessions::WORKTREE_META.to_owned(), worktree.clone());
    }
    if let Some(git) = git {
        meta.insert(super::session_git::GIT_META.to_owned(), git.clone());
    }
    Some(meta).filter(|m| !m.is_empty())
}
