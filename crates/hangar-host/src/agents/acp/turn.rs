//! One AHP turn fed by ACP `session/update`s: message and thought chunks
//! become markdown and reasoning parts (a new part whenever a tool call or
//! the other kind of text intervenes), tool calls run through the
//! `chat/toolCall*` state machine (created on first sight, also from a
//! permission request), the `plan` is shown as a synthetic running tool call
//! named `plan` whose content (a markdown checklist) is replaced on every
//! plan update and which completes with the turn, and usage goes to
//! `chat/usage`, and an agent's elicitation is an input request part
//! (`chat/inputRequested`; see `elicitation.rs`). Content a running tool
//! call repeats while the client already shows it, and usage repeated
//! unchanged, are not sent again. Once the reducer has ended the turn (the
//! client cancelled it) every later update is dropped.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use agent_client_protocol::v1::schema::{
    ContentBlock, PermissionOption, Plan, RequestPermissionRequest, ToolCall, ToolCallContent, ToolCallLocation,
    ToolCallUpdate,
};
use ahp_types::actions::{
    ChatDeltaAction, ChatErrorAction, ChatInputCompletedAction, ChatInputRequestedAction, ChatReasoningAction,
    ChatResponsePartAction, ChatToolCallCompleteAction, ChatToolCallConfirmedAction, ChatToolCallContentChangedAction,
    ChatToolCallDeltaAction, ChatToolCallReadyAction, ChatToolCallStartAction, ChatTurnCancelledAction,
    ChatTurnCompleteAction, ChatUsageAction,
};
use ahp_types::common::StringOrMarkdown;
use ahp_types::state::{
    ChatInputRequest, ChatInputResponseKind, ErrorInfo, ErrorResponsePart, MarkdownResponsePart, ReasoningResponsePart,
    ResponsePart, SystemNotificationResponsePart, ToolCallConfirmationReason, ToolCallResult, ToolInput,
    ToolResultContent, ToolResultTextContent, UsageInfo,
};
use ahp_types::StateAction;
use serde_json::Value;

use super::update::SessionUpdate;
use super::{tools, AgentHost};

/// Where a tool call is in the AHP state machine (as far as we know).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Streaming,
    Pending,
    Running,
    Closed,
}

struct Tool {
    phase: Phase,
    title: String,
    /// ACP `kind` (`other` until the agent says).
    kind: String,
    raw_input: Option<Value>,
    raw_output: Option<Value>,
    content: Vec<ToolCallContent>,
    locations: Vec<ToolCallLocation>,
    /// The content a client was last sent (`chat/toolCallContentChanged`)
    /// and still shows; `None` when it shows none.
    sent: Option<Vec<ToolResultContent>>,
}

/// Tool call fields from a `tool_call`, `tool_call_update` or permission.
#[derive(Default)]
struct Fields {
    title: Option<String>,
    kind: Option<String>,
    status: Option<String>,
    content: Option<Vec<ToolCallContent>>,
    locations: Option<Vec<ToolCallLocation>>,
    raw_input: Option<Value>,
    raw_output: Option<Value>,
}

impl From<ToolCall> for Fields {
    fn from(t: ToolCall) -> Self {
        Fields {
            title: Some(t.title).filter(|t| !t.is_empty()),
            kind: enum_name(&t.kind),
            status: enum_name(&t.status),
            content: Some(t.content),
            locations: Some(t.locations),
            raw_input: t.raw_input,
            raw_output: t.raw_output,
        }
    }
}

impl From<ToolCallUpdate> for Fields {
    fn from(t: ToolCallUpdate) -> Self {
        let f = t.fields;
        Fields {
            title: f.title.filter(|t| !t.is_empty()),
            kind: f.kind.as_ref().and_then(enum_name),
            status: f.status.as_ref().and_then(enum_name),
            content: f.content,
            locations: f.locations,
            raw_input: f.raw_input,
            raw_output: f.raw_output,
        }
    }
}

fn enum_name<T: serde::Serialize>(v: &T) -> Option<String> {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_owned))
}

