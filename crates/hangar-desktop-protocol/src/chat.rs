//! A chat stream: a snapshot of the open chat, then ops that patch it.
//! Turns carry their response parts as [`PartView`]s; the session's start
//! and customizations come along.

use ahp_types::state::{SessionLifecycle, SessionState};
use serde::Serialize;
use ts_rs::TS;

use super::customization::CustomizationsView;
use super::part::PartView;

/// A queued, steering or held message.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PendingView {
    /// Its id.
    pub id: String,
    /// Its text.
    pub text: String,
}

/// The chat fields outside the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatMeta {
    /// Chat URI.
    pub resource: String,
    /// Title.
    pub title: String,
    /// `ChatStatus` bits.
    pub status: u32,
    /// What the agent is doing, if it said.
    pub activity: Option<String>,
    /// Messages queued behind the running turn.
    pub queued: Vec<PendingView>,
    /// A message steering the running turn.
    pub steering: Option<PendingView>,
    /// The draft's text.
    pub draft: Option<String>,
    /// Set while older turns can be fetched from the host.
    pub older_cursor: Option<String>,
    /// The running turn.
    pub active_turn_id: Option<String>,
    /// Set when the chat was forked from another chat's turn.
    pub forked_from: Option<ForkOrigin>,
}

/// Where a forked chat came from (AHP `ChatOrigin` `fork`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ForkOrigin {
    /// The source chat's URI.
    pub chat: String,
    /// The turn it was forked at.
    pub turn_id: String,
}

/// Where a session's agent is in starting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Lifecycle {
    /// The host is still starting the agent; turns would be refused.
    Creating,
    /// Turns are accepted.
    Ready,
    /// The agent did not start (`creationError` says why).
    Failed,
}

impl Lifecycle {
    /// The lifecycle of a mirrored session; `None` (not subscribed) and
    /// values from newer protocols count as ready.
    pub fn of(session: Option<&SessionState>) -> Self {
        match session.map(|s| &s.lifecycle) {
            Some(SessionLifecycle::Creating) => Self::Creating,
            Some(SessionLifecycle::Failed) => Self::Failed,
            _ => Self::Ready,
        }
    }
}

/// The session's start as an open chat shows it; messages sent while it is
/// `creating` are held by the core.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StartView {
    /// Where the agent is in starting.
    pub lifecycle: Lifecycle,
    /// The session's agent provider.
    pub provider: Option<String>,
    /// Why the agent did not start.
    pub error: Option<String>,
    /// It did not start because it wants the person to sign in: the ways
    /// it offers.
    pub sign_in: Option<super::sign_in::SignInView>,
    /// Messages held until the agent is ready (not sent, if it failed).
    pub held: Vec<PendingView>,
    /// Messages typed while the host was unreachable: kept on disk and sent
    /// once when it is back.
    pub unsent: Vec<PendingView>,
    /// The agent's own settings this session offers (its mode first, then
    /// others such as reasoning effort), with their current values; the
    /// model is chosen per message instead.
    pub settings: Vec<SettingView>,
}

/// One of the agent's settings (a session config property with a list of
/// values), as the composer offers it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SettingView {
    /// The config property (`mode`, `effort`, …): `session.setting`'s `key`.
    pub key: String,
    /// Its title.
    pub title: String,
    /// What it does.
    pub description: Option<String>,
    /// The session's value.
    pub value: Option<String>,
    /// The values it may take.
    pub options: Vec<SettingOption>,
}

/// One value of a [`SettingView`].
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SettingOption {
    /// The value.
    pub value: String,
    /// Its label.
    pub label: String,
    /// What it does, if the agent said.
    pub description: Option<String>,
}

/// What a message has attached, shown as text.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentView {
    /// Label.
    pub label: Option<String>,
    /// URI, for a resource.
    pub uri: Option<String>,
}

/// A user message.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    /// Text.
    pub text: String,
    /// The model chosen for it.
    pub model: Option<String>,
    /// The custom agent it was sent to (an agent customization's URI).
    pub agent: Option<String>,
    /// Attachments.
    pub attachments: Vec<AttachmentView>,
    /// The line comments it carried, when it was a review sent to the agent
    /// (`_meta["hangar/review"]`): shown as a review, not as its text.
    pub review: Option<Vec<super::review::ReviewComment>>,
}

