//! One Gemini CLI conversation file (`~/.gemini/tmp/<project>/chats/
//! session-*.jsonl`, or `.json` from older versions) read the way Gemini
//! CLI 0.61 reads it for its session list (`loadConversationRecord` with
//! `metadataOnly`, then `parseLegacyRecordFallback`): JSON lines that are
//! message records (`id`), metadata (`sessionId` + `projectHash`, maybe
//! with `messages`), updates (`$set`, maybe replacing `messages`) and
//! rewinds (`$rewindTo`); a file whose lines never give both `sessionId`
//! and `projectHash` is one legacy JSON object.

use serde_json::{Map, Value};

/// What the session list needs of one conversation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    /// Gemini's session id (what ACP `session/load` takes).
    pub session_id: String,
    /// Its summary, when Gemini made one.
    pub summary: Option<String>,
    /// The first user message that counts (not a command, not context).
    pub first_user_message: Option<String>,
    /// `lastUpdated`, else `startTime`.
    pub last_updated: Option<String>,
    /// `main`, or `subagent` for a subagent's own conversation.
    pub kind: Option<String>,
    /// Whether any message can be resumed (Gemini lists only those).
    pub resumable: bool,
}

/// One message as far as the list cares.
struct Message {
    id: String,
    user: bool,
    resumable: bool,
    text: String,
}

/// Read `text` (a whole file); `None` when it is no conversation.
pub fn parse(text: &str) -> Option<Record> {
    let mut metadata = Map::new();
    let mut messages: Vec<Message> = Vec::new();
    let mut first_user: Option<String> = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(Value::Object(record)) = serde_json::from_str::<Value>(line) else { continue };
        if let Some(to) = record.get("$rewindTo").and_then(Value::as_str) {
            let at = messages.iter().position(|m| m.id == to).unwrap_or(0);
            messages.truncate(at);
        } else if record.get("id").is_some_and(Value::is_string) {
            add(&mut messages, &mut first_user, &record);
        } else if let Some(Value::Object(set)) = record.get("$set") {
            if let Some(list) = set.get("messages").and_then(Value::as_array) {
                messages.clear();
                add_all(&mut messages, &mut first_user, list);
            }
            metadata.extend(set.clone());
        } else if is_str(&record, "sessionId") && is_str(&record, "projectHash") {
            if let Some(list) = record.get("messages").and_then(Value::as_array) {
                add_all(&mut messages, &mut first_user, list);
            }
            metadata.extend(record);
        }
    }
    if !(is_str(&metadata, "sessionId") && is_str(&metadata, "projectHash")) {
        return legacy(text);
    }
    Some(record_from(&metadata, &messages, first_user))
}

/// An older whole-file JSON conversation (`{sessionId, messages, ...}`).
fn legacy(text: &str) -> Option<Record> {
    let Ok(Value::Object(record)) = serde_json::from_str::<Value>(text) else { return None };
    record.get("sessionId")?;
    let mut messages = Vec::new();
    let mut first_user = None;
    if let Some(list) = record.get("messages").and_then(Value::as_array) {
        add_all(&mut messages, &mut first_user, list);
    }
    Some(record_from(&record, &messages, first_user))
}

fn record_from(metadata: &Map<String, Value>, messages: &[Message], first_user: Option<String>) -> Record {
    let text = |k: &str| metadata.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    // A message record read before a rewind still names the first user
    // message (as in Gemini); else the first one left that counts.
    let first_user = first_user.or_else(|| messages.iter().find(|m| m.user && m.resumable).map(|m| m.text.clone()));
    Record {
        session_id: text("sessionId").unwrap_or_default(),
        summary: text("summary"),
        first_user_message: first_user,
        last_updated: text("lastUpdated").or_else(|| text("startTime")),
        kind: text("kind"),
        resumable: messages.iter().any(|m| m.resumable),
    }
}

fn add_all(messages: &mut Vec<Message>, first_user: &mut Option<String>, list: &[Value]) {
    for m in list.iter().filter_map(Value::as_object).filter(|m| is_str(m, "id")) {
        add(messages, first_user, m);
    }
}

fn add(messages: &mut Vec<Message>, first_user: &mut Option<String>, record: &Map<String, Value>) {
    let text = content_text(record.get("content"));
    let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
    let user = kind == "user";
    let resumable = match kind {
        "user" => !ignored_user_text(text.trim()),
        "gemini" => {
            let has = |k: &str| record.get(k).and_then(Value::as_array).is_some_and(|a| !a.is_empty());
            !text.trim().is_empty() || has("toolCalls") || has("thoughts")
        }
        _ => false,
    };
    if user && resumable && first_user.is_none() {
        *first_user = Some(text.clone());
    }
    let id = record.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
    messages.push(Message { id, user, resumable, text });
}

