//! `hangar-fake-agent`: a scripted ACP agent (NDJSON JSON-RPC on stdio) for
//! Hangar's tests.
//!
//! Map: `main.rs`: argument parsing → [`Script`] (from `--script FILE` or
//! converted from a recorded transcript with `--transcript FILE`) → the
//! main loop answering `initialize`, `session/new|load|resume`,
//! `session/set_*` and running one list of steps per `session/prompt`.
//! `mcp_server.rs`: `--mcp-server`, a tiny stdio MCP server instead (for an
//! MCP server's Test); `mcp_http.rs`: `--mcp-http-server`, the same over
//! streamable HTTP; `auth.rs`: a script's `auth` (sessions refused until
//! signed in), `authenticate`, and `--login`.
//!
//! Script (JSON object; every key optional):
//! - `failStart`: text written to stderr, then exit 3 before `initialize` is answered.
//! - `initDelayMs`; `initialize`: the full `initialize` result;
//!   `capabilities`: merged into `agentCapabilities`.
//! - `newSession`: merged into the `session/new` result; `sessionId`.
//! - `beforeNewResponse`: steps run before answering `session/new`.
//! - `turns`: a list of step lists; prompt N runs `turns[min(N, len-1)]`.
//! - `pastSessions`: the agent's own earlier sessions, `[{sessionId, cwd,
//!   title?, updatedAt?, history: [[user text, answer text], …]}]`:
//!   `session/list` answers those in its `cwd` (all without one), and
//!   `session/load` of one replays its history (a user chunk, then an
//!   answer chunk, per pair) instead of the usual `(replayed)` pair.
//! - `auth`: `{ key: {var, value, method?}, agentMethod }`: sessions are refused
//!   with `auth_required` until signed in (see `auth.rs`).
//!
//! Steps (one key each): `update` (a `session/update` payload), `chunk` /
//! `thought` (text chunk shorthands), `echo` (a chunk with the prompt's
//! text and resource links, plus `[model=…]` once a model was set and
//! `[restored by METHOD]` after `session/load` / `session/resume`),
//! `echoPrompt` (a chunk with the prompt's content blocks as JSON), `request` `{method, params}` with optional
//! `id` and `then` (branches by the chosen `optionId`, `cancelled`, an
//! elicitation's `action` (`accept` / `decline` / `cancel`), `ok`, `error`
//! or `*`), `elicit` (an `elicitation/create` request: `{message, schema}`
//! for form mode or `{message, url}` for url mode, scoped to the session,
//! with `then` as for `request`),
//! `sleep` (ms), `crash` `{code, stderr}`, `hang`, `flood` `{count, text}`
//! (chunks as fast as possible, first into a non-blocking sink, then to the
//! host; the times go to stderr and as JSON to the file in
//! `FAKE_ACP_REPORT`), `end` (stop reason; `usage` alongside),
//! `endRaw` (the whole prompt result), `fail` `{code, message}` (the
//! prompt answered with a JSON-RPC error), `raw` (any message), `garbage`
//! (a string, or an array of byte values, written to stdout as is),
//! `writeFile` `{path, text}` and `deleteFile` (path) through the agent's own
//! file I/O, `shell` (a command run with `sh -c`), paths relative to the cwd.
//! With `FAKE_ACP_LOG` set, every model switch appends `METHOD MODEL` to that
//! file, a mode switch `session/set_mode MODE`, and any other config option
//! `session/set_config_option ID=VALUE`.
//! `$CWD` and `$SID` in strings become the session's cwd and id; `$ANSWER`
//! the last answer's `content` as compact JSON (keys sorted), or its
//! `action` when it has no content; `$RESULT` the last answer's `result`
//! (or `error`) as compact JSON; `$TERMINAL` the last `terminalId` answered
//! (`terminal/create`).
//! A `session/cancel` aborts the running steps, runs the script's
//! `onCancel` steps (e.g. a late chunk) and answers the prompt `cancelled`
//! (unless the script sets `ignoreCancel`). Requests that arrive while a
//! prompt runs (e.g. a second `session/prompt`) are handled after it.

mod auth;
mod mcp_http;
mod mcp_server;

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

