//! ACP `terminal/*` for one session: each command the agent runs is a
//! [`TerminalProcess`] in the session's folders and an AHP terminal channel
//! (`<session>/terminals/<id>`) whose output any client can watch; a tool
//! call that shows the terminal points at that channel, and keeps the
//! command's exit and the end of its output once it has ended.
//!
//! Requests: `terminal/create` (cwd confined like `fs/*`), `terminal/output`,
//! `terminal/wait_for_exit` (answered when the command ends, from its own
//! task), `terminal/kill`, `terminal/release` (kills a command still running;
//! the channel stays for the person to read).
//!
//! Agents that run commands themselves (Claude Agent, Codex) stream them
//! instead through Zed's `_meta` extension, offered with
//! `clientCapabilities._meta.terminal_output`: a tool call's
//! `_meta.terminal_info {terminal_id}` opens the channel,
//! `_meta.terminal_output {terminal_id, data}` appends to it and
//! `_meta.terminal_exit {terminal_id, exit_code, signal}` ends it
//! ([`AgentTerminals::on_tool_meta`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, TerminalExitStatus, TerminalOutputResponse, WaitForTerminalExitResponse,
};
use ahp_types::actions::{TerminalDataAction, TerminalExitedAction};
use ahp_types::state::{
    TerminalClaim, TerminalCommandResult, TerminalLifecycleState, TerminalRunningLifecycleState, TerminalSessionClaim,
    TerminalState, ToolResultTerminalContent,
};
use ahp_types::StateAction;
use serde_json::{json, Value};

use super::agent_host::AgentHost;
use super::fs::{FsError, Scope};
use super::rpc::Responder;
use crate::engine::terminal_uri;
use crate::locks::lock;
use crate::resources::uri::path_to_file_uri;
use crate::terminals::{Exit, Launch, Output, TerminalEvents, TerminalProcess};

/// Output kept for `terminal/output` when the agent sets no limit.
const DEFAULT_OUTPUT_LIMIT: usize = 1024 * 1024;
/// The end of a command's output kept in its tool call once it has ended.
const PREVIEW_BYTES: usize = 8 * 1024;
/// Commands one session may run at once.
const MAX_RUNNING: usize = 64;

/// What a tool call shows of each of the session's terminals, by ACP
/// terminal id: its channel, its command line and, once ended, its outcome.
pub type TerminalLinks = Arc<Mutex<HashMap<String, ToolResultTerminalContent>>>;

/// Who the terminal belongs to in AHP terms: the turn that asked for it.
pub struct Owner<'a> {
    /// The session URI.
    pub session: &'a str,
    /// The chat of the turn (the session's when no turn runs).
    pub chat: &'a str,
    /// The turn, when one runs.
    pub turn_id: Option<&'a str>,
}

/// The session's terminals.
pub struct AgentTerminals {
    host: Arc<dyn AgentHost>,
    held: HashMap<String, TerminalProcess>,
    /// Commands the agent runs itself and streams (`_meta.terminal_*`).
    streamed: HashMap<String, Arc<ChannelEvents>>,
    links: TerminalLinks,
}

impl AgentTerminals {
    /// None yet.
    pub fn new(host: Arc<dyn AgentHost>) -> Self {
        Self { host, held: HashMap::new(), streamed: HashMap::new(), links: TerminalLinks::default() }
    }

    /// What tool calls show of these terminals (shared with the turn).
    pub fn links(&self) -> TerminalLinks {
        self.links.clone()
    }

    /// Whether a command is still running (the agent may be silent while
    /// it waits for one).
    pub fn any_running(&self) -> bool {
        self.held.values().any(|p| p.exit().is_none())
    }

