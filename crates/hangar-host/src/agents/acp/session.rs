//! One task per Hangar session: owns the agent connection (started at
//! `createSession`, or lazily for the first turn after a restart or crash;
//! the start itself is `startup.rs`), the running turn, and the open
//! permission and elicitation requests. Every event — an engine side
//! effect, an agent message, the prompt's answer, a deadline — is handled in
//! order on this task.
//!
//! A turn that starts while a cancelled prompt is still running is held
//! (`held`) until that prompt returns or the agent is stopped.
//!
//! Steering: ACP cannot inject a message into a running prompt, so a
//! steering message is delivered at the earliest point after it: when the
//! agent answers the current `session/prompt` with `end_turn`, the host
//! removes the steering message (`chat/pendingMessageRemoved`) and sends it
//! as the next `session/prompt` inside the same AHP turn (marked by a system
//! notification part). Nothing the agent did is thrown away.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v1::schema::{PermissionOption, RequestPermissionRequest};
use ahp_types::actions::{
    ChatPendingMessageRemovedAction, SessionConfigChangedAction, SessionCreationFailedAction, SessionReadyAction,
    SessionTitleChangedAction,
};
use ahp_types::state::{ErrorInfo, Message, PendingMessageKind};
use ahp_types::StateAction;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::coalesce::coalesce;
use super::config_options::AgentOptions;
use super::elicitation::Elicitations;
use super::fork_context::fork_context;
use super::inbound::Inbound;
use super::models::{AgentModels, ModelSource};
use super::prompt::{prompt_blocks, with_custom_agent, PromptSupport};
use super::rpc::RpcFailure;
use super::rule_answers::RuleOutcome;
use super::sign_in::{self, AuthMethods};
use super::startup::{ask, default_answer, Live, StartFailure, Starter};
use super::terminal_requests::{AgentTerminals, Owner};
use super::turn::{Ending, Turn};
use super::update::SessionUpdate;
use super::usage::of_prompt_result as prompt_usage;
use super::{fs, tools, AgentHost, Timeouts};
use crate::agents::AgentSpec;
use crate::engine::SideEffect;
use crate::process_groups::Registry;

/// What the layer sends a session task.
pub enum Command {
    /// An engine side effect for this session.
    Effect(Box<SideEffect>),
    /// The session was disposed: stop the agent and end the task.
    Dispose,
}

/// What a session task starts with.
pub struct Setup {
    /// Session URI.
    pub session: String,
    /// The agent.
    pub agent: AgentSpec,
    /// `file:` URIs.
    pub working_directories: Vec<String>,
    /// ACP session id from before a restart, or the agent's own earlier
    /// session this one opens.
    pub acp_session: Option<String>,
    /// `acp_session` is one of the agent's own earlier sessions, not yet
    /// opened here: it must be restored (never replaced by a new one), and
    /// the history it replays becomes the chat's turns.
    pub open_past: bool,
}

struct Permission {
    request_id: Value,
    options: Vec<PermissionOption>,
}

enum Event {
    Command(Option<Command>),
    Inbound(Inbound),
    Prompt(Result<Value, RpcFailure>),
    Deadline,
}

/// The session task's state.
pub struct SessionTask {
    host: Arc<dyn AgentHost>,
    setup: Setup,
    cwd: PathBuf,
    /// Where the agent's `fs/*` requests and attached files may reach.
    scope: fs::Scope,
    registry: Registry,
    timeouts: Timeouts,
    /// The sign-in methods each agent offers (shared by the layer).
    auth: AuthMethods,
    live: Option<Live>,
    acp_session: Option<String>,
    turn: Option<Turn>,
    prompt: Option<oneshot::Receiver<Result<Value, RpcFailure>>>,
    permissions: HashMap<String, Permission>,
    elicitations: Elicitations,
    last_activity: Instant,
    cancel_deadline: Option<Instant>,
    steering: bool,
    reset_notice: bool,
    models: AgentModels,
    /// The agent's modes and other settings, with its current values.
    options: AgentOptions,
    /// Commands the agent runs in terminals (`terminal/*`).
    terminals: AgentTerminals,
    prompt_support: PromptSupport,
    /// A turn that started while the previous prompt was still running
    /// (cancelled, not yet answered): sent once that prompt has returned or
    /// the agent was stopped, so one ACP session never runs two prompts.
    held: Option<HeldTurn>,
}

