//! The host as the agent layer sees it: [`Host`]'s implementation of
//! [`AgentHost`], the narrow interface `agents::acp` works through.

use std::sync::Arc;

use ahp_types::state::{ChatState, RootState, SessionState};
use ahp_types::StateAction;

use super::Host;
use crate::agents::acp::AgentHost;
use crate::customizations::slash_completions::AgentCommand;
use crate::engine::ChannelRef;
use crate::locks::lock;

/// The agent layer's view of the host: actions go through
/// [`Host::with_engine`] (so their side effects run), reads hold the engine
/// lock only while the closure runs.
impl AgentHost for Host {
    fn emit(&self, channel: &str, action: StateAction) -> bool {
        self.engine_then_effects(|e| e.emit_server(channel, action).is_ok())
    }

    fn before_turn(&self, session: &str, turn_id: &str) {
        self.changes_before_turn(session, turn_id);
    }

    fn record_decision(&self, session: &str, entry: serde_json::Value) {
        let at =
            entry.get("at").and_then(serde_json::Value::as_str).map_or_else(crate::engine::clock::now, str::to_owned);
        if let Err(e) = self.changes.record(session, &at, &entry) {
            tracing::warn!(session, "writing the audit log: {e}");
        }
    }

    fn rule_verdict(
        &self,
        session: &str,
        folder: &std::path::Path,
        request: &crate::rules::ToolRequest,
    ) -> Option<crate::rules::Verdict> {
        let rules = match self.rules.list() {
            Ok(rules) => rules,
            Err(e) => {
                tracing::warn!(session, "reading the approval rules: {e}");
                return None;
            }
        };
        crate::rules::decide(&rules, &crate::rules::matching::SessionContext { session, folder }, request)
    }

    fn rule_applied(&self, verdict: &crate::rules::Verdict) {
        if let Err(e) = self.rules.hit(&verdict.rules) {
            tracing::warn!(rule = %verdict.rule, "counting the rule's hit: {e}");
        }
    }

    fn emit_on_root(&self, build: &mut dyn FnMut(&RootState) -> Option<StateAction>) -> bool {
        self.engine_then_effects(|e| match build(e.root()) {
            Some(action) => e.emit_server(ahp_types::ROOT_RESOURCE_URI, action).is_ok(),
            None => false,
        })
    }

    fn emit_on_session(&self, session: &str, build: &mut dyn FnMut(&SessionState) -> Option<StateAction>) -> bool {
        self.engine_then_effects(|e| match e.session_state(session).and_then(&mut *build) {
            Some(action) => e.emit_server(session, action).is_ok(),
            None => false,
        })
    }

    fn open_terminal(&self, session: &str, uri: &str, state: ahp_types::state::TerminalState) -> bool {
        self.engine_then_effects(|e| e.open_terminal(uri, session, state))
    }

    fn attach_pty(&self, uri: &str, session: Option<&str>, process: Arc<crate::terminals::PtyProcess>) {
        self.terminals.insert(uri, session, process);
    }

    fn process_groups(&self) -> crate::process_groups::Registry {
        Host::process_groups(self)
    }

    fn agent_env(&self, agent: &str) -> Vec<(String, String)> {
        let mut env = self.agent_registry.get(agent).map(|a| a.env).unwrap_or_default();
        env.extend(self.agent_keys.env(agent));
        env
    }

    fn read_root(&self, read: &mut dyn FnMut(&RootState)) {
        read(lock(&self.engine).root());
    }

    fn read_session(&self, session: &str, read: &mut dyn FnMut(&SessionState)) {
        if let Some(state) = lock(&self.engine).session_state(session) {
            read(state);
        }
    }

    fn read_chat(&self, chat: &str, read: &mut dyn FnMut(&ChatState)) {
        if let Some(state) = lock(&self.engine).chat_state(chat) {
            read(state);
        }
    }

    fn session_of_chat(&self, chat: &str) -> Option<String> {
        match lock(&self.engine).channel(chat)? {
            ChannelRef::Chat { session } => Some(session),
            _ => None,
        }
    }

    fn never_served(&self) -> Vec<std::path::PathBuf> {
        self.resources.never_served().to_vec()
    }

    fn mcp_servers(&self, session: &str) -> Vec<crate::customizations::McpLaunch> {
        self.ensure_customizations(session);
        let (launches, out) = self.customizations.mcp_for_agent(session);
        self.publish(out);
        launches
    }

    fn mcp_servers_skipped(&self, session: &str, skipped: Vec<crate::customizations::acp_mcp::Skipped>) {
        let out = self.customizations.mcp_skipped(session, skipped);
        self.publish(out);
    }

    fn agent_commands_changed(&self, session: &str, commands: Vec<AgentCommand>) {
        lock(&self.agent_commands).insert(session.to_owned(), commands);
    }

    fn agent_options_changed(&self, provider: &str, options: Vec<crate::agents::acp::AgentOption>) {
        lock(&self.agent_options).insert(provider.to_owned(), options);
    }

    fn agent_options(&self, provider: &str) -> Vec<crate::agents::acp::AgentOption> {
        lock(&self.agent_options).get(provider).cloned().unwrap_or_default()
    }

    fn custom_agent(&self, session: &str, uri: &str) -> Option<ahp_types::state::AgentCustomization> {
        self.ensure_customizations(session);
        self.customizations.custom_agent(session, uri)
    }
}
