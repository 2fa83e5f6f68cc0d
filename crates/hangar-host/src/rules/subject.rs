//! THE one place where each agent's way of describing a tool call in ACP is
//! mapped onto what a rule matches: a [`Tool`] and its subjects (a command
//! line, paths, an MCP server and tool, a domain).
//!
//! What agents send (see the recorded transcripts in
//! `/work/shared/fixtures/acp-transcripts/` and `docs/host.md`):
//! - a command in `rawInput.command`: a string (Claude's `Bash`, plain ACP
//!   `execute`, Gemini/Qwen `run_shell_command`, OpenCode `bash`) or an argv
//!   array (Codex: `["/bin/bash", "-lc", "cat hello.txt"]`, where
//!   `sh|bash|zsh -c|-lc SCRIPT` is the script itself). A command is a
//!   `shell` request whatever the tool call's `kind` says (Codex reads
//!   files with `cat` under kind `read`).
//! - file paths for `edit` / `delete` / `move` and `read` kinds:
//!   `rawInput.file_path` (Claude, Qwen), `filepath` (OpenCode), `fileName`
//!   (Copilot), `path` (plain ACP), the keys of `rawInput.changes` (Codex's
//!   patch), the diffs' paths and the `locations`.
//! - MCP tools: Claude's titles `mcp__SERVER__TOOL`; `rawInput.server` with
//!   `rawInput.tool`.
//! - fetches: `rawInput.url` (Claude's `WebFetch`, Gemini's `web_fetch`),
//!   with kind `fetch` or not.
//!
//! Anything else maps to nothing: no rule answers it, the person is asked.

use std::path::PathBuf;

use serde_json::Value;

use super::Tool;

/// What a rule of the request's [`Tool`] is matched against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSubject {
    /// A command line (split into its commands when matched).
    Command(String),
    /// A file the call reads or changes (absolute, or relative to the
    /// session's folder).
    Path(PathBuf),
    /// An MCP server and one of its tools.
    Mcp {
        /// The server's name.
        server: String,
        /// The tool's name.
        tool: String,
    },
    /// The host a fetch reaches.
    Domain(String),
}

/// One permission request in rule terms: every subject must be allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRequest {
    /// The kind of tool call.
    pub tool: Tool,
    /// What it touches (never empty).
    pub subjects: Vec<ToolSubject>,
}

/// The facts of a tool call a request is made of (from the permission
/// request, completed by what earlier `tool_call`s of the same call said).
#[derive(Debug, Clone, Default)]
pub struct ToolCallFacts {
    /// ACP `kind` (`execute`, `edit`, `read`, `fetch`, …).
    pub kind: Option<String>,
    /// The title.
    pub title: String,
    /// `rawInput`.
    pub raw_input: Option<Value>,
    /// Paths of the diffs in its content and of its `locations`.
    pub paths: Vec<PathBuf>,
}

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash"];

/// The script of an argv that only runs a shell on one (`bash -lc SCRIPT`),
/// else the argv quoted back into one command line.
fn argv_command(argv: &[String]) -> Option<String> {
    if let [shell, flag, script] = argv {
        let name = shell.rsplit('/').next().unwrap_or(shell);
        if SHELLS.contains(&name) && flag.starts_with('-') && flag.ends_with('c') {
            return Some(script.clone());
        }
    }
    shlex::try_join(argv.iter().map(String::as_str)).ok()
}

fn command(raw: &Value) -> Option<String> {
    match raw.get("command")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let argv: Option<Vec<String>> = items.iter().map(|v| v.as_str().map(str::to_owned)).collect();
            argv_command(&argv?)
        }
        _ => None,
    }
}

fn mcp(facts: &ToolCallFacts) -> Option<ToolSubject> {
    if let Some((server, tool)) = facts.title.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")) {
        let tool = tool.split_whitespace().next().unwrap_or(tool);
        return Some(ToolSubject::Mcp { server: server.to_owned(), tool: tool.to_owned() });
    }
    let raw = facts.raw_input.as_ref()?;
    let server = raw.get("server").and_then(Value::as_str)?;
    let tool = raw.get("tool").and_then(Value::as_str)?;
    Some(ToolSubject::Mcp { server: server.to_owned(), tool: tool.to_owned() })
}

fn domain(raw: &Value) -> Option<String> {
    let url = raw.get("url").and_then(Value::as_str)?;
    let uri: http::Uri = url.parse().ok()?;
    uri.host().map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

const PATH_KEYS: &[&str] = &["file_path", "filepath", "fileName", "path", "absolute_path", "notebook_path"];

fn paths(facts: &ToolCallFacts) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(raw) = &facts.raw_input {
        out.extend(PATH_KEYS.iter().filter_map(|k| raw.get(*k).and_then(Value::as_str)).map(PathBuf::from));
        if let Some(changes) = raw.get("changes").and_then(Value::as_object) {
            out.extend(changes.keys().map(PathBuf::from));
        }
    }
    out.extend(facts.paths.iter().cloned());
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| !p.as_os_str().is_empty() && seen.insert(p.clone()));
    out
}

