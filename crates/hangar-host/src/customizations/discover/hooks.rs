//! The hooks of a settings or hooks file, one `hook` child per handler
//! with the handler's `range`. Three shapes are read:
//! - Claude, Codex, Gemini, Qwen: `hooks.<Event>: [{matcher?, hooks: [handler]}]`
//!   (pointer `/hooks/<Event>/<i>/hooks/<j>`);
//! - VS Code: `hooks.<Event>: [handler]` with no matcher level, and
//! - the Copilot CLI's `{"version": 1, "hooks": {"preToolUse": [handler]}}`
//!   (both: pointer `/hooks/<Event>/<i>`).
//!
//! Codex's inline `[hooks]` in `config.toml` has Claude's shape in TOML
//! (ids then use TOML paths: `hooks.PreToolUse.0.hooks.1`).
//!
//! A handler's name says when and what: `PreToolUse: Bash → ./check.sh`.

use ahp_types::state::ChildCustomization;
use serde_json::Value;

use super::layout::Kind;
use super::source::{with_base, Base, Outcome, Source};
use super::text;
use super::{json_spans, toml_spans};

/// Longest command shown in a hook's name.
const MAX_SHOWN: usize = 80;

/// The hooks in `src` (a file that does not parse yields one child named
/// after the file, and the problem).
pub fn read(src: &Source) -> Outcome {
    let toml = src.path.extension().is_some_and(|ext| ext == "toml");
    let parsed =
        text::read_text(&src.path)
            .and_then(|text| if toml { toml_spans::parse(&text) } else { json_spans::parse(&text) });
    let doc = match parsed {
        Ok(doc) => doc,
        Err(e) => {
            let base = src.base(Kind::Hook, "", src.default_name("/"), None);
            return Outcome { children: vec![hook(base)], problem: Some(src.problem(&e)), mcp: Vec::new() };
        }
    };
    let mut children = Vec::new();
    let Some(events) = doc.value.get("hooks").and_then(Value::as_object) else {
        return Outcome::default();
    };
    for (event, entries) in events {
        for (i, entry) in entries.as_array().into_iter().flatten().enumerate() {
            let i = i.to_string();
            match entry.get("hooks").and_then(Value::as_array) {
                Some(handlers) => {
                    let matcher = entry.get("matcher").and_then(Value::as_str).filter(|m| !m.is_empty());
                    for (j, handler) in handlers.iter().enumerate() {
                        let at = ["hooks", event.as_str(), i.as_str(), "hooks", &j.to_string()];
                        let name = title(event, matcher, handler);
                        children.push(hook(src.base(Kind::Hook, &doc.id_pointer(&at), name, doc.range(&at))));
                    }
                }
                None => {
                    let at = ["hooks", event.as_str(), i.as_str()];
                    let name = title(event, None, entry);
                    children.push(hook(src.base(Kind::Hook, &doc.id_pointer(&at), name, doc.range(&at))));
                }
            }
        }
    }
    Outcome { children, problem: None, mcp: Vec::new() }
}

fn hook(base: Base) -> ChildCustomization {
    ChildCustomization::Hook(with_base!(HookCustomization, base, { enabled: None }))
}

/// `"<Event>: <matcher> → <what>"` (no `: <matcher>` without one).
fn title(event: &str, matcher: Option<&str>, handler: &Value) -> String {
    let what = what(handler);
    match matcher {
        Some(matcher) => format!("{event}: {matcher} → {what}"),
        None => format!("{event} → {what}"),
    }
}

/// What a handler runs: its command (or `exec` and `args`, or the
/// platform command), URL, MCP tool, or type.
fn what(handler: &Value) -> String {
    let field = |key: &str| handler.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let shown = if let Some(command) = field("command").or_else(|| field("bash")).or_else(|| field("powershell")) {
        command.to_owned()
    } else if let Some(exec) = field("exec") {
        let args = handler.get("args").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
        std::iter::once(exec).chain(args).collect::<Vec<_>>().join(" ")
    } else if let Some(url) = field("url") {
        url.to_owned()
    } else if let (Some(server), Some(tool)) = (field("server"), field("tool")) {
        format!("{server}/{tool}")
    } else {
        field("type").unwrap_or("hook").to_owned()
    };
    let shown = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    match shown.char_indices().nth(MAX_SHOWN) {
        Some((cut, _)) => format!("{}…", &shown[..cut]),
        None => shown,
    }
}
