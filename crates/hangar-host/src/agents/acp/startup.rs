//! Starting a session's agent: open the transport (a child process in the
//! working directory, its process group recorded, or TCP), `initialize`,
//! then `session/load` / `session/resume` of the earlier ACP session when
//! there is one and the agent supports it, else `session/new`, each with the
//! host's MCP servers the agent can take ([`AgentHost::mcp_servers`] through
//! `customizations::acp_mcp::for_agent`; the others are logged and reported
//! with [`AgentHost::mcp_servers_skipped`]); publish the
//! models the agent reports and keep the ACP session id in the session's
//! `_meta` ([`META_KEY`]). While the agent starts, its requests are answered
//! as outside a turn ([`default_answer`]: an elicitation or permission gets
//! `cancel`, files are served) so it never waits on the host.
//!
//! Also here: [`Live`], the started agent (connection, unread messages,
//! process) with the exit reason and stop the session task uses, and
//! [`ask`], a request with a time limit.

use std::collections::VecDeque;
use std::path::Path;
use std::time::Duration;

use ahp_types::actions::SessionMetaChangedAction;
use ahp_types::StateAction;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::config_options::AgentOptions;
use super::inbound::Inbound;
use super::models::AgentModels;
use super::past_sessions::OpensWith;
use super::prompt::PromptSupport;
use super::rpc::{Connection, RpcFailure};
use super::sign_in::{self, AuthMethods, SignInKind, SignInMethod};
use super::transport::{self, AgentProcess};
use super::{fs, AgentHost};
use crate::agents::AgentSpec;
use crate::customizations::acp_mcp;
use crate::process_groups::Registry;

/// Key in `SessionState._meta` where the ACP session id is kept.
pub const META_KEY: &str = "hangar.acp";

/// In `_meta[META_KEY]`: `true` while the session is one of the agent's own
/// earlier sessions that has not been opened here yet (`session/list`).
pub const OPEN_KEY: &str = "open";

/// How long an exited agent's stderr may take to reach EOF before its tail
/// is reported as it is.
const STDERR_DRAIN_LIMIT: Duration = Duration::from_secs(1);

/// After `session/load` answers, how long the agent may stay quiet before
/// its replay is taken as over (see [`drain_late_replay`]).
const REPLAY_QUIET: Duration = Duration::from_millis(500);

/// The updates a `session/load` replay is made of (the conversation), as
/// opposed to the session's commands, modes or usage.
const HISTORY_UPDATES: [&str; 6] =
    ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"];

/// Whether a `session/update`'s params are part of the conversation.
fn is_history(params: &Value) -> bool {
    let kind = params.pointer("/update/sessionUpdate").and_then(Value::as_str).unwrap_or_default();
    HISTORY_UPDATES.contains(&kind)
}

/// ACP has `session/load` replay the history before it answers, but Gemini
/// CLI 0.61 answers first and streams the history after (its `loadSession`
/// does not wait for `streamHistory`). So, when opening the agent's own
/// session, what comes next is read into `held` until the agent has been
/// quiet for [`REPLAY_QUIET`] (at most `limit` in all).
async fn drain_late_replay(live: &mut Live, held: &mut Vec<Inbound>, limit: Duration) {
    let until = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < until {
        match tokio::time::timeout(REPLAY_QUIET, live.inbound.recv()).await {
            Ok(Some(msg)) => held.push(msg),
            _ => return,
        }
    }
}

/// A started agent.
pub struct Live {
    /// The connection.
    pub conn: Connection,
    /// What the agent sends, in order.
    pub inbound: mpsc::UnboundedReceiver<Inbound>,
    /// Messages read ahead (by `coalesce`, or held while the agent
    /// started), handled next, in order.
    pub stashed: VecDeque<Inbound>,
    /// The process, when we started one.
    pub process: Option<AgentProcess>,
}

impl Live {
    /// Why the agent went away: exit status and stderr tail.
    pub async fn exit_reason(&mut self) -> String {
        let Some(process) = self.process.as_mut() else {
            return "the agent closed the connection".to_owned();
        };
        let status = process.wait_exit(Duration::from_secs(2)).await;
        // The reason is usually the last thing written: take the tail only
        // once the stderr reader has read to EOF (bounded, in case a child
        // the agent left behind keeps the pipe open).
        process.stderr_drained(STDERR_DRAIN_LIMIT).await;
        let tail = process.stderr_tail();
        let status = status.map(|s| s.to_string()).unwrap_or_else(|| "closed its output".to_owned());
        if tail.is_empty() {
            format!("The agent exited ({status}).")
        } else {
            format!("The agent exited ({status}): {tail}")
        }
    }

