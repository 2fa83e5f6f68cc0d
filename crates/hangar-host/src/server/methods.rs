//! The method table: every JSON-RPC method the host answers, in one place.
//! ("Where is `subscribe` handled?" — here, `"subscribe" =>`.)

use std::sync::Arc;

use ahp_types::actions::ChatTurnsLoadedAction;
use ahp_types::commands::{
    CreateSessionParams, DispatchActionParams, DisposeSessionParams, FetchTurnsParams, Implementation,
    InitializeParams, InitializeResult, ListSessionsParams, ListSessionsResult, ReconnectParams, SubscribeParams,
    SubscribeResult, UnsubscribeParams,
};
use ahp_types::{negotiate_protocol_version, StateAction, SUPPORTED_PROTOCOL_VERSIONS};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::frames::{error_frame, result_frame};
use super::{chat_snapshot, resource_methods};
use crate::compat_v0_9::generation::ProtocolGeneration;
use crate::compat_v0_9::{self, downgrade, upgrade};
use crate::engine::{ChannelRef, CreateSession};
use crate::host::fork_session::fork_source;
use crate::host::worktree_session::{worktree_meta, RemovalRequest, WorktreeRequest};
use crate::host::Host;
use crate::hub::ConnId;
use crate::resources::uri::{file_uri_to_path, path_to_file_uri};
use crate::resources::ResourceService;
use crate::store::TurnCursor;
use crate::RpcError;

/// Methods answered before `initialize`.
const BEFORE_INITIALIZE: &[&str] = &["ping", "initialize", "reconnect"];

/// What one connection knows about itself.
pub struct ConnState {
    /// Its id in the hub.
    pub id: ConnId,
    /// Set by `initialize` / `reconnect`.
    pub client_id: Option<String>,
    /// Negotiated generation.
    pub generation: ProtocolGeneration,
}

/// A handler's answer.
pub enum Reply {
    /// Send this result.
    Result(Value),
    /// The response was already queued (atomically with subscriptions).
    Sent,
}

/// Decode raw params, naming the offending field on failure (`-32602`).
fn decode<T: DeserializeOwned>(params: &RawValue) -> Result<T, RpcError> {
    let mut json = serde_json::Deserializer::from_str(params.get());
    serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { "params".to_owned() } else { path };
        RpcError::invalid_params(&field, e.inner().to_string())
    })
}

