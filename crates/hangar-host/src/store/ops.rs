//! What the engine asks the store to write.

use std::sync::Arc;

/// The kinds of channel whose state is persisted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    /// `ahp-session:/…`
    Session,
    /// `ahp-chat:/…`
    Chat,
}

impl ChannelKind {
    /// The value stored in `checkpoints.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Chat => "chat",
        }
    }
}

/// One write, applied by the writer thread in the order it was queued.
#[derive(Debug)]
pub enum StoreOp {
    /// Append an accepted envelope to the action log.
    Log {
        /// Its `serverSeq`.
        seq: u64,
        /// Its channel.
        channel: Arc<str>,
        /// The envelope as JSON.
        envelope: Arc<str>,
    },
    /// Replace a channel's checkpoint and drop its log rows up to `seq`.
    Checkpoint {
        /// The channel.
        channel: Arc<str>,
        /// Session or chat.
        kind: ChannelKind,
        /// For a chat, its session.
        parent: Option<Arc<str>>,
        /// The seq the state reflects.
        seq: u64,
        /// The state as JSON (a chat's completed turns are left out).
        state: String,
    },
    /// A turn completed: append it to the chat's history.
    TurnEnded {
        /// The chat.
        chat: Arc<str>,
        /// The turn id.
        turn_id: String,
        /// The `Turn` as JSON.
        turn: String,
    },
    /// `chat/truncated`: drop every stored turn after `keep_through`, or all.
    TurnsTruncated {
        /// The chat.
        chat: Arc<str>,
        /// Keep turns up to and including this one.
        keep_through: Option<String>,
    },
    /// Upsert the `listSessions` index row of a session.
    IndexSession {
        /// Session URI.
        uri: Arc<str>,
        /// ISO 8601.
        created_at: String,
        /// ISO 8601.
        modified_at: String,
        /// The `SessionSummary` as JSON.
        summary: String,
    },
    /// A session was disposed: remove it, its chats and all their rows.
    SessionRemoved {
        /// Session URI.
        uri: Arc<str>,
        /// Its chats.
        chats: Vec<Arc<str>>,
    },
}