/// How a turn ends.
#[derive(Debug)]
pub enum Ending {
    /// `chat/turnComplete`.
    Complete,
    /// `chat/turnCancelled` (the agent stopped with `cancelled`).
    Cancelled,
    /// `chat/error`.
    Error {
        /// `errorType`.
        kind: &'static str,
        /// Message.
        message: String,
    },
    /// `chat/error` `authRequired`: the agent would not start until the
    /// person signs it in; `meta` lists the ways (`sign_in::error_meta`).
    NeedsSignIn {
        /// Message.
        message: String,
        /// The error's `_meta`.
        meta: serde_json::Map<String, Value>,
    },
}

impl Ending {
    /// The ending a prompt's answer (`PromptResponse`) gives by its
    /// `stopReason`: `cancelled` → cancelled, `refusal` → an error, any
    /// other reason → complete.
    pub fn of_prompt(result: &Value) -> Self {
        match result.get("stopReason").and_then(Value::as_str) {
            Some("cancelled") => Ending::Cancelled,
            Some("refusal") => Ending::Error { kind: "refusal", message: "The agent refused to continue.".to_owned() },
            _ => Ending::Complete,
        }
    }
}

/// The turn being mapped.
pub struct Turn {
    /// Chat URI.
    pub chat: String,
    /// Turn id.
    pub turn_id: String,
    /// Set once the reducer has ended the turn; later updates are dropped.
    pub ended: bool,
    started: Instant,
    cwd: PathBuf,
    parts: u32,
    text_part: Option<String>,
    thought_part: Option<String>,
    tools: HashMap<String, Tool>,
    order: Vec<String>,
    plan_tool: Option<String>,
    /// The usage last reported.
    usage: Option<UsageInfo>,
    /// The tokens of the turn's model calls so far, each reported on its own
    /// (Qwen Code's message chunks' `_meta.usage`), summed.
    model_calls: Option<UsageInfo>,
    /// File results shown in permission requests, and those approved.
    pub approvals: super::approvals::Approvals,
    /// The session's terminals as tool calls show them.
    pub terminals: super::terminal_requests::TerminalLinks,
}

impl Turn {
    /// A turn that has just started (the reducer applied `chat/turnStarted`).
    pub fn new(chat: String, turn_id: String, cwd: PathBuf) -> Self {
        Self {
            chat,
            turn_id,
            ended: false,
            started: Instant::now(),
            cwd,
            parts: 0,
            text_part: None,
            thought_part: None,
            tools: HashMap::new(),
            order: Vec::new(),
            plan_tool: None,
            usage: None,
            model_calls: None,
            approvals: Default::default(),
            terminals: Default::default(),
        }
    }

    fn emit(&self, host: &dyn AgentHost, action: StateAction) -> bool {
        if self.ended {
            return false;
        }
        host.emit(&self.chat, action)
    }

    fn next_part_id(&mut self, prefix: &str) -> String {
        self.parts += 1;
        format!("acp-{prefix}-{}-{}", self.turn_id, self.parts)
    }

    /// Milliseconds since the turn started.
    pub fn duration(&self) -> i64 {
        self.started.elapsed().as_millis() as i64
    }

    /// A system notification part (e.g. "the agent's memory was reset").
    pub fn notify(&mut self, host: &dyn AgentHost, text: &str) {
        let part = ResponsePart::SystemNotification(SystemNotificationResponsePart {
            content: StringOrMarkdown::Plain(text.to_owned()),
            meta: None,
        });
        self.text_part = None;
        self.emit(
            host,
            StateAction::ChatResponsePart(ChatResponsePartAction { turn_id: self.turn_id.clone(), part, meta: None }),
        );
    }

    /// Ask the user: a `chat/inputRequested` part built by `build` from a
    /// fresh request id. `false` if the turn has ended.
    pub fn input_request(
        &mut self,
        host: &dyn AgentHost,
        build: impl FnOnce(&str) -> Option<ChatInputRequest>,
    ) -> Option<String> {
        if self.ended {
            return None;
        }
        let id = self.next_part_id("input");
        let request = build(&id)?;
        self.break_text();
        self.emit(host, StateAction::ChatInputRequested(ChatInputRequestedAction { request })).then_some(id)
    }