struct Agent {
    /// What signs it in, when the script asks for a sign-in.
    auth: Option<auth::Auth>,
    script: Value,
    rx: Receiver<Value>,
    out: std::io::BufWriter<std::io::Stdout>,
    cwd: String,
    sid: String,
    next_id: u64,
    prompts: usize,
    prompt_text: String,
    prompt: Value,
    prompt_at: f64,
    restored: Option<String>,
    backlog: std::collections::VecDeque<Value>,
    cancelled: bool,
    prompt_id: Option<Value>,
    model: Option<String>,
    answer: String,
    /// The last `terminalId` the client answered with (`$TERMINAL`).
    terminal: String,
    /// The last answer's `result` (or `error`) as compact JSON (`$RESULT`).
    result: String,
}

enum Flow {
    Continue,
    Ended,
    Cancelled,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--mcp-http-server") {
        mcp_http::run(&args);
        return;
    }
    if args.iter().any(|a| a.starts_with("--mcp-server")) {
        mcp_server::run(&args);
        return;
    }
    if args.iter().any(|a| a.starts_with("--login")) {
        std::process::exit(auth::login(&args));
    }
    let script = match load(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hangar-fake-agent: {e}");
            std::process::exit(2);
        }
    };
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                if tx.send(v).is_err() {
                    break;
                }
            }
        }
    });
    let sid = script
        .get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| format!("fake-{}", std::process::id()));
    let script_path = (args.get(1).map(String::as_str) == Some("--script")).then(|| args.get(2)).flatten();
    let auth = auth::Auth::from_script(&script, script_path.map(String::as_str));
    let mut agent = Agent {
        auth,
        script,
        rx,
        out: std::io::BufWriter::new(std::io::stdout()),
        cwd: String::new(),
        sid,
        next_id: 0,
        prompts: 0,
        prompt_text: String::new(),
        prompt: Value::Null,
        prompt_at: 0.0,
        restored: None,
        backlog: Default::default(),
        cancelled: false,
        prompt_id: None,
        model: None,
        answer: String::new(),
        terminal: String::new(),
        result: String::new(),
    };
    agent.run();
}

fn load(args: &[String]) -> Result<Value, String> {
    if let Some(flag) = args.get(1) {
        let path = args.get(2).ok_or("missing file argument")?;
        match flag.as_str() {
            "--script" => {
                let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                return serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"));
            }
            "--transcript" => return from_transcript(path),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if let Ok(text) = std::env::var("FAKE_ACP_SCRIPT") {
        return serde_json::from_str(&text).map_err(|e| format!("FAKE_ACP_SCRIPT: {e}"));
    }
    Err("usage: hangar-fake-agent --script FILE | --transcript FILE".to_owned())
}

/// A recorded transcript (`{t, dir, msg}` lines) as a script: the agent's
/// side is replayed, the client's answers are awaited.
fn from_transcript(path: &str) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let text = text.replace("/workspace", "$CWD");
    let lines: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let mut script = Map::new();
    let mut pending_method: std::collections::HashMap<String, String> = Default::default();
    let mut steps: Vec<Value> = Vec::new();
    let mut in_new = false;
    let mut in_prompt = false;
    let mut turns = Vec::new();
    for line in lines {
        let dir = line.get("dir").and_then(Value::as_str).unwrap_or_default();
        let msg = line.get("msg").cloned().unwrap_or(Value::Null);
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.get("id").map(ToString::to_string);
        if dir == "c2a" {
            if let (Some(m), Some(id)) = (&method, &id) {
                pending_method.insert(id.clone(), m.clone());
                in_new = m == "session/new";
                in_prompt = m == "session/prompt";
            }
            continue;
        }
        // Agent → client.
        if method.is_none() {
            let answered = id.as_ref().and_then(|i| pending_method.get(i)).cloned().unwrap_or_default();
            let result = msg.get("result").cloned().unwrap_or(Value::Null);
            match answered.as_str() {
                "initialize" => {
                    script.insert("initialize".into(), result);
                }
                "session/new" => {
                    if let Some(sid) = result.get("sessionId") {
                        script.insert("sessionId".into(), sid.clone());
                    }
                    script.insert("newSession".into(), result);
                    script.insert("beforeNewResponse".into(), Value::Array(std::mem::take(&mut steps)));
                    in_new = false;
                }
                "session/prompt" => {
                    steps.push(json!({ "endRaw": result }));
                    turns.push(Value::Array(std::mem::take(&mut steps)));
                    in_prompt = false;
                }
                _ => {}
            }
            continue;
        }
        if !(in_new || in_prompt) {
            continue;
        }
        if msg.get("id").is_some() {
            steps.push(json!({ "request": { "method": method, "params": msg.get("params") }, "id": msg.get("id") }));
        } else {
            steps.push(json!({ "raw": msg }));
        }
    }
    script.insert("turns".into(), Value::Array(turns));
    Ok(Value::Object(script))
}

/// Wall-clock now in Unix milliseconds (comparable across processes).
fn unix_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

/// `$CWD`, `$SID` and `$ANSWER` replaced in every string of `v`.
fn subst(v: &Value, vars: &[(&str, &str)]) -> Value {
    match v {
        Value::String(s) => Value::String(vars.iter().fold(s.clone(), |s, (k, x)| s.replace(k, x))),
        Value::Array(a) => Value::Array(a.iter().map(|x| subst(x, vars)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), subst(x, vars))).collect()),
        other => other.clone(),
    }
}

