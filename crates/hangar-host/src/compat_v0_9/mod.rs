//! Serving AHP 0.9 clients (VS Code's agent host client speaks 0.9.x).
//!
//! The host's state and actions are 1.0 (`ahp-types` 1.0.0). A connection
//! that negotiated 0.9 gets everything in the form 0.9 defines
//! ([`downgrade`]), and what it sends is lifted to 1.0 before the host reads
//! it ([`upgrade`]). Both work on JSON, not on typed values: most frames need
//! no change and pass through without being parsed. `docs/ahp-0.9.md` has
//! the table of differences this follows.
//!
//! Map:
//! - `generation.rs` — [`generation::ProtocolGeneration`]: the generation a
//!   connection negotiated (`0.9.x` or `1.x`).
//! - `downgrade.rs`  — 1.0 frames and states lowered to 0.9.
//! - `upgrade.rs`    — what a 0.9 client sends lifted to 1.0.
//! - `mod.rs`        — which actions and channels 0.9 defines.

pub mod downgrade;
pub mod generation;
pub mod upgrade;

/// Action types 0.9 does not define (0.10 added the canvas ones, 1.0 the rest).
pub const INTRODUCED_AFTER_0_9: &[&str] = &[
    "session/chatsReordered",
    "session/mcpServerBackgroundRequested",
    "chat/backgroundWorkSet",
    "chat/backgroundWorkRemoved",
    "chat/movableChanged",
    "chat/changesetsChanged",
    "chat/isReadChanged",
    "chat/isArchivedChanged",
    "chat/canvasesChanged",
    "canvas/stateChanged",
];

/// Whether 0.9 defines this action type.
pub fn defines_action(action_type: &str) -> bool {
    !INTRODUCED_AFTER_0_9.contains(&action_type)
}

/// Whether 0.9 defines this kind of channel (it has no canvases).
pub fn defines_channel(uri: &str) -> bool {
    !uri.starts_with("ahp-canvas:")
}