struct HeldTurn {
    chat: String,
    turn_id: String,
    message: Message,
}

/// The agent's next message; a burst of text chunks comes merged into one.
async fn next_inbound(live: &mut Option<Live>) -> Inbound {
    match live {
        Some(l) => {
            let first = match l.stashed.pop_front() {
                // Merging reads ahead from the channel: only once nothing
                // older waits here.
                Some(msg) if !l.stashed.is_empty() => return msg,
                Some(msg) => msg,
                None => l.inbound.recv().await.unwrap_or(Inbound::Closed),
            };
            let (msg, stashed) = coalesce(first, &mut l.inbound);
            l.stashed.extend(stashed);
            msg
        }
        None => std::future::pending().await,
    }
}

async fn next_answer(rx: &mut Option<oneshot::Receiver<Result<Value, RpcFailure>>>) -> Result<Value, RpcFailure> {
    match rx {
        Some(r) => r.await.unwrap_or(Err(RpcFailure::Closed)),
        None => std::future::pending().await,
    }
}

impl SessionTask {
    /// A task for `setup`.
    pub fn new(
        host: Arc<dyn AgentHost>,
        setup: Setup,
        registry: Registry,
        timeouts: Timeouts,
        auth: AuthMethods,
    ) -> Self {
        let cwd = setup
            .working_directories
            .first()
            .and_then(|u| crate::resources::uri::file_uri_to_path(u).ok())
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("/"));
        let scope = fs::Scope::new(&setup.working_directories, &host.never_served());
        let acp_session = setup.acp_session.clone();
        let terminals = AgentTerminals::new(host.clone());
        Self {
            host,
            setup,
            cwd,
            scope,
            registry,
            timeouts,
            auth,
            live: None,
            acp_session,
            turn: None,
            prompt: None,
            permissions: HashMap::new(),
            elicitations: Elicitations::default(),
            last_activity: Instant::now(),
            cancel_deadline: None,
            steering: false,
            reset_notice: false,
            models: AgentModels::default(),
            options: AgentOptions::default(),
            terminals,
            prompt_support: PromptSupport::default(),
            held: None,
        }
    }

    /// Run until disposed.
    pub async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            let deadline = self.deadline();
            // Biased: the agent's messages are handled before the prompt's
            // answer that followed them on the wire.
            let event = tokio::select! {
                biased;
                c = commands.recv() => Event::Command(c),
                m = next_inbound(&mut self.live) => Event::Inbound(m),
                r = next_answer(&mut self.prompt) => Event::Prompt(r),
                _ = tokio::time::sleep_until(deadline) => Event::Deadline,
            };
            match event {
                Event::Command(None) | Event::Command(Some(Command::Dispose)) => break,
                Event::Command(Some(Command::Effect(effect))) => self.on_effect(*effect).await,
                Event::Inbound(msg) => {
                    self.last_activity = Instant::now();
                    self.on_inbound(msg).await;
                }
                Event::Prompt(result) => self.on_prompt_answer(result).await,
                Event::Deadline => self.on_deadline().await,
            }
            if self.prompt.is_none() {
                if let Some(held) = self.held.take() {
                    self.start_turn(held.chat, held.turn_id, held.message).await;
                }
            }
        }
        self.stop_agent().await;
    }

    fn deadline(&self) -> Instant {
        let far = Instant::now() + Duration::from_secs(86_400);
        let mut at = self.cancel_deadline.unwrap_or(far);
        if self.prompt.is_some()
            && self.permissions.is_empty()
            && self.elicitations.is_empty()
            && !self.terminals.any_running()
            && self.turn.as_ref().is_some_and(|t| !t.ended)
        {
            at = at.min(self.last_activity + self.timeouts.idle);
        }
        at
    }

    fn emit_session(&self, action: StateAction) {
        self.host.emit(&self.setup.session, action);
    }

    async fn on_effect(&mut self, effect: SideEffect) {
        match effect {
            SideEffect::SessionCreated { .. } => match self.connect().await {
                Ok(()) => self.emit_session(StateAction::SessionReady(SessionReadyAction {})),
                Err(failure) => {
                    self.emit_session(StateAction::SessionCreationFailed(SessionCreationFailedAction {
                        error: self.start_error(failure),
                    }));
                    self.stop_agent().await;
                }
            },
            SideEffect::TurnStarted { chat, turn_id, message, .. } => self.start_turn(chat, turn_id, *message).await,
            SideEffect::TurnCancelled { turn_id, .. } => {
                if self.held.as_ref().is_some_and(|h| h.turn_id == turn_id) {
                    self.held = None;
                    return;
                }
                let Some(turn) = self.turn.as_mut().filter(|t| t.turn_id == turn_id) else {
                    return;
                };
                turn.ended = true;
                if let (Some(live), Some(sid)) = (&self.live, &self.acp_session) {
                    live.conn.notify("session/cancel", json!({ "sessionId": sid }));
                }
                self.drop_requests();
                self.steering = false;
                if self.prompt.is_some() {
                    self.cancel_deadline = Some(Instant::now() + self.timeouts.cancel);
                } else {
                    self.turn = None;
                }
            }
            SideEffect::ToolCallConfirmed { action, client, chat } => {
                let Some(turn) = self.turn.as_mut().filter(|t| t.turn_id == action.turn_id && !t.ended) else {
                    return;
                };
                let Some(p) = self.permissions.remove(&action.tool_call_id) else {
                    return;
                };
                let files = turn.approvals.decide(&action.tool_call_id, action.approved);
                self.host.record_decision(
                    &self.setup.session,
                    super::approvals::audit_entry(&chat, client.as_deref(), &action, &files),
                );
                let outcome = turn.answer_permission(&action, &p.options);
                if let Some(live) = &self.live {
                    live.conn.respond(&p.request_id, Ok(outcome));
                }
            }
            SideEffect::SteeringSet { .. } => {
                if self.turn.as_ref().is_some_and(|t| !t.ended) {
                    self.steering = true;
                }
            }
            SideEffect::InputCompleted { chat, action } => {
                let conn = self.live.as_ref().map(|l| &l.conn);
                self.elicitations.on_completed(&*self.host, conn, &chat, &action);
                if let Some(turn) = self.turn.as_mut() {
                    turn.break_text();
                }
            }
            SideEffect::ConfigChanged { .. } => {
                // Idle with a running agent: switch now. Otherwise the next
                // turn selects the configured model before its prompt.
                let idle = self.turn.is_none() && self.prompt.is_none() && self.held.is_none();
                if let (true, true, Some(model)) = (idle, self.live.is_some(), self.configured_model()) {
                    if let Err(e) = self.select_model(&model).await {
                        tracing::info!(session = %self.setup.session, "model {model} not selected yet: {e}");
                    }
                }
                if idle && self.live.is_some() {
                    for failure in self.apply_options().await {
                        tracing::info!(session = %self.setup.session, "{failure}");
                    }
                }
            }
            SideEffect::SessionDisposed { .. }
            | SideEffect::CustomizationToggled { .. }
            | SideEffect::TerminalInput { .. }
            | SideEffect::TerminalResized { .. }
            | SideEffect::TurnEnded { .. }
            | SideEffect::ChangesetReviewed { .. } => {}
        }
    }

    /// Answer every open permission request with `cancelled` and every
    /// open elicitation with `cancel`.
    fn drop_requests(&mut self) {
        for (_, p) in self.permissions.drain() {
            if let Some(live) = &self.live {
                live.conn.respond(&p.request_id, Ok(tools::permission_outcome(None)));
            }
        }
        self.elicitations.close(&*self.host, self.live.as_ref().map(|l| &l.conn), self.turn.as_ref());
    }

    async fn start_turn(&mut self, chat: String, turn_id: String, message: Message) {
        if self.prompt.is_some() {
            // The previous prompt has not returned yet (a cancel is being
            // honoured): its late updates are dropped, and this turn waits.
            self.held = Some(HeldTurn { chat, turn_id, message });
            return;
        }
        if self.turn.as_ref().is_some_and(|t| !t.ended) {
            tracing::warn!("a turn started while another was running; the old one is dropped");
        }
        self.drop_requests();
        self.prompt = None;
        self.cancel_deadline = None;
        self.steering = false;
        let mut turn = Turn::new(chat.clone(), turn_id.clone(), self.cwd.clone());
        turn.terminals = self.terminals.links();
        if self.live.is_none() {
            // A cancel ends the turn in the host's state at once; while the
            // agent starts, that also gives the start up (the agent may be
            // stuck on a network or a login).
            let ended = turn_ended(self.host.clone(), chat.clone(), turn_id.clone());
            let started = tokio::select! {
                r = self.connect() => Some(r),
                () = ended => None,
            };
            match started {
                None => {
                    self.registry.end(&self.setup.session);
                    tracing::info!(session = %self.setup.session, "turn {turn_id} cancelled while its agent started; start given up");
                    return;
                }
                Some(Err(failure)) => {
                    self.stop_agent().await;
                    let ending = match &failure.sign_in {
                        Some(methods) => Ending::NeedsSignIn {
                            meta: sign_in::error_meta(&self.setup.agent.id, methods),
                            message: failure.message,
                        },
                        None => Ending::Error { kind: "agentStartFailed", message: failure.message },
                    };
                    turn.finish(&*self.host, ending, None);
                    return;
                }
                Some(Ok(())) => {}
            }
            // Cancelled just as the start finished: nothing is sent.
            let running = self.host.chat(&chat, |c| c.active_turn.as_ref().is_some_and(|t| t.id == turn_id));
            if running != Some(true) {
                return;
            }
        }
        if std::mem::take(&mut self.reset_notice) {
            turn.notify(
                &*self.host,
                "The agent could not restore this conversation, so it starts with no memory of the earlier turns.",
            );
        }
        // The message's model, else the session's configured one
        // (`createSession.config` / `session/configChanged`).
        let model = message.model.as_ref().map(|m| m.id.clone()).or_else(|| self.configured_model());
        if let Some(model) = model {
            if let Err(e) = self.select_model(&model).await {
                turn.notify(&*self.host, &format!("Model {model} could not be selected: {e}"));
            }
        }
        for failure in self.apply_options().await {
            turn.notify(&*self.host, &failure);
        }
        let mut blocks = prompt_blocks(&message, self.prompt_support, &self.scope);
        if let Some(selection) = &message.agent {
            match self.host.custom_agent(&self.setup.session, &selection.uri) {
                Some(agent) => blocks = with_custom_agent(blocks, &agent, self.prompt_support),
                None => turn.notify(
                    &*self.host,
                    &format!(
                        "The custom agent {} is turned off or gone; the message was sent without it.",
                        selection.uri
                    ),
                ),
            }
        }
        // A fork's agent has not seen the turns it was forked from.
        if let Some(earlier) = self.host.chat(&chat, fork_context).flatten() {
            blocks.insert(0, json!({ "type": "text", "text": earlier }));
        }
        // What is on disk now is the turn's "before" (the scan runs off
        // this task; the prompt waits for it).
        let (host, session, id) = (self.host.clone(), self.setup.session.clone(), turn_id.clone());
        let _ = tokio::task::spawn_blocking(move || host.before_turn(&session, &id)).await;
        self.turn = Some(turn);
        self.send_prompt(blocks);
    }

    /// Set each of the agent's modes and settings the session configures
    /// (`createSession.config` / `session/configChanged`) to a value the
    /// agent does not have yet; what could not be set, in words.
    async fn apply_options(&mut self) -> Vec<String> {
        let configured: Vec<(String, String)> = self
            .host
            .session(&self.setup.session, |s| {
                let values = s.config.as_ref().map(|c| c.values.clone()).unwrap_or_default();
                values.into_iter().filter_map(|(k, v)| Some((k, v.as_str()?.to_owned()))).collect()
            })
            .unwrap_or_default();
        let mut failures = Vec::new();
        for (key, value) in configured {
            let Some(option) = self.options.get(&key) else { continue };
            if option.current.as_deref() == Some(value.as_str()) || !option.offers(&value) {
                continue;
            }
            let (Some(live), Some(sid)) = (&self.live, &self.acp_session) else {
                return failures;
            };
            let Some((method, params)) = self.options.request(&key, &value, sid) else { continue };
            match ask(&live.conn, method, params, self.timeouts.request).await {
                Ok(_) => self.options.set_current(&key, &value),
                Err(e) => failures.push(format!("{} {value} could not be set: {e}", option_name(&self.options, &key))),
            }
        }
        failures
    }

    /// The agent changed one of its settings itself (e.g. it left plan
    /// mode): the session's config follows, so every client shows it.
    fn agent_set(&self, changed: Vec<(String, String)>) {
        let mut config = serde_json::Map::new();
        for (key, value) in changed {
            let configured = self
                .host
                .session(&self.setup.session, |s| {
                    s.config
                        .as_ref()
                        .filter(|c| c.schema.properties.contains_key(&key))
                        .map(|c| c.values.get(&key).cloned())
                })
                .flatten();
            if let Some(current) = configured {
                if current.as_ref().and_then(Value::as_str) != Some(value.as_str()) {
                    config.insert(key, Value::String(value));
                }
            }
        }
        if !config.is_empty() {
            self.emit_session(StateAction::SessionConfigChanged(SessionConfigChangedAction { config, replace: None }));
        }
    }

    /// The `model` value of the session's config, if set.
    fn configured_model(&self) -> Option<String> {
        self.host
            .session(&self.setup.session, |s| {
                let config = s.config.as_ref()?;
                config.values.get("model")?.as_str().map(str::to_owned)
            })
            .flatten()
    }

    fn send_prompt(&mut self, blocks: Vec<Value>) {
        let (Some(live), Some(sid)) = (&self.live, &self.acp_session) else {
            return;
        };
        self.last_activity = Instant::now();
        self.prompt = Some(live.conn.request("session/prompt", json!({ "sessionId": sid, "prompt": blocks })));
    }

    async fn select_model(&mut self, model: &str) -> Result<(), String> {
        if self.models.current.as_deref() == Some(model) {
            return Ok(());
        }
        let (Some(live), Some(sid)) = (&self.live, &self.acp_session) else {
            return Err("no agent".to_owned());
        };
        match &self.models.source {
            Some(ModelSource::ConfigOption(config_id)) => {
                let params = json!({ "sessionId": sid, "configId": config_id, "value": model });
                ask(&live.conn, "session/set_config_option", params, self.timeouts.request).await?;
            }
            Some(ModelSource::SetModel) => {
                ask(
                    &live.conn,
                    "session/set_model",
                    json!({ "sessionId": sid, "modelId": model }),
                    self.timeouts.request,
                )
                .await?;
            }
            None => return Err("the agent offers no model choice".to_owned()),
        }
        self.models.current = Some(model.to_owned());
        Ok(())
    }

    async fn on_inbound(&mut self, msg: Inbound) {
        match msg {
            Inbound::Notification { method, params } if method == "session/update" => {
                let Some(raw) = params.get("update") else {
                    return;
                };
                match SessionUpdate::decode(raw) {
                    SessionUpdate::SessionInfo { title: Some(title) } => {
                        let current = self.host.session(&self.setup.session, |s| s.title.clone());
                        if current.as_deref() != Some(title.as_str()) {
                            self.emit_session(StateAction::SessionTitleChanged(SessionTitleChangedAction { title }));
                        }
                    }
                    SessionUpdate::SessionInfo { title: None } => {}
                    SessionUpdate::AvailableCommands(commands) => {
                        self.host.agent_commands_changed(&self.setup.session, commands);
                    }
                    SessionUpdate::ConfigOptions(update) => {
                        if self.models.update_from(update) {
                            self.models.publish(&*self.host, &self.setup.agent.id);
                        }
                        let before = self.options.currents();
                        if self.options.update_from(update) {
                            self.host.agent_options_changed(&self.setup.agent.id, self.options.options.clone());
                        }
                        let changed = self.options.currents_changed_since(&before);
                        self.agent_set(changed);
                    }
                    SessionUpdate::CurrentMode(mode) => {
                        if let Some(changed) = self.options.mode_changed(&mode) {
                            self.agent_set(vec![changed]);
                        }
                    }
                    update => {
                        let Some(turn) = self.turn.as_mut().filter(|t| !t.ended) else { return };
                        if update.is_tool_call() {
                            let owner =
                                Owner { session: &self.setup.session, chat: &turn.chat, turn_id: Some(&turn.turn_id) };
                            self.terminals.on_tool_meta(&owner, raw);
                        }
                        turn.on_update(&*self.host, update);
                    }
                }
            }
            Inbound::Notification { method, .. } => tracing::debug!("ignored agent notification {method}"),
            Inbound::Request { id, method, params } => {
                let answer = match method.as_str() {
                    "session/request_permission" => {
                        self.on_permission(id, params);
                        return;
                    }
                    "elicitation/create" => {
                        if let Some(live) = &self.live {
                            let turn = self.turn.as_mut().filter(|t| !t.ended);
                            self.elicitations.on_request(&*self.host, &live.conn, turn, id, params);
                        }
                        return;
                    }
                    "fs/write_text_file" => match self.refused_write(&params) {
                        Some(refusal) => Err(refusal),
                        None => default_answer(&self.scope, "fs/write_text_file", &params),
                    },
                    "terminal/create" => {
                        let turn = self.turn.as_ref().filter(|t| !t.ended);
                        let owner = Owner {
                            session: &self.setup.session,
                            chat: turn.map_or(self.setup.session.as_str(), |t| t.chat.as_str()),
                            turn_id: turn.map(|t| t.turn_id.as_str()),
                        };
                        self.terminals.create(&self.scope, &self.cwd, &owner, params)
                    }
                    "terminal/output" => self.terminals.output(&params),
                    "terminal/wait_for_exit" => {
                        let Some(live) = &self.live else { return };
                        match self.terminals.wait_for_exit(&params, id.clone(), live.conn.responder()) {
                            Ok(()) => return,
                            Err(e) => Err(e),
                        }
                    }
                    "terminal/kill" => self.terminals.kill(&params),
                    "terminal/release" => self.terminals.release(&params),
                    other => default_answer(&self.scope, other, &params),
                };
                if let Some(live) = &self.live {
                    live.conn.respond(&id, answer);
                }
            }
            Inbound::Closed => {
                let reason = self.exit_reason().await;
                tracing::info!(session = %self.setup.session, "agent exited: {reason}");
                self.stop_agent().await;
                self.prompt = None;
                self.permissions.clear();
                self.elicitations.close(&*self.host, None, self.turn.as_ref());
                self.cancel_deadline = None;
                if let Some(mut turn) = self.turn.take() {
                    turn.finish(&*self.host, Ending::Error { kind: "agentExited", message: reason }, None);
                }
            }
        }
    }

    /// An `fs/write_text_file` whose content is not what the person
    /// approved for that file in this turn: the error for the agent (the
    /// turn says so too).
    fn refused_write(&mut self, params: &Value) -> Option<(i64, String)> {
        let turn = self.turn.as_mut().filter(|t| !t.ended)?;
        let path = params.get("path").and_then(Value::as_str)?;
        let content = params.get("content").and_then(Value::as_str)?;
        let reason = turn.approvals.check_write(std::path::Path::new(path), content, &self.cwd).err()?;
        turn.notify(&*self.host, &reason);
        Some((-32002, reason))
    }

    fn on_permission(&mut self, id: Value, params: Value) {
        let cancelled = tools::permission_outcome(None);
        let Some(live) = &self.live else {
            return;
        };
        let request: RequestPermissionRequest = match serde_json::from_value(params) {
            Ok(r) => r,
            Err(e) => {
                live.conn.respond(&id, Err((-32602, format!("invalid params: {e}"))));
                return;
            }
        };
        let Some(turn) = self.turn.as_mut().filter(|t| !t.ended) else {
            live.conn.respond(&id, Ok(cancelled));
            return;
        };
        let meta = match super::rule_answers::answer(&*self.host, &self.setup.session, &self.cwd, turn, &request) {
            RuleOutcome::Answered(outcome) => {
                live.conn.respond(&id, Ok(outcome));
                return;
            }
            RuleOutcome::Ask(meta) => meta,
        };
        match turn.permission(&*self.host, &request, meta) {
            Some(tool_call_id) => {
                self.permissions.insert(tool_call_id, Permission { request_id: id, options: request.options });
            }
            None => live.conn.respond(&id, Ok(cancelled)),
        }
    }

    async fn on_prompt_answer(&mut self, result: Result<Value, RpcFailure>) {
        self.prompt = None;
        self.cancel_deadline = None;
        let Some(mut turn) = self.turn.take() else {
            return;
        };
        // Permission prompts and elicitations the agent abandoned.
        self.elicitations.close(&*self.host, self.live.as_ref().map(|l| &l.conn), Some(&turn));
        self.drop_requests();
        if turn.ended {
            return;
        }
        let stop = result.as_ref().ok().and_then(|v| v.get("stopReason")).and_then(Value::as_str).map(str::to_owned);
        if self.steering && stop.as_deref() == Some("end_turn") {
            if let Some((id, message)) = self.take_steering(&turn.chat) {
                if let Some(usage) = result.as_ref().ok().and_then(prompt_usage) {
                    turn.usage(&*self.host, usage);
                }
                self.steering = false;
                self.host.emit(
                    &turn.chat,
                    StateAction::ChatPendingMessageRemoved(ChatPendingMessageRemovedAction {
                        kind: PendingMessageKind::Steering,
                        id,
                    }),
                );
                turn.notify(&*self.host, &format!("Steering: {}", message.text));
                turn.break_text();
                self.turn = Some(turn);
                self.send_prompt(prompt_blocks(&message, self.prompt_support, &self.scope));
                return;
            }
        }
        match result {
            Ok(value) => turn.finish(&*self.host, Ending::of_prompt(&value), prompt_usage(&value)),
            Err(RpcFailure::Closed) => {
                let reason = self.exit_reason().await;
                self.stop_agent().await;
                turn.finish(&*self.host, Ending::Error { kind: "agentExited", message: reason }, None);
            }
            Err(RpcFailure::Error { code: sign_in::ACP_AUTH_REQUIRED, message, .. })
                if !self.auth.offered_by(&self.setup.agent.id).is_empty() =>
            {
                // Signed out while running: the ways to sign in again, and
                // a fresh start (with the keys as they are then) next turn.
                let methods = self.auth.offered_by(&self.setup.agent.id);
                self.stop_agent().await;
                let message = format!("{} needs you to sign in again ({message}).", self.setup.agent.display_name);
                let meta = sign_in::error_meta(&self.setup.agent.id, &methods);
                turn.finish(&*self.host, Ending::NeedsSignIn { message, meta }, None);
            }
            Err(e) => turn.finish(&*self.host, Ending::Error { kind: "agentError", message: e.to_string() }, None),
        }
    }

    fn take_steering(&self, chat: &str) -> Option<(String, Message)> {
        self.host.chat(chat, |c| c.steering_message.clone().map(|m| (m.id, m.message))).flatten()
    }

    async fn on_deadline(&mut self) {
        let now = Instant::now();
        if self.cancel_deadline.is_some_and(|d| d <= now) {
            tracing::warn!(session = %self.setup.session, "the agent did not end a cancelled turn; stopping it");
            self.cancel_deadline = None;
            self.prompt = None;
            self.turn = None;
            self.stop_agent().await;
            return;
        }
        if self.prompt.is_some() && self.last_activity + self.timeouts.idle <= now {
            let secs = self.timeouts.idle.as_secs_f64();
            tracing::warn!(session = %self.setup.session, "the agent sent nothing for {secs} s; stopping it");
            self.prompt = None;
            self.permissions.clear();
            self.elicitations.close(&*self.host, None, self.turn.as_ref());
            self.stop_agent().await;
            if let Some(mut turn) = self.turn.take() {
                let message = format!(
                    "The agent stopped responding (nothing for {secs} s) and was stopped. The next message starts it again."
                );
                turn.finish(&*self.host, Ending::Error { kind: "agentUnresponsive", message }, None);
            }
        }
    }

    /// Why the agent went away: exit status and stderr tail.
    async fn exit_reason(&mut self) -> String {
        match self.live.as_mut() {
            Some(live) => live.exit_reason().await,
            None => "the agent closed the connection".to_owned(),
        }
    }

    async fn stop_agent(&mut self) {
        self.terminals.release_all();
        if let Some(live) = self.live.take() {
            live.stop(&self.registry, &self.setup.session).await;
        }
    }

    /// A start failure as AHP's `ErrorInfo`: `authRequired`, with the ways
    /// to sign in in its `_meta`, when the agent wants the person to sign in.
    fn start_error(&self, failure: StartFailure) -> ErrorInfo {
        let (error_type, meta) = match &failure.sign_in {
            Some(methods) => (sign_in::AUTH_REQUIRED_ERROR, Some(sign_in::error_meta(&self.setup.agent.id, methods))),
            None => ("agentStartFailed", None),
        };
        ErrorInfo { error_type: error_type.to_owned(), message: failure.message, stack: None, meta }
    }

    /// Start the agent (see `startup.rs`) with its saved keys.
    async fn connect(&mut self) -> Result<(), StartFailure> {
        // The keyring may be slow to answer: not on this task's thread.
        let (host, agent) = (self.host.clone(), self.setup.agent.id.clone());
        let env = tokio::task::spawn_blocking(move || host.agent_env(&agent)).await.unwrap_or_default();
        let starter = Starter {
            host: &*self.host,
            session: &self.setup.session,
            agent: &self.setup.agent,
            cwd: &self.cwd,
            scope: &self.scope,
            registry: &self.registry,
            limit: self.timeouts.start,
            env: &env,
            auth: &self.auth,
        };
        let earlier = self.acp_session.as_deref().map(|id| (id, self.setup.open_past));
        let started = starter.start(earlier, &mut self.models, &mut self.options).await?;
        if self.setup.open_past {
            self.setup.open_past = false;
            let chat = self.host.session(&self.setup.session, |s| s.default_chat.clone()).flatten();
            let empty = chat.as_deref().and_then(|c| self.host.chat(c, |c| c.turns.is_empty())) == Some(true);
            if let (Some(chat), true) = (chat, empty) {
                let turns = super::replay::replay_history(&*self.host, &chat, &self.cwd, &started.replayed);
                tracing::info!(session = %self.setup.session, "opened the agent's own session: {turns} turns replayed");
            }
        }
        self.live = Some(started.live);
        self.acp_session = Some(started.session_id);
        self.prompt_support = started.prompt_support;
        self.reset_notice |= started.forgot;
        Ok(())
    }
}

fn option_name(options: &AgentOptions, key: &str) -> String {
    options.get(key).map_or_else(|| key.to_owned(), |o| o.name.clone())
}

/// Resolves once turn `turn_id` is no longer `chat`'s active turn (checked
/// every 100 ms).
async fn turn_ended(host: Arc<dyn AgentHost>, chat: String, turn_id: String) {
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if host.chat(&chat, |c| c.active_turn.as_ref().is_some_and(|t| t.id == turn_id)) != Some(true) {
            return;
        }
    }
}
