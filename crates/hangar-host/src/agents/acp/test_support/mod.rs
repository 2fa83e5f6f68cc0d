//! Test support for the agent layer (compiled for tests only).
//!
//! - [`RecordingHost`] — an [`AgentHost`] double: one session and its chat,
//!   every action reduced with the official `ahp::reducers` (the engine's
//!   rule: an action the reducer does not apply is refused), a client's
//!   action first checked as the engine checks it, every server
//!   action recorded with whether it applied and whether it changed the
//!   state (the reducers report some no-ops, e.g. completing a cancelled
//!   tool call, as applied); the MCP servers it offers the agent are set
//!   by the test, those the agent could not take are recorded.
//! - `replay.rs` — a recorded ACP transcript replayed through the turn
//!   mapping into a [`RecordingHost`].

pub mod replay;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use ahp::reducers::{apply_action_to_chat, apply_action_to_root, apply_action_to_session, ReduceOutcome};
use ahp_types::actions::ChatTurnStartedAction;
use ahp_types::state::{ChatState, RootState, SessionState};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};
use serde_json::json;

use super::turn::Turn;
use super::AgentHost;
use crate::customizations::acp_mcp::Skipped;
use crate::customizations::McpLaunch;
use crate::engine::client_actions::{check_client_action, Subject};

/// The session URI of a [`RecordingHost`].
pub const SESSION: &str = "copilot:/replay";
/// Its chat.
pub const CHAT: &str = "ahp-chat:/replay";
/// The client that dispatches actions.
const CLIENT: &str = "replay-client";

/// An [`AgentHost`] holding one ready session with one chat.
pub struct RecordingHost {
    inner: Mutex<Inner>,
}

struct Inner {
    root: RootState,
    session: SessionState,
    chat: ChatState,
    emitted: Vec<Emitted>,
    /// What [`AgentHost::mcp_servers`] returns.
    mcp: Vec<McpLaunch>,
    /// Every [`AgentHost::mcp_servers_skipped`] report, in order.
    skipped: Vec<Vec<Skipped>>,
    /// The approval rules [`AgentHost::rule_verdict`] matches against.
    rules: Vec<crate::rules::Rule>,
    /// Every rule id [`AgentHost::rule_applied`] counted, in order.
    hits: Vec<String>,
    /// Every audit entry ([`AgentHost::record_decision`]), in order.
    decisions: Vec<serde_json::Value>,
}

/// A server action the agent layer emitted.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// Channel URI.
    pub channel: String,
    /// The action.
    pub action: StateAction,
    /// Whether the reducer applied it.
    pub applied: bool,
    /// Whether the state differs afterwards.
    pub changed: bool,
}

impl Inner {
    fn reduce(&mut self, channel: &str, action: &StateAction) -> bool {
        let outcome = match channel {
            ROOT_RESOURCE_URI => apply_action_to_root(&mut self.root, action),
            SESSION => apply_action_to_session(&mut self.session, action),
            CHAT => apply_action_to_chat(&mut self.chat, action),
            _ => return false,
        };
        outcome == ReduceOutcome::Applied
    }

    /// The state of `channel`, to compare before and after an action.
    fn snapshot(&self, channel: &str) -> serde_json::Value {
        let state = match channel {
            ROOT_RESOURCE_URI => serde_json::to_value(&self.root),
            SESSION => serde_json::to_value(&self.session),
            _ => serde_json::to_value(&self.chat),
        };
        state.unwrap()
    }

    /// The engine's preconditions on a client's `action` on `channel`.
    fn check(&self, channel: &str, action: &StateAction) -> Result<(), String> {
        let chat = (channel == CHAT).then_some(&self.chat);
        let on = Subject {
            chat,
            session: (channel == SESSION).then_some(&self.session),
            chat_session: chat.map(|_| &self.session),
        };
        check_client_action(CLIENT, &on, action)
    }

    fn emit(&mut self, channel: &str, action: StateAction) -> bool {
        let before = self.snapshot(channel);
        let applied = self.reduce(channel, &action);
        let changed = self.snapshot(channel) != before;
        self.emitted.push(Emitted { channel: channel.to_owned(), action, applied, changed });
        applied
    }
}

impl Default for RecordingHost {
    fn default() -> Self {
        Self::new()
    }
}

