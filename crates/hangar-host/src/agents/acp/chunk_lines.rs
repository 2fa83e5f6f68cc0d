//! The reader's fast path for streamed text: an NDJSON line that is a
//! `session/update` text chunk (`agent_message_chunk` / `agent_thought_chunk`
//! with `text` content) is parsed into borrowed typed fields instead of a
//! `serde_json::Value` tree, and consecutive chunks of the same kind and
//! session that are already buffered are merged into one message (up to
//! [`MAX_MERGED_BYTES`]). The merged message is the same `session/update`
//! notification with the joined text, so everything after the reader is
//! unchanged; any other line (or a chunk with fields the fast path does not
//! carry, such as `_meta` or annotations) goes the ordinary way, after the
//! pending merge is handed on, so wire order is kept.
//!
//! Why not the `agent-client-protocol` schema types here: they own every
//! string and deserialize every optional field of every update kind, which
//! was the top of the host's profile while streaming (docs/performance.md,
//! "Agent streaming"). This borrowed view covers one line shape only; the
//! merged line it hands on is the same notification the ordinary path
//! decodes.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::json;

use super::inbound::Inbound;

/// Largest merged text, so one delta stays a reasonable frame.
const MAX_MERGED_BYTES: usize = 64 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    #[serde(borrow, rename = "sessionId")]
    session_id: Cow<'a, str>,
    #[serde(borrow)]
    update: Update<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Update<'a> {
    #[serde(borrow, rename = "sessionUpdate")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    content: Content<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Content<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// A text chunk being merged.
pub struct Pending {
    session_id: String,
    kind: String,
    text: String,
}

impl Pending {
    /// The merged chunk as the `session/update` notification it stands for.
    pub fn into_inbound(self) -> Inbound {
        let params = json!({
            "sessionId": self.session_id,
            "update": { "sessionUpdate": self.kind, "content": { "type": "text", "text": self.text } },
        });
        Inbound::Notification { method: "session/update".to_owned(), params }
    }
}

/// What to do with one line.
pub enum Step {
    /// A text chunk, merged into the pending one.
    Merged,
    /// A text chunk that cannot join the pending one: hand that on; this
    /// one is pending now.
    Flush(Pending),
    /// Not a plain text chunk: parse it the ordinary way (after handing on
    /// the pending chunk, if any).
    Other,
}

/// Feed `line` to the merge in `pending`.
pub fn feed(line: &str, pending: &mut Option<Pending>) -> Step {
    let Some(parsed) = parse(line) else {
        return Step::Other;
    };
    let (session_id, kind, text) = parsed;
    if let Some(p) = pending.as_mut() {
        if p.kind == kind && p.session_id == session_id && p.text.len() + text.len() <= MAX_MERGED_BYTES {
            p.text.push_str(&text);
            return Step::Merged;
        }
    }
    let next = Pending { session_id: session_id.into_owned(), kind: kind.into_owned(), text: text.into_owned() };
    match pending.replace(next) {
        Some(done) => Step::Flush(done),
        None => Step::Merged,
    }
}

fn parse(line: &str) -> Option<(Cow<'_, str>, Cow<'_, str>, Cow<'_, str>)> {
    // Cheap reject before parsing: most other lines lack this.
    if !line.contains("_chunk") {
        return None;
    }
    let l: Line<'_> = serde_json::from_str(line).ok()?;
    let kind_ok = matches!(l.params.update.kind.as_ref(), "agent_message_chunk" | "agent_thought_chunk");
    let ok = l.method == "session/update"
        && kind_ok
        && l.params.update.content.kind == "text"
        && l.jsonrpc.as_deref().unwrap_or("2.0") == "2.0";
    ok.then_some((l.params.session_id, l.params.update.kind, l.params.update.content.text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn text_of(inbound: &Inbound) -> Option<&str> {
        match inbound {
            Inbound::Notification { params, .. } => params.pointer("/update/content/text").and_then(Value::as_str),
            _ => None,
        }
    }

    fn chunk(kind: &str, text: &str) -> String {
        json!({ "jsonrpc": "2.0", "method": "session/update", "params": { "sessionId": "s", "update": { "sessionUpdate": kind, "content": { "type": "text", "text": text } } } }).to_string()
    }

    #[test]
    fn merges_same_kind_and_flushes_on_change() {
        let mut pending = None;
        assert!(matches!(feed(&chunk("agent_message_chunk", "a\"b"), &mut pending), Step::Merged));
        assert!(matches!(feed(&chunk("agent_message_chunk", "é\n"), &mut pending), Step::Merged));
        let Step::Flush(done) = feed(&chunk("agent_thought_chunk", "t"), &mut pending) else { panic!("not flushed") };
        let done = done.into_inbound();
        assert_eq!(text_of(&done), Some("a\"bé\n"));
        assert_eq!(text_of(&pending.take().map(Pending::into_inbound).unwrap()), Some("t"));
    }

    #[test]
    fn anything_unusual_goes_the_ordinary_way() {
        let mut pending = None;
        let with_meta = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","annotations":{}}}}}"#;
        let request = r#"{"jsonrpc":"2.0","id":4,"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}"#;
        let image = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","text":"x"}}}}"#;
        for line in [with_meta, request, image, "{}", "not json", r#"{"method":"session/update"}"#] {
            assert!(matches!(feed(line, &mut pending), Step::Other), "{line}");
        }
        assert!(pending.is_none());
    }
}
