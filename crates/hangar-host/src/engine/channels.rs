//! Per-channel entries, checkpoints and snapshots.

use std::sync::Arc;

use ahp_types::state::{ChatState, ResourceWatchState, SessionState, SessionSummary, Snapshot, SnapshotState};
use ahp_types::ROOT_RESOURCE_URI;

use super::Engine;
use crate::store::{ChannelKind, StoreOp};

/// A session and what the host derives for it.
pub(crate) struct SessionEntry {
    pub state: SessionState,
    pub created_at: String,
    /// The summary last published (`listSessions`, notifications).
    pub summary: SessionSummary,
    pub since_checkpoint: u32,
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
        } else {
            None
        }
    }

    /// A snapshot of `uri` at the current seq.
    pub fn snapshot(&self, uri: &str) -> Option<Snapshot> {
        let state = if uri == ROOT_RESOURCE_URI {
            SnapshotState::Root(Box::new(self.root.clone()))
        } else if let Some(chat) = self.chats.get(uri) {
            SnapshotState::Chat(Box::new(chat.state.clone()))
        } else if let Some(session) = self.sessions.get(uri) {
            SnapshotState::Session(Box::new(session.state.clone()))
        } else if let Some(watch) = self.watches.get(uri) {
            SnapshotState::ResourceWatch(Box::new(watch.clone()))
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