impl Agent {
    fn send(&mut self, msg: Value) {
        let vars = [
            ("$CWD", self.cwd.as_str()),
            ("$SID", &self.sid),
            ("$ANSWER", &self.answer),
            ("$TERMINAL", &self.terminal),
            ("$RESULT", &self.result),
        ];
        let msg = subst(&msg, &vars);
        let _ = writeln!(self.out, "{msg}");
        let _ = self.out.flush();
    }

    fn respond(&mut self, id: &Value, result: Value) {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "result": result }));
    }

    /// The script's earlier session with id `sid`.
    fn past_session(&self, sid: &str) -> Option<&Value> {
        self.script
            .get("pastSessions")
            .and_then(Value::as_array)?
            .iter()
            .find(|p| p.get("sessionId").and_then(Value::as_str) == Some(sid))
    }

    fn update(&mut self, update: Value) {
        let sid = self.sid.clone();
        self.send(
            json!({ "jsonrpc": "2.0", "method": "session/update", "params": { "sessionId": sid, "update": update } }),
        );
    }

    fn run(&mut self) {
        if let Some(text) = self.script.get("failStart").and_then(Value::as_str) {
            eprintln!("{text}");
            std::process::exit(3);
        }
        while let Some(msg) = self.backlog.pop_front().or_else(|| self.rx.recv().ok()) {
            let Some(method) = msg.get("method").and_then(Value::as_str).map(str::to_owned) else {
                continue;
            };
            let id = msg.get("id").cloned().unwrap_or(Value::Null);
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            match method.as_str() {
                "initialize" => {
                    let delay = self.script.get("initDelayMs").and_then(Value::as_u64).unwrap_or(0);
                    std::thread::sleep(Duration::from_millis(delay));
                    let mut result = self.script.get("initialize").cloned().unwrap_or_else(|| {
                        json!({ "protocolVersion": 1, "agentCapabilities": {}, "agentInfo": { "name": "hangar-fake-agent", "version": "0" }, "authMethods": [] })
                    });
                    if let (Some(caps), Some(extra)) = (
                        result.get_mut("agentCapabilities").and_then(Value::as_object_mut),
                        self.script.get("capabilities").and_then(Value::as_object),
                    ) {
                        caps.extend(extra.clone());
                    }
                    self.respond(&id, result);
                }
                "session/new" | "session/load" | "session/resume"
                    if self.auth.as_ref().is_some_and(|a| !a.signed_in()) =>
                {
                    self.send(json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32000, "message": "Authentication required" } }));
                }
                "authenticate" => {
                    let method = params.get("methodId").and_then(Value::as_str).unwrap_or_default();
                    match self.auth.as_mut().map(|a| a.authenticate(method)) {
                        Some(Ok(())) => self.respond(&id, json!({})),
                        Some(Err(e)) => {
                            self.send(json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32602, "message": e } }))
                        }
                        None => self.send(
                            json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "no auth" } }),
                        ),
                    }
                }
                "session/new" => {
                    self.cwd = params.get("cwd").and_then(Value::as_str).unwrap_or_default().to_owned();
                    let before = self.script.get("beforeNewResponse").cloned().unwrap_or(Value::Array(vec![]));
                    self.steps(&before);
                    let mut result = json!({ "sessionId": self.sid });
                    if let (Some(r), Some(extra)) =
                        (result.as_object_mut(), self.script.get("newSession").and_then(Value::as_object))
                    {
                        r.extend(extra.clone());
                    }
                    self.respond(&id, result);
                }
                "session/load" | "session/resume" => {
                    self.cwd = params.get("cwd").and_then(Value::as_str).unwrap_or_default().to_owned();
                    if let Some(s) = params.get("sessionId").and_then(Value::as_str) {
                        self.sid = s.to_owned();
                    }
                    self.restored = Some(method.clone());
                    // A load replays the history first.
                    if method == "session/load" {
                        let past = self.past_session(&self.sid.clone());
                        let history = past
                            .and_then(|p| p.get("history").and_then(Value::as_array).cloned())
                            .unwrap_or_else(|| vec![json!(["(replayed)", "(replayed answer)"])]);
                        for pair in history {
                            for (kind, text) in ["user_message_chunk", "agent_message_chunk"]
                                .into_iter()
                                .zip(pair.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned))
                            {
                                self.update(
                                    json!({ "sessionUpdate": kind, "content": { "type": "text", "text": text } }),
                                );
                            }
                        }
                    }
                    self.respond(&id, json!({}));
                }
                "session/list" => {
                    let cwd = params.get("cwd").and_then(Value::as_str);
                    let sessions: Vec<Value> = self
                        .script
                        .get("pastSessions")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter(|p| cwd.is_none() || p.get("cwd").and_then(Value::as_str) == cwd)
                        .map(|p| {
                            let mut info = p.clone();
                            if let Some(o) = info.as_object_mut() {
                                o.remove("history");
                            }
                            info
                        })
                        .collect();
                    self.respond(&id, json!({ "sessions": sessions }));
                }
                "session/set_model" | "session/set_config_option" | "session/set_mode" => {
                    let model = params
                        .get("modelId")
                        .or_else(|| params.get("value"))
                        .or_else(|| params.get("modeId"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    eprintln!("fake-agent: {method} {params}");
                    if let Ok(path) = std::env::var("FAKE_ACP_LOG") {
                        // A setting other than the model is logged with its id.
                        let config_id = params.get("configId").and_then(Value::as_str).filter(|c| *c != "model");
                        let value = model.as_str().unwrap_or_default();
                        let line = match config_id {
                            Some(c) => format!("{method} {c}={value}\n"),
                            None => format!("{method} {value}\n"),
                        };
                        let _ = std::fs::OpenOptions::new()
                            .create(true)
                            .append(true)
                            .open(path)
                            .and_then(|mut f| f.write_all(line.as_bytes()));
                    }
                    let is_model = method == "session/set_model"
                        || params.get("configId").and_then(Value::as_str).is_none_or(|c| c == "model");
                    if is_model {
                        self.model = model.as_str().map(str::to_owned);
                    }
                    self.respond(&id, json!({}));
                }
                "session/prompt" => {
                    self.prompt_text = params
                        .get("prompt")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|b| b.get("text").or_else(|| b.get("uri")).and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join(" ");
                    self.prompt_at = unix_ms();
                    self.prompt = params.get("prompt").cloned().unwrap_or(Value::Null);
                    self.cancelled = false;
                    self.prompt_id = Some(id.clone());
                    let turns = self.script.get("turns").and_then(Value::as_array).cloned().unwrap_or_default();
                    let steps = turns
                        .get(self.prompts.min(turns.len().saturating_sub(1)))
                        .cloned()
                        .unwrap_or(Value::Array(vec![]));
                    self.prompts += 1;
                    match self.steps(&steps) {
                        Flow::Ended => {}
                        Flow::Cancelled => {
                            self.cancelled = false;
                            let late = self.script.get("onCancel").cloned().unwrap_or(Value::Array(vec![]));
                            if !matches!(self.steps(&late), Flow::Ended) {
                                self.respond(&id, json!({ "stopReason": "cancelled" }));
                            }
                        }
                        Flow::Continue => self.respond(&id, json!({ "stopReason": "end_turn" })),
                    }
                }
                "session/cancel" => {}
                _ if !id.is_null() => {
                    self.send(json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "method not found" } }));
                }
                _ => {}
            }
        }
    }

    /// Messages that arrived while a step waited: a cancel sets the flag,
    /// other requests wait for the main loop.
    fn absorb(&mut self, msg: &Value) {
        match msg.get("method").and_then(Value::as_str) {
            Some("session/cancel") => self.cancelled = true,
            Some(_) if msg.get("id").is_some() => self.backlog.push_back(msg.clone()),
            _ => {}
        }
    }

    fn cancel_honoured(&self) -> bool {
        self.cancelled && self.script.get("ignoreCancel").and_then(Value::as_bool) != Some(true)
    }

    fn drain(&mut self) {
        while let Ok(msg) = self.rx.try_recv() {
            self.absorb(&msg);
        }
    }

    fn steps(&mut self, steps: &Value) -> Flow {
        for step in steps.as_array().into_iter().flatten() {
            self.drain();
            if self.cancel_honoured() {
                return Flow::Cancelled;
            }
            match self.step(step) {
                Flow::Continue => {}
                other => return other,
            }
        }
        Flow::Continue
    }

    fn step(&mut self, step: &Value) -> Flow {
        // The step's kind is its one key besides the modifiers (`id`,
        // `then`, `usage`): a JSON object's key order is not guaranteed.
        let Some((key, arg)) =
            step.as_object().and_then(|o| o.iter().find(|(k, _)| !matches!(k.as_str(), "id" | "then" | "usage")))
        else {
            return Flow::Continue;
        };
        match key.as_str() {
            "update" => self.update(arg.clone()),
            "chunk" | "thought" => {
                let kind = if key == "chunk" { "agent_message_chunk" } else { "agent_thought_chunk" };
                self.update(json!({ "sessionUpdate": kind, "content": { "type": "text", "text": arg } }));
            }
            "echo" => {
                let mut text = format!("echo: {}", self.prompt_text);
                if let Some(m) = &self.model {
                    text.push_str(&format!(" [model={m}]"));
                }
                if let Some(m) = &self.restored {
                    text.push_str(&format!(" [restored by {m}]"));
                }
                self.update(
                    json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": text } }),
                );
            }
            "echoPrompt" => {
                let text = self.prompt.to_string();
                self.update(
                    json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": text } }),
                );
            }
            "fail" => {
                if let Some(id) = self.prompt_id.take() {
                    let error = json!({ "code": arg.get("code").cloned().unwrap_or(json!(-32603)), "message": arg.get("message").cloned().unwrap_or(json!("failed")) });
                    self.send(json!({ "jsonrpc": "2.0", "id": id, "error": error }));
                }
                return Flow::Ended;
            }
            "raw" => self.send(arg.clone()),
            "garbage" => {
                // Written as is: broken JSON, stray logging, control bytes;
                // an array of numbers is written as those bytes (not UTF-8).
                let bytes: Vec<u8> = match arg {
                    Value::Array(b) => b.iter().filter_map(Value::as_u64).map(|b| b as u8).collect(),
                    other => other.as_str().unwrap_or("").as_bytes().to_vec(),
                };
                let _ = self.out.write_all(&bytes);
                let _ = self.out.flush();
            }
            "sleep" => {
                let until = Instant::now() + Duration::from_millis(arg.as_u64().unwrap_or(0));
                while Instant::now() < until {
                    if let Ok(msg) = self.rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
                        self.absorb(&msg);
                        if self.cancel_honoured() {
                            return Flow::Cancelled;
                        }
                    }
                }
            }
            "crash" => {
                if let Some(text) = arg.get("stderr").and_then(Value::as_str) {
                    eprintln!("{text}");
                }
                std::process::exit(arg.get("code").and_then(Value::as_i64).unwrap_or(1) as i32);
            }
            "hang" => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            "flood" => self.flood(arg),
            // Edits made through the agent's own file I/O and through a shell
            // command (not ACP `fs/*`): the host must see them anyway.
            "writeFile" => {
                let path = Path::new(&self.cwd).join(arg.get("path").and_then(Value::as_str).unwrap_or("out.txt"));
                let _ = std::fs::write(path, arg.get("text").and_then(Value::as_str).unwrap_or(""));
            }
            "deleteFile" => {
                let _ = std::fs::remove_file(Path::new(&self.cwd).join(arg.as_str().unwrap_or("")));
            }
            "shell" => {
                let cmd = arg.as_str().unwrap_or("true");
                let _ = std::process::Command::new("sh").arg("-c").arg(cmd).current_dir(&self.cwd).status();
            }
            "end" | "endRaw" => {
                let mut result = if key == "endRaw" { arg.clone() } else { json!({ "stopReason": arg }) };
                if let (Some(r), Some(usage)) = (result.as_object_mut(), step.get("usage")) {
                    r.insert("usage".into(), usage.clone());
                }
                return self.respond_prompt(result);
            }
            "request" => return self.request(step, arg),
            "elicit" => {
                let mut params =
                    json!({ "sessionId": "$SID", "message": arg.get("message").cloned().unwrap_or(json!("")) });
                match arg.get("url") {
                    Some(url) => {
                        params["mode"] = json!("url");
                        params["url"] = url.clone();
                        params["elicitationId"] = json!(format!("elicit-{}", self.next_id));
                    }
                    None => {
                        params["mode"] = json!("form");
                        params["requestedSchema"] =
                            arg.get("schema").cloned().unwrap_or(json!({ "type": "object", "properties": {} }));
                    }
                }
                return self.request(step, &json!({ "method": "elicitation/create", "params": params }));
            }
            other => eprintln!("fake-agent: unknown step {other}"),
        }
        Flow::Continue
    }

    /// `count` chunks as fast as possible: first into a sink that never
    /// blocks (the agent's own cost), then to the host (which may block on a
    /// full pipe). Times go to stderr and, as JSON, to `FAKE_ACP_REPORT`:
    /// `sinkMs`, `pipeMs`, and wall-clock (Unix ms) `promptAt` (prompt
    /// received), `pipeStartAt`, `pipeEndAt`.
    fn flood(&mut self, arg: &Value) {
        let count = arg.get("count").and_then(Value::as_u64).unwrap_or(10_000);
        let text = arg.get("text").and_then(Value::as_str).unwrap_or("x").to_owned();
        let sid = self.sid.clone();
        let emit = |out: &mut dyn Write| {
            for _ in 0..count {
                let msg = json!({ "jsonrpc": "2.0", "method": "session/update", "params": { "sessionId": sid, "update": { "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": text } } } });
                let _ = writeln!(out, "{msg}");
            }
            let _ = out.flush();
        };
        let start = Instant::now();
        emit(&mut std::io::BufWriter::new(std::io::sink()));
        let sink_ms = start.elapsed().as_secs_f64() * 1000.0;
        let pipe_start_at = unix_ms();
        let start = Instant::now();
        emit(&mut self.out);
        let pipe_ms = start.elapsed().as_secs_f64() * 1000.0;
        let pipe_end_at = unix_ms();
        eprintln!("FLOOD_EMIT_MS={pipe_ms:.3} FLOOD_SINK_MS={sink_ms:.3}");
        if let Ok(path) = std::env::var("FAKE_ACP_REPORT") {
            let report = json!({ "sinkMs": sink_ms, "pipeMs": pipe_ms, "promptAt": self.prompt_at, "pipeStartAt": pipe_start_at, "pipeEndAt": pipe_end_at });
            let _ = std::fs::write(path, report.to_string());
        }
    }

    fn respond_prompt(&mut self, result: Value) -> Flow {
        if let Some(id) = self.prompt_id.take() {
            self.respond(&id, result);
        }
        Flow::Ended
    }

    fn request(&mut self, step: &Value, arg: &Value) -> Flow {
        let id = step.get("id").cloned().unwrap_or_else(|| {
            let id = self.next_id;
            self.next_id += 1;
            json!(id)
        });
        let mut params = arg.get("params").cloned().unwrap_or(json!({}));
        if let Some(p) = params.as_object_mut() {
            p.entry("sessionId").or_insert(json!("$SID"));
        }
        let method = arg.get("method").cloned().unwrap_or(Value::Null);
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let answer = loop {
            let Ok(msg) = self.rx.recv() else {
                std::process::exit(0);
            };
            if msg.get("method").is_none() && msg.get("id") == Some(&id) {
                break msg;
            }
            self.absorb(&msg);
            if self.cancel_honoured() {
                return Flow::Cancelled;
            }
        };
        eprintln!("fake-agent: answer {answer}");
        if let Some(terminal) = answer.pointer("/result/terminalId").and_then(Value::as_str) {
            self.terminal = terminal.to_owned();
        }
        self.result = answer.get("result").or_else(|| answer.get("error")).map(Value::to_string).unwrap_or_default();
        if let Some(action) = answer.pointer("/result/action").and_then(Value::as_str) {
            self.answer = match answer.pointer("/result/content") {
                Some(content) => content.to_string(),
                None => action.to_owned(),
            };
        }
        let Some(branches) = step.get("then").and_then(Value::as_object) else {
            return Flow::Continue;
        };
        let outcome = answer.pointer("/result/outcome");
        let elicited = answer.pointer("/result/action").and_then(Value::as_str);
        let key = match (outcome.and_then(|o| o.get("outcome")).and_then(Value::as_str), elicited) {
            (Some("selected"), _) => {
                outcome.and_then(|o| o.get("optionId")).and_then(Value::as_str).unwrap_or_default().to_owned()
            }
            (Some(other), _) | (None, Some(other)) => other.to_owned(),
            (None, None) => {
                if answer.get("error").is_some() {
                    "error".to_owned()
                } else {
                    "ok".to_owned()
                }
            }
        };
        let branch = branches.get(&key).or_else(|| branches.get("*")).cloned().unwrap_or(Value::Array(vec![]));
        self.steps(&branch)
    }
}
