//! Opening a WebSocket to a host: `ws://`, or `wss://` trusting only the
//! pinned certificate; the token goes in an `Authorization: Bearer` header
//! (never in the URL, so never in a log line). Each way it can fail is told
//! apart ([`ConnectError`]) for the command line's message and the desktop's
//! host state. The stream is the type `ahp_ws::WebSocketTransport::from_stream`
//! wraps, so the desktop's transport factory is `connect` + `from_stream`.

use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{header, HeaderValue, StatusCode, Uri};
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

use crate::fingerprint::Fingerprint;
use crate::pin::{client_config, SeenCertificate};

/// An open connection to a host, ready for `ahp_ws::WebSocketTransport::from_stream`.
pub type HostStream = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Why a connection to a host failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// Not a `ws://` / `wss://` URL Hangar can use.
    #[error("{url}: {why}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// No TCP connection (host down, wrong port, network away).
    #[error("cannot reach {url}: {detail}")]
    Unreachable {
        /// The host's URL.
        url: String,
        /// The OS error.
        detail: String,
    },
    /// The host answered the upgrade with 401 or 403: no token, a wrong one,
    /// or a revoked device token.
    #[error("{url} refused the token (HTTP {status}: {reason}); a revoked device token needs a new one (`hangar token create` on the host)")]
    TokenRefused {
        /// The host's URL.
        url: String,
        /// 401 (no token) or 403 (wrong or revoked).
        status: u16,
        /// The host's reason.
        reason: String,
    },
    /// The host presented a certificate other than the pinned one.
    #[error(
        "{url} presented a different TLS certificate than the one pinned: pinned SHA-256 {expected}, now {found}. \
         Someone may be intercepting the connection; if the host made a new certificate on purpose, remove the \
         host and add it again to pin the new one"
    )]
    CertificateChanged {
        /// The host's URL.
        url: String,
        /// The pinned fingerprint.
        expected: Fingerprint,
        /// The one presented.
        found: Fingerprint,
    },
    /// A `wss://` host with no pinned fingerprint.
    #[error("{0} is a wss:// host with no pinned certificate fingerprint")]
    NotPinned(String),
    /// The TLS handshake failed for another reason (e.g. the host does not speak TLS).
    #[error("TLS with {url} failed: {detail}")]
    Tls {
        /// The host's URL.
        url: String,
        /// What rustls said.
        detail: String,
    },
    /// The WebSocket upgrade failed otherwise (not a Hangar host, HTTP error).
    #[error("the WebSocket handshake with {url} failed: {detail}")]
    Handshake {
        /// The host's URL.
        url: String,
        /// What went wrong.
        detail: String,
    },
}

/// Whether `url` is usable, and whether it is `wss://`. A token in the URL
/// (`?tkn=`) is refused: tokens go to the keyring, not to the host list.
pub fn check_url(url: &str) -> Result<bool, ConnectError> {
    let bad = |why| ConnectError::BadUrl { url: url.to_owned(), why };
    let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
    let secure = match uri.scheme_str() {
        Some("wss") => true,
        Some("ws") => false,
        _ => return Err(bad("use a ws:// or wss:// URL")),
    };
    if uri.host().is_none_or(str::is_empty) {
        return Err(bad("the URL names no host"));
    }
    if uri.query().is_some_and(|q| q.split('&').any(|pair| pair.starts_with("tkn="))) {
        return Err(bad("leave the token out of the URL: pass it with --token-file or --token-stdin"));
    }
    Ok(secure)
}