    /// Close an input request nobody can answer any more (`cancel`).
    pub fn input_closed(&self, host: &dyn AgentHost, request_id: &str) {
        let action = ChatInputCompletedAction {
            request_id: request_id.to_owned(),
            response: ChatInputResponseKind::Cancel,
            answers: None,
        };
        self.emit(host, StateAction::ChatInputCompleted(action));
    }

    /// Start a fresh markdown part for the next message chunk.
    pub fn break_text(&mut self) {
        self.text_part = None;
        self.thought_part = None;
    }

    /// One `session/update`, decoded once ([`SessionUpdate`]); the session
    /// task has routed its own kinds (title, commands, options, mode).
    pub fn on_update(&mut self, host: &dyn AgentHost, update: SessionUpdate<'_>) {
        if self.ended {
            return;
        }
        match update {
            SessionUpdate::MessageChunk(text) => self.text(host, text, false),
            SessionUpdate::ThoughtChunk(text) => self.text(host, text, true),
            SessionUpdate::ToolCall(tc) => {
                let id = tc.tool_call_id.to_string();
                self.upsert(host, &id, (*tc).into());
            }
            SessionUpdate::ToolCallUpdate(tc) => {
                let id = tc.tool_call_id.to_string();
                self.upsert(host, &id, (*tc).into());
            }
            SessionUpdate::Plan(plan) => self.plan(host, &plan),
            SessionUpdate::Usage(usage) => self.usage(host, usage),
            SessionUpdate::ModelCallUsage(call) => {
                let total = super::usage::add_tokens(self.model_calls.as_ref(), &call);
                self.model_calls = Some(total.clone());
                self.usage(host, total);
            }
            SessionUpdate::Other(kind) | SessionUpdate::Malformed(kind) => {
                tracing::trace!("ignored session update {kind}");
            }
            other => tracing::trace!("ignored session update {other:?}"),
        }
    }

    fn text(&mut self, host: &dyn AgentHost, text: String, thought: bool) {
        let slot = if thought { &self.thought_part } else { &self.text_part };
        if let Some(part_id) = slot.clone() {
            let turn_id = self.turn_id.clone();
            let action = if thought {
                StateAction::ChatReasoning(ChatReasoningAction { turn_id, part_id, content: text, meta: None })
            } else {
                StateAction::ChatDelta(ChatDeltaAction { turn_id, part_id, content: text, meta: None })
            };
            self.emit(host, action);
            return;
        }
        let id = self.next_part_id(if thought { "reasoning" } else { "md" });
        let part = if thought {
            ResponsePart::Reasoning(ReasoningResponsePart { id: id.clone(), content: text })
        } else {
            ResponsePart::Markdown(MarkdownResponsePart { id: id.clone(), content: text })
        };
        if self.emit(
            host,
            StateAction::ChatResponsePart(ChatResponsePartAction { turn_id: self.turn_id.clone(), part, meta: None }),
        ) {
            if thought {
                self.thought_part = Some(id);
                self.text_part = None;
            } else {
                self.text_part = Some(id);
                self.thought_part = None;
            }
        }
    }

    /// Report usage, merged with what the turn was told before (a
    /// `usage_update`'s context and cost, the prompt answer's tokens); not
    /// again when it has not changed: agents repeat `usage_update`s.
    pub fn usage(&mut self, host: &dyn AgentHost, usage: UsageInfo) {
        let usage = super::usage::merge(self.usage.as_ref(), usage);
        if self.usage.as_ref() == Some(&usage) {
            return;
        }
        let action = ChatUsageAction { turn_id: self.turn_id.clone(), usage: usage.clone(), meta: None };
        if self.emit(host, StateAction::ChatUsage(action)) {
            self.usage = Some(usage);
        }
    }

