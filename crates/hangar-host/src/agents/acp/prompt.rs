//! A user message as ACP `session/prompt` content, within what the agent
//! accepts (`promptCapabilities` from `initialize`): the text, then each
//! attachment.
//!
//! - `resource` (a URI, e.g. an `@`-mention of a file): a `file:` URI of a
//!   readable UTF-8 file inside the session's working directories is sent as
//!   an embedded `resource` with its text when the agent supports
//!   `embeddedContext`; anything else (folders, other schemes, binary or
//!   unreadable files, agents without `embeddedContext`) as a
//!   `resource_link` carrying the URI, label and MIME type.
//! - `embeddedResource` (base64 `data`): images become `image` blocks when
//!   the agent supports images; textual types (`text/*`, JSON, XML, …) are
//!   decoded to a `resource` with `text`, other types a `resource` with the
//!   base64 `blob` (both need `embeddedContext`). The resource URI is
//!   `attachment:` plus the percent-encoded label. Without the capability, a
//!   textual attachment falls back to a text block (label, then the text), and
//!   an image or binary one to a text block naming what was left out.
//! - `simple`: its `modelRepresentation` (else the label) as text.
//! - Other kinds (annotations, chats) are not sent.
//!
//! A message sent with a custom agent (`Message.agent`) is preceded by a line
//! naming that agent and its definition file's text ([`with_custom_agent`]):
//! ACP has no field for it, so this is how every agent gets it.

use agent_client_protocol::v1::schema::PromptCapabilities;
use ahp_types::state::{
    AgentCustomization, Message, MessageAttachment, MessageEmbeddedResourceAttachment, MessageResourceAttachment,
};
use base64::Engine as _;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::{json, Value};

use super::fs::Scope;

/// Largest file embedded into a prompt; bigger ones go as links.
const MAX_EMBED: u64 = 1024 * 1024;

/// What the agent accepts in a prompt (ACP `promptCapabilities`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PromptSupport {
    /// `image` content blocks.
    pub image: bool,
    /// Embedded `resource` content blocks.
    pub embedded_context: bool,
}

impl PromptSupport {
    /// From an `initialize` result's `agentCapabilities` (absent or
    /// malformed means the baseline: text and resource links only).
    pub fn from_agent_capabilities(caps: &Value) -> Self {
        let parsed = caps
            .get("promptCapabilities")
            .and_then(|p| serde_json::from_value::<PromptCapabilities>(p.clone()).ok())
            .unwrap_or_default();
        Self { image: parsed.image, embedded_context: parsed.embedded_context }
    }
}

/// The prompt blocks for `message`; only files `scope` admits (inside the
/// session's working directories, outside never-served paths) are read.
pub fn prompt_blocks(message: &Message, support: PromptSupport, scope: &Scope) -> Vec<Value> {
    let mut blocks = Vec::new();
    if !message.text.is_empty() {
        blocks.push(text_block(&message.text));
    }
    for attachment in message.attachments.iter().flatten() {
        match attachment {
            MessageAttachment::Resource(r) => blocks.push(resource(r, support, scope)),
            MessageAttachment::EmbeddedResource(e) => blocks.push(embedded(e, support)),
            // The message's text carries the command, which the agent runs.
            a if crate::customizations::slash_completions::is_agent_command(a) => {}
            MessageAttachment::Simple(s) => {
                blocks.push(text_block(s.model_representation.as_deref().unwrap_or(&s.label)))
            }
            _ => {}
        }
    }
    if blocks.is_empty() {
        blocks.push(text_block(""));
    }
    blocks
}

/// `blocks` preceded by the custom agent to act as: a line naming it, then
/// its definition (the file the host discovered it in, read by the host, up
/// to [`MAX_EMBED`]) as an embedded resource, or as text when the agent
/// takes no embedded context.
pub fn with_custom_agent(blocks: Vec<Value>, agent: &AgentCustomization, support: PromptSupport) -> Vec<Value> {
    let mut out = vec![text_block(&format!(
        "Act as the custom agent \"{}\" for this message; its definition follows ({}).",
        agent.name, agent.uri
    ))];
    let definition = crate::resources::uri::file_uri_to_path(&agent.uri)
        .ok()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_EMBED))
        .and_then(|p| std::fs::read_to_string(p).ok());
    match definition {
        Some(text) if support.embedded_context => out.push(json!({
            "type": "resource",
            "resource": { "uri": agent.uri, "mimeType": "text/markdown", "text": text },
        })),
        Some(text) => out.push(text_block(&text)),
        None => out.push(json!({ "type": "resource_link", "uri": agent.uri, "name": agent.name })),
    }
    out.extend(blocks);
    out
}

