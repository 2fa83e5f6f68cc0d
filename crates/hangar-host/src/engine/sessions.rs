//! Creating, disposing, listing and restoring sessions.

use std::cmp::Reverse;

use ahp_types::actions::{
    ChatErrorAction, RootActiveSessionsChangedAction, SessionActiveClientSetAction, SessionChatAddedAction,
    SessionDefaultChatChangedAction,
};
use ahp_types::state::{
    ChatOrigin, ChatState, ChatSummary, ErrorInfo, ErrorResponsePart, SessionActiveClient, SessionConfigState,
    SessionLifecycle, SessionState, SessionStatus, SessionSummary, Turn,
};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};
use serde_json::json;

use super::channels::{ChatEntry, SessionEntry};
use super::clock::{instant, millis_since, new_id, now};
use super::{Engine, SideEffect};
use crate::store::{LoadedState, StoreOp};
use crate::RpcError;

/// What `createSession` asks for, validated.
pub struct CreateSession {
    /// The new session's URI.
    pub uri: String,
    /// The agent id.
    pub provider: String,
    /// `file:` URIs of its working directories.
    pub working_directories: Option<Vec<String>>,
    /// The client to register as active, if any.
    pub active_client: Option<SessionActiveClient>,
    /// The session's configuration schema and values.
    pub config: Option<SessionConfigState>,
    /// Set when the session is a fork of another chat's turn.
    pub fork: Option<ForkSeed>,
    /// The session's `_meta` when it is not a fork (e.g. its worktree,
    /// [`WORKTREE_META`]).
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The session `_meta` key of a session's own git worktree; summaries
/// carry it too.
pub const WORKTREE_META: &str = "hangar/worktree";

/// What a forked session starts with: its chat's origin and the source's
/// transcript through the forked turn.
pub struct ForkSeed {
    /// The source chat.
    pub chat: String,
    /// The turn forked from (the last of `turns`).
    pub turn_id: String,
    /// The source's completed turns through `turn_id`, oldest first.
    pub turns: Vec<Turn>,
    /// The session's title.
    pub title: String,
    /// The session's `_meta` (what the fork was made from, how).
    pub meta: serde_json::Map<String, serde_json::Value>,
}

/// One page of `listSessions`.
pub struct SessionPage {
    /// Summaries, most recently modified first.
    pub items: Vec<SessionSummary>,
    /// Cursor for the next page.
    pub next_cursor: Option<String>,
}

impl Engine {
    /// `createSession`: the session in `creating`, its default chat, and the
    /// root announcements. The agent layer later emits `session/ready` or
    /// `session/creationFailed` (see [`SideEffect::SessionCreated`]).
    pub fn create_session(&mut self, req: CreateSession) -> Result<(), RpcError> {
        self.refuse_while_unsaved().map_err(RpcError::internal)?;
        if self.sessions.contains_key(&req.uri) || self.chats.contains_key(&req.uri) {
            return Err(RpcError::session_already_exists(&req.uri));
        }
        let created_at = now();
        let chat_uri = format!("ahp-chat:/{}", new_id());
        let (origin, turns, title, meta) = match req.fork {
            Some(f) => (Some(ChatOrigin::Fork { chat: f.chat, turn_id: f.turn_id }), f.turns, f.title, Some(f.meta)),
            None => (None, Vec::new(), String::new(), req.meta),
        };
        let state = SessionState {
            provider: req.provider.clone(),
            title: title.clone(),
            status: SessionStatus::Idle.0,
            activity: None,
            origin: None,
            project: None,
            working_directories: req.working_directories.clone(),
            annotations: None,
            lifecycle: SessionLifecycle::Creating,
            creation_error: None,
            server_tools: None,
            active_clients: Vec::new(),
            chats: Vec::new(),
            default_chat: None,
            config: req.config.clone(),
            customizations: None,
            changesets: Some(super::changeset_uris::catalogue(&req.uri)),
            input_needed: None,
            meta,
        };
        let chat = ChatState {
            resource: chat_uri.clone(),
            title,
            status: SessionStatus::Idle.0,
            activity: None,
            modified_at: created_at.clone(),
            changes: None,
            origin,
            movable: Some(false),
            interactivity: None,
            working_directories: None,
            changesets: None,
            background_work: None,
            canvases: None,
            turns,
            turns_next_cursor: None,
            active_turn: None,
            steering_message: None,
            queued_messages: None,
            draft: None,
            meta: None,
        };
        let chat_summary = summary_of_chat(&chat);
        let mut session_entry = SessionEntry {
            state,
            created_at: created_at.clone(),
            summary: placeholder_summary(&req.uri, &created_at),
            since_checkpoint: 0,
            title_source: super::titles::TitleSource::Unset,
        };
        let mut chat_entry = ChatEntry { state: chat, session: req.uri.clone(), since_checkpoint: 0 };
        let seq = self.seq;
        let chat_channel: std::sync::Arc<str> = chat_uri.as_str().into();
        // A fork's copied turns are stored like turns that ended here.
        let copied = chat_entry.state.turns.iter().filter_map(|turn| {
            let json = serde_json::to_string(turn).ok()?;
            Some(StoreOp::TurnEnded { chat: chat_channel.clone(), turn_id: turn.id.clone(), turn: json })
        });
        let ops: Vec<StoreOp> = copied
            .collect::<Vec<_>>()
            .into_iter()
            .chain(session_entry.checkpoint(&req.uri.as_str().into(), seq))
            .chain(chat_entry.checkpoint(&chat_channel, seq))
            .collect();
        self.writer.write(ops);
        self.sessions.insert(req.uri.clone(), session_entry);
        self.chats.insert(chat_uri.clone(), chat_entry);
        if let Some(summary) = self.build_summary(&req.uri) {
            if let Some(entry) = self.sessions.get_mut(&req.uri) {
                entry.summary = summary;
            }
        }
        self.index_session(&req.uri);

        let _ =
            self.emit_server(&req.uri, StateAction::SessionChatAdded(SessionChatAddedAction { summary: chat_summary }));
        let _ = self.emit_server(
            &req.uri,
            StateAction::SessionDefaultChatChanged(SessionDefaultChatChangedAction {
                default_chat: Some(chat_uri.clone()),
            }),
        );
        if let Some(active_client) = req.active_client {
            let _ = self.emit_server(
                &req.uri,
                StateAction::SessionActiveClientSet(SessionActiveClientSetAction { active_client }),
            );
        }
        let summary = self.sessions.get(&req.uri).map(|e| e.summary.clone());
        if let Some(summary) = summary {
            self.notify_root(
                "root/sessionAdded",
                json!({ "channel": ROOT_RESOURCE_URI, "summary": summary }),
                "summary",
            );
        }
        self.announce_active_sessions();
        self.effects.push(SideEffect::SessionCreated {
            session: req.uri,
            chat: chat_uri,
            provider: req.provider,
            working_directories: req.working_directories.unwrap_or_default(),
        });
        Ok(())
    }