    fn start_tool(&mut self, host: &dyn AgentHost, id: &str, tool_name: &str, title: &str) {
        self.break_text();
        self.emit(
            host,
            StateAction::ChatToolCallStart(ChatToolCallStartAction {
                turn_id: self.turn_id.clone(),
                tool_call_id: id.to_owned(),
                meta: None,
                tool_name: tool_name.to_owned(),
                display_name: title.to_owned(),
                intention: None,
                contributor: None,
            }),
        );
        self.tools.insert(
            id.to_owned(),
            Tool {
                phase: Phase::Streaming,
                title: title.to_owned(),
                kind: tool_name.to_owned(),
                raw_input: None,
                raw_output: None,
                content: Vec::new(),
                locations: Vec::new(),
                sent: None,
            },
        );
        self.order.push(id.to_owned());
    }

    fn ready(&self, id: &str, confirmed: Option<ToolCallConfirmationReason>) -> ChatToolCallReadyAction {
        let tool = self.tools.get(id);
        let title = tool.map(|t| t.title.clone()).unwrap_or_default();
        ChatToolCallReadyAction {
            turn_id: self.turn_id.clone(),
            tool_call_id: id.to_owned(),
            meta: None,
            contributor: None,
            intention: None,
            invocation_message: StringOrMarkdown::Plain(title),
            tool_input: tool.and_then(|t| t.raw_input.as_ref()).map(|v| ToolInput::Inline(v.to_string())),
            confirmation_title: None,
            risk_assessment: None,
            edits: None,
            editable: None,
            confirmed,
            options: None,
        }
    }

    fn set_phase(&mut self, id: &str, phase: Phase) {
        if let Some(t) = self.tools.get_mut(id) {
            t.phase = phase;
        }
    }

    fn phase(&self, id: &str) -> Option<Phase> {
        self.tools.get(id).map(|t| t.phase)
    }

    fn upsert(&mut self, host: &dyn AgentHost, id: &str, f: Fields) {
        if !self.tools.contains_key(id) {
            let title = f.title.clone().unwrap_or_else(|| "Tool call".to_owned());
            let name = f.kind.clone().unwrap_or_else(|| "other".to_owned());
            self.start_tool(host, id, &name, &title);
        }
        let Some(tool) = self.tools.get_mut(id) else {
            return;
        };
        if tool.phase == Phase::Closed {
            return;
        }
        let mut title_changed = false;
        if let Some(title) = f.title {
            title_changed = title != tool.title;
            tool.title = title;
        }
        if let Some(kind) = f.kind {
            tool.kind = kind;
        }
        if f.raw_input.is_some() {
            tool.raw_input = f.raw_input;
        }
        if f.raw_output.is_some() {
            tool.raw_output = f.raw_output;
        }
        // Agents repeat a tool call's content (e.g. in the permission
        // request): while it runs, content (and locations) the client does
        // not show yet are sent; see `content_changed`.
        let carried = f.content.as_ref().is_some_and(|c| !c.is_empty());
        if let Some(content) = f.content.filter(|c| !c.is_empty()) {
            tool.content = content;
        }
        let located = f.locations.as_ref().is_some_and(|l| !l.is_empty());
        if let Some(locations) = f.locations.filter(|l| !l.is_empty()) {
            tool.locations = locations;
        }
        let phase = tool.phase;
        let title = tool.title.clone();
        match f.status.as_deref() {
            Some("completed") | Some("failed") => {
                let success = f.status.as_deref() == Some("completed");
                if phase == Phase::Streaming {
                    self.emit(
                        host,
                        StateAction::ChatToolCallReady(self.ready(id, Some(ToolCallConfirmationReason::NotNeeded))),
                    );
                }
                self.complete(host, id, success, None);
            }
            Some("in_progress") if phase == Phase::Streaming => {
                self.emit(
                    host,
                    StateAction::ChatToolCallReady(self.ready(id, Some(ToolCallConfirmationReason::NotNeeded))),
                );
                self.set_phase(id, Phase::Running);
                if carried || located {
                    self.content_changed(host, id);
                }
            }
            _ => match phase {
                Phase::Streaming if title_changed => {
                    self.emit(
                        host,
                        StateAction::ChatToolCallDelta(ChatToolCallDeltaAction {
                            turn_id: self.turn_id.clone(),
                            tool_call_id: id.to_owned(),
                            meta: None,
                            content: None,
                            invocation_message: Some(StringOrMarkdown::Plain(title)),
                        }),
                    );
                }
                Phase::Running if carried || located => self.content_changed(host, id),
                _ => {}
            },
        }
    }