impl RecordingHost {
    /// A ready session ([`SESSION`]) whose default chat is [`CHAT`].
    pub fn new() -> Self {
        let root: RootState = serde_json::from_value(json!({ "agents": [] })).unwrap();
        let session: SessionState = serde_json::from_value(json!({
            "provider": "copilot", "title": "", "status": 1, "lifecycle": "ready",
            "activeClients": [], "chats": [], "defaultChat": CHAT,
            "workingDirectories": ["file:///workspace"],
        }))
        .unwrap();
        let chat: ChatState = serde_json::from_value(json!({
            "resource": CHAT, "title": "", "status": 1, "modifiedAt": "2026-01-01T00:00:00.000Z", "turns": [],
        }))
        .unwrap();
        Self {
            inner: Mutex::new(Inner {
                root,
                session,
                chat,
                emitted: Vec::new(),
                mcp: Vec::new(),
                skipped: Vec::new(),
                rules: Vec::new(),
                hits: Vec::new(),
                decisions: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap()
    }

    /// The approval rules from now on.
    pub fn set_rules(&self, rules: Vec<crate::rules::Rule>) {
        self.lock().rules = rules;
    }

    /// The rule hits counted and the audit entries kept so far.
    pub fn rule_log(&self) -> (Vec<String>, Vec<serde_json::Value>) {
        let inner = self.lock();
        (inner.hits.clone(), inner.decisions.clone())
    }

    /// A client starts turn `turn_id` with `text` (`chat/turnStarted`),
    /// and the agent layer's [`Turn`] for it.
    pub fn start_turn(&self, turn_id: &str, text: &str) -> Turn {
        let message = serde_json::from_value(json!({ "text": text, "origin": { "kind": "user" } })).unwrap();
        let started = StateAction::ChatTurnStarted(ChatTurnStartedAction {
            turn_id: turn_id.to_owned(),
            started_at: "2026-01-01T00:00:00.000Z".to_owned(),
            message,
            queued_message_id: None,
            meta: None,
        });
        if let Err(reason) = self.dispatch(CHAT, started) {
            panic!("chat/turnStarted refused: {reason}");
        }
        Turn::new(CHAT.to_owned(), turn_id.to_owned(), PathBuf::from("/workspace"))
    }

    /// A client's action on `channel`, checked and reduced as the engine
    /// checks and reduces a dispatched one (not recorded). `Err` carries
    /// why it was refused.
    pub fn dispatch(&self, channel: &str, action: StateAction) -> Result<(), String> {
        let mut inner = self.lock();
        inner.check(channel, &action)?;
        match inner.reduce(channel, &action) {
            true => Ok(()),
            false => Err("the reducer did not apply it".to_owned()),
        }
    }

    /// The chat as the reducers left it.
    pub fn chat_state(&self) -> ChatState {
        self.lock().chat.clone()
    }

    /// Offer `launches` as the session's MCP servers.
    pub fn set_mcp_servers(&self, launches: Vec<McpLaunch>) {
        self.lock().mcp = launches;
    }

    /// The servers the agent could not take, one list per start.
    pub fn skipped(&self) -> Vec<Vec<Skipped>> {
        self.lock().skipped.clone()
    }

    /// The server actions emitted so far, in order.
    pub fn emitted(&self) -> Vec<Emitted> {
        self.lock().emitted.clone()
    }
}

impl AgentHost for RecordingHost {
    fn emit(&self, channel: &str, action: StateAction) -> bool {
        self.lock().emit(channel, action)
    }

    fn rule_verdict(
        &self,
        session: &str,
        folder: &std::path::Path,
        request: &crate::rules::ToolRequest,
    ) -> Option<crate::rules::Verdict> {
        let ctx = crate::rules::matching::SessionContext { session, folder };
        crate::rules::decide(&self.lock().rules, &ctx, request)
    }

    fn rule_applied(&self, verdict: &crate::rules::Verdict) {
        self.lock().hits.extend(verdict.rules.iter().cloned());
    }

    fn record_decision(&self, _session: &str, entry: serde_json::Value) {
        self.lock().decisions.push(entry);
    }

    fn emit_on_root(&self, build: &mut dyn FnMut(&RootState) -> Option<StateAction>) -> bool {
        let mut inner = self.lock();
        match build(&inner.root) {
            Some(action) => inner.emit(ROOT_RESOURCE_URI, action),
            None => false,
        }
    }

    fn emit_on_session(&self, session: &str, build: &mut dyn FnMut(&SessionState) -> Option<StateAction>) -> bool {
        let mut inner = self.lock();
        match (session == SESSION).then(|| build(&inner.session)).flatten() {
            Some(action) => inner.emit(SESSION, action),
            None => false,
        }
    }

    fn read_root(&self, read: &mut dyn FnMut(&RootState)) {
        read(&self.lock().root);
    }

    fn read_session(&self, session: &str, read: &mut dyn FnMut(&SessionState)) {
        if session == SESSION {
            read(&self.lock().session);
        }
    }

    fn read_chat(&self, chat: &str, read: &mut dyn FnMut(&ChatState)) {
        if chat == CHAT {
            read(&self.lock().chat);
        }
    }

    fn session_of_chat(&self, chat: &str) -> Option<String> {
        (chat == CHAT).then(|| SESSION.to_owned())
    }

    fn never_served(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    fn mcp_servers(&self, session: &str) -> Vec<McpLaunch> {
        if session == SESSION {
            self.lock().mcp.clone()
        } else {
            Vec::new()
        }
    }

    fn mcp_servers_skipped(&self, session: &str, skipped: Vec<Skipped>) {
        if session == SESSION {
            self.lock().skipped.push(skipped);
        }
    }
}
