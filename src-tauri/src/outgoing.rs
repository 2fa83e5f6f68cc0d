//! The actions a typed message becomes.
//!
//! Map: [`fresh_id`] and [`now`] — ids and timestamps the client mints;
//! [`user_message`] — the AHP `Message` JSON; [`turn_started`] — a
//! `chat/turnStarted` for a new turn; [`pending`] — a
//! `chat/pendingMessageSet` (queued or steering) for a running chat. The
//! command table and the core's held messages (`session_start`) both build
//! their actions here.

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

/// A user message with an optional model choice.
pub fn user_message(text: &str, model: Option<&str>) -> Value {
    let mut m = json!({ "text": text, "origin": { "kind": "user" } });
    if let Some(model) = model.filter(|m| !m.is_empty()) {
        m["model"] = json!({ "id": model });
    }
    m
}

/// An action from its wire JSON; `command` names the caller in errors.
pub fn action(command: &str, value: Value) -> Result<StateAction, CoreError> {
    serde_json::from_value(value).map_err(|e| CoreError::BadArgs { command: command.to_owned(), message: format!("action: {e}") })
}

/// `chat/turnStarted` for `text`, with the new turn's id.
pub fn turn_started(text: &str, model: Option<&str>) -> Result<(String, StateAction), CoreError> {
    let turn_id = fresh_id();
    let a = json!({ "type": "chat/turnStarted", "turnId": turn_id, "startedAt": now(), "message": user_message(text, model) });
    Ok((turn_id, action("chat.send", a)?))
}

/// `chat/pendingMessageSet` of `kind` (`queued` or `steering`), with the
/// pending message's id.
pub fn pending(kind: &str, text: &str, model: Option<&str>) -> Result<(String, StateAction), CoreError> {
    let id = fresh_id();
    let a = json!({ "type": "chat/pendingMessageSet", "kind": kind, "id": id, "message": user_message(text, model) });
    Ok((id, action("chat.queue", a)?))
}
