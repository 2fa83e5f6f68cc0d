//! [`AgentHost`]: everything the agent layer needs from the host, and no
//! more — emit an action, read root / session / chat state, build an action
//! from the current state atomically, find a chat's session, the paths
//! that are never served, and the MCP servers to pass to a session's agent. [`crate::host::Host`] implements it; tests use a
//! double that reduces the actions with `ahp::reducers`
//! (`agents/acp/test_support/mod.rs`), so the ACP mapping runs without a host,
//! a store or an agent process.

use std::path::PathBuf;

use ahp_types::state::{AgentCustomization, ChatState, RootState, SessionState};
use ahp_types::StateAction;

use crate::customizations::acp_mcp::Skipped;
use crate::customizations::slash_completions::AgentCommand;
use crate::customizations::McpLaunch;

use super::config_options::AgentOption;

/// The host as the agent layer sees it.
///
/// Implementations apply every action with the official reducers and carry
/// out the side effects it causes (e.g. the next queued message starting a
/// turn) before returning. Read and build closures may run under the
/// host's lock: they must not call the host.
pub trait AgentHost: Send + Sync {
    /// Emit `action` on `channel` as the server. `false` when the reducer
    /// did not apply it (e.g. the turn has already ended).
    fn emit(&self, channel: &str, action: StateAction) -> bool;

    /// Build an action from the root state and emit it, with no other
    /// change in between (`build` returns `None` to emit nothing). `false`
    /// when nothing was applied.
    fn emit_on_root(&self, build: &mut dyn FnMut(&RootState) -> Option<StateAction>) -> bool;

    /// Build an action from `session`'s state and emit it on `session`, with
    /// no other change in between. `false` when nothing was applied (no such
    /// session, `build` returned `None`, or the reducer refused it).
    fn emit_on_session(&self, session: &str, build: &mut dyn FnMut(&SessionState) -> Option<StateAction>) -> bool;

    /// Open terminal channel `uri` of `session` with `state` (a command the
    /// agent runs; its output and exit follow through [`AgentHost::emit`]).
    /// `false` when it could not be opened (no such session). None by default.
    fn open_terminal(&self, _session: &str, _uri: &str, _state: ahp_types::state::TerminalState) -> bool {
        false
    }

    /// `process` runs in a pseudo-terminal behind terminal channel `uri`
    /// (a login): a client's input and resizes reach it; it ends with
    /// `session` when given. Ignored by default.
    fn attach_pty(&self, _uri: &str, _session: Option<&str>, _process: std::sync::Arc<crate::terminals::PtyProcess>) {}

    /// Where agent process groups are recorded (so a `kill -9`'d host's are
    /// ended at the next start). One that records nothing by default.
    fn process_groups(&self) -> crate::process_groups::Registry {
        crate::process_groups::Registry::default()
    }

    /// Variables set in agent `agent`'s environment when it starts (the API
    /// keys the person saved for it). None by default.
    fn agent_env(&self, _agent: &str) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Run `read` on the root state.
    fn read_root(&self, read: &mut dyn FnMut(&RootState));

    /// Run `read` on `session`'s state, if the session exists.
    fn read_session(&self, session: &str, read: &mut dyn FnMut(&SessionState));

    /// Run `read` on `chat`'s state, if the chat exists.
    fn read_chat(&self, chat: &str, read: &mut dyn FnMut(&ChatState));

    /// The session `chat` belongs to.
    fn session_of_chat(&self, chat: &str) -> Option<String>;

    /// Canonical paths no agent request or attachment may reach.
    fn never_served(&self) -> Vec<PathBuf>;

    /// The MCP servers in effect for `session` (its enabled customizations,
    /// e.g. through `customizations::acp_mcp::enabled_launches`), asked at
    /// each start of its agent for `session/new` / `session/load` /
    /// `session/resume`; the agent layer drops what the agent's
    /// `mcpCapabilities` exclude. None by default.
    fn mcp_servers(&self, _session: &str) -> Vec<McpLaunch> {
        Vec::new()
    }

    /// At each start of `session`'s agent, the servers of
    /// [`AgentHost::mcp_servers`] it could not take, and why (empty when it
    /// took them all). Ignored by default.
    fn mcp_servers_skipped(&self, _session: &str, _skipped: Vec<Skipped>) {}

    /// The agent of `session` reported the `/` commands it runs itself (ACP
    /// `available_commands_update`; an empty list clears them). Ignored by
    /// default.
    fn agent_commands_changed(&self, _session: &str, _commands: Vec<AgentCommand>) {}

    /// An agent's session reported the settings it offers besides the
    /// model (modes, other ACP config options): kept per agent (`provider`)
    /// for the config of sessions created later. Ignored by default.
    fn agent_options_changed(&self, _provider: &str, _options: Vec<AgentOption>) {}

    /// The settings `provider` offered last ([`AgentHost::agent_options_changed`]);
    /// none by default.
    fn agent_options(&self, _provider: &str) -> Vec<AgentOption> {
        Vec::new()
    }

    /// The enabled custom agent of `session` whose URI is `uri` (a message's
    /// `agent`), if there is one. None by default.
    fn custom_agent(&self, _session: &str, _uri: &str) -> Option<AgentCustomization> {
        None
    }

    /// Before a turn's prompt is sent (blocking: a scan of the session's
    /// files, so the turn's changes can be told from what was there).
    fn before_turn(&self, _session: &str, _turn_id: &str) {}

    /// The host's approval rules' answer to `request` from `session`
    /// working in `folder`, if a rule answers it. None by default.
    fn rule_verdict(
        &self,
        _session: &str,
        _folder: &std::path::Path,
        _request: &crate::rules::ToolRequest,
    ) -> Option<crate::rules::Verdict> {
        None
    }

    /// The rules of `verdict` answered a request: count a hit for each.
    /// Ignored by default.
    fn rule_applied(&self, _verdict: &crate::rules::Verdict) {}

    /// Keep a decision in the session's audit log (a person's answer to a
    /// tool call's confirmation). Nothing by default.
    fn record_decision(&self, _session: &str, _entry: serde_json::Value) {}
}

impl dyn AgentHost + '_ {
    /// `f` of the root state.
    pub fn root<R>(&self, f: impl FnOnce(&RootState) -> R) -> Option<R> {
        read_once(|read| self.read_root(read), f)
    }

    /// `f` of `session`'s state; `None` when there is no such session.
    pub fn session<R>(&self, session: &str, f: impl FnOnce(&SessionState) -> R) -> Option<R> {
        read_once(|read| self.read_session(session, read), f)
    }

    /// `f` of `chat`'s state; `None` when there is no such chat.
    pub fn chat<R>(&self, chat: &str, f: impl FnOnce(&ChatState) -> R) -> Option<R> {
        read_once(|read| self.read_chat(chat, read), f)
    }
}

/// `f` of the state `read` hands over (once), if it does.
fn read_once<S, R>(read: impl FnOnce(&mut dyn FnMut(&S)), f: impl FnOnce(&S) -> R) -> Option<R> {
    let mut f = Some(f);
    let mut out = None;
    read(&mut |state| out = f.take().map(|f| f(state)));
    out
}
