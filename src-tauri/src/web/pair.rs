//! `GET /pair` says pairing is needed here; `POST /pair` `{"code"}` → `{"token","device"}`: a pairing code minted
//! by `hangar token create NAME --pair` traded, once, for the device token
//! of NAME. A wrong, expired or used code gets the same 403; each counts
//! as a failed token against the address (`token_throttle`: 429 after too
//! many).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use hangar_host::server::pairing_codes::PairingError;
use serde::Deserialize;
use serde_json::json;

use super::{ConnInfo, WebState};

/// Where the page posts its code.
pub(super) const PAIR_PATH: &str = "/pair";

#[derive(Deserialize)]
pub(super) struct PairRequest {
    code: String,
}

/// Trade the code for a device token.
pub(super) async fn pair(
    State(state): State<Arc<WebState>>,
    Extension(info): Extension<ConnInfo>,
    body: Result<Json<PairRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let now = std::time::Instant::now();
    if let Some(wait) = info.policy.throttle.locked_for(info.peer, now) {
        let mut resp = error(StatusCode::TOO_MANY_REQUESTS, "too many wrong codes from this address: wait a minute");
        if let Ok(secs) = HeaderValue::from_str(&wait.as_secs().max(1).to_string()) {
            resp.headers_mut().insert(header::RETRY_AFTER, secs);
        }
        return resp;
    }
    let Ok(Json(PairRequest { code })) = body else {
        return error(StatusCode::BAD_REQUEST, "send {\"code\": \"…\"} as JSON");
    };
    let pairing = state.pairing.clone();
    let unix_now = jiff::Timestamp::now().as_second();
    let redeemed = tokio::task::spawn_blocking(move || pairing.redeem(&code, unix_now)).await;
    match redeemed {
        Ok(Ok(paired)) => {
            tracing::info!("device {:?} paired from {}", paired.device, info.peer);
            Json(json!({ "token": paired.token, "device": paired.device })).into_response()
        }
        Ok(Err(PairingError::Refused)) => {
            info.policy.throttle.failed(info.peer, now);
            error(StatusCode::FORBIDDEN, "this pairing link is not valid: it may have expired or been used")
        }
        Ok(Err(e)) => failed(&e),
        Err(e) => failed(&e),
    }
}

/// The host could not pair (its files, a task that died): logged here, not told.
fn failed(e: &dyn std::fmt::Display) -> Response {
    tracing::warn!("pairing: {e}");
    error(StatusCode::INTERNAL_SERVER_ERROR, "pairing failed on the host; see its log")
}

/// `GET /pair`: `{"pairing": true}`, how the page knows this server wants
/// a device token (the development bridge has no `/pair`).
pub(super) async fn pairing_required() -> Response {
    Json(json!({ "pairing": true })).into_response()
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}