    /// End the agent's process group (if we started one) and forget it.
    pub async fn stop(mut self, registry: &Registry, session: &str) {
        if let Some(process) = self.process.as_mut() {
            process.kill().await;
        }
        registry.remove(session);
    }
}

/// The outcome of a successful start.
pub struct Started {
    /// The agent.
    pub live: Live,
    /// The ACP session in use.
    pub session_id: String,
    /// What the agent accepts in a prompt.
    pub prompt_support: PromptSupport,
    /// An earlier ACP session could not be restored: this one starts with
    /// no memory of it.
    pub forgot: bool,
    /// What `session/load` replayed of the agent's own earlier session
    /// opened here for the first time (the `update` of each
    /// `session/update`, in order); empty otherwise.
    pub replayed: Vec<Value>,
}

/// What starting an agent for one Hangar session needs.
pub struct Starter<'a> {
    /// The host.
    pub host: &'a dyn AgentHost,
    /// Session URI.
    pub session: &'a str,
    /// The agent.
    pub agent: &'a AgentSpec,
    /// Working directory.
    pub cwd: &'a Path,
    /// Where the agent's `fs/*` requests may reach.
    pub scope: &'a fs::Scope,
    /// Process groups.
    pub registry: &'a Registry,
    /// Time limit of each start-up request.
    pub limit: Duration,
    /// Set in the agent's environment (its saved API keys).
    pub env: &'a [(String, String)],
    /// Where the sign-in methods the agent offers are kept.
    pub auth: &'a AuthMethods,
}

/// What the handshake settled.
struct Handshake {
    session_id: String,
    prompt_support: PromptSupport,
    forgot: bool,
    replayed: Vec<Value>,
}

/// Why an agent did not start.
#[derive(Debug)]
pub struct StartFailure {
    /// In words, with the agent's exit status and stderr tail when it exited.
    pub message: String,
    /// The agent refused to open a session until the person signs in:
    /// the ways it offers.
    pub sign_in: Option<Vec<SignInMethod>>,
}

impl From<String> for StartFailure {
    fn from(message: String) -> Self {
        Self { message, sign_in: None }
    }
}