/// Answer a request.
pub fn handle_request(
    host: &Arc<Host>,
    conn: &mut ConnState,
    id: &Value,
    method: &str,
    params: Box<RawValue>,
) -> Result<Reply, RpcError> {
    if conn.client_id.is_none() && !BEFORE_INITIALIZE.contains(&method) {
        return Err(RpcError::method_not_found(method).with_data(json!({ "reason": "initialize first" })));
    }
    let params = match conn.generation {
        ProtocolGeneration::V0_9 if upgrade::lifts_request(method) => lift_request(method, &params)?,
        _ => params,
    };
    match method {
        "ping" => Ok(Reply::Result(Value::Null)),
        "initialize" => initialize(host, conn, id, decode(&params)?),
        "reconnect" => reconnect(host, conn, id, decode(&params)?),
        "subscribe" => subscribe(host, conn, id, decode(&params)?),
        "listSessions" => list_sessions(host, conn, decode(&params)?),
        "createSession" => create_session(host, conn, id, decode(&params)?),
        "disposeSession" => {
            let p: DisposeSessionParams = decode(&params)?;
            let Some(ask) = worktree_meta::<RemovalRequest>(p.meta.as_ref())? else {
                host.with_engine(|e| e.dispose_session(&p.channel))?;
                return Ok(Reply::Result(Value::Null));
            };
            // Checking and removing a worktree runs git: off the read loop.
            Ok(answer_off_loop(host, conn, id, move |host| host.dispose_worktree_session(&p.channel, ask)))
        }
        "fetchTurns" => fetch_turns(host, conn, id, decode(&params)?),
        "createTerminal" => {
            let client = conn.client_id.clone().unwrap_or_default();
            Ok(Reply::Result(super::terminal_methods::create_terminal(host, &client, decode(&params)?)?))
        }
        "disposeTerminal" => {
            let client = conn.client_id.clone().unwrap_or_default();
            Ok(Reply::Result(super::terminal_methods::dispose_terminal(host, &client, &decode(&params)?)?))
        }
        "completions" => {
            resource_methods::completions(host, conn.id, id.clone(), decode(&params)?)?;
            Ok(Reply::Sent)
        }
        "createResourceWatch" => {
            resource_methods::create_resource_watch(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/restartAgent" => {
            Ok(Reply::Result(super::restart_agent_method::restart_agent(host, &decode(&params)?)?))
        }
        "x-hangar/agentSignIn" => {
            let client = conn.client_id.clone().unwrap_or_default();
            super::agent_sign_in_method::sign_in(host, conn.id, client, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/agentSignOut" => {
            super::agent_sign_in_method::sign_out(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/agentSessions" => {
            super::agent_sessions_method::answer(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/search" => {
            super::search_method::answer(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/usage" => {
            super::usage_method::answer(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/rules" => Ok(Reply::Result(super::rules_methods::list(host, decode(&params)?)?)),
        "x-hangar/ruleSave" => {
            let client = conn.client_id.clone().unwrap_or_default();
            Ok(Reply::Result(super::rules_methods::save(host, &client, decode(&params)?)?))
        }
        "x-hangar/ruleDelete" => Ok(Reply::Result(super::rules_methods::delete(host, &decode(&params)?)?)),
        "x-hangar/agents" => Ok(Reply::Result(super::agents_methods::catalog(host)?)),
        "x-hangar/agentInstall" => Ok(Reply::Result(super::agents_methods::install(host, decode(&params)?)?)),
        "x-hangar/agentRemove" => {
            super::agents_methods::remove(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/agentSave" => Ok(Reply::Result(super::agents_methods::save(host, decode(&params)?)?)),
        "x-hangar/agentDelete" => Ok(Reply::Result(super::agents_methods::delete(host, &decode(&params)?)?)),
        "x-hangar/testHook" => {
            super::hook_test_method::test_hook(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "x-hangar/testMcpServer" => {
            super::mcp_test_method::test_mcp_server(host, conn.id, id.clone(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "invokeChangesetOperation" => {
            let client_id = conn.client_id.clone().unwrap_or_default();
            super::changeset_methods::invoke(host, conn.id, id.clone(), client_id, decode(&params)?);
            Ok(Reply::Sent)
        }
        m if ResourceService::serves(m) => {
            resource_methods::resource_request(host, conn.id, id.clone(), m.to_owned(), decode(&params)?);
            Ok(Reply::Sent)
        }
        "resolveSessionConfig" => {
            let mut config = crate::agents::acp::resolve_session_config(&**host, &decode(&params)?);
            if conn.generation == ProtocolGeneration::V0_9 {
                downgrade::session_config(&mut config);
            }
            Ok(Reply::Result(config))
        }
        "sessionConfigCompletions" => {
            Ok(Reply::Result(crate::agents::acp::session_config_completions(&**host, &decode(&params)?)))
        }
        other => Err(RpcError::method_not_found(other)),
    }
}

/// Handle a notification (no answer is possible).
pub fn handle_notification(host: &Arc<Host>, conn: &mut ConnState, method: &str, params: Box<RawValue>) {
    let Some(client_id) = conn.client_id.clone() else {
        return;
    };
    match method {
        "dispatchAction" => match decode_dispatch(conn.generation, &params) {
            Ok((p, refusal)) => {
                // Archiving with `_meta["hangar/worktree"].remove`: checked
                // first, removed once the archive is applied.
                let (refusal, removal) = match refusal {
                    Some(reason) => (Some(reason), None),
                    None => match host.archive_removal(&p, &params) {
                        Ok(removal) => (None, removal),
                        Err(reason) => (Some(reason), None),
                    },
                };
                let applied = host.with_engine(|e| {
                    // The echo carries the engine's seq: it goes behind every
                    // action already queued, like an envelope.
                    let outcome = match refusal {
                        Some(reason) => Err(e.refuse_client(&client_id, &p.channel, p.client_seq, p.action, reason)),
                        None => e.dispatch_client(&client_id, &p.channel, p.client_seq, p.action),
                    };
                    let applied = outcome.is_ok();
                    if let Err(mut rejection) = outcome {
                        tracing::debug!(reason = %rejection.reason, "rejected a client action");
                        if conn.generation == ProtocolGeneration::V0_9 {
                            rejection.frame = downgrade::echo_frame(&rejection.frame);
                        }
                        if e.writer().failure().is_some() {
                            // The store cannot save: nothing queued is published
                            // until it can, so this refusal cannot wait behind it.
                            host.hub.send(conn.id, rejection.frame.into());
                        } else {
                            e.publish_reply(conn.id, rejection.frame);
                        }
                    }
                    applied
                });
                if let (true, Some(removal)) = (applied, removal) {
                    host.remove_archived_worktree(&p.channel, removal);
                }
            }
            Err(e) => tracing::debug!("ignored a malformed dispatchAction: {e}"),
        },
        "unsubscribe" => {
            if let Ok(p) = decode::<UnsubscribeParams>(&params) {
                if host.hub.unsubscribe(conn.id, &p.channel) {
                    host.release_watch_if_unwatched(&p.channel);
                }
            }
        }
        other => tracing::debug!("ignored notification {other}"),
    }
}

fn initialize(host: &Arc<Host>, conn: &mut ConnState, id: &Value, p: InitializeParams) -> Result<Reply, RpcError> {
    if conn.client_id.is_some() {
        return Err(RpcError::invalid_request("already initialized"));
    }
    if p.client_id.is_empty() {
        return Err(RpcError::invalid_params("clientId", "must not be empty"));
    }
    let version = negotiate_protocol_version(&p.protocol_versions)
        .map_err(|e| RpcError::invalid_params("protocolVersions", e))?
        .ok_or_else(|| RpcError::unsupported_protocol_version(SUPPORTED_PROTOCOL_VERSIONS))?
        .to_owned();
    let generation = ProtocolGeneration::from_version(&version);
    conn.client_id = Some(p.client_id.clone());
    conn.generation = generation;
    host.hub.identify(conn.id, &p.client_id, generation);
    host.client_arrived(&p.client_id, generation);
    let default_directory = std::env::var_os("HOME").map(|h| path_to_file_uri(std::path::Path::new(&h)));
    host.with_engine_locked(|engine| {
        let seq = engine.seq();
        let snapshots: Vec<_> = p
            .initial_subscriptions
            .unwrap_or_default()
            .iter()
            .filter(|uri| generation == ProtocolGeneration::V1 || compat_v0_9::defines_channel(uri))
            .filter_map(|uri| engine.snapshot(uri))
            .collect();
        let channels: Vec<String> = snapshots.iter().map(|s| s.resource.clone()).collect();
        let result = InitializeResult {
            protocol_version: version,
            server_seq: seq as i64,
            server_info: Some(Implementation {
                name: "hangar".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
                title: Some("Hangar".to_owned()),
            }),
            meta: None,
            snapshots,
            default_directory,
            completion_trigger_characters: Some(vec!["@".to_owned(), "/".to_owned()]),
            terminal_command_prefix: None,
            telemetry: None,
            automations: None,
        };
        let frame = result_frame_for(generation, id, &result, downgrade::initialize_result);
        engine.subscribe_and_reply(&host.hub, conn.id, &channels, frame);
    });
    Ok(Reply::Sent)
}

fn reconnect(host: &Arc<Host>, conn: &mut ConnState, id: &Value, p: ReconnectParams) -> Result<Reply, RpcError> {
    let generation =
        host.known_client(&p.client_id).ok_or_else(|| RpcError::not_found("unknown clientId: initialize instead"))?;
    if p.last_seen_server_seq < 0 {
        return Err(RpcError::invalid_params("lastSeenServerSeq", "must not be negative"));
    }
    conn.client_id = Some(p.client_id.clone());
    conn.generation = generation;
    host.hub.identify(conn.id, &p.client_id, generation);
    host.client_arrived(&p.client_id, generation);
    for uri in &p.subscriptions {
        host.ensure_changeset(uri);
    }
    host.with_engine_locked(|engine| {
        let (present, missing): (Vec<String>, Vec<String>) =
            p.subscriptions.iter().cloned().partition(|uri| engine.channel(uri).is_some());
        let replayed = host.hub.replay_and_subscribe(conn.id, p.last_seen_server_seq as u64, &present, |actions| {
            let actions: Vec<Value> = actions.iter().filter_map(|a| serde_json::from_str(a).ok()).collect();
            result_frame(id, &json!({ "type": "replay", "actions": actions, "missing": missing })).into()
        });
        if !replayed {
            let snapshots: Vec<_> = present
                .iter()
                .filter(|uri| generation == ProtocolGeneration::V1 || compat_v0_9::defines_channel(uri))
                .filter_map(|uri| engine.snapshot(uri))
                .collect();
            let channels: Vec<String> = snapshots.iter().map(|s| s.resource.clone()).collect();
            let result = json!({ "type": "snapshot", "snapshots": snapshots });
            let frame = result_frame_for(generation, id, &result, downgrade::reconnect_result);
            engine.subscribe_and_reply(&host.hub, conn.id, &channels, frame);
        }
    });
    Ok(Reply::Sent)
}

fn subscribe(host: &Arc<Host>, conn: &mut ConnState, id: &Value, p: SubscribeParams) -> Result<Reply, RpcError> {
    if conn.generation == ProtocolGeneration::V0_9 && !compat_v0_9::defines_channel(&p.channel) {
        return Err(RpcError::not_found(format!("AHP 0.9 has no such channel: {}", p.channel)));
    }
    // A session restored after a restart shows current customizations.
    host.ensure_customizations(&p.channel);
    host.ensure_changeset(&p.channel);
    host.prepare_changes(&p.channel);
    let tail = p.view.as_ref().and_then(|v| v.turns).and_then(|n| usize::try_from(n).ok());
    chat_snapshot::with_snapshot(host, &p.channel, tail, |engine, snapshot| {
        let result = SubscribeResult { snapshot: Some(snapshot) };
        let frame = result_frame_for(conn.generation, id, &result, downgrade::subscribe_result);
        engine.subscribe_and_reply(&host.hub, conn.id, std::slice::from_ref(&p.channel), frame);
        Ok(Reply::Sent)
    })
}

fn list_sessions(host: &Arc<Host>, conn: &ConnState, p: ListSessionsParams) -> Result<Reply, RpcError> {
    let page = host.with_engine_locked(|e| e.list_sessions(p.limit, p.cursor.as_deref()))?;
    let mut result = serde_json::to_value(ListSessionsResult { next_cursor: page.next_cursor, items: page.items })
        .map_err(|e| RpcError::internal(e.to_string()))?;
    if conn.generation == ProtocolGeneration::V0_9 {
        if let Some(items) = result.get_mut("items").and_then(Value::as_array_mut) {
            items.iter_mut().for_each(downgrade::summary);
        }
    }
    Ok(Reply::Result(result))
}

fn create_session(host: &Arc<Host>, conn: &ConnState, id: &Value, p: CreateSessionParams) -> Result<Reply, RpcError> {
    let uri = p.channel;
    let valid_uri = uri.split_once(':').is_some_and(|(scheme, rest)| {
        !scheme.is_empty() && !rest.is_empty() && scheme != "ahp-root" && scheme != "ahp-chat" && scheme != "file"
    });
    if !valid_uri {
        return Err(RpcError::invalid_params("channel", "must be a session URI such as ahp-session:/<id>"));
    }
    let fork = fork_source(p.meta.as_ref())?;
    let worktree = worktree_meta::<WorktreeRequest>(p.meta.as_ref())?;
    if fork.is_some() && worktree.is_some() {
        return Err(RpcError::invalid_params("_meta", "hangar/fork and hangar/worktree cannot be asked for together"));
    }
    let past = past_session_meta(p.meta.as_ref())?;
    let past_title = past.is_some().then(|| past_session_title(p.meta.as_ref())).flatten();
    if past.is_some() && (fork.is_some() || worktree.is_some()) {
        return Err(RpcError::invalid_params(
            "_meta",
            "hangar/agentSession cannot be asked for with hangar/fork or hangar/worktree",
        ));
    }
    if past.is_some() && p.provider.is_none() {
        return Err(RpcError::invalid_params("provider", "opening an agent's own session needs its provider"));
    }
    let agents = host.agent_registry.all();
    let provider = match p.provider {
        Some(provider) if agents.iter().any(|a| a.id == provider) => provider,
        Some(provider) => return Err(RpcError::provider_not_found(&provider)),
        // A fork keeps its source's agent.
        None if fork.is_some() => String::new(),
        // A host with no agents still serves the protocol (clients drive
        // turns themselves); its sessions have no provider.
        None if agents.is_empty() => String::new(),
        None => agents[0].id.clone(),
    };
    // A fork's folders are the host's copies; the request's are ignored.
    if let Some(dirs) = p.working_directories.as_ref().filter(|_| fork.is_none()) {
        for dir in dirs {
            match file_uri_to_path(dir) {
                Ok(path) if path.is_dir() => host.resources.check_working_dir(&path)?,
                _ => {
                    return Err(RpcError::invalid_params(
                        "workingDirectories",
                        format!("not an existing directory: {dir}"),
                    ))
                }
            }
        }
    }
    if let Some(active) = &p.active_client {
        if Some(&active.client_id) != conn.client_id.as_ref() {
            return Err(RpcError::invalid_params("activeClient", "a client can only register itself"));
        }
    }
    let config = session_config(host, &provider, p.config);
    let req = CreateSession {
        uri,
        provider,
        working_directories: p.working_directories,
        active_client: p.active_client,
        config,
        fork: None,
        meta: past,
    };
    // Copying folders, making a worktree and running its setup read and
    // write files: off the read loop.
    Ok(match (fork, worktree) {
        (Some(source), _) => answer_off_loop(host, conn, id, move |host| host.fork_session(req, source)),
        (None, Some(ask)) => {
            let uri = req.uri.clone();
            answer_off_loop(host, conn, id, move |host| {
                host.worktree_session(req, ask)?;
                host.prepare_changes(&uri);
                Ok(())
            })
        }
        (None, None) => {
            let uri = req.uri.clone();
            host.with_engine(|e| {
                e.create_session(req)?;
                if let Some(title) = past_title {
                    // The agent's own title for the session it listed: it
                    // counts as the agent's (a person's rename still wins,
                    // and the replayed first message does not replace it).
                    let action =
                        StateAction::SessionTitleChanged(ahp_types::actions::SessionTitleChangedAction { title });
                    let _ = e.emit_server(&uri, action);
                }
                Ok::<_, RpcError>(())
            })?;
            host.prepare_changes(&uri);
            Reply::Result(Value::Null)
        }
    })
}

/// `createSession`'s `_meta["hangar/agentSession"]` (`{ "sessionId": string }`,
/// one of the agent's own earlier sessions from `x-hangar/agentSessions`)
/// as the session's starting `_meta`: its agent opens that session
/// (`agents/acp/startup.rs`) instead of a new one.
fn past_session_meta(
    meta: Option<&serde_json::Map<String, Value>>,
) -> Result<Option<serde_json::Map<String, Value>>, RpcError> {
    let Some(asked) = meta.and_then(|m| m.get(AGENT_SESSION_META)) else {
        return Ok(None);
    };
    let sid = asked
        .get("sessionId")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| RpcError::invalid_params("_meta", "hangar/agentSession needs a sessionId"))?;
    let acp = json!({ "sessionId": sid, crate::agents::acp::ACP_OPEN_KEY: true });
    Ok(Some([(crate::agents::acp::ACP_META_KEY.to_owned(), acp)].into_iter().collect()))
}

/// `_meta["hangar/agentSession"].title`: the title the agent listed the
/// session under (`x-hangar/agentSessions`), trimmed, when there is one.
fn past_session_title(meta: Option<&serde_json::Map<String, Value>>) -> Option<String> {
    let title = meta?.get(AGENT_SESSION_META)?.get("title")?.as_str()?.trim();
    (!title.is_empty()).then(|| title.chars().take(crate::engine::titles::AUTO_TITLE_MAX * 2).collect())
}

/// The `createSession` `_meta` key that opens an agent's own earlier session.
pub const AGENT_SESSION_META: &str = "hangar/agentSession";

/// Run `work` on the blocking pool and answer request `id` with its
/// outcome (`null` on success) when it is done.
fn answer_off_loop(
    host: &Arc<Host>,
    conn: &ConnState,
    id: &Value,
    work: impl FnOnce(&Arc<Host>) -> Result<(), RpcError> + Send + 'static,
) -> Reply {
    let (host, conn, id) = (host.clone(), conn.id, id.clone());
    tokio::task::spawn_blocking(move || {
        let frame = match work(&host) {
            Ok(()) => result_frame(&id, &Value::Null),
            Err(error) => error_frame(&id, &error),
        };
        host.hub.send(conn, frame.into());
    });
    Reply::Sent
}

/// `fetchTurns`: read the older page, apply `chat/turnsLoaded`, and answer
/// only after that action reached the subscribers.
/// The session's config: the schema `resolveSessionConfig` gives for the
/// agent, with the client's values over the resolved defaults.
fn session_config(
    host: &Arc<Host>,
    provider: &str,
    requested: Option<serde_json::Map<String, Value>>,
) -> Option<ahp_types::state::SessionConfigState> {
    let resolved =
        crate::agents::acp::resolve_session_config(&**host, &json!({ "provider": provider, "config": requested }));
    let mut config: ahp_types::state::SessionConfigState = serde_json::from_value(resolved).ok()?;
    config.values.extend(requested.unwrap_or_default());
    Some(config)
}

fn fetch_turns(host: &Arc<Host>, conn: &ConnState, id: &Value, p: FetchTurnsParams) -> Result<Reply, RpcError> {
    let current = host.with_engine_locked(|engine| match engine.channel(&p.channel) {
        Some(ChannelRef::Chat { .. }) => Ok(engine.chat_state(&p.channel).and_then(|c| c.turns_next_cursor.clone())),
        _ => Err(RpcError::not_found(format!("no such chat: {}", p.channel))),
    })?;
    let unknown = || RpcError::invalid_params("cursor", "unknown cursor");
    let requested = match &p.cursor {
        Some(raw) => Some(TurnCursor::decode(raw).ok_or_else(unknown)?),
        None => current.as_deref().and_then(TurnCursor::decode),
    };
    let page = match &requested {
        Some(cursor) => host
            .turn_pages
            .page(&p.channel, Some(cursor), host.config.turn_tail)
            .map_err(|e| RpcError::internal(format!("reading turns: {e}")))?
            .ok_or_else(unknown)?,
        None => Default::default(),
    };
    host.with_engine(|engine| {
        let next = page.next.as_ref().map(TurnCursor::encode);
        let action = StateAction::ChatTurnsLoaded(ChatTurnsLoadedAction { turns: page.turns, turns_next_cursor: next });
        let _ = engine.emit_server(&p.channel, action);
        engine.publish_reply(conn.id, result_frame(id, &json!({})));
    });
    Ok(Reply::Sent)
}

/// The frame answering a request with `result`, downgraded by `to_0_9` for
/// a 0.9 connection.
fn result_frame_for(
    generation: ProtocolGeneration,
    id: &Value,
    result: &impl Serialize,
    to_0_9: fn(&mut Value),
) -> String {
    if generation == ProtocolGeneration::V1 {
        return result_frame(id, result);
    }
    match serde_json::to_value(result) {
        Ok(mut value) => {
            to_0_9(&mut value);
            result_frame(id, &value)
        }
        Err(_) => result_frame(id, result),
    }
}

/// A 0.9 client's request params, lifted to 1.0.
fn lift_request(method: &str, params: &RawValue) -> Result<Box<RawValue>, RpcError> {
    let mut value: Value = decode(params)?;
    upgrade::request_params(method, &mut value);
    serde_json::value::to_raw_value(&value).map_err(|e| RpcError::internal(e.to_string()))
}

/// `dispatchAction` params, a 0.9 client's lifted to 1.0; the second item
/// is why the action is refused before it reaches the engine.
fn decode_dispatch(
    generation: ProtocolGeneration,
    params: &RawValue,
) -> Result<(DispatchActionParams, Option<String>), RpcError> {
    if generation == ProtocolGeneration::V1 {
        return Ok((decode(params)?, None));
    }
    let mut value: Value = decode(params)?;
    let refusal = value.get_mut("action").and_then(|action| upgrade::action(action).err());
    let p = serde_json::from_value(value).map_err(|e| RpcError::invalid_params("params", e.to_string()))?;
    Ok((p, refusal))
}

/// The frame answering a request.
pub fn answer(id: &Value, outcome: Result<Reply, RpcError>) -> Option<String> {
    match outcome {
        Ok(Reply::Result(value)) => Some(result_frame(id, &value)),
        Ok(Reply::Sent) => None,
        Err(error) => Some(error_frame(id, &error)),
    }
}
