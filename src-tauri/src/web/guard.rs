//! What every web request passes and every answer carries.
//!
//! - `Host` must be one the listener allows (loopback names on a loopback
//!   listener: DNS rebinding), else 403.
//! - `Origin`, when sent (browsers send it on `POST` and WebSocket
//!   upgrades), must be this page's own: `https://` + `Host` (`http://`
//!   without TLS), else 403. Another site's page cannot pair or drive it.
//! - Answers: a strict `Content-Security-Policy` (scripts, styles and
//!   connections from this origin only, no inline script, no framing),
//!   `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`; the
//!   HTML is `Cache-Control: no-store` (`assets.rs`).

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::ConnInfo;

/// Check the request's `Host` and `Origin`, then head the answer.
pub(super) async fn guard(req: Request, next: Next) -> Response {
    let Some(info) = req.extensions().get::<ConnInfo>().cloned() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("").to_owned();
    if host.is_empty() || !info.policy.host_allowed(&host) {
        return refused("host not allowed");
    }
    let own = format!("{}://{host}", if info.tls { "https" } else { "http" });
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        if origin.as_bytes() != own.as_bytes() {
            return refused("origin not allowed");
        }
    }
    let mut resp = next.run(req).await;
    let ws = if info.tls { "wss" } else { "ws" };
    let csp = format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self' {ws}://{host}; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'"
    );
    let headers = resp.headers_mut();
    if let Ok(csp) = HeaderValue::from_str(&csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    resp
}

fn refused(why: &'static str) -> Response {
    (StatusCode::FORBIDDEN, why).into_response()
}
