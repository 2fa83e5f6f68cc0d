//! Protocol facts the official crates do not carry: which actions a client may
//! dispatch, and which protocol version introduced each action type.

pub mod dispatchable;
pub mod versions;

use ahp_types::StateAction;

/// The wire `type` of an action (`"chat/delta"`), or `None` for an action the
/// crate does not know (`StateAction::Unknown`) that carries no string `type`.
pub fn action_type(action: &StateAction) -> Option<String> {
    match action {
        StateAction::Unknown(raw) => raw.get("type").and_then(|t| t.as_str()).map(str::to_owned),
        known => serde_json::to_value(known)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned)),
    }
}