    /// Send a running tool call's content, unless the client already
    /// shows exactly that.
    fn content_changed(&mut self, host: &dyn AgentHost, id: &str) {
        let Some(tool) = self.tools.get(id) else {
            return;
        };
        let content = self.visible_content(tool);
        if tool.sent.as_ref() == Some(&content) {
            return;
        }
        let action = ChatToolCallContentChangedAction {
            turn_id: self.turn_id.clone(),
            tool_call_id: id.to_owned(),
            meta: None,
            content: content.clone(),
        };
        if self.emit(host, StateAction::ChatToolCallContentChanged(action)) {
            if let Some(tool) = self.tools.get_mut(id) {
                tool.sent = Some(content);
            }
        }
    }

    /// What a client sees of a tool call: its content, then the places it
    /// touches (ACP `locations`).
    fn visible_content(&self, tool: &Tool) -> Vec<ToolResultContent> {
        let mut content = tools::result_content(&tool.content, &self.cwd, &self.terminals);
        content.extend(tools::location_content(&tool.locations, &self.cwd));
        content
    }

    fn complete(&mut self, host: &dyn AgentHost, id: &str, success: bool, message: Option<String>) {
        let Some(tool) = self.tools.get(id) else {
            return;
        };
        let mut content = self.visible_content(tool);
        if let Some(text) = &message {
            content.push(ToolResultContent::Text(ToolResultTextContent { text: text.clone() }));
        }
        let structured = tool.raw_output.as_ref().and_then(Value::as_object).cloned();
        let error = (!success)
            .then(|| message.clone().map(Value::String).or_else(|| tool.raw_output.clone()).unwrap_or(Value::Null));
        let action = ChatToolCallCompleteAction {
            turn_id: self.turn_id.clone(),
            tool_call_id: id.to_owned(),
            meta: None,
            result: ToolCallResult {
                success,
                past_tense_message: StringOrMarkdown::Plain(tool.title.clone()),
                content: (!content.is_empty()).then_some(content),
                structured_content: structured,
                error,
            },
            requires_result_confirmation: None,
        };
        self.emit(host, StateAction::ChatToolCallComplete(action));
        self.set_phase(id, Phase::Closed);
        if success {
            for warning in self.approvals.check_disk(id) {
                self.notify(host, &warning);
            }
        }
    }

    /// A `session/request_permission`: the tool call (created if unseen)
    /// goes to pending-confirmation, with `meta` (e.g. the rule to prefill,
    /// `hangar/ruleSuggestion`). `None` if it cannot (already closed).
    pub fn permission(
        &mut self,
        host: &dyn AgentHost,
        request: &RequestPermissionRequest,
        meta: Option<ahp_types::common::JsonObject>,
    ) -> Option<String> {
        if self.ended {
            return None;
        }
        let options = tools::confirmation_options(&request.options);
        let id = request.tool_call.tool_call_id.to_string();
        let mut fields: Fields = request.tool_call.clone().into();
        fields.status = None;
        let proposed = fields.content.clone().filter(|c| c.iter().any(|c| matches!(c, ToolCallContent::Diff(_))));
        self.upsert(host, &id, fields);
        let phase = self.phase(&id)?;
        if phase == Phase::Closed || phase == Phase::Pending {
            return None;
        }
        let tool = self.tools.get(&id)?;
        let content = proposed.unwrap_or_else(|| tool.content.clone());
        self.approvals.propose(&id, &content, &self.cwd);
        let mut ready = self.ready(&id, None);
        ready.meta = meta;
        ready.confirmation_title = Some(StringOrMarkdown::Plain(tool.title.clone()));
        ready.edits = tools::edits(&content, &self.cwd);
        ready.options = Some(options);
        if self.emit(host, StateAction::ChatToolCallReady(ready)) {
            self.set_phase(&id, Phase::Pending);
            Some(id)
        } else {
            None
        }
    }

