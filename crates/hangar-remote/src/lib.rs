//! # hangar-remote — the hosts a Hangar client connects to
//!
//! Used by `hangar remote …` (hangar-cli) and by the desktop app, so both
//! read and change the same list:
//! - [`remotes`]     — [`Remotes`]: add, list, get, rename, remove saved
//!   hosts; a host's token; connect to a saved host.
//! - [`hosts`]       — the list file (`CONFIG/hangar/hosts.json`): names,
//!   URLs, pinned fingerprints, never tokens; locked, replaced atomically.
//! - [`secrets`]     — tokens in the OS keyring (`keyring`: Secret Service,
//!   Keychain, Credential Manager), or a 0600 file only on explicit opt-in.
//! - [`connect`]     — a WebSocket to a host (`ws://`, or `wss://` pinned),
//!   the token in a header, failures told apart ([`ConnectError`]); the
//!   stream is what `ahp_ws::WebSocketTransport::from_stream` wraps.
//! - [`pin`]         — the rustls verifier that trusts only the pinned
//!   certificate (trust on first use).
//! - [`fingerprint`] — [`Fingerprint`]: SHA-256 of a certificate, printed as
//!   `openssl x509 -fingerprint -sha256` does.
//! - [`error`]       — [`RemoteError`].
//!
//! Flow of `remote add` for a `wss://` host: [`connect::probe_fingerprint`]
//! → the person confirms it → [`connect::connect`] with the token and that
//! pin (proves both) → [`Remotes::add`].

pub mod connect;
pub mod error;
pub mod fingerprint;
pub mod hosts;
pub mod pin;
pub mod remotes;
pub mod secrets;

pub use connect::{connect, probe_fingerprint, ConnectError, HostStream};
pub use error::RemoteError;
pub use fingerprint::Fingerprint;
pub use hosts::SavedHost;
pub use remotes::{NewHost, Remotes};
pub use secrets::TokenStorage;
