//! The one command table the UI calls, whether through Tauri IPC
//! (`tauri_app`) or the loopback WebSocket bridge (`bridge`):
//! `call(core, name, args, stream)`. Every command is found here by name.
//!
//! Commands that change protocol state dispatch AHP actions through the
//! multi-host client; the change comes back as an envelope, is reduced in
//! the mirror and reaches the UI as a view update. Nothing is applied
//! locally first.

use std::sync::Arc;

use ahp::hosts::HostId;
use ahp_types::commands::{
    CompletionItemKind, CompletionsParams, CreateSessionParams, DisposeSessionParams, ResourceListParams,
};
use ahp_types::StateAction;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::core::{Core, Sink};
use crate::error::CoreError;
use crate::outgoing::{self, action, fresh_id, Composed};

/// Every command name, for the bridge and the docs.
pub const COMMANDS: &[&str] = &[
    "app.watch",
    "stream.close",
    "session.create",
    "session.rename",
    "session.archive",
    "session.markRead",
    "session.dispose",
    "folder.list",
    "chat.open",
    "chat.send",
    "chat.queue",
    "chat.removeQueued",
    "chat.reorderQueued",
    "chat.cancel",
    "chat.confirm",
    "chat.draft",
    "chat.inputAnswer",
    "chat.inputComplete",
    "chat.retry",
    "chat.fetchOlder",
    "chat.completions",
];

fn bad(command: &str, message: impl Into<String>) -> CoreError {
    CoreError::BadArgs { command: command.to_owned(), message: message.into() }
}

fn arg<T: DeserializeOwned>(command: &str, args: &Value, name: &str) -> Result<T, CoreError> {
    serde_json::from_value(args.get(name).cloned().unwrap_or(Value::Null))
        .map_err(|e| bad(command, format!("{name}: {e}")))
}

/// The message of `chat.send` / `chat.queue`: `text` (not blank), `model`,
/// `attachments` (those of the `@` mentions picked from `chat.completions`).
fn composed(command: &str, args: &Value) -> Result<Composed, CoreError> {
    let text: String = arg(command, args, "text")?;
    if text.trim().is_empty() {
        return Err(bad(command, "the message is empty"));
    }
    let model: Option<String> = arg(command, args, "model")?;
    let attachments = outgoing::attachments(command, args.get("attachments").cloned().unwrap_or(Value::Null))?;
    Ok(Composed { text, model, attachments })
}

async fn dispatch(core: &Core, host: &HostId, channel: &str, action: StateAction) -> Result<Value, CoreError> {
    let handle = core.multi().dispatch(host, channel.to_owned(), action).await?;
    Ok(json!({ "clientSeq": handle.client_seq }))
}

async fn request<R: DeserializeOwned>(
    core: &Core,
    host: &HostId,
    method: &str,
    params: impl serde::Serialize,
) -> Result<R, CoreError> {
    let client =
        core.multi().client(host).await.ok_or_else(|| CoreError::NotFound(format!("host {host} is not connected")))?;
    Ok(client.request(method, params).await?)
}

