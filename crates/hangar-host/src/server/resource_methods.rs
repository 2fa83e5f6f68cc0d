//! Methods that touch the file system: `resource*`, `createResourceWatch`,
//! `completions`. They run off the connection's read loop (tokio's blocking
//! pool), so a large read never stalls a connection; each answers when done.

use std::sync::Arc;

use ahp_types::actions::ResourceWatchChangedAction;
use ahp_types::commands::{CompletionsParams, CreateResourceWatchParams, CreateResourceWatchResult};
use ahp_types::StateAction;
use serde_json::Value;

use super::frames::{error_frame, result_frame};
use crate::engine::clock::new_id;
use crate::engine::ChannelRef;
use crate::host::Host;
use crate::hub::ConnId;
use crate::resources::changed_action;
use crate::resources::uri::file_uri_to_path;
use crate::RpcError;

fn send_outcome(host: &Host, conn: ConnId, id: &Value, outcome: Result<impl serde::Serialize, RpcError>) {
    let frame = match outcome {
        Ok(result) => result_frame(id, &result),
        Err(error) => error_frame(id, &error),
    };
    host.hub.send(conn, frame.into());
}

/// Whether a `resourceRead` asks for content the change tracker kept.
fn is_kept_content(params: &Value) -> bool {
    use crate::changes::changeset::{AUDIT_SCHEME, CONTENT_SCHEME};
    params
        .get("uri")
        .and_then(Value::as_str)
        .is_some_and(|u| u.starts_with(CONTENT_SCHEME) || u.starts_with(AUDIT_SCHEME))
}

/// `resourceRead`, `resourceWrite`, … and the grant extension methods.
pub fn resource_request(host: &Arc<Host>, conn: ConnId, id: Value, method: String, params: Value) {
    let host = host.clone();
    tokio::spawn(async move {
        let outcome = match method.as_str() {
            "resourceRead" if is_kept_content(&params) => {
                let host = host.clone();
                tokio::task::spawn_blocking(move || host.read_kept_content(&params))
                    .await
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| Err(RpcError::internal("reading kept content failed")))
            }
            "resourceRequest" => super::grant_ask::resource_request(&host, conn, params).await,
            _ => host.resources.handle(&method, params).await,
        };
        send_outcome(&host, conn, &id, outcome);
    });
}

/// `completions` on a chat: `/` commands (its agent's own, then its
/// session's enabled prompts and skills) when the message starts with `/`,
/// else `@` mentions from its working directories.
pub fn completions(host: &Arc<Host>, conn: ConnId, id: Value, params: CompletionsParams) -> Result<(), RpcError> {
    let (session, roots) = host.with_engine_locked(|engine| {
        let session = match engine.channel(&params.channel) {
            Some(ChannelRef::Chat { session }) => session,
            Some(ChannelRef::Session) => params.channel.clone(),
            _ => return Err(RpcError::not_found(format!("no such chat: {}", params.channel))),
        };
        let dirs = engine.session_state(&session).and_then(|s| s.working_directories.clone()).unwrap_or_default();
        Ok((session, dirs.iter().filter_map(|uri| file_uri_to_path(uri).ok()).collect::<Vec<_>>()))
    })?;
    let host = host.clone();
    tokio::task::spawn_blocking(move || {
        host.ensure_customizations(&session);
        let commands = host.customizations.slash_commands(&session);
        let agent = host.agent_commands(&session);
        let outcome = match crate::customizations::slash_completions::slash_completions(&agent, &commands, &params) {
            Ok(Some(slash)) => Ok(slash),
            Ok(None) => host.resources.completions(&roots, &params),
            Err(e) => Err(e),
        };
        send_outcome(&host, conn, &id, outcome);
    });
    Ok(())
}

/// `createResourceWatch`: a new `ahp-resource-watch:/…` channel whose
/// subscribers get batched `resourceWatch/changed` actions. It lives while it
/// has subscribers, or, until its first subscriber, while `conn` is open.
pub fn create_resource_watch(host: &Arc<Host>, conn: ConnId, id: Value, params: CreateResourceWatchParams) {
    let host = host.clone();
    tokio::task::spawn_blocking(move || {
        let uri = format!("ahp-resource-watch:/{}", new_id());
        let weak = Arc::downgrade(&host);
        let channel = uri.clone();
        let on_change = Box::new(move |changes| {
            let Some(host) = weak.upgrade() else { return };
            let action: ResourceWatchChangedAction = changed_action(changes);
            host.with_engine(|e| e.emit_server(&channel, StateAction::ResourceWatchChanged(action)).ok());
        });
        let outcome = host.resources.watch(params, on_change).and_then(|handle| {
            host.add_watch(&uri, conn, handle)?;
            Ok(CreateResourceWatchResult { channel: uri.clone() })
        });
        send_outcome(&host, conn, &id, outcome);
    });
}