    /// Take in a permission request's tool call (created if unseen) and
    /// give its facts for the approval rules, all updates of the call so
    /// far included; `None` when it cannot be answered (closed, or already
    /// pending).
    pub fn rule_facts(
        &mut self,
        host: &dyn AgentHost,
        request: &RequestPermissionRequest,
    ) -> Option<crate::rules::subject::ToolCallFacts> {
        if self.ended {
            return None;
        }
        let id = request.tool_call.tool_call_id.to_string();
        let mut fields: Fields = request.tool_call.clone().into();
        fields.status = None;
        let proposed = fields.content.clone().unwrap_or_default();
        self.upsert(host, &id, fields);
        let tool = self.tools.get(&id).filter(|t| matches!(t.phase, Phase::Streaming | Phase::Running))?;
        let diffs = proposed.iter().chain(&tool.content).filter_map(|c| match c {
            ToolCallContent::Diff(d) => Some(d.path.clone()),
            _ => None,
        });
        let paths = diffs.chain(tool.locations.iter().map(|l| l.path.clone())).collect();
        Some(crate::rules::subject::ToolCallFacts {
            kind: Some(tool.kind.clone()),
            title: tool.title.clone(),
            raw_input: tool.raw_input.clone(),
            paths,
        })
    }

    /// A rule (`rule`, its id) answered a permission request the turn took
    /// in with [`Turn::rule_facts`]: approved, the call runs, confirmed by
    /// `setting`; denied, it is shown pending and then denied with the
    /// agent's reject option `option`. Either way the call's `_meta` names
    /// the rule (`hangar/rule`). `false` if nothing could be emitted.
    pub fn answer_by_rule(
        &mut self,
        host: &dyn AgentHost,
        request: &RequestPermissionRequest,
        rule: &str,
        approved: bool,
        option: &str,
    ) -> bool {
        let id = request.tool_call.tool_call_id.to_string();
        let Some(tool) = self.tools.get(&id).filter(|t| matches!(t.phase, Phase::Streaming | Phase::Running)) else {
            return false;
        };
        let proposed = request.tool_call.fields.content.clone().unwrap_or_else(|| tool.content.clone());
        let edits = tools::edits(&proposed, &self.cwd);
        let title = tool.title.clone();
        self.approvals.propose(&id, &proposed, &self.cwd);
        self.approvals.decide(&id, approved);
        let meta: ahp_types::common::JsonObject =
            [(crate::rules::META_KEY.to_owned(), Value::String(rule.to_owned()))].into_iter().collect();
        let mut ready = self.ready(&id, approved.then_some(ToolCallConfirmationReason::Setting));
        ready.meta = Some(meta.clone());
        ready.edits = edits;
        if !approved {
            ready.confirmation_title = Some(StringOrMarkdown::Plain(title));
            ready.options = Some(tools::confirmation_options(&request.options));
        }
        if !self.emit(host, StateAction::ChatToolCallReady(ready)) {
            return false;
        }
        if approved {
            self.set_phase(&id, Phase::Running);
            return true;
        }
        let denied = ChatToolCallConfirmedAction {
            turn_id: self.turn_id.clone(),
            tool_call_id: id.clone(),
            meta: Some(meta),
            approved: false,
            confirmed: None,
            reason: Some(ahp_types::state::ToolCallCancellationReason::Denied),
            edited_tool_input: None,
            user_suggestion: None,
            reason_message: Some(StringOrMarkdown::Plain(format!("Denied by the host's rule {rule}."))),
            selected_option_id: Some(option.to_owned()),
        };
        self.set_phase(&id, Phase::Closed);
        self.emit(host, StateAction::ChatToolCallConfirmed(denied))
    }

    /// The user answered the confirmation of one of this turn's permission
    /// requests (the engine applied `action`: the reducer moved the call to
    /// running with no content, approved, or cancelled, denied). Returns the
    /// answer for the agent (`RequestPermissionResponse`): the option
    /// `action` selected, or the first of its kind among the request's
    /// `options`.
    pub fn answer_permission(&mut self, action: &ChatToolCallConfirmedAction, options: &[PermissionOption]) -> Value {
        if let Some(tool) = self.tools.get_mut(&action.tool_call_id) {
            tool.phase = if action.approved { Phase::Running } else { Phase::Closed };
            tool.sent = None;
        }
        tools::permission_outcome(tools::pick_option(options, action.approved, action.selected_option_id.as_deref()))
    }