impl Starter<'_> {
    /// Start the agent, restoring ACP session `earlier` when possible; the
    /// models it reports go into `models`, its modes and other settings into
    /// `options`. On failure the agent is stopped and the error says why
    /// (with its exit status and stderr tail).
    pub async fn start(
        &self,
        earlier: Option<(&str, bool)>,
        models: &mut AgentModels,
        options: &mut AgentOptions,
    ) -> Result<Started, StartFailure> {
        let transport = transport::open(&self.agent.command, self.cwd, self.env).await.map_err(|e| e.to_string())?;
        let (conn, inbound, process) = Connection::start(transport);
        if let Some(pgid) = process.as_ref().and_then(|p| p.pgid) {
            self.registry.insert(self.session, pgid);
        }
        let mut live = Live { conn, inbound, stashed: VecDeque::new(), process };
        match self.handshake(&mut live, earlier, models, options).await {
            Ok(Handshake { session_id, prompt_support, forgot, replayed }) => {
                Ok(Started { live, session_id, prompt_support, forgot, replayed })
            }
            Err(failure) if failure.sign_in.is_some() => {
                live.stop(self.registry, self.session).await;
                Err(failure)
            }
            Err(StartFailure { message: reason, .. }) => {
                let exited = live.process.as_mut().map(|p| p.try_exit().is_some());
                let detail = if exited == Some(true) || reason.contains("exited") {
                    live.exit_reason().await
                } else {
                    live.process.as_ref().map(super::transport::AgentProcess::stderr_tail).unwrap_or_default()
                };
                live.stop(self.registry, self.session).await;
                Err(StartFailure::from(if detail.is_empty() { reason } else { format!("{reason}. {detail}") }))
            }
        }
    }

    /// `initialize`, then restore or create the ACP session. `earlier`: the
    /// ACP session to restore, and whether it is the agent's own earlier
    /// session opened here for the first time (then it must be restored,
    /// and what a load replays is kept).
    async fn handshake(
        &self,
        live: &mut Live,
        earlier: Option<(&str, bool)>,
        models: &mut AgentModels,
        options: &mut AgentOptions,
    ) -> Result<Handshake, StartFailure> {
        let info = ask(&live.conn, "initialize", initialize_params(), self.limit).await?;
        let methods = sign_in::methods_from_initialize(&info, &self.agent.command);
        self.auth.offered(&self.agent.id, methods.clone());
        let caps = info.get("agentCapabilities").cloned().unwrap_or(Value::Null);
        let prompt_support = PromptSupport::from_agent_capabilities(&caps);
        let cwd = self.cwd.display().to_string();
        let mcp_servers = self.mcp_servers(&caps);
        if let Some((old, opening)) = earlier {
            let params = json!({ "sessionId": old, "cwd": cwd, "mcpServers": mcp_servers });
            let opens_with = OpensWith::from_capabilities(&caps);
            if let Some(method) = opens_with.map(OpensWith::method) {
                // `session/load` replays the history as updates: not a turn
                // (kept only when opening the agent's own session here).
                // An agent that wants its saved key presented first is
                // told, and asked again: falling back to `session/new`
                // would lose what it remembers.
                let mut held = Vec::new();
                match self.ask_presenting_key(live, method, params, &methods, &mut held).await {
                    Ok(result) => {
                        if opening {
                            drain_late_replay(live, &mut held, self.limit).await;
                        }
                        while let Ok(msg) = live.inbound.try_recv() {
                            held.push(msg);
                        }
                        let mut replayed = Vec::new();
                        for msg in held {
                            match msg {
                                Inbound::Request { id, .. } => {
                                    live.conn.respond(&id, Err((-32603, "the session is loading".to_owned())));
                                }
                                Inbound::Notification { method, mut params }
                                    if opening && method == "session/update" && is_history(&params) =>
                                {
                                    if let Some(update) = params.get_mut("update") {
                                        replayed.push(update.take());
                                    }
                                }
                                // Commands, modes, usage: for the live session.
                                msg @ Inbound::Notification { .. } if opening => live.stashed.push_back(msg),
                                _ => {}
                            }
                        }
                        self.offered(&result, models, options);
                        if opening {
                            self.remember_session(old);
                        }
                        let session_id = old.to_owned();
                        return Ok(Handshake { session_id, prompt_support, forgot: false, replayed });
                    }
                    Err(e) if opening => {
                        return Err(StartFailure::from(format!(
                            "{} could not open its session {old}: {}",
                            self.agent.id, e.message
                        )))
                    }
                    Err(e) => tracing::info!(session = %self.session, "cannot restore the ACP session: {}", e.message),
                }
            } else if opening {
                return Err(StartFailure::from(format!(
                    "{} cannot open its earlier sessions here: it offers neither session/load nor session/resume",
                    self.agent.id
                )));
            }
        }
        let params = json!({ "cwd": cwd, "mcpServers": mcp_servers });
        let mut held = Vec::new();
        let result = self.ask_presenting_key(live, "session/new", params, &methods, &mut held).await;
        live.stashed.extend(held);
        let result = result.map_err(|e| self.refused(e, methods))?;
        let sid = result
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or_else(|| StartFailure::from("session/new returned no sessionId".to_owned()))?
            .to_owned();
        self.offered(&result, models, options);
        self.remember_session(&sid);
        Ok(Handshake { session_id: sid, prompt_support, forgot: earlier.is_some(), replayed: Vec::new() })
    }

    /// Ask `method` (`session/new`, `session/load`, `session/resume`); when
    /// the agent refuses with `auth_required` although a key it asks for is
    /// in its environment (saved by the person), it takes the key only once
    /// told to (Codex: `authenticate` with its env_var method, ACP's way for
    /// those): it is told, and asked again. Updates that come meanwhile are
    /// added to `sink`, in order, for the caller to keep or drop.
    async fn ask_presenting_key(
        &self,
        live: &mut Live,
        method: &str,
        params: Value,
        methods: &[SignInMethod],
        sink: &mut Vec<Inbound>,
    ) -> Result<Value, AskError> {
        let (result, held) = ask_starting(live, self.scope, method, params.clone(), self.limit).await;
        sink.extend(held);
        let Some(key_method) = self.key_to_present(&result, methods) else {
            return result;
        };
        let told = json!({ "methodId": key_method });
        let (told, held) = ask_starting(live, self.scope, "authenticate", told, self.limit).await;
        live.stashed.extend(held);
        if let Err(e) = told {
            tracing::info!(session = %self.session, "the agent did not take its saved key: {}", e.message);
            return result;
        }
        let (again, held) = ask_starting(live, self.scope, method, params, self.limit).await;
        sink.extend(held);
        again
    }

    /// The key method to `authenticate` with when a session request was refused
    /// with `auth_required` although a key the agent asks for is in its
    /// environment (saved by the person).
    fn key_to_present(&self, answer: &Result<Value, AskError>, methods: &[SignInMethod]) -> Option<String> {
        let refused = matches!(answer, Err(e) if e.code == Some(sign_in::ACP_AUTH_REQUIRED));
        let has = |var: &str| self.env.iter().any(|(k, _)| k == var);
        let method = methods.iter().find(|m| matches!(&m.kind, SignInKind::ApiKey { var } if has(var)));
        method.filter(|_| refused).map(|m| m.id.clone())
    }

    /// A failed `session/new` as a start failure: one that asks the person
    /// to sign in when the agent said `auth_required` and offers a way.
    fn refused(&self, e: AskError, methods: Vec<SignInMethod>) -> StartFailure {
        if e.code != Some(sign_in::ACP_AUTH_REQUIRED) || methods.is_empty() {
            return StartFailure::from(e.message);
        }
        let said = e.agent_message.filter(|m| !m.trim().is_empty()).unwrap_or_else(|| "authentication required".into());
        let message = format!("{} needs you to sign in ({said}).", self.agent.display_name);
        StartFailure { message, sign_in: Some(methods) }
    }

    /// Read the models and settings a session result offers, and publish
    /// them for the agent (models in `RootState.agents`, settings to the
    /// host's per-agent cache).
    fn offered(&self, result: &Value, models: &mut AgentModels, options: &mut AgentOptions) {
        if models.update_from(result) {
            models.publish(self.host, &self.agent.id);
        }
        options.update_from(result);
        if !options.options.is_empty() {
            self.host.agent_options_changed(&self.agent.id, options.options.clone());
        }
    }

    /// The host's MCP servers for this session as ACP `mcpServers`, as far
    /// as the agent's capabilities `caps` allow; the rest is logged and
    /// reported to the host.
    fn mcp_servers(&self, caps: &Value) -> Vec<Value> {
        let (servers, skipped) = acp_mcp::for_agent(&self.host.mcp_servers(self.session), caps);
        for s in &skipped {
            tracing::info!(session = %self.session, server = %s.name, "MCP server not passed to the agent: {}", s.reason);
        }
        self.host.mcp_servers_skipped(self.session, skipped);
        servers
    }

    /// Keep the ACP session id in the session's `_meta` (persisted with it).
    fn remember_session(&self, sid: &str) {
        self.host.emit_on_session(self.session, &mut |state| {
            let mut meta = state.meta.clone().unwrap_or_default();
            meta.insert(META_KEY.to_owned(), json!({ "sessionId": sid }));
            Some(StateAction::SessionMetaChanged(SessionMetaChangedAction { meta: Some(meta) }))
        });
    }
}

