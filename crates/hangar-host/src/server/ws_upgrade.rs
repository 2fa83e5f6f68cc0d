//! Who may open a WebSocket: the checks on the HTTP upgrade request, before
//! any JSON-RPC.
//!
//! - Token: `?tkn=TOKEN` or `Authorization: Bearer TOKEN`: the host's token
//!   (compared in constant time) or an unrevoked device token (its SHA-256
//!   in the device registry). Missing → 401, wrong → 403.
//! - `Origin`, when present, must be the desktop app's webview or one the
//!   user allowed (`--allow-origin`) → else 403. Browsers always send it, so a
//!   web page the user visits cannot drive the host.
//! - `Host`, when listening on loopback, must name loopback (DNS rebinding).
//! - Too many failed tokens from one address → 429 for a while
//!   (`token_throttle.rs`).

use std::net::IpAddr;
use std::time::Instant;

use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request};
use tokio_tungstenite::tungstenite::http::{header, StatusCode};

use super::device_tokens::token_hash;
use super::device_watch::DeviceRegistry;
use super::token_throttle::TokenThrottle;
use crate::config::DESKTOP_ORIGINS;

/// Which token opened a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// The host's own token.
    HostToken,
    /// A device token, by the SHA-256 the registry knows it by.
    Device(String),
}

/// The rules for one listener.
pub struct UpgradePolicy {
    /// The host's token.
    pub token: String,
    /// The device tokens accepted besides it.
    pub devices: DeviceRegistry,
    /// Allowed origins besides the desktop's.
    pub allowed_origins: Vec<String>,
    /// Whether to require a loopback `Host` header.
    pub loopback_only_host: bool,
    /// Failed tokens per address.
    pub throttle: TokenThrottle,
}

impl UpgradePolicy {
    /// Check an upgrade request: the token that opens it, or the HTTP
    /// response that refuses it.
    pub fn check(&self, req: &Request, peer: IpAddr) -> Result<Credential, Box<ErrorResponse>> {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let allowed = DESKTOP_ORIGINS.contains(&origin) || self.allowed_origins.iter().any(|o| o == origin);
            if !allowed {
                return Err(refuse(StatusCode::FORBIDDEN, "origin not allowed"));
            }
        }
        let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
        if !self.host_allowed(host) {
            return Err(refuse(StatusCode::FORBIDDEN, "host not allowed"));
        }
        self.check_presented(presented_token(req).as_deref(), peer).map_err(|refusal| {
            let mut resp = refuse(refusal.status(), refusal.reason());
            if let Refusal::Throttled(wait) = refusal {
                if let Ok(secs) = header::HeaderValue::from_str(&wait.as_secs().max(1).to_string()) {
                    resp.headers_mut().insert(header::RETRY_AFTER, secs);
                }
            }
            resp
        })
    }

    /// Check a token `peer` presented (`None`: none), the throttle included:
    /// the credential it is, or why it is refused. A refusal counts against
    /// the address. The web UI's `/ipc` checks its token with this too.
    pub fn check_presented(&self, token: Option<&str>, peer: IpAddr) -> Result<Credential, Refusal> {
        let now = Instant::now();
        if let Some(wait) = self.throttle.locked_for(peer, now) {
            return Err(Refusal::Throttled(wait));
        }
        let checked = match token {
            None => Err(Refusal::Missing),
            Some(t) if constant_time_eq::constant_time_eq(t.as_bytes(), self.token.as_bytes()) => {
                Ok(Credential::HostToken)
            }
            Some(t) => {
                let hash = token_hash(t);
                if self.devices.contains(&hash) {
                    Ok(Credential::Device(hash))
                } else {
                    Err(Refusal::Bad)
                }
            }
        };
        if checked.is_err() {
            self.throttle.failed(peer, now);
        }
        checked
    }

    /// Whether a `Host` header is acceptable on this listener (loopback
    /// names only when it listens on loopback: DNS rebinding).
    pub fn host_allowed(&self, host: &str) -> bool {
        !self.loopback_only_host || is_loopback_host(host)
    }
}

