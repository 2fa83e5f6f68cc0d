//! The agent layer: what carries out the engine's [`SideEffect`]s — starting
//! agents when sessions are created, running and cancelling turns, answering
//! permission requests.
//!
//! Map:
//! - `mod.rs` — the [`AgentLayer`] trait and [`agent_layer`], which picks the
//!   implementation for a configuration.

use std::sync::Arc;

use ahp_types::actions::SessionReadyAction;
use ahp_types::StateAction;

use crate::config::HostConfig;
use crate::engine::SideEffect;
use crate::host::Host;

/// Carries out side effects. Implementations must not block: long work is
/// spawned on the tokio runtime, and state changes go back through
/// [`Host::with_engine`] (`engine.emit_server(channel, action)`).
pub trait AgentLayer: Send + Sync {
    /// Handle one side effect.
    fn handle(&self, host: &Arc<Host>, effect: SideEffect);
    /// The host is stopping: end every agent process.
    fn shutdown(&self) {}
}

/// The agent layer for `config`.
pub fn agent_layer(_config: &HostConfig) -> Arc<dyn AgentLayer> {
    Arc::new(NoAgents)
}

/// Sessions are ready at once; turns wait for a client to cancel them.
struct NoAgents;

impl AgentLayer for NoAgents {
    fn handle(&self, host: &Arc<Host>, effect: SideEffect) {
        if let SideEffect::SessionCreated { session, .. } = effect {
            host.with_engine(|e| e.emit_server(&session, StateAction::SessionReady(SessionReadyAction {})).ok());
        }
    }
}