    /// A `tool_call` / `tool_call_update` carrying Zed's terminal `_meta`:
    /// the channel of the command the agent runs itself is opened, fed or
    /// ended (before the update's content is mapped, so it finds the link).
    pub fn on_tool_meta(&mut self, owner: &Owner, update: &Value) {
        let Some(meta) = update.get("_meta") else { return };
        if let Some(id) = meta.pointer("/terminal_info/terminal_id").and_then(Value::as_str) {
            if !self.streamed.contains_key(id) && !lock(&self.links).contains_key(id) {
                let title = update
                    .pointer("/rawInput/command")
                    .and_then(command_text)
                    .or_else(|| update.get("title").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_else(|| "Command".to_owned());
                let cwd =
                    update.pointer("/rawInput/cwd").and_then(Value::as_str).map(|c| path_to_file_uri(Path::new(c)));
                let uri = terminal_uri(owner.session, &format!("agent-{}", crate::engine::clock::new_id()));
                if let Some(events) = self.open_channel(owner, id, uri, title, cwd) {
                    self.streamed.insert(id.to_owned(), events);
                }
            }
        }
        if let Some(out) = meta.get("terminal_output") {
            let id = out.get("terminal_id").and_then(Value::as_str).unwrap_or_default();
            if let (Some(events), Some(data)) = (self.streamed.get(id), out.get("data").and_then(Value::as_str)) {
                events.output(data);
            }
        }
        if let Some(exit) = meta.get("terminal_exit") {
            let id = exit.get("terminal_id").and_then(Value::as_str).unwrap_or_default();
            if let Some(events) = self.streamed.remove(id) {
                // Codex may end a quick command without streaming its
                // output: it is in the update's `rawOutput`.
                if lock(&events.tail).text().is_empty() {
                    if let Some(text) = raw_output_text(update) {
                        events.output(&text);
                    }
                }
                events.exited(&Exit {
                    code: exit.get("exit_code").and_then(Value::as_u64).and_then(|c| u32::try_from(c).ok()),
                    signal: exit.get("signal").and_then(Value::as_str).map(str::to_owned),
                });
            }
        }
    }

    /// Open terminal channel `uri` for ACP terminal `id` and link it for
    /// tool calls; what tells it the command's output and exit.
    fn open_channel(
        &self,
        owner: &Owner,
        id: &str,
        uri: String,
        title: String,
        cwd: Option<String>,
    ) -> Option<Arc<ChannelEvents>> {
        let state = TerminalState {
            title: title.clone(),
            cwd,
            cols: None,
            rows: None,
            content: Vec::new(),
            lifecycle: TerminalLifecycleState::Running(TerminalRunningLifecycleState {}),
            claim: TerminalClaim::Session(TerminalSessionClaim {
                session: owner.session.to_owned(),
                chat: owner.chat.to_owned(),
                turn_id: owner.turn_id.map(str::to_owned),
                tool_call_id: None,
            }),
            supports_command_detection: None,
            is_pty: Some(false),
        };
        if !self.host.open_terminal(owner.session, &uri, state) {
            return None;
        }
        lock(&self.links).insert(
            id.to_owned(),
            ToolResultTerminalContent { resource: uri.clone(), title, is_pty: Some(false), result: None },
        );
        Some(Arc::new(ChannelEvents {
            host: self.host.clone(),
            uri,
            id: id.to_owned(),
            links: self.links.clone(),
            tail: Mutex::new(Output::new(PREVIEW_BYTES)),
        }))
    }

    /// `terminal/create {command, args, env, cwd, outputByteLimit}` →
    /// `{terminalId}`.
    pub fn create(
        &mut self,
        scope: &Scope,
        default_cwd: &Path,
        owner: &Owner,
        params: Value,
    ) -> Result<Value, FsError> {
        let request: CreateTerminalRequest =
            serde_json::from_value(params).map_err(|e| (-32602, format!("invalid params: {e}")))?;
        if self.held.values().filter(|p| p.exit().is_none()).count() >= MAX_RUNNING {
            return Err((-32603, format!("too many commands running at once (at most {MAX_RUNNING})")));
        }
        let cwd = confine_dir(scope, request.cwd.as_deref().unwrap_or(default_cwd))?;
        let launch = Launch {
            program: request.command.clone(),
            args: request.args.clone(),
            env: request.env.iter().map(|v| (v.name.clone(), v.value.clone())).collect(),
            cwd: cwd.clone(),
        };
        let id = format!("term-{}", crate::engine::clock::new_id());
        let uri = terminal_uri(owner.session, &id);
        let cwd_uri = Some(path_to_file_uri(&cwd));
        let events = self
            .open_channel(owner, &id, uri, launch.command_line(), cwd_uri)
            .ok_or((-32603, "the session is gone".to_owned()))?;
        let limit = request.output_byte_limit.and_then(|l| usize::try_from(l).ok()).unwrap_or(DEFAULT_OUTPUT_LIMIT);
        match TerminalProcess::spawn(&launch, limit, events.clone()) {
            Ok(process) => {
                self.held.insert(id.clone(), process);
                Ok(json!({ "terminalId": id }))
            }
            Err(e) => {
                // The channel says why, like a shell would.
                let message = format!("{}: {e}\r\n", launch.program);
                events.output(&message);
                events.exited(&Exit { code: Some(127), signal: None });
                Err((-32603, format!("cannot run {}: {e}", launch.program)))
            }
        }
    }

    /// `terminal/output {terminalId}` → `{output, truncated, exitStatus?}`.
    pub fn output(&self, params: &Value) -> Result<Value, FsError> {
        let (output, truncated, exit) = self.process(params)?.output();
        let mut response = TerminalOutputResponse::new(output, truncated);
        response.exit_status = exit.map(exit_status);
        serde_json::to_value(response).map_err(|e| (-32603, e.to_string()))
    }

    /// `terminal/wait_for_exit {terminalId}`: answered through `responder`
    /// once the command has ended.
    pub fn wait_for_exit(&self, params: &Value, id: Value, responder: Responder) -> Result<(), FsError> {
        let exit = self.process(params)?.wait();
        tokio::spawn(async move {
            let exit = exit.await;
            let answer = serde_json::to_value(WaitForTerminalExitResponse::new(exit_status(exit)))
                .map_err(|e| (-32603, e.to_string()));
            responder.respond(&id, answer);
        });
        Ok(())
    }

    /// `terminal/kill {terminalId}` → `{}`: the command ends; the terminal
    /// stays for `terminal/output`.
    pub fn kill(&self, params: &Value) -> Result<Value, FsError> {
        self.process(params)?.kill();
        Ok(json!({}))
    }

    /// `terminal/release {terminalId}` → `{}`: ends the command if it still
    /// runs and forgets the id; the channel and the tool call keep what it
    /// showed.
    pub fn release(&mut self, params: &Value) -> Result<Value, FsError> {
        let id = terminal_id(params)?;
        match self.held.remove(id) {
            Some(process) => {
                process.kill();
                Ok(json!({}))
            }
            None => Err(unknown(id)),
        }
    }

    /// End every command (the agent stopped or the session went away).
    pub fn release_all(&mut self) {
        for (_, process) in self.held.drain() {
            process.kill();
        }
        // Commands the agent ran itself end with it.
        for (_, events) in self.streamed.drain() {
            events.exited(&Exit::default());
        }
    }

    fn process(&self, params: &Value) -> Result<&TerminalProcess, FsError> {
        let id = terminal_id(params)?;
        self.held.get(id).ok_or_else(|| unknown(id))
    }
}

impl Drop for AgentTerminals {
    fn drop(&mut self) {
        self.release_all();
    }
}

/// The output a completed command update carries in `rawOutput`
/// (Codex: `aggregated_output`, else `stdout` then `stderr`).
fn raw_output_text(update: &Value) -> Option<String> {
    let raw = update.get("rawOutput")?;
    if let Some(all) = raw.get("aggregated_output").and_then(Value::as_str) {
        return (!all.is_empty()).then(|| all.to_owned());
    }
    let parts: String = ["stdout", "stderr"].iter().filter_map(|k| raw.get(*k).and_then(Value::as_str)).collect();
    (!parts.is_empty()).then_some(parts)
}

/// A command given as a string or as an argv array (`["bash", "-lc", "ls"]`).
fn command_text(command: &Value) -> Option<String> {
    match command {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            (!words.is_empty()).then(|| words.join(" "))
        }
        _ => None,
    }
}