/// Why a token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// None presented (401).
    Missing,
    /// Not the host's and no device's (403).
    Bad,
    /// Too many failures from this address: wait this long (429).
    Throttled(std::time::Duration),
}

impl Refusal {
    /// The HTTP status that says it.
    pub fn status(self) -> StatusCode {
        match self {
            Self::Missing => StatusCode::UNAUTHORIZED,
            Self::Bad => StatusCode::FORBIDDEN,
            Self::Throttled(_) => StatusCode::TOO_MANY_REQUESTS,
        }
    }

    /// The reason in words.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Missing => "token required",
            Self::Bad => "bad token",
            Self::Throttled(_) => "too many failed tokens from this address",
        }
    }
}

fn refuse(status: StatusCode, why: &str) -> Box<ErrorResponse> {
    let mut resp = ErrorResponse::new(Some(why.to_owned()));
    *resp.status_mut() = status;
    Box::new(resp)
}

/// The token from `?tkn=` or `Authorization: Bearer`.
fn presented_token(req: &Request) -> Option<String> {
    if let Some(query) = req.uri().query() {
        for pair in query.split('&') {
            if let Some(value) = pair.strip_prefix("tkn=") {
                return Some(percent_decode(value));
            }
        }
    }
    let auth = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    auth.strip_prefix("Bearer ").map(|t| t.trim().to_owned())
}

fn percent_decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(b) = raw.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `127.0.0.1[:port]`, `localhost[:port]`, `[::1][:port]`.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    let name = name.to_ascii_lowercase();
    name == "localhost" || name == "::1" || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut b = Request::builder().uri(uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap()
    }

    const PEER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    fn policy() -> UpgradePolicy {
        UpgradePolicy {
            token: "s3cret".into(),
            devices: DeviceRegistry::fixed([token_hash("device-token")]),
            allowed_origins: vec!["http://localhost:5173".into()],
            loopback_only_host: true,
            throttle: TokenThrottle::default(),
        }
    }

    #[test]
    fn token_checks() {
        let p = policy();
        assert_eq!(p.check(&req("/?tkn=s3cret", &[("host", "127.0.0.1:1")]), PEER).unwrap(), Credential::HostToken);
        let device = p.check(&req("/?tkn=device-token", &[("host", "127.0.0.1:1")]), PEER).unwrap();
        assert_eq!(device, Credential::Device(token_hash("device-token")));
        assert!(p.check(&req("/", &[("host", "localhost:1"), ("authorization", "Bearer s3cret")]), PEER).is_ok());
        assert_eq!(p.check(&req("/", &[("host", "127.0.0.1")]), PEER).unwrap_err().status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            p.check(&req("/?tkn=nope", &[("host", "127.0.0.1")]), PEER).unwrap_err().status(),
            StatusCode::FORBIDDEN
        );
    }

    #[test]
    fn origin_and_host_checks() {
        let p = policy();
        let ok = [("host", "127.0.0.1:9"), ("origin", "tauri://localhost")];
        assert!(p.check(&req("/?tkn=s3cret", &ok), PEER).is_ok());
        let allowed = [("host", "[::1]:9"), ("origin", "http://localhost:5173")];
        assert!(p.check(&req("/?tkn=s3cret", &allowed), PEER).is_ok());
        let evil = [("host", "127.0.0.1:9"), ("origin", "https://evil.example")];
        assert_eq!(p.check(&req("/?tkn=s3cret", &evil), PEER).unwrap_err().status(), StatusCode::FORBIDDEN);
        let rebind = [("host", "evil.example:9")];
        assert_eq!(p.check(&req("/?tkn=s3cret", &rebind), PEER).unwrap_err().status(), StatusCode::FORBIDDEN);
    }
}
