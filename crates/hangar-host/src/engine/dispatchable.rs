//! The client-dispatchable action table.
//!
//! `ahp-types` 1.0.0 ships no `IS_CLIENT_DISPATCHABLE` table, so it is written
//! here from the upstream 0.6 generated table plus the 0.7–1.0 doc comments
//! (see `docs/host.md`). Everything not listed is server-only: a client that
//! dispatches it gets a rejection echo.

/// Action types a client may send with `dispatchAction`.
pub const CLIENT_DISPATCHABLE: &[&str] = &[
    "root/configChanged",
    "session/titleChanged",
    "session/activeClientSet",
    "session/activeClientRemoved",
    "session/workingDirectorySet",
    "session/workingDirectoryRemoved",
    "session/workingDirectoryReplaced",
    "session/customizationToggled",
    "session/mcpServerStartRequested",
    "session/mcpServerStopRequested",
    "session/mcpServerBackgroundRequested",
    "session/isReadChanged",
    "session/isArchivedChanged",
    "session/configChanged",
    "chat/turnStarted",
    "chat/toolCallConfirmed",
    "chat/toolCallComplete",
    "chat/toolCallResultConfirmed",
    "chat/toolCallContentChanged",
    "chat/turnCancelled",
    "chat/turnResume",
    "chat/workingDirectorySet",
    "chat/workingDirectoryRemoved",
    "chat/pendingMessageSet",
    "chat/pendingMessageRemoved",
    "chat/queuedMessagesReordered",
    "chat/draftChanged",
    "chat/isReadChanged",
    "chat/isArchivedChanged",
    "chat/inputAnswerChanged",
    "chat/inputCompleted",
    "chat/truncated",
    "changeset/filesReviewChanged",
    "annotations/set",
    "annotations/updated",
    "annotations/removed",
    "annotations/entrySet",
    "annotations/entryRemoved",
    "terminal/input",
    "terminal/resized",
    "terminal/claimed",
    "terminal/titleChanged",
    "terminal/cleared",
    "automation/createRequested",
    "automation/updateRequested",
    "automation/removed",
    "automationRun/cancelRequested",
];

/// Whether a client may dispatch an action of this wire type.
pub fn is_client_dispatchable(action_type: &str) -> bool {
    CLIENT_DISPATCHABLE.contains(&action_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_only_actions_are_not_dispatchable() {
        for t in ["chat/delta", "chat/responsePart", "session/ready", "root/agentsChanged", "chat/turnComplete"] {
            assert!(!is_client_dispatchable(t), "{t}");
        }
        for t in ["chat/turnStarted", "chat/turnCancelled", "session/titleChanged", "chat/pendingMessageSet"] {
            assert!(is_client_dispatchable(t), "{t}");
        }
    }
}