/// What Hangar tells an agent about itself in `initialize`.
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": { "readTextFile": true, "writeTextFile": true },
            "terminal": true,
            "elicitation": { "form": {}, "url": {} },
            // Zed's extension: agents that run commands themselves
            // stream them as `_meta.terminal_*` (`terminal_requests.rs`).
            "_meta": { "terminal_output": true },
            // ACP terminal sign-in: the agent's own login runs in a
            // terminal on the host (`sign_in.rs`).
            "auth": { "terminal": true },
        },
        "clientInfo": { "name": "hangar", "title": "Hangar", "version": env!("CARGO_PKG_VERSION") },
    })
}

/// `method` with a time limit; the error says what went wrong in words.
pub async fn ask(conn: &Connection, method: &str, params: Value, limit: Duration) -> Result<Value, String> {
    ask_coded(conn, method, params, limit).await.map_err(|e| e.message)
}

/// Why a request to the agent failed: in words, and the agent's error code
/// when it answered with an error.
#[derive(Debug)]
pub struct AskError {
    /// The agent's JSON-RPC error code, if it answered with one.
    pub code: Option<i64>,
    /// The agent's own message, if it answered with one.
    pub agent_message: Option<String>,
    /// What went wrong, in words.
    pub message: String,
}

/// [`ask`], keeping the agent's error code.
pub async fn ask_coded(conn: &Connection, method: &str, params: Value, limit: Duration) -> Result<Value, AskError> {
    let failed = |message: String| AskError { code: None, agent_message: None, message };
    match tokio::time::timeout(limit, conn.request(method, params)).await {
        Err(_) => Err(failed(format!("{method} timed out after {} s", limit.as_secs()))),
        Ok(Err(_)) | Ok(Ok(Err(RpcFailure::Closed))) => Err(failed(format!("the agent exited during {method}"))),
        Ok(Ok(Err(e))) => {
            let (code, agent_message) = match &e {
                RpcFailure::Error { code, message, .. } => (Some(*code), Some(message.clone())),
                RpcFailure::Closed => (None, None),
            };
            Err(AskError { code, agent_message, message: format!("{method} failed: {e}") })
        }
        Ok(Ok(Ok(v))) => Ok(v),
    }
}