/// Run command `name`. `stream` receives events for commands that open
/// one (`app.watch`, `chat.open`).
pub async fn call(core: &Arc<Core>, name: &str, args: Value, stream: Option<Sink>) -> Result<Value, CoreError> {
    let c = name;
    let host = || -> Result<HostId, CoreError> { Ok(HostId::new(arg::<String>(c, &args, "host")?)) };
    match name {
        "app.watch" => {
            let sink = stream.ok_or_else(|| CoreError::NeedsStream(c.into()))?;
            Ok(json!({ "streamId": core.watch_app(sink).await }))
        }
        "stream.close" => {
            core.close_stream(arg(c, &args, "streamId")?);
            Ok(Value::Null)
        }
        "session.create" => {
            let host = host()?;
            let agent: Option<String> = arg(c, &args, "agent")?;
            let folder: Option<String> = arg(c, &args, "folder")?;
            let channel = format!("ahp-session:/{}", fresh_id());
            let params = CreateSessionParams {
                channel: channel.clone(),
                meta: None,
                provider: agent.filter(|a| !a.is_empty()),
                working_directories: folder.map(|f| vec![f]),
                config: None,
                active_client: None,
                progress_token: None,
            };
            let _: Value = request(core, &host, "createSession", params).await?;
            Ok(json!({ "session": channel }))
        }
        "session.rename" => {
            let title: String = arg(c, &args, "title")?;
            let title = title.trim().to_owned();
            if title.is_empty() {
                return Err(bad(c, "the title is empty"));
            }
            let session: String = arg(c, &args, "session")?;
            dispatch(core, &host()?, &session, action(c, json!({ "type": "session/titleChanged", "title": title }))?)
                .await
        }
        "session.archive" => {
            let session: String = arg(c, &args, "session")?;
            let archived: bool = arg(c, &args, "archived")?;
            dispatch(
                core,
                &host()?,
                &session,
                action(c, json!({ "type": "session/isArchivedChanged", "isArchived": archived }))?,
            )
            .await
        }
        "session.markRead" => {
            let session: String = arg(c, &args, "session")?;
            let read: bool = arg(c, &args, "read")?;
            dispatch(core, &host()?, &session, action(c, json!({ "type": "session/isReadChanged", "isRead": read }))?)
                .await
        }
        "session.dispose" => {
            let session: String = arg(c, &args, "session")?;
            let _: Value =
                request(core, &host()?, "disposeSession", DisposeSessionParams { channel: session, meta: None })
                    .await?;
            Ok(Value::Null)
        }
        "folder.list" => {
            let host = host()?;
            let uri: Option<String> = arg(c, &args, "uri")?;
            let uri = match uri {
                Some(u) => u,
                None => {
                    let handle = core.multi().host(&host).await.ok_or_else(|| CoreError::NotFound(host.to_string()))?;
                    match handle.default_directory {
                        Some(d) => d,
                        None => dirs::home_dir()
                            .map(|h| hangar_host::resources::uri::path_to_file_uri(&h))
                            .ok_or_else(|| CoreError::NotFound("no starting folder".into()))?,
                    }
                }
            };
            let params =
                ResourceListParams { channel: ahp_types::ROOT_RESOURCE_URI.to_owned(), meta: None, uri: uri.clone() };
            let listed: Value = request(core, &host, "resourceList", params).await?;
            Ok(crate::folders::listing(&uri, &listed))
        }
        "chat.open" => {
            let sink = stream.ok_or_else(|| CoreError::NeedsStream(c.into()))?;
            let host = host()?;
            let session: String = arg(c, &args, "session")?;
            let chat = default_chat(core, &host, &session).await?;
            let id = core.open_chat(&host, &session, &chat, sink).await?;
            Ok(json!({ "streamId": id, "chat": chat }))
        }
        "chat.send" => {
            let chat: String = arg(c, &args, "chat")?;
            core.send(&host()?, &chat, composed(c, &args)?).await
        }
        "chat.queue" => {
            let chat: String = arg(c, &args, "chat")?;
            let kind: String = arg::<Option<String>>(c, &args, "kind")?.unwrap_or_else(|| "queued".into());
            if kind != "queued" && kind != "steering" {
                return Err(bad(c, "kind is queued or steering"));
            }
            let (id, a) = outgoing::pending(&kind, &composed(c, &args)?)?;
            let mut out = dispatch(core, &host()?, &chat, a).await?;
            out["id"] = json!(id);
            Ok(out)
        }
        "chat.removeQueued" => {
            let chat: String = arg(c, &args, "chat")?;
            let id: String = arg(c, &args, "id")?;
            let kind: String = arg::<Option<String>>(c, &args, "kind")?.unwrap_or_else(|| "queued".into());
            dispatch(
                core,
                &host()?,
                &chat,
                action(c, json!({ "type": "chat/pendingMessageRemoved", "kind": kind, "id": id }))?,
            )
            .await
        }
        "chat.reorderQueued" => {
            let chat: String = arg(c, &args, "chat")?;
            let order: Vec<String> = arg(c, &args, "order")?;
            dispatch(
                core,
                &host()?,
                &chat,
                action(c, json!({ "type": "chat/queuedMessagesReordered", "order": order }))?,
            )
            .await
        }
        "chat.cancel" => {
            let host = host()?;
            let chat: String = arg(c, &args, "chat")?;
            let state = core.chat_state(&host, &chat).ok_or_else(|| CoreError::NotFound(chat.clone()))?;
            let active = state.active_turn.ok_or_else(|| bad(c, "no turn is running"))?;
            let duration = active
                .started_at
                .parse::<jiff::Timestamp>()
                .map(|t| (jiff::Timestamp::now().as_millisecond() - t.as_millisecond()).max(0))
                .unwrap_or(0);
            dispatch(
                core,
                &host,
                &chat,
                action(c, json!({ "type": "chat/turnCancelled", "turnId": active.id, "duration": duration }))?,
            )
            .await
        }
        "chat.confirm" => {
            let chat: String = arg(c, &args, "chat")?;
            let turn_id: String = arg(c, &args, "turnId")?;
            let tool_call_id: String = arg(c, &args, "toolCallId")?;
            let approved: bool = arg(c, &args, "approved")?;
            let option_id: Option<String> = arg(c, &args, "optionId")?;
            let mut a = json!({ "type": "chat/toolCallConfirmed", "turnId": turn_id, "toolCallId": tool_call_id, "approved": approved });
            if approved {
                a["confirmed"] = json!("user-action");
            } else {
                a["reason"] = json!("denied");
            }
            if let Some(o) = option_id {
                a["selectedOptionId"] = json!(o);
            }
            dispatch(core, &host()?, &chat, action(c, a)?).await
        }
        "chat.draft" => {
            let chat: String = arg(c, &args, "chat")?;
            let text: Option<String> = arg(c, &args, "text")?;
            let draft = text.filter(|t| !t.is_empty()).map(|t| Composed::plain(t).message());
            dispatch(core, &host()?, &chat, action(c, json!({ "type": "chat/draftChanged", "draft": draft }))?).await
        }
        "chat.inputAnswer" => {
            let chat: String = arg(c, &args, "chat")?;
            let request_id: String = arg(c, &args, "requestId")?;
            let question_id: String = arg(c, &args, "questionId")?;
            let answer: Option<Value> = arg(c, &args, "answer")?;
            let a = json!({ "type": "chat/inputAnswerChanged", "requestId": request_id, "questionId": question_id, "answer": answer });
            dispatch(core, &host()?, &chat, action(c, a)?).await
        }
        "chat.inputComplete" => {
            let chat: String = arg(c, &args, "chat")?;
            let request_id: String = arg(c, &args, "requestId")?;
            let response: String = arg(c, &args, "response")?;
            let answers: Option<Value> = arg(c, &args, "answers")?;
            let mut a = json!({ "type": "chat/inputCompleted", "requestId": request_id, "response": response });
            if let Some(answers) = answers {
                a["answers"] = answers;
            }
            dispatch(core, &host()?, &chat, action(c, a)?).await
        }
        "chat.retry" => {
            let chat: String = arg(c, &args, "chat")?;
            let turn_id: String = arg(c, &args, "turnId")?;
            dispatch(core, &host()?, &chat, action(c, json!({ "type": "chat/turnResume", "turnId": turn_id }))?).await
        }
        "chat.fetchOlder" => {
            let chat: String = arg(c, &args, "chat")?;
            let more = core.older_turns(&host()?, &chat).await?;
            Ok(json!({ "more": more }))
        }
        "chat.completions" => {
            let chat: String = arg(c, &args, "chat")?;
            let text: String = arg(c, &args, "text")?;
            let offset: i64 = arg(c, &args, "offset")?;
            let params =
                CompletionsParams { channel: chat, meta: None, kind: CompletionItemKind::UserMessage, text, offset };
            let result: Value = request(core, &host()?, "completions", params).await?;
            Ok(result)
        }
        other => Err(CoreError::UnknownCommand(other.to_owned())),
    }
}

/// The default chat of a session, from its summary or its state.
async fn default_chat(core: &Core, host: &HostId, session: &str) -> Result<String, CoreError> {
    if let Some(handle) = core.multi().host(host).await {
        if let Some(chat) =
            handle.session_summaries.iter().find(|s| s.resource == session).and_then(|s| s.default_chat.clone())
        {
            return Ok(chat);
        }
    }
    // Not in the summary: read it from a session snapshot.
    let result = core.multi().subscribe(host, session.to_owned()).await?;
    let chat = match result.snapshot.map(|s| s.state) {
        Some(ahp_types::state::SnapshotState::Session(s)) => s.default_chat.clone(),
        _ => None,
    };
    chat.ok_or_else(|| CoreError::NotFound(format!("default chat of {session}")))
}