    /// The agent's plan (ACP `plan`, the whole list each time): the turn's
    /// `plan` tool call, started on the first one, its text replaced.
    pub fn plan(&mut self, host: &dyn AgentHost, plan: &Plan) {
        let id = match &self.plan_tool {
            Some(id) => id.clone(),
            None => {
                let id = format!("plan-{}", self.turn_id);
                self.start_tool(host, &id, "plan", "Plan");
                self.emit(
                    host,
                    StateAction::ChatToolCallReady(self.ready(&id, Some(ToolCallConfirmationReason::NotNeeded))),
                );
                self.set_phase(&id, Phase::Running);
                self.plan_tool = Some(id.clone());
                id
            }
        };
        let text: String = plan
            .entries
            .iter()
            .map(|e| {
                let status = enum_name(&e.status).unwrap_or_default();
                let mark = match status.as_str() {
                    "completed" => "[x]",
                    "in_progress" => "[~]",
                    _ => "[ ]",
                };
                format!("- {mark} {}\n", e.content)
            })
            .collect();
        self.emit(
            host,
            StateAction::ChatToolCallContentChanged(ChatToolCallContentChangedAction {
                turn_id: self.turn_id.clone(),
                tool_call_id: id.clone(),
                meta: None,
                content: vec![ToolResultContent::Text(ToolResultTextContent { text: text.clone() })],
            }),
        );
        if let Some(t) = self.tools.get_mut(&id) {
            t.content = vec![ToolCallContent::Content(agent_client_protocol::v1::schema::Content::new(
                ContentBlock::from(text),
            ))];
        }
    }

    /// End the turn: close every open tool call (failed, or left to the
    /// reducer's cancellation when the turn is cancelled), then the final
    /// action.
    pub fn finish(&mut self, host: &dyn AgentHost, ending: Ending, usage: Option<UsageInfo>) {
        if self.ended {
            return;
        }
        if let Some(plan) = self.plan_tool.clone() {
            self.complete(host, &plan, true, None);
        }
        if !matches!(ending, Ending::Cancelled) {
            for id in self.order.clone() {
                match self.phase(&id) {
                    Some(Phase::Streaming) => {
                        self.emit(
                            host,
                            StateAction::ChatToolCallReady(
                                self.ready(&id, Some(ToolCallConfirmationReason::NotNeeded)),
                            ),
                        );
                        self.complete(
                            host,
                            &id,
                            false,
                            Some("The agent ended the turn before this tool call finished.".to_owned()),
                        );
                    }
                    Some(Phase::Pending) | Some(Phase::Running) => {
                        self.complete(
                            host,
                            &id,
                            false,
                            Some("The agent ended the turn before this tool call finished.".to_owned()),
                        );
                    }
                    _ => {}
                }
            }
        }
        if let Some(usage) = usage {
            self.usage(host, usage);
        }
        let turn_id = self.turn_id.clone();
        let duration = self.duration();
        let action = match ending {
            Ending::Complete => StateAction::ChatTurnComplete(ChatTurnCompleteAction { turn_id, duration, meta: None }),
            Ending::Cancelled => {
                StateAction::ChatTurnCancelled(ChatTurnCancelledAction { turn_id, duration, meta: None })
            }
            Ending::Error { kind, message } => StateAction::ChatError(ChatErrorAction {
                turn_id,
                duration,
                part: ErrorResponsePart {
                    error: ErrorInfo { error_type: kind.to_owned(), message, stack: None, meta: None },
                    resumable: None,
                },
                meta: None,
            }),
            Ending::NeedsSignIn { message, meta } => StateAction::ChatError(ChatErrorAction {
                turn_id,
                duration,
                part: ErrorResponsePart {
                    error: ErrorInfo {
                        error_type: super::sign_in::AUTH_REQUIRED_ERROR.to_owned(),
                        message,
                        stack: None,
                        meta: Some(meta),
                    },
                    resumable: None,
                },
                meta: None,
            }),
        };
        self.emit(host, action);
        self.ended = true;
    }
}

