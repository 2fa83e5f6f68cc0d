//! Coalescing a burst of text chunks into one update.
//!
//! An agent streaming fast writes many `agent_message_chunk` (or
//! `agent_thought_chunk`) notifications back to back. Every one that is
//! already waiting when the first is handled is merged into it, so the host
//! applies, stores and sends one `chat/delta` per burst instead of one per
//! chunk. The text is identical; only the number of actions shrinks when the
//! agent is faster than the host (at a slow pace nothing waits, and every
//! chunk still goes out on its own, at once).

use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use super::inbound::Inbound;

/// Largest merged text, so one delta stays a reasonable frame.
const MAX_MERGED_BYTES: usize = 64 * 1024;

/// The chunk kind and its text, if `msg` is a text chunk update.
fn text_chunk(msg: &Inbound) -> Option<(&str, &str)> {
    let Inbound::Notification { method, params } = msg else { return None };
    if method != "session/update" {
        return None;
    }
    let update = params.get("update")?;
    let kind = update.get("sessionUpdate")?.as_str()?;
    if kind != "agent_message_chunk" && kind != "agent_thought_chunk" {
        return None;
    }
    // A chunk with its own `_meta` (Qwen Code's model-call usage) keeps it:
    // never merged into another, never absorbing one.
    if update.get("_meta").is_some() {
        return None;
    }
    let content = update.get("content")?;
    if content.get("type")?.as_str()? != "text" {
        return None;
    }
    Some((kind, content.get("text")?.as_str()?))
}

/// Merge the chunks of the same kind already queued behind `first` into it.
/// Returns the merged message and the first queued message that did not fit
/// (to be handled next).
///
/// The streaming rule: text chunks of one kind waiting in the queue become
/// one `chat/delta` with the same text; a message of another kind (a
/// thought, a tool call, the end of the stream) stops the merge and is
/// handled next, so the order of what the agent said is kept.
///
/// ```
/// use hangar_host::agents::acp::coalesce::coalesce;
/// use hangar_host::agents::acp::inbound::Inbound;
/// use serde_json::json;
///
/// let chunk = |kind: &str, text: &str| Inbound::Notification {
///     method: "session/update".to_owned(),
///     params: json!({ "update": { "sessionUpdate": kind, "content": { "type": "text", "text": text } } }),
/// };
/// let (queued, mut queue) = tokio::sync::mpsc::unbounded_channel();
/// queued.send(chunk("agent_message_chunk", "lo, "))?;
/// queued.send(chunk("agent_message_chunk", "world"))?;
/// queued.send(chunk("agent_thought_chunk", "hmm"))?;
/// queued.send(chunk("agent_message_chunk", "!"))?;
///
/// let (merged, next) = coalesce(chunk("agent_message_chunk", "Hel"), &mut queue);
/// let Inbound::Notification { params, .. } = merged else { unreachable!() };
/// assert_eq!(params["update"]["content"]["text"], "Hello, world");
/// // The thought ends the burst; it comes next, and the last chunk after it.
/// let Some(Inbound::Notification { params, .. }) = next else { unreachable!() };
/// assert_eq!(params["update"]["sessionUpdate"], "agent_thought_chunk");
/// assert!(matches!(queue.try_recv(), Ok(Inbound::Notification { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn coalesce(first: Inbound, queue: &mut UnboundedReceiver<Inbound>) -> (Inbound, Option<Inbound>) {
    let Some((kind, text)) = text_chunk(&first) else {
        return (first, None);
    };
    let kind = kind.to_owned();
    let mut merged = text.to_owned();
    let mut stashed = None;
    while merged.len() < MAX_MERGED_BYTES {
        let Ok(next) = queue.try_recv() else { break };
        match text_chunk(&next) {
            Some((k, t)) if k == kind => merged.push_str(t),
            _ => {
                stashed = Some(next);
                break;
            }
        }
    }
    let mut first = first;
    if let Inbound::Notification { params, .. } = &mut first {
        if let Some(text) = params.pointer_mut("/update/content/text") {
            *text = Value::String(merged);
        }
    }
    (first, stashed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(kind: &str, text: &str) -> Inbound {
        Inbound::Notification {
            method: "session/update".into(),
            params: json!({"sessionId": "s", "update": {"sessionUpdate": kind, "content": {"type": "text", "text": text}}}),
        }
    }

    #[test]
    fn merges_a_burst_and_keeps_what_differs() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for t in ["b", "c"] {
            tx.send(chunk("agent_message_chunk", t)).unwrap();
        }
        tx.send(chunk("agent_thought_chunk", "hmm")).unwrap();
        tx.send(chunk("agent_message_chunk", "d")).unwrap();
        let (merged, stashed) = coalesce(chunk("agent_message_chunk", "a"), &mut rx);
        assert_eq!(text_chunk(&merged), Some(("agent_message_chunk", "abc")));
        assert_eq!(text_chunk(stashed.as_ref().unwrap()), Some(("agent_thought_chunk", "hmm")));
        assert_eq!(text_chunk(&rx.try_recv().unwrap()), Some(("agent_message_chunk", "d")), "order is kept");
    }

    #[test]
    fn a_chunk_with_meta_is_not_merged() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let usage = Inbound::Notification {
            method: "session/update".into(),
            params: json!({"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": ""}, "_meta": {"usage": {"inputTokens": 100}}}}),
        };
        tx.send(usage).unwrap();
        let (merged, stashed) = coalesce(chunk("agent_message_chunk", "Done"), &mut rx);
        assert_eq!(text_chunk(&merged), Some(("agent_message_chunk", "Done")));
        let Some(Inbound::Notification { params, .. }) = stashed else { panic!("the usage chunk was merged") };
        assert_eq!(params["update"]["_meta"]["usage"]["inputTokens"], 100);
    }

    #[test]
    fn other_messages_pass_through() {
        let (_tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (msg, stashed) = coalesce(Inbound::Notification { method: "x".into(), params: json!({}) }, &mut rx);
        assert!(matches!(msg, Inbound::Notification { method, .. } if method == "x"));
        assert!(stashed.is_none());
    }
}