/// [`ask`] while the agent is starting: its requests meanwhile get
/// [`default_answer`] (an agent may ask during `session/new`, e.g. an
/// elicitation scoped to that request, and must not wait for a turn), its
/// notifications are returned in order for the caller to keep or drop.
pub(super) async fn ask_starting(
    live: &mut Live,
    scope: &fs::Scope,
    method: &str,
    params: Value,
    limit: Duration,
) -> (Result<Value, AskError>, Vec<Inbound>) {
    let answer = ask_coded(&live.conn, method, params, limit);
    tokio::pin!(answer);
    let mut held = Vec::new();
    let mut open = true;
    loop {
        tokio::select! {
            biased;
            msg = live.inbound.recv(), if open => match msg {
                Some(Inbound::Request { id, method, params }) => live.conn.respond(&id, default_answer(scope, &method, &params)),
                Some(other) => held.push(other),
                None => open = false,
            },
            result = &mut answer => return (result, held),
        }
    }
}

/// The answer to an agent request no turn takes: files served inside the
/// roots, permissions `cancelled`, elicitations `cancel`, anything else
/// unknown.
pub fn default_answer(scope: &fs::Scope, method: &str, params: &Value) -> Result<Value, (i64, String)> {
    match method {
        "session/request_permission" => Ok(super::tools::permission_outcome(None)),
        "elicitation/create" => Ok(super::elicitation::cancelled()),
        "fs/read_text_file" => fs::read_text_file(scope, params),
        "fs/write_text_file" => fs::write_text_file(scope, params),
        other => Err((-32601, format!("method not found: {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use serde_json::{json, Value};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use tokio::net::TcpListener;
    use tokio::task::JoinHandle;

    use super::super::config_options::AgentOptions;
    use super::super::fs::Scope;
    use super::super::models::AgentModels;
    use super::super::sign_in::AuthMethods;
    use super::super::test_support::{RecordingHost, SESSION};
    use super::Starter;
    use crate::agents::AgentSpec;
    use crate::customizations::acp_mcp::Skipped;
    use crate::customizations::{McpLaunch, McpTransport};
    use crate::process_groups::Registry;

    /// An agent on a real TCP socket playing its side of the start-up
    /// transcript: `initialize` answered with `caps`, then one session
    /// request (`session/new` with session `s-1`, `session/load` with `{}`).
    /// Yields every request it got as (method, params).
    async fn scripted_agent(caps: Value) -> (String, JoinHandle<Vec<(String, Value)>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = format!("tcp://{}", listener.local_addr().unwrap());
        let agent = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let (reader, mut writer) = stream.into_split();
            let mut lines = BufReader::new(reader).lines();
            let mut got = Vec::new();
            while let Some(line) = lines.next_line().await.unwrap() {
                let msg: Value = serde_json::from_str(&line).unwrap();
                let method = msg["method"].as_str().unwrap().to_owned();
                let result = match method.as_str() {
                    "initialize" => json!({ "protocolVersion": 1, "agentCapabilities": caps }),
                    "session/new" => json!({ "sessionId": "s-1" }),
                    _ => json!({}),
                };
                let reply = json!({ "jsonrpc": "2.0", "id": msg["id"], "result": result });
                writer.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
                got.push((method, msg["params"].clone()));
                if got.len() == 2 {
                    break;
                }
            }
            got
        });
        (addr, agent)
    }

    /// Start the agent of `host`'s session against a scripted agent with
    /// `caps`, restoring `earlier`: the requests the agent got.
    async fn start(host: &RecordingHost, caps: Value, earlier: Option<&str>) -> Vec<(String, Value)> {
        let (addr, agent) = scripted_agent(caps).await;
        let spec = AgentSpec {
            id: "scripted".to_owned(),
            display_name: "Scripted".to_owned(),
            command: vec![addr],
            env: Vec::new(),
        };
        let registry = Registry::default();
        let scope = Scope::new(&[], &[]);
        let starter = Starter {
            host,
            session: SESSION,
            agent: &spec,
            cwd: Path::new("/workspace"),
            scope: &scope,
            registry: &registry,
            limit: Duration::from_secs(60),
            env: &[],
            auth: &AuthMethods::default(),
        };
        let started = starter
            .start(earlier.map(|e| (e, false)), &mut AgentModels::default(), &mut AgentOptions::default())
            .await
            .unwrap();
        started.live.stop(&registry, SESSION).await;
        agent.await.unwrap()
    }

    /// A host offering a stdio server and an HTTP one.
    fn host() -> RecordingHost {
        let host = RecordingHost::new();
        host.set_mcp_servers(vec![
            McpLaunch {
                id: "mcpServer-1".to_owned(),
                name: "files".to_owned(),
                transport: McpTransport::Stdio {
                    command: "/usr/bin/files-mcp".to_owned(),
                    args: vec!["--root".to_owned(), "/workspace".to_owned()],
                    env: vec![("LEVEL".to_owned(), "debug".to_owned())],
                    cwd: None,
                },
            },
            McpLaunch {
                id: "mcpServer-2".to_owned(),
                name: "search".to_owned(),
                transport: McpTransport::Http { url: "http://127.0.0.1:9/mcp".to_owned(), headers: Vec::new() },
            },
        ]);
        host
    }

    fn stdio_entry() -> Value {
        json!({ "name": "files", "command": "/usr/bin/files-mcp", "args": ["--root", "/workspace"],
                "env": [{ "name": "LEVEL", "value": "debug" }] })
    }

    fn http_entry() -> Value {
        json!({ "type": "http", "name": "search", "url": "http://127.0.0.1:9/mcp", "headers": [] })
    }

    #[tokio::test]
    async fn session_new_carries_http_servers_only_when_the_agent_takes_them() {
        let host = host();
        let got = start(&host, json!({ "mcpCapabilities": { "http": true } }), None).await;
        assert_eq!(got[1].0, "session/new");
        assert_eq!(got[1].1["mcpServers"], json!([stdio_entry(), http_entry()]));

        let got = start(&host, json!({ "mcpCapabilities": { "http": false, "sse": true } }), None).await;
        assert_eq!(got[1].1["mcpServers"], json!([stdio_entry()]));
        let why = "the agent does not accept HTTP MCP servers".to_owned();
        let skipped = Skipped { id: "mcpServer-2".to_owned(), name: "search".to_owned(), reason: why };
        assert_eq!(host.skipped(), vec![vec![], vec![skipped]], "reported at each start");
    }

    #[tokio::test]
    async fn session_load_carries_the_servers_too() {
        let host = host();
        let caps = json!({ "loadSession": true, "mcpCapabilities": { "http": true } });
        let got = start(&host, caps, Some("earlier")).await;
        assert_eq!(got[1].0, "session/load");
        assert_eq!(got[1].1["sessionId"], "earlier");
        assert_eq!(got[1].1["mcpServers"], json!([stdio_entry(), http_entry()]));
    }
}
