//! Version filtering: a client that negotiated an older protocol never receives
//! an action type introduced after it.
//!
//! The host negotiates `1.0.0` or `0.9.x` (`ahp_types::SUPPORTED_PROTOCOL_VERSIONS`),
//! so only what 0.10 and 1.0 added needs a row here: the two canvas actions
//! (0.10) and `SessionSummary.chats` / `defaultChat` (1.0), stripped from
//! summaries sent to 0.9 clients.

/// The negotiated protocol generation of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolGeneration {
    /// `0.9.x`: VS Code's current agent host client.
    V0_9,
    /// `1.0.x` and later 1.x.
    V1,
}

impl ProtocolGeneration {
    /// From the negotiated version string.
    pub fn from_version(version: &str) -> Self {
        if version.starts_with("0.") {
            Self::V0_9
        } else {
            Self::V1
        }
    }
}

/// Action types introduced after 0.9 (0.10: canvases).
const INTRODUCED_AFTER_0_9: &[&str] = &["chat/canvasesChanged", "canvas/stateChanged"];

/// Whether a client speaking `generation` may receive an action of this type.
pub fn is_visible_to(generation: ProtocolGeneration, action_type: &str) -> bool {
    match generation {
        ProtocolGeneration::V1 => true,
        ProtocolGeneration::V0_9 => !INTRODUCED_AFTER_0_9.contains(&action_type),
    }
}

/// Remove the 1.0-only `chats` / `defaultChat` fields from a `SessionSummary`
/// (or partial summary) JSON object for a 0.9 client.
pub fn downgrade_summary(summary: &mut serde_json::Value) {
    if let Some(obj) = summary.as_object_mut() {
        obj.remove("chats");
        obj.remove("defaultChat");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canvas_actions_hidden_from_0_9() {
        assert!(!is_visible_to(ProtocolGeneration::V0_9, "canvas/stateChanged"));
        assert!(is_visible_to(ProtocolGeneration::V0_9, "chat/delta"));
        assert!(is_visible_to(ProtocolGeneration::V1, "canvas/stateChanged"));
        assert_eq!(ProtocolGeneration::from_version("0.9.3"), ProtocolGeneration::V0_9);
        assert_eq!(ProtocolGeneration::from_version("1.0.0"), ProtocolGeneration::V1);
    }
}
