//! Per-channel entries, checkpoints and snapshots.

use std::sync::Arc;

use ahp_types::state::{ChatState, ResourceWatchState, SessionState, SessionSummary, Snapshot, SnapshotState};
use ahp_types::ROOT_RESOURCE_URI;

use super::Engine;
use crate::store::{ChannelKind, StoreOp, TurnCursor};

/// A session and what the host derives for it.
pub(crate) struct SessionEntry {
    pub state: SessionState,
    pub created_at: String,
    /// The summary last published (`listSessions`, notifications).
    pub summary: SessionSummary,
    pub since_checkpoint: u32,
    /// Who set the title (`titles.rs`).
    pub title_source: super::titles::TitleSource,
}

impl SessionEntry {
    pub fn checkpoint(&mut self, channel: &Arc<str>, seq: u64) -> Option<StoreOp> {
        self.since_checkpoint = 0;
        let state = serde_json::to_string(&self.state).ok()?;
        Some(StoreOp::Checkpoint { channel: channel.clone(), kind: ChannelKind::Session, parent: None, seq, state })
    }
}

/// A chat.
pub(crate) struct ChatEntry {
    pub state: ChatState,
    pub session: String,
    pub since_checkpoint: u32,
}

impl ChatEntry {
    /// The chat's state without its completed turns (those are stored one
    /// row each), so a checkpoint costs the same in turn 1 and turn 10,000.
    pub fn checkpoint(&mut self, channel: &Arc<str>, seq: u64) -> Option<StoreOp> {
        self.since_checkpoint = 0;
        let turns = std::mem::take(&mut self.state.turns);
        let cursor = self.state.turns_next_cursor.take();
        let state = serde_json::to_string(&self.state);
        self.state.turns = turns;
        self.state.turns_next_cursor = cursor;
        Some(StoreOp::Checkpoint {
            channel: channel.clone(),
            kind: ChannelKind::Chat,
            parent: Some(self.session.as_str().into()),
            seq,
            state: state.ok()?,
        })
    }
}

impl ChatEntry {
    /// Drop all but the newest `tail` completed turns from memory, pointing
    /// `turns_next_cursor` at the stored turns before them. Every completed
    /// turn is already a row of the store's `turns` table (written when it
    /// ended, or it came from there with `chat/turnsLoaded`), so nothing is
    /// lost: `fetchTurns` serves the rest. Returns how many were dropped.
    pub fn trim_turns(&mut self, tail: usize) -> usize {
        let Some(cut) = self.state.turns.len().checked_sub(tail).filter(|cut| *cut > 0) else {
            return 0;
        };
        self.state.turns.drain(..cut);
        self.state.turns_next_cursor = self.state.turns.first().map(|t| TurnCursor::before(&t.id).encode());
        cut
    }
}

/// `state` with only its newest `tail` completed turns, and a cursor for the
/// rest when any were left out.
fn chat_tail(state: &ChatState, tail: usize) -> ChatState {
    let Some(cut) = state.turns.len().checked_sub(tail).filter(|cut| *cut > 0) else {
        return state.clone();
    };
    let mut view = clone_without_turns(state);
    view.turns = state.turns[cut..].to_vec();
    view.turns_next_cursor = Some(TurnCursor::before(&state.turns[cut].id).encode());
    view
}

/// A chat's state without copying its (possibly long) turn list.
fn clone_without_turns(state: &ChatState) -> ChatState {
    let s = state;
    ChatState {
        resource: s.resource.clone(),
        title: s.title.clone(),
        status: s.status,
        activity: s.activity.clone(),
        modified_at: s.modified_at.clone(),
        changes: s.changes.clone(),
        origin: s.origin.clone(),
        movable: s.movable,
        interactivity: s.interactivity,
        working_directories: s.working_directories.clone(),
        changesets: s.changesets.clone(),
        background_work: s.background_work.clone(),
        canvases: s.canvases.clone(),
        turns: Vec::new(),
        turns_next_cursor: s.turns_next_cursor.clone(),
        active_turn: s.active_turn.clone(),
        steering_message: s.steering_message.clone(),
        queued_messages: s.queued_messages.clone(),
        draft: s.draft.clone(),
        meta: s.meta.clone(),
    }
}