fn text_block(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

/// Whether content of this MIME type is text.
fn is_textual(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence.starts_with("text/")
        || matches!(
            essence.as_str(),
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-sh"
                | "application/toml"
                | "application/yaml"
        )
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
}

fn resource(r: &MessageResourceAttachment, support: PromptSupport, scope: &Scope) -> Value {
    let text = if support.embedded_context { readable_file(&r.uri, scope) } else { None };
    match text {
        Some(text) => {
            let mime = r.content_type.clone().unwrap_or_else(|| "text/plain".to_owned());
            json!({ "type": "resource", "resource": { "uri": r.uri, "text": text, "mimeType": mime } })
        }
        None => {
            let mut link = json!({ "type": "resource_link", "uri": r.uri, "name": r.label });
            if let Some(mime) = &r.content_type {
                link["mimeType"] = json!(mime);
            }
            if let Some(size) = r.size_hint {
                link["size"] = json!(size);
            }
            link
        }
    }
}

/// The text of the file a `file:` URI names, if it is a UTF-8 file of at
/// most [`MAX_EMBED`] bytes that `scope` admits.
fn readable_file(uri: &str, scope: &Scope) -> Option<String> {
    let path = crate::resources::uri::file_uri_to_path(uri).ok()?;
    let canonical = std::fs::canonicalize(path).ok()?;
    if !scope.admits(&canonical) {
        return None;
    }
    let meta = std::fs::metadata(&canonical).ok()?;
    if !meta.is_file() || meta.len() > MAX_EMBED {
        return None;
    }
    String::from_utf8(std::fs::read(&canonical).ok()?).ok()
}

fn embedded(e: &MessageEmbeddedResourceAttachment, support: PromptSupport) -> Value {
    let uri = format!("attachment:{}", utf8_percent_encode(&e.label, NON_ALPHANUMERIC));
    let decoded = base64::engine::general_purpose::STANDARD.decode(e.data.trim()).ok();
    let image = e.content_type.starts_with("image/");
    if image && support.image {
        return json!({ "type": "image", "data": e.data, "mimeType": e.content_type, "uri": uri });
    }
    let text = decoded.as_ref().filter(|_| is_textual(&e.content_type)).and_then(|b| String::from_utf8(b.clone()).ok());
    match (text, support.embedded_context) {
        (Some(text), true) => {
            json!({ "type": "resource", "resource": { "uri": uri, "text": text, "mimeType": e.content_type } })
        }
        (Some(text), false) => text_block(&format!("{}:\n{text}", e.label)),
        (None, true) if !image && decoded.is_some() => {
            json!({ "type": "resource", "resource": { "uri": uri, "blob": e.data.trim(), "mimeType": e.content_type } })
        }
        (None, _) => {
            let why = if decoded.is_none() {
                "its data is not valid base64"
            } else {
                "the agent does not accept this kind of content"
            };
            text_block(&format!("[Attachment {} ({}) was not sent: {why}.]", e.label, e.content_type))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::home::FakeHome;
    use crate::resources::uri::path_to_file_uri;

    #[test]
    fn attached_files_are_read_only_where_the_scope_admits() {
        let FakeHome { home, ssh, .. } = &FakeHome::new().unwrap();
        std::fs::write(home.join("notes.md"), "# notes").unwrap();
        let scope = Scope::new(&[path_to_file_uri(home)], std::slice::from_ref(ssh));
        assert_eq!(readable_file(&path_to_file_uri(&home.join("notes.md")), &scope).as_deref(), Some("# notes"));
        assert_eq!(readable_file(&path_to_file_uri(&ssh.join("id_ed25519")), &scope), None);
        assert_eq!(readable_file("file:///etc/hostname", &scope), None);
    }

    #[test]
    fn a_custom_agent_goes_first_with_its_definition() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("reviewer.md");
        std::fs::write(&file, "---\nname: reviewer\n---\nReview strictly.").unwrap();
        let agent: AgentCustomization =
            serde_json::from_value(json!({ "id": "agent-1", "uri": path_to_file_uri(&file), "name": "reviewer" }))
                .unwrap();
        let message = vec![text_block("look at main.rs")];
        let embedded =
            with_custom_agent(message.clone(), &agent, PromptSupport { image: false, embedded_context: true });
        assert!(embedded[0]["text"].as_str().unwrap().contains("\"reviewer\""));
        assert_eq!(embedded[1]["resource"]["text"], "---\nname: reviewer\n---\nReview strictly.");
        assert_eq!(embedded[2], message[0]);
        let plain = with_custom_agent(message, &agent, PromptSupport::default());
        assert_eq!(plain[1]["type"], "text", "no embedded context: the definition as text");
    }

    #[test]
    fn an_agent_command_is_sent_as_the_text_alone() {
        let message: Message =
            serde_json::from_value(json!({ "text": "/review the parser", "origin": { "kind": "user" },
            "attachments": [
            { "type": "simple", "label": "/review", "displayKind": "command",
              "_meta": { "hangar.agentCommand": true, "description": "Review" } },
            { "type": "simple", "label": "a note" }
        ] }))
            .unwrap();
        let blocks = prompt_blocks(&message, PromptSupport::default(), &Scope::new(&[], &[]));
        let texts: Vec<&str> = blocks.iter().map(|b| b["text"].as_str().unwrap()).collect();
        assert_eq!(texts, ["/review the parser", "a note"]);
    }

    #[test]
    fn textual_types() {
        assert!(is_textual("text/markdown; charset=utf-8"));
        assert!(is_textual("application/vnd.api+json"));
        assert!(!is_textual("application/pdf"));
        assert!(!is_textual("image/png"));
    }

    #[test]
    fn capabilities_default_to_the_baseline() {
        let none = PromptSupport::from_agent_capabilities(&json!({}));
        assert!(!none.image && !none.embedded_context);
        let both = PromptSupport::from_agent_capabilities(
            &json!({ "promptCapabilities": { "image": true, "embeddedContext": true } }),
        );
        assert!(both.image && both.embedded_context);
    }
}