    /// `disposeSession`: the session and all its chats go, with their history.
    pub fn dispose_session(&mut self, uri: &str) -> Result<(), RpcError> {
        self.refuse_while_unsaved().map_err(RpcError::internal)?;
        let Some(entry) = self.sessions.remove(uri) else {
            return Err(RpcError::session_not_found(uri));
        };
        let chats: Vec<String> = entry.state.chats.iter().map(|c| c.resource.clone()).collect();
        for chat in &chats {
            self.chats.remove(chat);
        }
        self.remove_changesets(uri);
        self.remove_terminals(uri);
        self.writer.write(vec![StoreOp::SessionRemoved {
            uri: uri.into(),
            chats: chats.iter().map(|c| c.as_str().into()).collect(),
        }]);
        self.notify_root("root/sessionRemoved", json!({ "channel": ROOT_RESOURCE_URI, "session": uri }), "none");
        self.announce_active_sessions();
        self.effects.push(SideEffect::SessionDisposed { session: uri.to_owned(), chats });
        Ok(())
    }

    fn announce_active_sessions(&mut self) {
        let count = self.sessions.len() as i64;
        let action = StateAction::RootActiveSessionsChanged(RootActiveSessionsChangedAction { active_sessions: count });
        let _ = self.emit_server(ROOT_RESOURCE_URI, action);
    }

    /// `listSessions`: most recently modified first, keyset-paged.
    pub fn list_sessions(&self, limit: Option<i64>, cursor: Option<&str>) -> Result<SessionPage, RpcError> {
        let limit = match limit {
            None => 200,
            Some(n) if n > 0 => n.min(1000) as usize,
            Some(_) => return Err(RpcError::invalid_params("limit", "must be a positive integer")),
        };
        let after = match cursor {
            None => None,
            Some(raw) => Some(decode_cursor(raw).ok_or_else(|| RpcError::invalid_params("cursor", "unknown cursor"))?),
        };
        // Most recently modified first (as instants, not strings), then by URI.
        let key = |s: &SessionSummary| (Reverse(instant(&s.modified_at)), s.resource.clone());
        let mut all: Vec<(_, &SessionSummary)> =
            self.sessions.values().map(|e| (key(&e.summary), &e.summary)).collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        let start = match &after {
            None => 0,
            Some((modified_at, uri)) => {
                let cursor = (Reverse(instant(modified_at)), uri.clone());
                all.partition_point(|(k, _)| *k <= cursor)
            }
        };
        let all: Vec<&SessionSummary> = all.into_iter().map(|(_, s)| s).collect();
        let items: Vec<SessionSummary> = all.iter().skip(start).take(limit).map(|s| (*s).clone()).collect();
        let next_cursor = if start + items.len() < all.len() {
            items.last().map(|s| encode_cursor(&s.modified_at, &s.resource))
        } else {
            None
        };
        Ok(SessionPage { items, next_cursor })
    }