/// What kind of channel a URI names on this host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelRef {
    /// `ahp-root://`.
    Root,
    /// A session.
    Session,
    /// A chat, with its session.
    Chat {
        /// The owning session.
        session: String,
    },
    /// A resource watch.
    ResourceWatch,
    /// A changeset, with its session.
    Changeset {
        /// The owning session.
        session: String,
    },
    /// A terminal, with its session (none for a client's own terminal).
    Terminal {
        /// The owning session.
        session: Option<String>,
    },
}

impl Engine {
    /// What `uri` names here, if anything.
    pub fn channel(&self, uri: &str) -> Option<ChannelRef> {
        if uri == ROOT_RESOURCE_URI {
            Some(ChannelRef::Root)
        } else if let Some(chat) = self.chats.get(uri) {
            Some(ChannelRef::Chat { session: chat.session.clone() })
        } else if self.sessions.contains_key(uri) {
            Some(ChannelRef::Session)
        } else if self.watches.contains_key(uri) {
            Some(ChannelRef::ResourceWatch)
        } else if let Some(terminal) = self.terminals.get(uri) {
            Some(ChannelRef::Terminal { session: terminal.session.clone() })
        } else {
            self.changesets.get(uri).map(|c| ChannelRef::Changeset { session: c.session.clone() })
        }
    }

    /// A snapshot of `uri` at the current seq; a chat shows at most
    /// `turn_tail` completed turns.
    pub fn snapshot(&self, uri: &str) -> Option<Snapshot> {
        self.snapshot_with_tail(uri, None)
    }

    /// A snapshot whose chat turns are a tail of at most `tail` (default
    /// [`Engine::turn_tail`]) with a cursor for the older ones, so a
    /// 10,000-turn chat never produces a 10,000-turn snapshot.
    pub fn snapshot_with_tail(&self, uri: &str, tail: Option<usize>) -> Option<Snapshot> {
        let state = if uri == ROOT_RESOURCE_URI {
            SnapshotState::Root(Box::new(self.root.clone()))
        } else if let Some(chat) = self.chats.get(uri) {
            SnapshotState::Chat(Box::new(chat_tail(&chat.state, tail.unwrap_or(self.turn_tail).max(1))))
        } else if let Some(session) = self.sessions.get(uri) {
            let chat = session.state.default_chat.as_ref().or(session.state.chats.first().map(|c| &c.resource));
            let chat = chat.and_then(|c| self.chats.get(c)).map(|c| &c.state);
            SnapshotState::Session(Box::new(super::session_usage::with_usage(session.state.clone(), chat)))
        } else if let Some(watch) = self.watches.get(uri) {
            SnapshotState::ResourceWatch(Box::new(watch.clone()))
        } else if let Some(changeset) = self.changesets.get(uri) {
            SnapshotState::Changeset(Box::new(changeset.state.clone()))
        } else if let Some(terminal) = self.terminals.get(uri) {
            SnapshotState::Terminal(Box::new(terminal.state.clone()))
        } else {
            return None;
        };
        Some(Snapshot { resource: uri.to_owned(), state, from_seq: self.seq as i64 })
    }

    /// A chat's state.
    pub fn chat_state(&self, uri: &str) -> Option<&ChatState> {
        self.chats.get(uri).map(|c| &c.state)
    }

    /// A session's state.
    pub fn session_state(&self, uri: &str) -> Option<&SessionState> {
        self.sessions.get(uri).map(|s| &s.state)
    }

    /// Register a resource-watch channel.
    pub fn add_watch(&mut self, uri: &str, state: ResourceWatchState) {
        self.watches.insert(uri.to_owned(), state);
    }

    /// Drop a resource-watch channel.
    pub fn remove_watch(&mut self, uri: &str) -> bool {
        self.watches.remove(uri).is_some()
    }
}
