//! MCP server entries of the five file dialects (`layout::Dialect`) as
//! `mcpServer` customizations (`state: stopped`: the agent runs them, not
//! the host) with the entry's `range`, and as [`McpLaunch`]es with
//! `${VAR}` expanded. `_meta["hangar.mcp"]` summarizes the entry for
//! display — transport, command, args, cwd, url, env and header names —
//! with secret-looking values hidden (`secrets.rs`).

use ahp_types::common::JsonObject;
use ahp_types::state::{
    ChildCustomization, ErrorInfo, McpServerCustomization, McpServerErrorState, McpServerState, McpServerStoppedState,
};
use serde_json::{json, Map, Value};

use super::super::{McpLaunch, McpTransport};
use super::layout::{Dialect, Kind, Read};
use super::secrets::{shown, shown_arg, shown_url};
use super::source::{with_base, Outcome, Source};
use super::spans::SpannedDoc;
use super::{expand, json_spans, text, toml_spans};

/// One server found in a file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// As a customization.
    pub server: McpServerCustomization,
    /// How the agent reaches it (`None` for a transport ACP can't pass, such as `ws`).
    pub launch: Option<McpLaunch>,
}

/// How an entry is reached, as written.
#[derive(Debug, Clone, Default)]
struct Written {
    transport: String,
    command: Option<String>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    cwd: Option<String>,
    url: Option<String>,
    headers: Vec<(String, String)>,
    /// The file's own switch (`enabled = false` in Codex and OpenCode).
    enabled: Option<bool>,
}

/// The servers of `src` (an MCP file of the table), or why the file can't
/// be read.
pub fn entries(src: &Source) -> Result<Vec<Entry>, String> {
    let Read::Mcp(dialect) = src.place.read else {
        return Ok(Vec::new());
    };
    let text = text::read_text(&src.path)?;
    let doc = match dialect {
        Dialect::Codex => toml_spans::parse(&text)?,
        _ => json_spans::parse(&text)?,
    };
    let key = match dialect {
        Dialect::Claude | Dialect::Gemini => "mcpServers",
        Dialect::VsCode => "servers",
        Dialect::OpenCode => "mcp",
        Dialect::Codex => "mcp_servers",
    };
    let Some(servers) = doc.value.get(key).and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    Ok(servers
        .iter()
        .filter_map(|(name, spec)| Some(entry(src, &doc, key, name, written(dialect, spec.as_object()?))))
        .collect())
}

/// A plugin's MCP file as children (and launches).
pub fn read_children(src: &Source) -> Outcome {
    match entries(src) {
        Ok(entries) => Outcome {
            children: entries.iter().map(|e| ChildCustomization::McpServer(Box::new(e.server.clone()))).collect(),
            mcp: entries.into_iter().filter_map(|e| e.launch).collect(),
            problem: None,
        },
        Err(e) => Outcome {
            children: vec![ChildCustomization::McpServer(Box::new(broken(src, &e)))],
            problem: Some(src.problem(&e)),
            mcp: Vec::new(),
        },
    }
}

/// A file that does not parse, as one server in `error` state named after
/// the file.
pub fn broken(src: &Source, problem: &str) -> McpServerCustomization {
    let base = src.base(Kind::McpServer, "", src.default_name("/"), None);
    with_base!(McpServerCustomization, base, {
        enablement: None,
        state: McpServerState::Error(McpServerErrorState {
            error: ErrorInfo {
                error_type: "parse".to_owned(),
                message: src.problem(problem),
                stack: None,
                meta: None,
            },
        }),
        channel: None,
        mcp_app: None,
    })
}

fn entry(src: &Source, doc: &SpannedDoc, key: &str, name: &str, written: Written) -> Entry {
    let at = [key, name];
    let mut base = src.base(Kind::McpServer, &doc.id_pointer(&at), name.to_owned(), doc.range(&at));
    base.meta.insert("hangar.mcp".to_owned(), Value::Object(summary(&written)));
    if written.enabled == Some(false) {
        base.meta.insert("hangar.disabledInFile".to_owned(), json!(true));
    }
    let id = base.id.clone();
    let server = with_base!(McpServerCustomization, base, {
        enablement: None,
        state: McpServerState::Stopped(McpServerStoppedState {}),
        channel: None,
        mcp_app: None,
    });
    let launch = transport(src, &written).map(|transport| McpLaunch { id, name: name.to_owned(), transport });
    Entry { server, launch }
}

