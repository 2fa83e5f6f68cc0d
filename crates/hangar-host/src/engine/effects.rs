//! What the engine asks the outside world (the agent layer) to do.

use ahp_types::actions::{ChatInputCompletedAction, ChatToolCallConfirmedAction};
use ahp_types::state::Message;
use ahp_types::StateAction;

use super::Engine;

/// A consequence of an applied action that happens outside the state.
#[derive(Debug, Clone)]
pub enum SideEffect {
    /// Start the session's agent; answer with `session/ready` or
    /// `session/creationFailed`.
    SessionCreated {
        /// Session URI.
        session: String,
        /// Its default chat.
        chat: String,
        /// Agent id.
        provider: String,
        /// `file:` URIs.
        working_directories: Vec<String>,
    },
    /// Stop the session's agent.
    SessionDisposed {
        /// Session URI.
        session: String,
        /// Its chats.
        chats: Vec<String>,
    },
    /// Run a turn.
    TurnStarted {
        /// Session URI.
        session: String,
        /// Chat URI.
        chat: String,
        /// Turn id.
        turn_id: String,
        /// The user's message.
        message: Box<Message>,
    },
    /// Cancel the running turn.
    TurnCancelled {
        /// Session URI.
        session: String,
        /// Chat URI.
        chat: String,
        /// Turn id.
        turn_id: String,
    },
    /// A user answered a tool-call confirmation.
    ToolCallConfirmed {
        /// Chat URI.
        chat: String,
        /// The answer.
        action: Box<ChatToolCallConfirmedAction>,
        /// The client that answered (for the audit log).
        client: Option<String>,
    },
    /// A user completed an input request.
    InputCompleted {
        /// Chat URI.
        chat: String,
        /// The answer.
        action: ChatInputCompletedAction,
    },
    /// A steering message was set for the running turn.
    SteeringSet {
        /// Chat URI.
        chat: String,
        /// Pending message id.
        id: String,
    },
    /// A client changed the session's config (`session/configChanged`).
    ConfigChanged {
        /// Session URI.
        session: String,
    },
    /// A turn ended (completed, cancelled or failed): its changes are read.
    TurnEnded {
        /// Session URI.
        session: String,
        /// Turn id.
        turn_id: String,
    },
    /// A client set "viewed" marks on a changeset.
    ChangesetReviewed {
        /// Session URI.
        session: String,
        /// Changeset URI.
        changeset: String,
        /// File ids (`file:` URIs).
        files: Vec<String>,
        /// The new mark.
        reviewed: bool,
    },
    /// A client toggled a customization (`session/customizationToggled`):
    /// its workspace and global decisions are kept for other sessions.
    CustomizationToggled {
        /// Session URI.
        session: String,
        /// The customization's id.
        id: String,
        /// Its explicit decisions, most specific first (the full list).
        enablement: Vec<ahp_types::state::CustomizationEnablement>,
    },
    /// The client holding a terminal's claim typed into it
    /// (`terminal/input`): written to its pseudo-terminal by the host.
    TerminalInput {
        /// Terminal URI.
        terminal: String,
        /// What was typed.
        data: String,
    },
    /// The client holding a terminal's claim resized it (`terminal/resized`).
    TerminalResized {
        /// Terminal URI.
        terminal: String,
        /// The new size.
        size: super::Size,
    },
}

/// In a server-emitted `chat/turnStarted`'s `_meta`: a turn the agent
/// replayed from its own history (`agents/acp/replay.rs`), not a prompt to
/// send it.
pub const REPLAYED_META_KEY: &str = "hangar/replayed";

impl Engine {
    /// Record the side effect of an applied chat action.
    pub(super) fn record_effect(&mut self, session: &str, chat: &str, action: &StateAction, client: Option<&str>) {
        let effect = match action {
            // A turn of an agent's own earlier session, replayed by the
            // host when the session was opened here: already answered.
            StateAction::ChatTurnStarted(a)
                if client.is_none() && a.meta.as_ref().is_some_and(|m| m.contains_key(REPLAYED_META_KEY)) =>
            {
                return;
            }
            StateAction::ChatTurnStarted(a) => SideEffect::TurnStarted {
                session: session.to_owned(),
                chat: chat.to_owned(),
                turn_id: a.turn_id.clone(),
                message: Box::new(a.message.clone()),
            },
            StateAction::ChatTurnCancelled(a) => {
                self.effects.push(SideEffect::TurnCancelled {
                    session: session.to_owned(),
                    chat: chat.to_owned(),
                    turn_id: a.turn_id.clone(),
                });
                SideEffect::TurnEnded { session: session.to_owned(), turn_id: a.turn_id.clone() }
            }
            StateAction::ChatTurnComplete(a) => {
                SideEffect::TurnEnded { session: session.to_owned(), turn_id: a.turn_id.clone() }
            }
            StateAction::ChatError(a) => {
                SideEffect::TurnEnded { session: session.to_owned(), turn_id: a.turn_id.clone() }
            }
            StateAction::ChatToolCallConfirmed(a) => SideEffect::ToolCallConfirmed {
                chat: chat.to_owned(),
                action: Box::new(a.clone()),
                client: client.map(str::to_owned),
            },
            StateAction::ChatInputCompleted(a) => {
                SideEffect::InputCompleted { chat: chat.to_owned(), action: a.clone() }
            }
            StateAction::ChatPendingMessageSet(a) if a.kind == ahp_types::state::PendingMessageKind::Steering => {
                SideEffect::SteeringSet { chat: chat.to_owned(), id: a.id.clone() }
            }
            StateAction::ChatPendingMessageSet(_) => {
                self.start_next_queued(chat);
                return;
            }
            _ => return,
        };
        self.effects.push(effect);
    }

    /// Record the side effect of an applied session action.
    pub(super) fn record_session_effect(&mut self, session: &str, action: &StateAction) {
        match action {
            StateAction::SessionConfigChanged(_) => {
                self.effects.push(SideEffect::ConfigChanged { session: session.to_owned() });
            }
            StateAction::SessionCustomizationToggled(a) => self.effects.push(SideEffect::CustomizationToggled {
                session: session.to_owned(),
                id: a.id.clone(),
                enablement: a.enablement.clone(),
            }),
            _ => {}
        }
    }
}