/// The request a tool call makes, or `None` when no rule can answer it.
pub fn of_tool_call(facts: &ToolCallFacts) -> Option<ToolRequest> {
    let one = |tool, subject| Some(ToolRequest { tool, subjects: vec![subject] });
    if let Some(line) = facts.raw_input.as_ref().and_then(command) {
        return one(Tool::Shell, ToolSubject::Command(line));
    }
    if let Some(subject) = mcp(facts) {
        return one(Tool::Mcp, subject);
    }
    if let Some(host) = facts.raw_input.as_ref().and_then(domain) {
        return one(Tool::Fetch, ToolSubject::Domain(host));
    }
    let tool = match facts.kind.as_deref()? {
        "edit" | "delete" | "move" => Tool::Edit,
        "read" => Tool::Read,
        _ => return None,
    };
    let subjects: Vec<ToolSubject> = paths(facts).into_iter().map(ToolSubject::Path).collect();
    (!subjects.is_empty()).then_some(ToolRequest { tool, subjects })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(kind: &str, title: &str, raw: Value) -> ToolCallFacts {
        ToolCallFacts { kind: Some(kind.to_owned()), title: title.to_owned(), raw_input: Some(raw), paths: vec![] }
    }

    fn shell(line: &str) -> Option<ToolRequest> {
        Some(ToolRequest { tool: Tool::Shell, subjects: vec![ToolSubject::Command(line.to_owned())] })
    }

    #[test]
    fn commands_of_every_agent() {
        // Claude's Bash, plain ACP execute.
        let claude = facts("execute", "npm test", json!({"command": "npm test", "description": "Run tests"}));
        assert_eq!(of_tool_call(&claude), shell("npm test"));
        // Codex: an argv through a login shell, even under kind `read`.
        let codex = facts("read", "Read hello.txt", json!({"command": ["/bin/bash", "-lc", "cat hello.txt"]}));
        assert_eq!(of_tool_call(&codex), shell("cat hello.txt"));
        let argv = facts("execute", "ls", json!({"command": ["ls", "-la", "my dir"]}));
        assert_eq!(of_tool_call(&argv), shell("ls -la 'my dir'"));
    }

    #[test]
    fn mcp_tools_and_fetches() {
        let claude = facts("other", "mcp__github__create_issue", json!({"title": "x"}));
        let want = ToolSubject::Mcp { server: "github".into(), tool: "create_issue".into() };
        assert_eq!(of_tool_call(&claude), Some(ToolRequest { tool: Tool::Mcp, subjects: vec![want.clone()] }));
        let plain = facts("other", "Create issue", json!({"server": "github", "tool": "create_issue"}));
        assert_eq!(of_tool_call(&plain).unwrap().subjects, vec![want]);
        let fetch = facts("fetch", "Fetch", json!({"url": "https://Docs.Example.com/a?b", "prompt": "x"}));
        assert_eq!(
            of_tool_call(&fetch),
            Some(ToolRequest { tool: Tool::Fetch, subjects: vec![ToolSubject::Domain("docs.example.com".into())] })
        );
        assert_eq!(of_tool_call(&facts("think", "Thinking", json!({}))), None);
        assert_eq!(of_tool_call(&facts("execute", "npm test", json!({}))), None, "no command, no guess");
    }

    /// Each recorded agent's permission request maps onto an edit of the
    /// workspace's `hello.txt`.
    #[test]
    fn recorded_permission_requests_map_to_their_file() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/e2e/fixtures/acp-transcripts");
        let mut seen = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| n.ends_with(".jsonl")) else {
                continue;
            };
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                let update = &v["msg"]["params"]["update"];
                if let Some(argv) = update["rawInput"]["command"].as_array() {
                    // Codex's reads are commands: `bash -lc "cat FILE"`.
                    let f = facts("read", "", update["rawInput"].clone());
                    let script = argv.last().and_then(Value::as_str).unwrap();
                    assert_eq!(of_tool_call(&f), shell(script), "{name}");
                    seen.push(format!("{}-command", name.split('.').next().unwrap()));
                }
                if v["msg"]["method"] != "session/request_permission" {
                    continue;
                }
                let call = &v["msg"]["params"]["toolCall"];
                let mut f = ToolCallFacts {
                    kind: call["kind"].as_str().map(str::to_owned),
                    title: call["title"].as_str().unwrap_or_default().to_owned(),
                    raw_input: call.get("rawInput").cloned(),
                    paths: vec![],
                };
                for l in call["locations"].as_array().into_iter().flatten() {
                    f.paths.push(PathBuf::from(l["path"].as_str().unwrap()));
                }
                let request = of_tool_call(&f).unwrap_or_else(|| panic!("{name}: {call}"));
                assert_eq!(request.tool, Tool::Edit, "{name}");
                let file =
                    if name.starts_with("sdk") { "/home/user/project/config.json" } else { "/workspace/hello.txt" };
                assert_eq!(request.subjects, vec![ToolSubject::Path(PathBuf::from(file))], "{name}");
                seen.push(name.split('.').next().unwrap().to_owned());
            }
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen, ["claude", "codex", "codex-command", "copilot", "gemini", "opencode", "qwen", "sdk"]);
    }
}
