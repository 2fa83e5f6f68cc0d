//! `/ipc` of `hangar serve --web`: the bridge's command table
//! (`crate::bridge::connection`) for a page that presents a token in the
//! WebSocket subprotocols: `new WebSocket(url, ["hangar-ipc",
//! "hangar-token.TOKEN"])` (never in the URL, which logs and history
//! keep). A device token or the host's opens it (the same check and
//! throttle as an AHP upgrade); none → 401, a wrong one → 403. When the
//! device is revoked (`hangar token revoke NAME`) the socket is closed at
//! once with [`REVOKED_CLOSE_CODE`], which the page shows as signed out.
//! The page is a paired device (`crate::caller`): it does not pair others.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use hangar_host::server::device_watch::until_revoked;

use super::{ConnInfo, WebState};
use crate::bridge;
use crate::caller::Caller;

/// The subprotocol the server answers with.
pub const IPC_PROTOCOL: &str = "hangar-ipc";
/// The prefix of the subprotocol that carries the token.
pub const TOKEN_PROTOCOL_PREFIX: &str = "hangar-token.";
/// The close code of a revoked device (4000–4999: the application's).
pub const REVOKED_CLOSE_CODE: u16 = 4401;

pub(super) async fn upgrade(
    State(state): State<Arc<WebState>>,
    Extension(info): Extension<ConnInfo>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let token = headers
        .get_all(axum::http::header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|p| p.trim().strip_prefix(TOKEN_PROTOCOL_PREFIX).map(str::to_owned));
    let credential = match info.policy.check_presented(token.as_deref(), info.peer) {
        Ok(credential) => credential,
        Err(refusal) => return (refusal.status(), refusal.reason()).into_response(),
    };
    let revoked = until_revoked(Some(credential), info.policy.devices.subscribe());
    let core = state.core.clone();
    ws.protocols([IPC_PROTOCOL]).max_message_size(bridge::MAX_MESSAGE_BYTES).on_upgrade(move |socket| {
        bridge::connection(core, socket, Caller::PairedDevice, async move {
            revoked.await;
            CloseFrame { code: REVOKED_CLOSE_CODE, reason: "This device was signed out".into() }
        })
    })
}
