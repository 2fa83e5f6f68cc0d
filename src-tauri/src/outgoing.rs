//! The actions a typed message becomes.
//!
//! Map: [`fresh_id`] and [`now`] — ids and timestamps the client mints;
//! [`Composed`] — what the composer sends (text, model, custom agent, the
//! attachments of picked `@` mentions) and its AHP `Message`; [`turn_started`] — a
//! `chat/turnStarted` for a new turn; [`pending`] — a
//! `chat/pendingMessageSet` (queued or steering) for a running chat. The
//! command table and the core's held messages (`session_start`) both build
//! their actions here, with the `ahp-types` action structs.

use ahp_types::actions::{ChatPendingMessageSetAction, ChatTurnStartedAction};
use ahp_types::common::JsonObject;
use ahp_types::state::{
    AgentSelection, Message, MessageAttachment, MessageKind, MessageOrigin, ModelSelection, PendingMessageKind,
};
use ahp_types::StateAction;

use crate::error::CoreError;
use hangar_desktop_protocol::command::Attachment;

/// A fresh id for turns, queued messages and sessions.
pub fn fresh_id() -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..16).map(|_| format!("{:02x}", rng.gen::<u8>())).collect()
}

/// Now, as an RFC 3339 timestamp.
pub fn now() -> String {
    jiff::Timestamp::now().to_string()
}

/// A message as the composer sends it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Composed {
    /// The text.
    pub text: String,
    /// The model chosen in the composer, if any.
    pub model: Option<String>,
    /// Attachments of the completion items picked while typing (`@`
    /// mentions), as the host sent them.
    pub attachments: Vec<MessageAttachment>,
    /// The custom agent chosen in the composer (an agent customization's URI).
    pub agent: Option<String>,
    /// The message's `_meta` (a review's `hangar/review`, see
    /// `review_message`).
    pub meta: Option<JsonObject>,
}

impl Composed {
    /// Text only: no model or agent choice, no attachments.
    pub fn plain(text: impl Into<String>) -> Self {
        Self { text: text.into(), ..Self::default() }
    }

    /// The AHP user `Message`.
    pub fn message(&self) -> Message {
        Message {
            text: self.text.clone(),
            origin: MessageOrigin { kind: MessageKind::User },
            attachments: (!self.attachments.is_empty()).then(|| self.attachments.clone()),
            model: self
                .model
                .as_deref()
                .filter(|m| !m.is_empty())
                .map(|id| ModelSelection { id: id.to_owned(), config: None }),
            agent: self.agent.as_deref().filter(|a| !a.is_empty()).map(|uri| AgentSelection { uri: uri.to_owned() }),
            meta: self.meta.clone(),
        }
    }
}

/// Attachments from the UI; kinds this protocol version does not know are
/// refused rather than passed on.
pub fn attachments(command: &str, list: Option<Vec<Attachment>>) -> Result<Vec<MessageAttachment>, CoreError> {
    let list: Vec<MessageAttachment> = list.into_iter().flatten().map(|a| a.0).collect();
    if let Some(unknown) = list.iter().find(|a| matches!(a, MessageAttachment::Unknown(_))) {
        return Err(CoreError::BadArgs {
            command: command.to_owned(),
            message: format!("attachments: not an attachment: {}", serde_json::to_string(unknown).unwrap_or_default()),
        });
    }
    Ok(list)
}

/// `chat/turnStarted` for `message`, with the new turn's id.
pub fn turn_started(message: &Composed) -> (String, StateAction) {
    let turn_id = fresh_id();
    let action = ChatTurnStartedAction {
        turn_id: turn_id.clone(),
        started_at: now(),
        message: message.message(),
        queued_message_id: None,
        meta: None,
    };
    (turn_id, StateAction::ChatTurnStarted(action))
}

/// `chat/pendingMessageSet` of `kind` (queued or steering), with the
/// pending message's id.
pub fn pending(kind: PendingMessageKind, message: &Composed) -> (String, StateAction) {
    let id = fresh_id();
    let action = ChatPendingMessageSetAction { kind, id: id.clone(), message: message.message() };
    (id, StateAction::ChatPendingMessageSet(action))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn parsed(v: Value) -> Option<Vec<Attachment>> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_composed_message_carries_its_model_and_attachments() {
        let picked = json!([{"type": "resource", "label": "notes.md", "uri": "file:///w/notes.md"}]);
        let message = Composed {
            model: Some("m1".into()),
            agent: Some("file:///w/.claude/agents/reviewer.md".into()),
            attachments: attachments("chat.send", parsed(picked.clone())).unwrap(),
            ..Composed::plain("read @notes.md")
        };
        let m = serde_json::to_value(message.message()).unwrap();
        assert_eq!(m["model"]["id"], "m1");
        assert_eq!(m["agent"], json!({"uri": "file:///w/.claude/agents/reviewer.md"}));
        assert_eq!(m["attachments"], picked);
        assert_eq!(m["origin"]["kind"], "user");
        let plain = serde_json::to_value(Composed::plain("hi").message()).unwrap();
        assert!(plain.get("attachments").is_none(), "no empty list on the wire");
        assert!(plain.get("agent").is_none(), "no agent unless one was chosen");
    }

    #[test]
    fn attachments_the_protocol_does_not_know_are_refused() {
        assert!(attachments("chat.send", None).unwrap().is_empty());
        for unknown in [json!([{"type": "nope"}]), json!(["file:///x"])] {
            assert!(matches!(attachments("chat.send", parsed(unknown)), Err(CoreError::BadArgs { .. })));
        }
        let not_a_list = json!({"type": "resource"});
        assert!(serde_json::from_value::<Option<Vec<Attachment>>>(not_a_list).is_err());
    }

    #[test]
    fn actions_have_their_wire_shape() {
        let (id, a) = pending(PendingMessageKind::Steering, &Composed::plain("go"));
        let v = serde_json::to_value(a).unwrap();
        assert_eq!(
            (v["type"].as_str(), v["kind"].as_str(), v["id"].as_str()),
            (Some("chat/pendingMessageSet"), Some("steering"), Some(id.as_str()))
        );
        let (turn, a) = turn_started(&Composed::plain("go"));
        let v = serde_json::to_value(a).unwrap();
        assert_eq!((v["type"].as_str(), v["turnId"].as_str()), (Some("chat/turnStarted"), Some(turn.as_str())));
        assert_eq!(v["message"]["text"], "go");
    }
}
