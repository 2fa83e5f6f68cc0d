//! `resourceRequest` from a client, decided by the host's grant policy; under
//! `--grant-policy ask` the host asks a connected client in turn (its own
//! `resourceRequest`, host to client) and records the grant if it accepts.
//!
//! Who is asked, in order: clients active on a session, then any other
//! initialized client, the requesting connection last. A client that answers
//! `-32601` (it has no handler) is skipped; any other error is a refusal.
//! With no acceptance before [`crate::config::HostConfig::grant_ask_timeout`]
//! (or nobody to ask), the request is denied (`-32009`).

use std::sync::Arc;

use ahp_types::commands::ResourceRequestParams;
use serde_json::Value;
use tokio::time::Instant;

use crate::host::client_requests::OutgoingError;
use crate::host::Host;
use crate::hub::ConnId;
use crate::resources::RequestStep;
use crate::RpcError;

/// Answer a client's `resourceRequest` (raw params).
pub async fn resource_request(host: &Arc<Host>, requester: ConnId, params: Value) -> Result<Value, RpcError> {
    match host.resources.begin_request(params).await? {
        RequestStep::Done(result) => {
            serde_json::to_value(result).map_err(|e| RpcError::internal(format!("serialize result: {e}")))
        }
        RequestStep::Ask(pending) => {
            let granted = ask_clients(host, requester, &pending.ask).await;
            host.resources.settle_request(pending, granted).await
        }
    }
}

/// Ask the candidates one after another until one decides; `false` when
/// none accepts in time.
async fn ask_clients(host: &Arc<Host>, requester: ConnId, ask: &ResourceRequestParams) -> bool {
    let params = match serde_json::to_value(ask) {
        Ok(params) => params,
        Err(_) => return false,
    };
    let deadline = Instant::now() + host.config.grant_ask_timeout;
    for conn in candidates(host, requester) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match host.outgoing.request(&host.hub, conn, "resourceRequest", params.clone(), left).await {
            Ok(_) => {
                tracing::info!("client on connection {conn} granted {}", ask.uri);
                return true;
            }
            Err(OutgoingError::Rejected { code: -32601, .. } | OutgoingError::Closed) => continue,
            Err(e) => {
                tracing::info!("grant for {} refused: {e}", ask.uri);
                return false;
            }
        }
    }
    false
}

/// Initialized connections, best first: active on a session, then others,
/// the requester last.
fn candidates(host: &Arc<Host>, requester: ConnId) -> Vec<ConnId> {
    let active = host.with_engine_locked(|engine| engine.active_client_ids());
    let mut conns = host.hub.identified_connections();
    conns.sort_by_key(|(conn, client_id)| (*conn == requester, !active.contains(client_id), *conn));
    conns.into_iter().map(|(conn, _)| conn).collect()
}
