//! The one command table the UI calls, whether through Tauri IPC
//! (`tauri_app`) or the loopback WebSocket bridge (`bridge`):
//! [`call`] runs a typed [`Command`]; [`call_wire`] first reads one from a
//! wire name and JSON arguments (an unknown name or arguments that do not
//! fit are a [`CoreError`], never a panic).
//!
//! Commands that change protocol state dispatch AHP actions (built with the
//! `ahp-types` action structs) through the multi-host client; the change
//! comes back as an envelope, is reduced in the mirror and reaches the UI
//! as a view update. Nothing is applied locally first.

use std::sync::Arc;

use ahp::hosts::HostId;
use ahp_types::actions::{
    ChatDraftChangedAction, ChatInputAnswerChangedAction, ChatInputCompletedAction, ChatPendingMessageRemovedAction,
    ChatQueuedMessagesReorderedAction, ChatToolCallConfirmedAction, ChatTurnCancelledAction, ChatTurnResumeAction,
    SessionConfigChangedAction, SessionIsArchivedChangedAction, SessionIsReadChangedAction, SessionTitleChangedAction,
};
use ahp_types::commands::{
    CompletionItemKind, CompletionsParams, CompletionsResult, CreateSessionParams, DisposeSessionParams,
    ResourceListParams, ResourceListResult,
};
use ahp_types::state::{ChatInputResponseKind, ToolCallCancellationReason, ToolCallConfirmationReason};
use ahp_types::StateAction;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::core::{Core, Sink};
use crate::customizations::{self, toggle};
use crate::devices_page;
use crate::error::CoreError;
use crate::outgoing::{self, fresh_id, Composed};
use crate::settings_page;
use crate::turn_reply;
use crate::worktree_close;
use hangar_desktop_protocol::command::{ChatOpened, Dispatched, OlderFetched, Queued, SessionCreated, StreamOpened};
use hangar_desktop_protocol::host::HostAdded;
use hangar_desktop_protocol::input::answers_to_ahp;
use hangar_desktop_protocol::part::InputResponse;
use hangar_desktop_protocol::{Command, Reply};

pub use hangar_desktop_protocol::COMMANDS;

fn bad(command: &str, message: impl Into<String>) -> CoreError {
    CoreError::BadArgs { command: command.to_owned(), message: message.into() }
}

/// The message of `chat.send` / `chat.queue`: `text` (not blank), `model`,
/// `attachments` (those of the `@` mentions picked from `chat.completions`),
/// `agent` (a custom agent's URI).
fn composed(
    command: &str,
    text: String,
    model: Option<String>,
    attachments: Option<Vec<hangar_desktop_protocol::command::Attachment>>,
    agent: Option<String>,
) -> Result<Composed, CoreError> {
    if text.trim().is_empty() {
        return Err(bad(command, "the message is empty"));
    }
    Ok(Composed { text, model, attachments: outgoing::attachments(command, attachments)?, agent, meta: None })
}

