//! The wire `type` of an action, which the official crates do not give.

use ahp_types::StateAction;

/// The wire `type` of an action (`"chat/delta"`), or `None` for an action the
/// crate does not know (`StateAction::Unknown`) that carries no string `type`.
pub fn action_type(action: &StateAction) -> Option<String> {
    match action {
        StateAction::Unknown(raw) => raw.get("type").and_then(|t| t.as_str()).map(str::to_owned),
        known => serde_json::to_string(known).ok().and_then(|json| type_of_action_json(&json).map(str::to_owned)),
    }
}

/// The `type` of a known action serialized by serde, which writes the tag of
/// an internally tagged enum first: `{"type":"chat/delta",…}`. Reading the
/// prefix spares building a JSON tree per action.
pub fn type_of_action_json(json: &str) -> Option<&str> {
    let rest = json.strip_prefix(r#"{"type":""#)?;
    let end = rest.find('"')?;
    Some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_type_of_known_and_unknown_actions() {
        let known: StateAction = serde_json::from_str(r#"{"type":"session/titleChanged","title":"x"}"#).unwrap();
        assert_eq!(action_type(&known).as_deref(), Some("session/titleChanged"));
        let unknown: StateAction = serde_json::from_str(r#"{"value":1,"type":"x-made/up"}"#).unwrap();
        assert_eq!(action_type(&unknown).as_deref(), Some("x-made/up"));
        assert_eq!(type_of_action_json(r#"{"title":"x"}"#), None);
    }
}