/// Token usage of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageView {
    /// Input tokens.
    pub input_tokens: Option<i64>,
    /// Output tokens.
    pub output_tokens: Option<i64>,
    /// Input tokens read from a cache.
    pub cache_read_tokens: Option<i64>,
    /// The model that answered.
    pub model: Option<String>,
    /// Context window tokens in use (the agent's last `usage_update`).
    pub context_used: Option<i64>,
    /// The context window's size.
    pub context_size: Option<i64>,
    /// The session's cost so far as the agent reported it (ACP's
    /// `usage_update.cost` is cumulative).
    pub cost: Option<CostView>,
}

/// An amount of money an agent reported.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, TS)]
pub struct CostView {
    /// How much.
    pub amount: f64,
    /// ISO 4217 code (`USD`).
    pub currency: String,
}

/// How a finished turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum TurnOutcome {
    /// The agent finished.
    Complete,
    /// The user cancelled it.
    Cancelled,
    /// It failed.
    Error,
}

/// A turn, finished or running.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnView {
    /// Turn id.
    pub id: String,
    /// Whether it is the running turn.
    pub active: bool,
    /// When it started (RFC 3339).
    pub started_at: Option<String>,
    /// How long it ran, in milliseconds (finished turns).
    pub duration: Option<i64>,
    /// The user's message.
    pub message: MessageView,
    /// The response so far.
    pub parts: Vec<PartView>,
    /// Token usage.
    pub usage: Option<UsageView>,
    /// How it ended (`null` while running).
    pub state: Option<TurnOutcome>,
}

/// The whole open chat, as a `snapshot` op carries it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatSnapshot {
    /// The chat fields.
    pub meta: ChatMeta,
    /// The newest page of finished turns, oldest first.
    pub turns: Vec<TurnView>,
    /// The running turn.
    pub active: Option<TurnView>,
    /// The session's start.
    pub start: Option<StartView>,
    /// The session's customizations.
    pub customizations: Option<CustomizationsView>,
}

/// An op on a chat stream.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ChatOp {
    /// Everything again: first on a stream, after a truncation or lost events.
    Snapshot(Box<ChatSnapshot>),
    /// The session's start changed.
    Start {
        /// The new start view.
        start: StartView,
    },
    /// The session's customizations changed.
    Customizations {
        /// The new view.
        view: CustomizationsView,
    },
    /// Ops to apply in order, rendered once.
    Batch {
        /// The ops.
        ops: Vec<ChatOp>,
    },
    /// The chat fields changed.
    Meta {
        /// The new fields.
        meta: ChatMeta,
    },
    /// A turn started, or the running one ended (`null`).
    Active {
        /// The running turn.
        turn: Option<TurnView>,
    },
    /// One response part of the running turn, new or replaced.
    Part {
        /// The running turn.
        turn_id: String,
        /// The part's index in the turn.
        index: usize,
        /// The part.
        part: PartView,
    },
    /// A markdown or reasoning part of the running turn changed at its end
    /// (it is streaming): keep its first `keep` blocks, then these follow.
    /// Sent instead of `part` when the blocks before `keep` are unchanged.
    PartAppend {
        /// The running turn.
        turn_id: String,
        /// The part's index in the turn.
        index: usize,
        /// How many of the part's blocks stay as they are (at least one).
        keep: usize,
        /// The blocks after them, re-rendered or new.
        blocks: Vec<String>,
    },
    /// The running turn's usage changed.
    TurnMeta {
        /// The running turn.
        turn_id: String,
        /// Its usage.
        usage: Option<UsageView>,
    },
    /// A turn finished (appended to the transcript).
    TurnDone {
        /// The finished turn.
        turn: TurnView,
    },
    /// An older page of turns, to prepend.
    Older {
        /// The turns, oldest first.
        turns: Vec<TurnView>,
        /// Whether still older turns exist.
        more: bool,
    },
}