fn written(dialect: Dialect, spec: &Map<String, Value>) -> Written {
    let text = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_owned);
    let strings = |key: &str| -> Vec<String> {
        spec.get(key).and_then(Value::as_array).into_iter().flatten().map(scalar).collect()
    };
    let pairs = |key: &str| -> Vec<(String, String)> {
        spec.get(key).and_then(Value::as_object).into_iter().flatten().map(|(k, v)| (k.clone(), scalar(v))).collect()
    };
    let (command, url) = (text("command"), text("url"));
    let mut w = Written {
        command: command.clone(),
        args: strings("args"),
        env: pairs("env"),
        cwd: text("cwd"),
        url: url.clone(),
        headers: pairs("headers"),
        enabled: spec.get("enabled").and_then(Value::as_bool),
        ..Written::default()
    };
    let kind = text("type");
    w.transport = match dialect {
        Dialect::Claude | Dialect::VsCode => match kind.as_deref() {
            Some("stdio" | "local") => "stdio".to_owned(),
            Some("http" | "streamable-http" | "streamableHttp") => "http".to_owned(),
            Some(other) => other.to_owned(),
            None if command.is_none() && url.is_some() => "http".to_owned(),
            None => "stdio".to_owned(),
        },
        Dialect::Gemini => match text("httpUrl") {
            Some(http) => {
                w.url = Some(http);
                "http".to_owned()
            }
            None if url.is_some() && kind.as_deref() == Some("http") => "http".to_owned(),
            None if url.is_some() => "sse".to_owned(),
            None => "stdio".to_owned(),
        },
        Dialect::OpenCode => {
            w.env = pairs("environment");
            let mut parts = strings("command").into_iter();
            w.command = parts.next();
            w.args = parts.collect();
            if kind.as_deref() == Some("remote") { "http" } else { "stdio" }.to_owned()
        }
        Dialect::Codex => {
            w.env.extend(strings("env_vars").into_iter().map(|name| (name.clone(), format!("${{{name}}}"))));
            w.headers = pairs("http_headers");
            w.headers.extend(pairs("env_http_headers").into_iter().map(|(h, var)| (h, format!("${{{var}}}"))));
            if let Some(var) = text("bearer_token_env_var") {
                w.headers.push(("Authorization".to_owned(), format!("Bearer ${{{var}}}")));
            }
            if url.is_some() { "http" } else { "stdio" }.to_owned()
        }
    };
    w
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The display summary: values as written, secrets hidden.
fn summary(w: &Written) -> JsonObject {
    let mut out = JsonObject::new();
    out.insert("transport".to_owned(), json!(w.transport));
    if let Some(command) = &w.command {
        out.insert("command".to_owned(), json!(shown_arg(command)));
    }
    if !w.args.is_empty() {
        out.insert("args".to_owned(), json!(w.args.iter().map(|a| shown_arg(a)).collect::<Vec<_>>()));
    }
    if let Some(cwd) = &w.cwd {
        out.insert("cwd".to_owned(), json!(cwd));
    }
    if let Some(url) = &w.url {
        out.insert("url".to_owned(), json!(shown_url(url)));
    }
    for (key, pairs) in [("env", &w.env), ("headers", &w.headers)] {
        if !pairs.is_empty() {
            let map: Map<String, Value> = pairs.iter().map(|(k, v)| (k.clone(), json!(shown(k, v)))).collect();
            out.insert(key.to_owned(), Value::Object(map));
        }
    }
    out
}

/// The launch, with variables expanded (`None` for an unknown transport).
fn transport(src: &Source, w: &Written) -> Option<McpTransport> {
    let root = src.root.display().to_string();
    let extra: Vec<(&str, String)> = match src.plugin {
        Some(_) => vec![("CLAUDE_PLUGIN_ROOT", root.clone()), ("PLUGIN_ROOT", root)],
        None => vec![("workspaceFolder", root)],
    };
    let x = |s: &str| expand::expand(s, &extra);
    let pairs = |pairs: &[(String, String)]| pairs.iter().map(|(k, v)| (k.clone(), x(v))).collect();
    let url = || w.url.as_deref().map(x);
    Some(match w.transport.as_str() {
        "stdio" => McpTransport::Stdio {
            command: x(w.command.as_deref()?),
            args: w.args.iter().map(|a| x(a)).collect(),
            env: pairs(&w.env),
            cwd: w.cwd.as_deref().map(|cwd| src.root.join(x(cwd))),
        },
        "http" => McpTransport::Http { url: url()?, headers: pairs(&w.headers) },
        "sse" => McpTransport::Sse { url: url()?, headers: pairs(&w.headers) },
        _ => return None,
    })
}