fn terminal_id(params: &Value) -> Result<&str, FsError> {
    params.get("terminalId").and_then(Value::as_str).ok_or((-32602, "missing terminalId".to_owned()))
}

fn unknown(id: &str) -> FsError {
    (-32602, format!("unknown terminal {id} (released, or never created)"))
}

fn exit_status(exit: Exit) -> TerminalExitStatus {
    let mut status = TerminalExitStatus::new();
    status.exit_code = exit.code;
    status.signal = exit.signal;
    status
}

/// `dir` when it is a folder inside the session's scope.
fn confine_dir(scope: &Scope, dir: &Path) -> Result<PathBuf, FsError> {
    if !dir.is_absolute() {
        return Err((-32602, format!("cwd must be absolute: {}", dir.display())));
    }
    let canonical = std::fs::canonicalize(dir).map_err(|e| (-32002, format!("{}: {e}", dir.display())))?;
    if !canonical.is_dir() {
        return Err((-32602, format!("not a folder: {}", dir.display())));
    }
    if !scope.admits(&canonical) {
        return Err((-32002, format!("access denied: {} is outside the session's working directories", dir.display())));
    }
    Ok(canonical)
}

/// A command's output and exit, told to its channel and its tool calls.
struct ChannelEvents {
    host: Arc<dyn AgentHost>,
    uri: String,
    id: String,
    links: TerminalLinks,
    /// The end of the output, for the tool call's preview.
    tail: Mutex<Output>,
}

impl TerminalEvents for ChannelEvents {
    fn output(&self, text: &str) {
        lock(&self.tail).push(text);
        // Past the channel's limit the reducer is not asked (the agent still
        // gets it all through `terminal/output`).
        self.host.emit(&self.uri, StateAction::TerminalData(TerminalDataAction { data: text.to_owned() }));
    }

    fn exited(&self, exit: &Exit) {
        let exit_code = exit.code.map(i64::from);
        let preview = {
            let tail = lock(&self.tail);
            (tail.text().to_owned(), tail.truncated())
        };
        if let Some(link) = lock(&self.links).get_mut(&self.id) {
            link.result = Some(TerminalCommandResult {
                exit_code,
                preview: Some(preview.0),
                truncated: preview.1.then_some(true),
            });
        }
        self.host.emit(&self.uri, StateAction::TerminalExited(TerminalExitedAction { exit_code }));
    }
}
