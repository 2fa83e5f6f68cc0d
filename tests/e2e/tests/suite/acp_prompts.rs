//! User messages with attachments as ACP prompt content, checked on the
//! blocks the fake agent received (`echoPrompt` sends them back as JSON):
//! an `@`-mention from the host's own `completions` and embedded
//! attachments, for an agent with `embeddedContext` and `image` support and
//! for one with neither. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use ahp_types::state::{MessageAttachment, MessageEmbeddedResourceAttachment};
use hangar_e2e::acp::{markdown, AgentCmd, Rig};
use hangar_e2e::actions::user_message;
use hangar_e2e::Launch;
use serde_json::{json, Value};

fn embedded(label: &str, content_type: &str, data: &str) -> MessageAttachment {
    MessageAttachment::EmbeddedResource(MessageEmbeddedResourceAttachment {
        label: label.to_owned(),
        range: None,
        display_kind: None,
        meta: None,
        data: data.to_owned(),
        content_type: content_type.to_owned(),
        selection: None,
    })
}

/// Send `look at @hello.txt` with the completion's attachment plus a text
/// note (`note text\n`), four binary bytes and a PNG header; returns the
/// prompt blocks the agent got.
async fn prompt_received(capabilities: Value) -> (Vec<Value>, String) {
    let script = json!({ "capabilities": capabilities, "turns": [[{ "echoPrompt": true }]] });
    let mut rig = Rig::start(AgentCmd::Script(script), Launch::InProcess).await;
    assert_eq!(rig.created, "session/ready");
    let items: Value = rig
        .client
        .request(
            "completions",
            json!({ "channel": rig.chat, "kind": "userMessage", "text": "look at @hello", "offset": 14 }),
        )
        .await
        .unwrap();
    let item =
        items["items"].as_array().unwrap().iter().find(|i| i["attachment"]["label"] == "hello.txt").unwrap().clone();
    let mention: MessageAttachment = serde_json::from_value(item["attachment"].clone()).unwrap();
    let mut message = user_message("look at @hello.txt");
    message.attachments = Some(vec![
        mention,
        embedded("note.txt", "text/plain", "bm90ZSB0ZXh0Cg=="),
        embedded("blob.bin", "application/octet-stream", "AAEC/w=="),
        embedded("shot.png", "image/png", "iVBORw0KGgo="),
    ]);
    let turn = rig.send_message(message).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let text = markdown(&rig.turn(&turn).await);
    let blocks: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (blocks, format!("file://{}", rig.workspace.join("hello.txt").display()))
}

#[tokio::test]
async fn attachments_are_embedded_for_an_agent_with_embedded_context_and_images() {
    let caps = json!({ "promptCapabilities": { "embeddedContext": true, "image": true } });
    let (blocks, hello_uri) = prompt_received(caps).await;
    assert_eq!(blocks.len(), 5, "{blocks:#?}");
    assert_eq!(blocks[0], json!({ "type": "text", "text": "look at @hello.txt" }));
    // The mentioned file: its real URI and its text.
    assert_eq!(blocks[1]["type"], "resource");
    assert_eq!(blocks[1]["resource"]["uri"], hello_uri.as_str());
    assert_eq!(blocks[1]["resource"]["text"], "hello world\n");
    // Embedded text is decoded, not passed on as base64.
    assert_eq!(blocks[2]["type"], "resource");
    assert_eq!(blocks[2]["resource"]["text"], "note text\n");
    assert_eq!(blocks[2]["resource"]["mimeType"], "text/plain");
    assert_eq!(blocks[2]["resource"]["uri"], "attachment:note%2Etxt");
    // Binary data stays base64, as a blob.
    assert_eq!(blocks[3]["type"], "resource");
    assert_eq!(blocks[3]["resource"]["blob"], "AAEC/w==");
    assert!(blocks[3]["resource"].get("text").is_none());
    assert_eq!(
        blocks[4],
        json!({ "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "uri": "attachment:shot%2Epng" })
    );
}

#[tokio::test]
async fn attachments_fall_back_for_an_agent_with_the_baseline_only() {
    let (blocks, hello_uri) = prompt_received(json!({})).await;
    assert_eq!(blocks.len(), 5, "{blocks:#?}");
    // The mention is a link to the real file.
    assert_eq!(blocks[1]["type"], "resource_link");
    assert_eq!(blocks[1]["uri"], hello_uri.as_str());
    assert_eq!(blocks[1]["name"], "hello.txt");
    // The text note is inlined as text.
    assert_eq!(blocks[2], json!({ "type": "text", "text": "note.txt:\nnote text\n" }));
    // What the agent cannot take is named, not sent.
    for (block, label) in [(&blocks[3], "blob.bin"), (&blocks[4], "shot.png")] {
        assert_eq!(block["type"], "text");
        let text = block["text"].as_str().unwrap();
        assert!(text.contains(label) && text.contains("was not sent"), "{text}");
    }
}

#[tokio::test]
async fn an_attached_file_the_host_never_serves_is_not_read() {
    // The host's data dir (with its token) inside the working directory:
    // a message that attaches the token must not hand its text to the agent.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("ws").join(".hangar-data");
    let script = json!({
        "capabilities": { "promptCapabilities": { "embeddedContext": true } },
        "turns": [[{ "echoPrompt": true }]]
    });
    let mut rig = Rig::start_with(tmp, AgentCmd::Script(script), Launch::InProcess, Some(&data)).await;
    assert_eq!(rig.created, "session/ready");
    let token_path = data.canonicalize().unwrap().join("token");
    let token = std::fs::read_to_string(&token_path).unwrap();
    let attachment: MessageAttachment = serde_json::from_value(json!({
        "type": "resource",
        "label": "token",
        "uri": format!("file://{}", token_path.display()),
    }))
    .unwrap();
    let mut message = user_message("what is in @token");
    message.attachments = Some(vec![attachment]);
    let turn = rig.send_message(message).await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let text = markdown(&rig.turn(&turn).await);
    assert!(!text.contains(token.trim()), "the token reached the agent: {text}");
    let blocks: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(blocks[1]["type"], "resource_link", "{blocks:#?}");
}
