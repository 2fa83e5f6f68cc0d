//! One port, two services: when the listener also serves the web UI
//! (`hangar serve --web`), the first request of each connection is read
//! (after TLS) and sends the connection either to the AHP WebSocket, as
//! before, or to the [`WebService`] (the page, `/pair`, the page's `/ipc`).
//!
//! AHP is a WebSocket upgrade to any path but [`WEB_IPC_PATH`]; everything
//! else (plain HTTP, the `/ipc` upgrade) is the web service's. The bytes read
//! to decide are replayed to whichever side gets the connection.

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};

use super::ws_upgrade::UpgradePolicy;

/// The web UI's WebSocket path (the bridge protocol, not AHP).
pub const WEB_IPC_PATH: &str = "/ipc";
/// The most a request head may take before it is refused.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// A byte stream both ways.
pub trait ByteStream: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> ByteStream for T {}

/// A connection handed to the web service.
pub struct WebConn {
    /// The connection (after TLS), from its first byte.
    pub io: Box<dyn ByteStream>,
    /// The peer's address.
    pub peer: IpAddr,
    /// Whether it came over TLS (the page's origin is `https://`).
    pub tls: bool,
    /// The listener's token rules: device tokens, throttle, allowed `Host`.
    pub policy: Arc<UpgradePolicy>,
}

/// What serves the web side of a listener.
pub trait WebService: Send + Sync {
    /// Serve one connection until it closes.
    fn serve(&self, conn: WebConn) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

/// Where a connection goes.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// The AHP WebSocket.
    Ahp,
    /// The web service.
    Web,
}

/// Read `stream`'s first request head into `head` and say where it goes.
pub(super) async fn read_route<S: AsyncRead + Unpin>(stream: &mut S, head: &mut Vec<u8>) -> io::Result<Route> {
    let mut chunk = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        if head.len() >= MAX_HEAD_BYTES {
            return Ok(Route::Web);
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        head.extend_from_slice(&chunk[..n]);
    }
    Ok(route_of(head))
}

fn route_of(head: &[u8]) -> Route {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let path = lines.next().and_then(|l| l.split(' ').nth(1)).unwrap_or("");
    let path = path.split('?').next().unwrap_or("");
    let upgrade = lines.any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("upgrade") && v.trim().eq_ignore_ascii_case("websocket")
        })
    });
    if upgrade && path != WEB_IPC_PATH {
        Route::Ahp
    } else {
        Route::Web
    }
}

/// `stream` with `head` (already read from it) put back in front.
pub(super) fn rewound<S: ByteStream + 'static>(stream: S, head: Vec<u8>) -> impl ByteStream {
    let (read, write) = tokio::io::split(stream);
    tokio::io::join(std::io::Cursor::new(head).chain(read), write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upgrades_to_ipc_and_plain_requests_are_the_web_services() {
        let ahp = b"GET /?tkn=x HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
        assert_eq!(route_of(ahp), Route::Ahp);
        let ipc = b"GET /ipc HTTP/1.1\r\nHost: a\r\nupgrade: WebSocket\r\n\r\n";
        assert_eq!(route_of(ipc), Route::Web);
        assert_eq!(route_of(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"), Route::Web);
        assert_eq!(route_of(b"POST /pair HTTP/1.1\r\nHost: a\r\n\r\n"), Route::Web);
    }

    #[tokio::test]
    async fn the_head_read_to_route_is_replayed() {
        use tokio::io::AsyncWriteExt;
        let (mut client, server) = tokio::io::duplex(64);
        client.write_all(b"GET / HTTP/1.1\r\n\r\nrest").await.unwrap();
        drop(client);
        let mut server = server;
        let mut head = Vec::new();
        assert_eq!(read_route(&mut server, &mut head).await.unwrap(), Route::Web);
        let mut all = String::new();
        rewound(server, head).read_to_string(&mut all).await.unwrap();
        assert_eq!(all, "GET / HTTP/1.1\r\n\r\nrest");
    }
}