async fn dispatch(core: &Core, host: String, channel: String, action: StateAction) -> Result<Dispatched, CoreError> {
    let handle = core.multi().dispatch(&HostId::new(host), channel, action).await?;
    Ok(Dispatched { client_seq: handle.client_seq })
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

/// `createSession` of `channel` with nothing else set.
fn new_session(channel: &str) -> CreateSessionParams {
    CreateSessionParams {
        channel: channel.to_owned(),
        meta: None,
        provider: None,
        working_directories: None,
        config: None,
        active_client: None,
        progress_token: None,
    }
}

/// Run the command named `name` with the wire `args`.
pub async fn call_wire(core: &Arc<Core>, name: &str, args: Value, stream: Option<Sink>) -> Result<Reply, CoreError> {
    call(core, Command::from_wire(name, args)?, stream).await
}

/// Run `command`. `stream` receives the events of the commands that open
/// one (`app.watch`, `chat.open`).
pub async fn call(core: &Arc<Core>, command: Command, stream: Option<Sink>) -> Result<Reply, CoreError> {
    let c = command.name();
    let needs_stream = || CoreError::NeedsStream(c.to_owned());
    Ok(match command {
        Command::AppWatch(_) => {
            let sink = stream.ok_or_else(needs_stream)?;
            Reply::AppWatch(StreamOpened { stream_id: core.watch_app(sink).await })
        }
        Command::StreamClose(a) => {
            core.close_stream(a.stream_id);
            Reply::StreamClose(())
        }
        Command::SettingsGet(_) => Reply::SettingsGet(settings_page::view(core)),
        Command::SettingsSave(settings) => Reply::SettingsSave(settings_page::save(core, settings).await?),
        Command::SettingsOpen(a) => {
            settings_page::open(core, a.place)?;
            Reply::SettingsOpen(())
        }
        Command::AppAbout(_) => Reply::AppAbout(core.about().await),
        Command::DevicesGet(_) => Reply::DevicesGet(devices_page::view(core).await?),
        Command::DevicesPair(a) => Reply::DevicesPair(devices_page::pair(core, &a.name).await?),
        Command::DevicesRevoke(a) => Reply::DevicesRevoke(devices_page::revoke(core, &a.name).await?),
        Command::HostProbe(a) => Reply::HostProbe(core.probe_host(&a.url).await?),
        Command::HostAdd(a) => Reply::HostAdd(HostAdded { host: core.save_host(a).await? }),
        Command::HostRename(a) => Reply::HostRename(core.rename_host(&HostId::new(a.host), &a.name).await?),
        Command::HostRemove(a) => Reply::HostRemove(core.remove_host(&HostId::new(a.host)).await?),
        Command::HostReconnect(a) => Reply::HostReconnect(core.reconnect(&HostId::new(a.host)).await?),
        Command::HostDismissReport(a) => {
            core.dismiss_back(&HostId::new(a.host)).await;
            Reply::HostDismissReport(())
        }
        Command::SessionCreate(a) => {
            let channel = format!("ahp-session:/{}", fresh_id());
            // In a new worktree, or one of the agent's own earlier
            // sessions continued: the host makes it (docs/host.md).
            let meta = match (&a.agent_session, a.worktree == Some(true)) {
                (Some(sid), _) => {
                    let mut asked = json!({ "sessionId": sid });
                    if let Some(title) = &a.agent_session_title {
                        asked["title"] = json!(title);
                    }
                    Some(json!({ "hangar/agentSession": asked }))
                }
                (None, true) => Some(json!({ "hangar/worktree": {} })),
                (None, false) => None,
            };
            let params = CreateSessionParams {
                provider: a.agent.filter(|a| !a.is_empty()),
                working_directories: a.folder.map(|f| vec![f]),
                meta: meta.and_then(|m| m.as_object().cloned()),
                ..new_session(&channel)
            };
            let _: Value = request(core, &HostId::new(a.host), "createSession", params).await?;
            Reply::SessionCreate(SessionCreated { session: channel })
        }
        Command::SessionFork(a) => {
            let channel = format!("ahp-session:/{}", fresh_id());
            let meta = json!({ "hangar/fork": { "chat": a.chat, "turnId": a.turn_id } });
            let params = CreateSessionParams { meta: meta.as_object().cloned(), ..new_session(&channel) };
            let host = HostId::new(a.host);
            let _: Value = request(core, &host, "createSession", params).await?;
            // A host that is not Hangar ignores the `_meta` and makes a plain
            // session: that one goes, and the person is told.
            let state = core.session_state(&host, &channel).await?;
            if !state.meta.as_ref().is_some_and(|m| m.contains_key("hangar/fork")) {
                let dispose = DisposeSessionParams { channel, meta: None };
                let _: Result<Value, _> = request(core, &host, "disposeSession", dispose).await;
                return Err(CoreError::Unexpected("this host cannot fork a chat (it is not a Hangar host)".into()));
            }
            Reply::SessionFork(SessionCreated { session: channel })
        }
        Command::SessionRename(a) => {
            let title = a.title.trim().to_owned();
            if title.is_empty() {
                return Err(bad(c, "the title is empty"));
            }
            let action = StateAction::SessionTitleChanged(SessionTitleChangedAction { title });
            Reply::SessionRename(dispatch(core, a.host, a.session, action).await?)
        }
        Command::SessionSetting(a) => {
            let mut config = serde_json::Map::new();
            config.insert(a.key, Value::String(a.value));
            let action = StateAction::SessionConfigChanged(SessionConfigChangedAction { config, replace: None });
            Reply::SessionSetting(dispatch(core, a.host, a.session, action).await?)
        }
        Command::SessionRestartAgent(a) => {
            let params = json!({ "channel": a.session });
            Reply::SessionRestartAgent(request(core, &HostId::new(a.host), "x-hangar/restartAgent", params).await?)
        }
        Command::SessionArchive(a) => match a.worktree.filter(|_| a.archived) {
            Some(removal) => Reply::SessionArchive(
                worktree_close::archive_removing(core, &HostId::new(a.host), &a.session, removal).await?,
            ),
            None => {
                let action =
                    StateAction::SessionIsArchivedChanged(SessionIsArchivedChangedAction { is_archived: a.archived });
                Reply::SessionArchive(dispatch(core, a.host, a.session, action).await?)
            }
        },
        Command::SessionMarkRead(a) => {
            let action = StateAction::SessionIsReadChanged(SessionIsReadChangedAction { is_read: a.read });
            Reply::SessionMarkRead(dispatch(core, a.host, a.session, action).await?)
        }
        Command::SessionDispose(a) => {
            let params =
                DisposeSessionParams { channel: a.session, meta: a.worktree.map(worktree_close::removal_meta) };
            let _: Value = request(core, &HostId::new(a.host), "disposeSession", params).await?;
            Reply::SessionDispose(())
        }
        Command::SessionWorktree(a) => {
            Reply::SessionWorktree(worktree_close::worktree(core, &HostId::new(a.host), &a.session).await?)
        }
        Command::FolderList(a) => {
            let host = HostId::new(a.host);
            let uri = match a.uri {
                Some(u) => u,
                None => {
                    let handle = core.multi().host(&host).await.ok_or_else(|| CoreError::NotFound(host.to_string()))?;
                    match handle.default_directory {
                        Some(d) => d,
                        // This computer's home is only a starting point on this computer.
                        None if host.as_str() == crate::startup::LOCAL_HOST_ID => dirs::home_dir()
                            .map(|h| hangar_host::resources::uri::path_to_file_uri(&h))
                            .ok_or_else(|| CoreError::NotFound("no starting folder".into()))?,
                        None => "file:///".to_owned(),
                    }
                }
            };
            let params =
                ResourceListParams { channel: ahp_types::ROOT_RESOURCE_URI.to_owned(), meta: None, uri: uri.clone() };
            let listed: ResourceListResult = request(core, &host, "resourceList", params).await?;
            Reply::FolderList(crate::folders::listing(&uri, &listed))
        }
        Command::ChatOpen(a) => {
            let sink = stream.ok_or_else(needs_stream)?;
            let host = HostId::new(a.host);
            let chat = default_chat(core, &host, &a.session).await?;
            let stream_id = core.open_chat(&host, &a.session, &chat, sink).await?;
            Reply::ChatOpen(ChatOpened { stream_id, chat })
        }
        Command::ChatSend(a) => {
            let message = composed(c, a.text, a.model, a.attachments, a.agent)?;
            Reply::ChatSend(core.send(&HostId::new(a.host), &a.chat, message).await?)
        }
        Command::ChatReply(a) => {
            Reply::ChatReply(turn_reply::reply(core, &HostId::new(a.host), &a.chat, &a.turn_id).await?)
        }
        Command::ChatQueue(a) => {
            let message = composed(c, a.text, a.model, a.attachments, a.agent)?;
            Reply::ChatQueue(queue(core, a.host, a.chat, a.kind.unwrap_or_default().into(), &message).await?)
        }
        Command::ChatRemoveQueued(a) => {
            let kind = a.kind.unwrap_or_default().into();
            let action = StateAction::ChatPendingMessageRemoved(ChatPendingMessageRemovedAction { kind, id: a.id });
            Reply::ChatRemoveQueued(dispatch(core, a.host, a.chat, action).await?)
        }
        Command::ChatReorderQueued(a) => {
            let action = StateAction::ChatQueuedMessagesReordered(ChatQueuedMessagesReorderedAction { order: a.order });
            Reply::ChatReorderQueued(dispatch(core, a.host, a.chat, action).await?)
        }
        Command::ChatCancel(a) => {
            let host = HostId::new(a.host.clone());
            let state = core.chat_state(&host, &a.chat).ok_or_else(|| CoreError::NotFound(a.chat.clone()))?;
            let active = state.active_turn.ok_or_else(|| bad(c, "no turn is running"))?;
            let duration = active
                .started_at
                .parse::<jiff::Timestamp>()
                .map(|t| (jiff::Timestamp::now().as_millisecond() - t.as_millisecond()).max(0))
                .unwrap_or(0);
            let action =
                StateAction::ChatTurnCancelled(ChatTurnCancelledAction { turn_id: active.id, duration, meta: None });
            Reply::ChatCancel(dispatch(core, a.host, a.chat, action).await?)
        }
        Command::ChatConfirm(a) => {
            let action = ChatToolCallConfirmedAction {
                turn_id: a.turn_id,
                tool_call_id: a.tool_call_id,
                meta: None,
                approved: a.approved,
                confirmed: a.approved.then_some(ToolCallConfirmationReason::UserAction),
                reason: (!a.approved).then_some(ToolCallCancellationReason::Denied),
                edited_tool_input: None,
                user_suggestion: None,
                reason_message: None,
                selected_option_id: a.option_id,
            };
            Reply::ChatConfirm(dispatch(core, a.host, a.chat, StateAction::ChatToolCallConfirmed(action)).await?)
        }
        Command::ChatDraft(a) => {
            let draft = a.text.filter(|t| !t.is_empty()).map(|t| Composed::plain(t).message());
            let action = StateAction::ChatDraftChanged(ChatDraftChangedAction { draft });
            Reply::ChatDraft(dispatch(core, a.host, a.chat, action).await?)
        }
        Command::ChatInputAnswer(a) => {
            let action = ChatInputAnswerChangedAction {
                request_id: a.request_id,
                question_id: a.question_id,
                answer: a.answer.map(Into::into),
            };
            Reply::ChatInputAnswer(dispatch(core, a.host, a.chat, StateAction::ChatInputAnswerChanged(action)).await?)
        }
        Command::ChatInputComplete(a) => {
            let response = match a.response {
                InputResponse::Accept => ChatInputResponseKind::Accept,
                InputResponse::Decline => ChatInputResponseKind::Decline,
                InputResponse::Cancel => ChatInputResponseKind::Cancel,
            };
            let action =
                ChatInputCompletedAction { request_id: a.request_id, response, answers: a.answers.map(answers_to_ahp) };
            Reply::ChatInputComplete(dispatch(core, a.host, a.chat, StateAction::ChatInputCompleted(action)).await?)
        }
        Command::ChatRetry(a) => {
            let action = StateAction::ChatTurnResume(ChatTurnResumeAction { turn_id: a.turn_id });
            Reply::ChatRetry(dispatch(core, a.host, a.chat, action).await?)
        }
        Command::ChatFetchOlder(a) => {
            let more = core.older_turns(&HostId::new(a.host), &a.chat).await?;
            Reply::ChatFetchOlder(OlderFetched { more })
        }
        Command::Search(a) => Reply::Search(core.search(a).await?),
        Command::ChatCompletions(a) => {
            let params = CompletionsParams {
                channel: a.chat,
                meta: None,
                kind: CompletionItemKind::UserMessage,
                text: a.text,
                offset: a.offset,
            };
            let result: CompletionsResult = request(core, &HostId::new(a.host), "completions", params).await?;
            Reply::ChatCompletions(result.into())
        }
        Command::ChangesList(a) => Reply::ChangesList(crate::changes_view::list(core, a).await?),
        Command::ChangesDiff(a) => Reply::ChangesDiff(crate::changes_view::diff(core, a).await?),
        Command::ChangesInvoke(a) => Reply::ChangesInvoke(crate::changes_view::invoke(core, a).await?),
        Command::ChangesCommitDraft(a) => Reply::ChangesCommitDraft(crate::commit_draft::commit_draft(core, a).await?),
        Command::ChangesPush(a) => Reply::ChangesPush(crate::git_actions::push(core, a).await?),
        Command::ChangesPullRequestDraft(a) => {
            Reply::ChangesPullRequestDraft(crate::git_actions::pull_request_draft(core, a).await?)
        }
        Command::ChangesPullRequest(a) => Reply::ChangesPullRequest(crate::git_actions::pull_request(core, a).await?),
        Command::ChangesMergeBack(a) => Reply::ChangesMergeBack(crate::git_actions::merge_back(core, a).await?),
        Command::ChangesReview(a) => Reply::ChangesReview(crate::changes_view::review(core, a).await?),
        Command::ChangesTurnCounts(a) => Reply::ChangesTurnCounts(crate::changes_view::turn_counts(core, a).await?),
        Command::ReviewGet(a) => Reply::ReviewGet(crate::review_commands::get(core, &a)?),
        Command::ReviewSave(a) => Reply::ReviewSave(crate::review_commands::save(core, a)?),
        Command::ReviewSend(a) => Reply::ReviewSend(crate::review_commands::send(core, a).await?),
        Command::TerminalRead(a) => Reply::TerminalRead(crate::terminal_view::read(core, a).await?),
        Command::TerminalInput(a) => Reply::TerminalInput(crate::terminal_view::input(core, a).await?),
        Command::AgentSignIn(a) => {
            let params = json!({ "channel": a.session, "method": a.method, "key": a.key });
            Reply::AgentSignIn(request(core, &HostId::new(a.host), "x-hangar/agentSignIn", params).await?)
        }
        Command::AgentsList(a) => {
            Reply::AgentsList(request(core, &HostId::new(a.host), "x-hangar/agents", json!({})).await?)
        }
        Command::AgentsInstall(a) => {
            let params = json!({ "id": a.id, "version": a.version });
            Reply::AgentsInstall(request(core, &HostId::new(a.host), "x-hangar/agentInstall", params).await?)
        }
        Command::AgentsRemove(a) => Reply::AgentsRemove(
            request(core, &HostId::new(a.host), "x-hangar/agentRemove", json!({ "id": a.id })).await?,
        ),
        Command::AgentsSaveCustom(a) => {
            let params = json!({ "agent": a.agent });
            Reply::AgentsSaveCustom(request(core, &HostId::new(a.host), "x-hangar/agentSave", params).await?)
        }
        Command::AgentsDeleteCustom(a) => {
            let params = json!({ "id": a.id });
            Reply::AgentsDeleteCustom(request(core, &HostId::new(a.host), "x-hangar/agentDelete", params).await?)
        }
        Command::AgentsPastSessions(a) => Reply::AgentsPastSessions(core.past_sessions(a).await?),
        Command::RulesList(a) => Reply::RulesList(core.rules_list(a).await?),
        Command::UsageGet(a) => Reply::UsageGet(core.usage(a).await?),
        Command::RulesSave(a) => Reply::RulesSave(core.rules_save(a).await?),
        Command::RulesDelete(a) => {
            core.rules_delete(a).await?;
            Reply::RulesDelete(())
        }
        Command::HostCustomizationsOf(a) => {
            let agents = core
                .host_agents(&HostId::new(a.host.clone()))
                .await
                .ok_or_else(|| CoreError::NotFound(format!("no host {}", a.host)))?;
            Reply::HostCustomizationsOf(customizations::view::host_view(&agents))
        }
        Command::CustomizationsRead(a) => Reply::CustomizationsRead(customizations::files::read(core, a).await?),
        Command::CustomizationsVersion(a) => {
            Reply::CustomizationsVersion(customizations::files::version(core, a).await?)
        }
        Command::CustomizationsSave(a) => Reply::CustomizationsSave(customizations::files::save(core, a).await?),
        Command::CustomizationsTransfer(a) => {
            Reply::CustomizationsTransfer(customizations::files::transfer_to(core, a).await?)
        }
        Command::CustomizationsTestMcp(a) => {
            let params = json!({ "channel": a.session, "id": a.id });
            Reply::CustomizationsTestMcp(request(core, &HostId::new(a.host), "x-hangar/testMcpServer", params).await?)
        }
        Command::CustomizationsTestHook(a) => {
            let params =
                json!({ "channel": a.session, "command": a.command, "input": a.input, "timeoutSecs": a.timeout_secs });
            Reply::CustomizationsTestHook(request(core, &HostId::new(a.host), "x-hangar/testHook", params).await?)
        }
        Command::MarkdownRender(a) => Reply::MarkdownRender(crate::markdown::render_blocks(&a.text)),
        Command::CustomizationsDelete(a) => Reply::CustomizationsDelete(customizations::files::remove(core, a).await?),
        Command::CustomizationsToggle(a) => {
            let state = core.session_state(&HostId::new(a.host.clone()), &a.session).await?;
            let workspace = state.working_directories.as_deref().and_then(<[String]>::first).map(String::as_str);
            let tree = state.customizations.as_deref().unwrap_or_default();
            let action =
                toggle::action(tree, &a.id, a.scope, a.enabled, workspace).map_err(|e| bad(c, e.to_string()))?;
            Reply::CustomizationsToggle(dispatch(core, a.host, a.session, action).await?)
        }
    })
}

/// Queue `message` behind the chat's running turn (or steer it, by `kind`);
/// kept on disk and sent when the host is back if it is unreachable.
pub(crate) async fn queue(
    core: &Core,
    host: String,
    chat: String,
    kind: ahp_types::state::PendingMessageKind,
    message: &Composed,
) -> Result<Queued, CoreError> {
    let id = HostId::new(host.as_str());
    if core.unreachable(&id).await? {
        // Kept on disk; sent (queued behind a running turn) when the host is back.
        let key = ahp::multi_host_state_mirror::HostedResourceKey::new(id, chat.as_str());
        let id = core.keep_unsent(&key, message)?;
        return Ok(Queued { client_seq: None, id });
    }
    let (id, action) = outgoing::pending(kind, message);
    let Dispatched { client_seq } = dispatch(core, host, chat, action).await?;
    Ok(Queued { client_seq: Some(client_seq), id })
}

/// The default chat of a session, from its summary or its state.
pub(crate) async fn default_chat(core: &Core, host: &HostId, session: &str) -> Result<String, CoreError> {
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