/// Connect to `url` with `token`; a `wss://` host must present the
/// certificate `pin` names.
pub async fn connect(url: &str, token: &str, pin: Option<Fingerprint>) -> Result<HostStream, ConnectError> {
    let secure = check_url(url)?;
    let mut request = url.into_client_request().map_err(|e| handshake(url, &e))?;
    let bearer = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| ConnectError::BadUrl {
        url: url.to_owned(),
        why: "the token has characters a header cannot carry",
    })?;
    request.headers_mut().insert(header::AUTHORIZATION, bearer);
    let (connector, pinned) = if secure {
        let pin = pin.ok_or_else(|| ConnectError::NotPinned(url.to_owned()))?;
        let (config, seen) = client_config(Some(pin)).map_err(|e| tls(url, &e))?;
        (Connector::Rustls(config), Some((pin, seen)))
    } else {
        (Connector::Plain, None)
    };
    match tokio_tungstenite::connect_async_tls_with_config(request, None, true, Some(connector)).await {
        Ok((stream, _response)) => Ok(stream),
        Err(e) => Err(classify(url, e, pinned)),
    }
}

/// The fingerprint of the certificate a `wss://` host presents, trusting
/// nothing (no token is sent): to show a person before pinning it.
pub async fn probe_fingerprint(url: &str) -> Result<Fingerprint, ConnectError> {
    if !check_url(url)? {
        return Err(ConnectError::BadUrl { url: url.to_owned(), why: "only a wss:// host has a certificate" });
    }
    let uri: Uri = url.parse().map_err(|_| ConnectError::BadUrl { url: url.to_owned(), why: "not a URL" })?;
    let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = uri.port_u16().unwrap_or(443);
    let name = ServerName::try_from(host.clone())
        .map_err(|_| ConnectError::BadUrl { url: url.to_owned(), why: "not a host name or IP address" })?;
    let tcp = TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| ConnectError::Unreachable { url: url.to_owned(), detail: e.to_string() })?;
    let (config, seen) = client_config(None).map_err(|e| tls(url, &e))?;
    let handshake = TlsConnector::from(config).connect(name, tcp).await;
    match (seen.get(), handshake) {
        (Some(found), Ok(_)) => Ok(found),
        (_, Err(e)) => Err(tls(url, &e)),
        (None, Ok(_)) => Err(ConnectError::Tls { url: url.to_owned(), detail: "no certificate presented".into() }),
    }
}

fn classify(url: &str, error: WsError, pinned: Option<(Fingerprint, SeenCertificate)>) -> ConnectError {
    if let Some((expected, seen)) = pinned {
        if let Some(found) = seen.get().filter(|found| *found != expected) {
            return ConnectError::CertificateChanged { url: url.to_owned(), expected, found };
        }
    }
    match error {
        // 429: too many failed tokens from this address; a retry before the
        // `Retry-After` only extends the wait, so it is a refusal too.
        WsError::Http(response)
            if matches!(
                response.status(),
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::TOO_MANY_REQUESTS
            ) =>
        {
            let reason = response.body().as_deref().map(String::from_utf8_lossy).unwrap_or_default().into_owned();
            ConnectError::TokenRefused { url: url.to_owned(), status: response.status().as_u16(), reason }
        }
        WsError::Io(e) if matches!(e.get_ref(), Some(inner) if inner.is::<rustls::Error>()) => tls(url, &e),
        WsError::Io(e) => ConnectError::Unreachable { url: url.to_owned(), detail: e.to_string() },
        WsError::Tls(e) => tls(url, &e),
        other => handshake(url, &other),
    }
}

fn tls(url: &str, error: &dyn std::fmt::Display) -> ConnectError {
    ConnectError::Tls { url: url.to_owned(), detail: error.to_string() }
}

fn handshake(url: &str, error: &dyn std::fmt::Display) -> ConnectError {
    ConnectError::Handshake { url: url.to_owned(), detail: error.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_ws_or_wss_without_a_token() {
        assert!(!check_url("ws://127.0.0.1:8765/").unwrap());
        assert!(check_url("wss://example.org:9/").unwrap());
        for bad in ["http://example.org/", "example.org", "wss://h/?tkn=abc", "ws:///"] {
            assert!(matches!(check_url(bad), Err(ConnectError::BadUrl { .. })), "{bad}");
        }
    }
}