    /// Sessions listing `client_id` among their active clients.
    pub fn sessions_with_active_client(&self, client_id: &str) -> Vec<String> {
        self.sessions
            .iter()
            .filter(|(_, s)| s.state.active_clients.iter().any(|c| c.client_id == client_id))
            .map(|(uri, _)| uri.clone())
            .collect()
    }

    /// Every client id listed among any session's active clients (after a
    /// restart: the clients whose grace period starts with the host).
    pub fn active_client_ids(&self) -> std::collections::BTreeSet<String> {
        self.sessions.values().flat_map(|s| s.state.active_clients.iter().map(|c| c.client_id.clone())).collect()
    }

    /// Every session's URI.
    pub fn session_uris(&self) -> Vec<String> {
        self.sessions.keys().cloned().collect()
    }

    /// Working directories (as `file:` URIs) of every session.
    pub fn working_directories(&self) -> Vec<String> {
        self.sessions.values().flat_map(|s| s.state.working_directories.clone().unwrap_or_default()).collect()
    }

    /// Put back what the store loaded. A turn that was running when the host
    /// died ends as an error that keeps everything streamed so far; a
    /// session's index row that fell behind its state is written again.
    pub fn restore(&mut self, loaded: LoadedState) {
        for s in loaded.sessions {
            self.sessions.insert(
                s.uri,
                SessionEntry {
                    title_source: super::titles::TitleSource::from_meta(s.summary.meta.as_ref()),
                    state: s.state,
                    created_at: s.created_at,
                    summary: s.summary,
                    since_checkpoint: 0,
                },
            );
        }
        let mut interrupted = Vec::new();
        for c in loaded.chats {
            if let Some(turn) = &c.state.active_turn {
                interrupted.push((c.uri.clone(), turn.id.clone(), millis_since(&turn.started_at)));
            }
            self.chats.insert(c.uri, ChatEntry { state: c.state, session: c.session, since_checkpoint: 0 });
        }
        // The index row of a session is written just after its action (in
        // the next commit, often the same one): a host killed in between
        // left a summary older than the state. Derived again, it heals.
        let uris: Vec<String> = self.sessions.keys().cloned().collect();
        for uri in uris {
            self.sync_session_summary(&uri);
        }
        self.root.active_sessions = Some(self.sessions.len() as i64);
        for (chat, turn_id, duration) in interrupted {
            let part = ErrorResponsePart {
                error: ErrorInfo {
                    error_type: "hostRestarted".to_owned(),
                    message: "The host stopped while this turn was running.".to_owned(),
                    stack: None,
                    meta: None,
                },
                resumable: None,
            };
            let _ = self
                .emit_server(&chat, StateAction::ChatError(ChatErrorAction { turn_id, duration, part, meta: None }));
        }
    }
}

/// The catalogue entry of a chat: the `ChatSummary` fields `ChatState` inlines.
fn summary_of_chat(chat: &ChatState) -> ChatSummary {
    ChatSummary {
        resource: chat.resource.clone(),
        title: chat.title.clone(),
        status: chat.status,
        activity: chat.activity.clone(),
        modified_at: chat.modified_at.clone(),
        changes: chat.changes.clone(),
        origin: chat.origin.clone(),
        movable: chat.movable,
        interactivity: chat.interactivity,
        working_directories: chat.working_directories.clone(),
    }
}

fn placeholder_summary(uri: &str, created_at: &str) -> SessionSummary {
    SessionSummary {
        provider: String::new(),
        title: String::new(),
        status: 0,
        activity: None,
        origin: None,
        project: None,
        working_directories: None,
        annotations: None,
        resource: uri.to_owned(),
        created_at: created_at.to_owned(),
        modified_at: created_at.to_owned(),
        changes: None,
        meta: None,
        chats: None,
        default_chat: None,
    }
}

fn encode_cursor(modified_at: &str, uri: &str) -> String {
    format!("{modified_at}\n{uri}").bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode_cursor(raw: &str) -> Option<(String, String)> {
    if !raw.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..raw.len()).step_by(2).map(|i| u8::from_str_radix(raw.get(i..i + 2)?, 16).ok()).collect();
    let text = String::from_utf8(bytes?).ok()?;
    let (modified_at, uri) = text.split_once('\n')?;
    Some((modified_at.to_owned(), uri.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trips() {
        let c = encode_cursor("2026-01-01T00:00:00Z", "ahp-session:/x");
        assert_eq!(decode_cursor(&c), Some(("2026-01-01T00:00:00Z".into(), "ahp-session:/x".into())));
        assert_eq!(decode_cursor("zz"), None);
        assert_eq!(decode_cursor("abc"), None);
    }
}