#[cfg(test)]
mod tests {
    use ahp_types::state::{ResponsePart, ToolCallState, ToolResultContent};
    use serde_json::json;

    use super::*;
    use crate::agents::acp::test_support::{RecordingHost, CHAT};

    fn running_text(host: &RecordingHost) -> Option<Vec<String>> {
        let chat = host.chat_state();
        chat.active_turn?.response_parts.iter().find_map(|p| match p {
            ResponsePart::ToolCall(t) => match &t.tool_call {
                ToolCallState::Running(r) => Some(
                    r.content
                        .iter()
                        .flatten()
                        .filter_map(|c| match c {
                            ToolResultContent::Text(t) => Some(t.text.clone()),
                            _ => None,
                        })
                        .collect(),
                ),
                _ => None,
            },
            _ => None,
        })
    }

    fn text_content(text: &str) -> Value {
        json!([{ "type": "content", "content": { "type": "text", "text": text } }])
    }

    #[test]
    fn repeated_content_and_usage_are_not_sent_again() {
        let host = RecordingHost::new();
        let mut turn = host.start_turn("t", "go");
        let update = json!({ "sessionUpdate": "tool_call", "toolCallId": "a", "title": "Run", "kind": "execute",
            "status": "in_progress", "content": text_content("ls") });
        let usage = json!({ "sessionUpdate": "usage_update", "used": 5, "size": 100 });
        for _ in 0..2 {
            turn.on_update(&host, SessionUpdate::decode(&update));
            turn.on_update(&host, SessionUpdate::decode(&usage));
        }
        let kinds: Vec<String> = host
            .emitted()
            .iter()
            .map(|e| serde_json::to_value(&e.action).unwrap()["type"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(
            kinds,
            ["chat/toolCallStart", "chat/toolCallReady", "chat/toolCallContentChanged", "chat/usage"],
            "the second round changed nothing"
        );
        assert_eq!(running_text(&host), Some(vec!["ls".to_owned()]));
    }

    #[test]
    fn content_repeated_after_a_confirmation_is_sent() {
        let host = RecordingHost::new();
        let mut turn = host.start_turn("t", "go");
        let call = json!({ "sessionUpdate": "tool_call", "toolCallId": "a", "title": "Run", "kind": "execute",
            "status": "pending", "content": text_content("ls") });
        turn.on_update(&host, SessionUpdate::decode(&call));
        let request: RequestPermissionRequest = serde_json::from_value(json!({ "sessionId": "s",
            "toolCall": { "toolCallId": "a", "content": text_content("ls") },
            "options": [{ "optionId": "yes", "name": "Allow", "kind": "allow_once" }] }))
        .unwrap();
        assert_eq!(turn.permission(&host, &request, None).as_deref(), Some("a"));
        let confirmed = ChatToolCallConfirmedAction {
            turn_id: "t".to_owned(),
            tool_call_id: "a".to_owned(),
            meta: None,
            approved: true,
            confirmed: Some(ToolCallConfirmationReason::UserAction),
            reason: None,
            edited_tool_input: None,
            user_suggestion: None,
            reason_message: None,
            selected_option_id: Some("yes".to_owned()),
        };
        host.dispatch(CHAT, StateAction::ChatToolCallConfirmed(confirmed.clone())).unwrap();
        let answer = turn.answer_permission(&confirmed, &request.options);
        assert_eq!(answer["outcome"]["optionId"], "yes");
        assert_eq!(running_text(&host), Some(vec![]), "the reducer's confirmation shows no content");
        // The agent runs the call with the content it had before.
        let running = json!({ "sessionUpdate": "tool_call_update", "toolCallId": "a", "status": "in_progress",
            "content": text_content("ls") });
        turn.on_update(&host, SessionUpdate::decode(&running));
        assert_eq!(running_text(&host), Some(vec!["ls".to_owned()]));
    }
}
