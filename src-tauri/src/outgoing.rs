//! The actions a typed message becomes.
//!
//! Map: [`fresh_id`] and [`now`] — ids and timestamps the client mints;
//! [`Composed`] — what the composer sends (text, model, the attachments of
//! picked `@` mentions) and its AHP `Message` JSON; [`turn_started`] — a
//! `chat/turnStarted` for a new turn; [`pending`] — a
//! `chat/pendingMessageSet` (queued or steering) for a running chat. The
//! command table and the core's held messages (`session_start`) both build
//! their actions here.

use ahp_types::state::MessageAttachment;
use ahp_types::StateAction;
use serde_json::{json, Value};

use crate::error::CoreError;

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
}

impl Composed {
    /// Text only: no model choice, no attachments.
    pub fn plain(text: impl Into<String>) -> Self {
        Self { text: text.into(), ..Self::default() }
    }

    /// The AHP user `Message` JSON.
    pub fn message(&self) -> Value {
        let mut m = json!({ "text": self.text, "origin": { "kind": "user" } });
        if let Some(model) = self.model.as_deref().filter(|m| !m.is_empty()) {
            m["model"] = json!({ "id": model });
        }
        if !self.attachments.is_empty() {
            m["attachments"] = json!(self.attachments);
        }
        m
    }
}

/// Attachments from the UI's JSON; kinds this protocol version does not
/// know are refused rather than passed on.
pub fn attachments(command: &str, value: Value) -> Result<Vec<MessageAttachment>, CoreError> {
    let bad = |message: String| CoreError::BadArgs { command: command.to_owned(), message };
    let list: Option<Vec<MessageAttachment>> =
        serde_json::from_value(value).map_err(|e| bad(format!("attachments: {e}")))?;
    let list = list.unwrap_or_default();
    if let Some(unknown) = list.iter().find(|a| matches!(a, MessageAttachment::Unknown(_))) {
        return Err(bad(format!(
            "attachments: not an attachment: {}",
            serde_json::to_string(unknown).unwrap_or_default()
        )));
    }
    Ok(list)
}

/// An action from its wire JSON; `command` names the caller in errors.
pub fn action(command: &str, value: Value) -> Result<StateAction, CoreError> {
    serde_json::from_value(value)
        .map_err(|e| CoreError::BadArgs { command: command.to_owned(), message: format!("action: {e}") })
}

/// `chat/turnStarted` for `message`, with the new turn's id.
pub fn turn_started(message: &Composed) -> Result<(String, StateAction), CoreError> {
    let turn_id = fresh_id();
    let a = json!({ "type": "chat/turnStarted", "turnId": turn_id, "startedAt": now(), "message": message.message() });
    Ok((turn_id, action("chat.send", a)?))
}

/// `chat/pendingMessageSet` of `kind` (`queued` or `steering`), with the
/// pending message's id.
pub fn pending(kind: &str, message: &Composed) -> Result<(String, StateAction), CoreError> {
    let id = fresh_id();
    let a = json!({ "type": "chat/pendingMessageSet", "kind": kind, "id": id, "message": message.message() });
    Ok((id, action("chat.queue", a)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_composed_message_carries_its_model_and_attachments() {
        let picked = json!([{"type": "resource", "label": "notes.md", "uri": "file:///w/notes.md"}]);
        let message = Composed {
            model: Some("m1".into()),
            attachments: attachments("chat.send", picked.clone()).unwrap(),
            ..Composed::plain("read @notes.md")
        };
        let m = message.message();
        assert_eq!(m["model"]["id"], "m1");
        assert_eq!(m["attachments"], picked);
        assert!(Composed::plain("hi").message().get("attachments").is_none(), "no empty list on the wire");
    }

    #[test]
    fn attachments_the_protocol_does_not_know_are_refused() {
        assert!(attachments("chat.send", Value::Null).unwrap().is_empty());
        for bad in [json!([{"type": "nope"}]), json!(["file:///x"]), json!({"type": "resource"})] {
            assert!(matches!(attachments("chat.send", bad), Err(CoreError::BadArgs { .. })));
        }
    }
}