/// A message's text: a string, or the `text` of its parts.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        Some(part @ Value::Object(_)) => part.get("text").and_then(Value::as_str).unwrap_or_default().to_owned(),
        _ => String::new(),
    }
}

/// Gemini's `isIgnoredUserContent`: empty, a command, or injected context.
fn ignored_user_text(trimmed: &str) -> bool {
    trimmed.is_empty()
        || trimmed.starts_with('/')
        || trimmed.starts_with('?')
        || trimmed.starts_with("<session_context>")
        || trimmed.starts_with("<hook_context>")
}

fn is_str(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key).is_some_and(Value::is_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(records: &[Value]) -> String {
        records.iter().map(|r| format!("{r}\n")).collect()
    }

    fn meta() -> Value {
        json!({ "sessionId": "s-1", "projectHash": "abc", "startTime": "2026-11-01T10:00:00.000Z",
                "lastUpdated": "2026-11-01T10:00:00.000Z", "kind": "main" })
    }

    #[test]
    fn jsonl_metadata_messages_and_updates_make_the_record() {
        let text = lines(&[
            meta(),
            json!({ "id": "m1", "type": "user", "content": [{ "text": "/help" }] }),
            json!({ "id": "m2", "type": "user", "content": [{ "text": "Why is " }, { "text": "the build red?" }] }),
            json!({ "id": "m3", "type": "gemini", "content": "Because of the lockfile." }),
            json!({ "$set": { "lastUpdated": "2026-11-02T09:00:00.000Z" } }),
        ]);
        let r = parse(&text).unwrap();
        assert_eq!(r.session_id, "s-1");
        assert_eq!(r.first_user_message.as_deref(), Some("Why is the build red?"));
        assert_eq!(r.last_updated.as_deref(), Some("2026-11-02T09:00:00.000Z"));
        assert_eq!(r.summary, None);
        assert_eq!(r.kind.as_deref(), Some("main"));
        assert!(r.resumable);
    }

    #[test]
    fn only_commands_or_a_rewind_to_the_start_leave_nothing_to_resume() {
        let commands = lines(&[meta(), json!({ "id": "m1", "type": "user", "content": "/stats" })]);
        assert!(!parse(&commands).unwrap().resumable);
        let rewound = lines(&[
            meta(),
            json!({ "id": "m1", "type": "user", "content": "hello" }),
            json!({ "id": "m2", "type": "gemini", "content": "hi" }),
            json!({ "$rewindTo": "m1" }),
        ]);
        assert!(!parse(&rewound).unwrap().resumable);
        let info_only = lines(&[meta(), json!({ "id": "m1", "type": "info", "content": "Saved." })]);
        assert!(!parse(&info_only).unwrap().resumable);
    }

    #[test]
    fn a_set_of_messages_replaces_them_and_a_summary_is_kept() {
        let text = lines(&[
            meta(),
            json!({ "id": "m1", "type": "user", "content": "old" }),
            json!({ "$set": { "summary": "Fix the red build", "messages": [
                { "id": "n1", "type": "gemini", "content": "", "toolCalls": [{ "id": "t", "name": "ls" }] }
            ] } }),
        ]);
        let r = parse(&text).unwrap();
        assert_eq!(r.summary.as_deref(), Some("Fix the red build"));
        assert!(r.resumable, "a tool call counts");
    }

    #[test]
    fn a_legacy_pretty_printed_json_file_is_read_whole() {
        let legacy = json!({
            "sessionId": "old-1", "projectHash": "abc", "startTime": "2025-01-01T00:00:00.000Z",
            "lastUpdated": "2025-01-02T00:00:00.000Z",
            "messages": [{ "id": "m1", "type": "user", "content": [{ "text": "Legacy question" }] }]
        });
        let r = parse(&serde_json::to_string_pretty(&legacy).unwrap()).unwrap();
        assert_eq!(r.session_id, "old-1");
        assert_eq!(r.first_user_message.as_deref(), Some("Legacy question"));
        assert_eq!(r.last_updated.as_deref(), Some("2025-01-02T00:00:00.000Z"));
        assert!(r.resumable);
    }

    #[test]
    fn anything_else_is_no_conversation() {
        assert_eq!(parse("not json"), None);
        assert_eq!(parse("{\"projectHash\": \"x\"}"), None);
    }
}
