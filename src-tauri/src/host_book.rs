//! What the app knows about each host's connection beyond the multi-host
//! client's `HostState`, and the [`HostConnection`] the sidebar shows.
//!
//! `ahp::hosts::MultiHostClient` reports `Connecting` / `Connected` /
//! `Reconnecting` / `Failed { ClientError }`, and its transport errors are
//! strings; it keeps its reconnect schedule to itself. So the core runs the
//! hosts with reconnects disabled and keeps, per host, in a [`HostBook`]:
//! - why the last attempt failed ([`Failure`]: told apart by
//!   `hangar_remote::ConnectError`, noted by the transport factory; a
//!   refused protocol version from the `initialize` error);
//! - the retry schedule: exponential backoff with jitter (the `ahp`
//!   `ReconnectPolicy::exponential` curve, sampled with `rand`), the next
//!   attempt's time, and a counter that cancels a scheduled attempt when
//!   "Retry now" or a success comes first. Refusals (token, certificate,
//!   protocol version, setup) are not retried until the person asks;
//! - whether the host was ever connected this launch (then it is
//!   *reconnecting*, else *unreachable*), its label (renames) and its saved
//!   details, and the sidebar's order (the embedded host first, then the
//!   saved list's order);
//! - [`slept`]: whether the computer slept, and [`network_appeared`]:
//!   whether a network came up (then scheduled retries go at once).

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard};

use hangar_host::locks;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ahp::hosts::{HostId, HostState, ReconnectPolicy};
use ahp::ClientError;
use ahp_types::errors::ahp_error_codes::UNSUPPORTED_PROTOCOL_VERSION;
use hangar_remote::{ConnectError, RemoteError};

use hangar_desktop_protocol::app::BackReport;
use hangar_desktop_protocol::host::{HostConnection, RemoteView};

/// Why the last connection attempt to a host failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No connection (host down, network away, TLS or handshake trouble): retried.
    Unreachable(String),
    /// A refusal trying again will not change (a wrong or revoked token, a
    /// changed certificate, another protocol version, no keyring or token,
    /// a bad URL): shown as this state, not retried until the person asks.
    Refused(HostConnection),
}

impl Failure {
    /// Whether the core tries again on its own (only when the host may come back).
    pub fn retried(&self) -> bool {
        matches!(self, Self::Unreachable(_))
    }

    /// A failed connect, as `hangar_remote` told it apart.
    pub fn from_connect(error: &ConnectError) -> Self {
        let refused = match error {
            ConnectError::Unreachable { .. } | ConnectError::Tls { .. } | ConnectError::Handshake { .. } => {
                return Self::Unreachable(error.to_string());
            }
            ConnectError::TokenRefused { status, .. } => {
                HostConnection::TokenRefused { status: *status, reason: error.to_string() }
            }
            ConnectError::CertificateChanged { expected, found, .. } => {
                HostConnection::CertificateChanged { expected: expected.to_string(), found: found.to_string() }
            }
            ConnectError::BadUrl { .. } | ConnectError::NotPinned(_) => {
                HostConnection::Failed { reason: error.to_string() }
            }
        };
        Self::Refused(refused)
    }

    /// A saved host that could not be tried (its token, the list) or whose connect failed.
    pub fn from_remote(error: &RemoteError) -> Self {
        match error {
            RemoteError::Connect(e) => Self::from_connect(e),
            other => Self::Refused(HostConnection::Failed { reason: other.to_string() }),
        }
    }

    /// A connection that opened but failed after (e.g. `initialize` refused).
    pub fn from_client(error: &ClientError) -> Self {
        match error {
            ClientError::Rpc(e) if e.code == UNSUPPORTED_PROTOCOL_VERSION => {
                let supported = e.data.as_ref().and_then(|d| d.get("supportedVersions")).map(ToString::to_string);
                let ours = ahp_types::PROTOCOL_VERSION;
                Self::Refused(HostConnection::ProtocolUnsupported {
                    reason: match supported {
                        Some(v) => format!("the host speaks protocol versions {v}; this app speaks {ours}"),
                        None => format!("the host does not speak protocol version {ours}: {}", e.message),
                    },
                })
            }
            other => Self::Unreachable(other.to_string()),
        }
    }

    /// The failure in words (the transport error the multi-host client keeps).
    pub fn text(&self) -> String {
        match self {
            Self::Unreachable(reason) => reason.clone(),
            Self::Refused(
                HostConnection::TokenRefused { reason, .. }
                | HostConnection::ProtocolUnsupported { reason }
                | HostConnection::Failed { reason },
            ) => reason.clone(),
            Self::Refused(HostConnection::CertificateChanged { expected, found }) => {
                format!("the certificate changed: pinned SHA-256 {expected}, now {found}")
            }
            Self::Refused(other) => format!("{other:?}"),
        }
    }
}

#[derive(Debug, Default)]
struct Entry {
    order: usize,
    label: String,
    remote: Option<RemoteView>,
    ever_connected: bool,
    failure: Option<Failure>,
    /// Failed attempts since the host was last connected.
    attempt: u32,
    next_attempt_at: Option<SystemTime>,
    /// Bumped to cancel a scheduled attempt.
    schedule: u64,
    /// What the host's last return left to the person, until dismissed.
    back: Option<BackReport>,
}

/// A retry to start after `delay`, unless the schedule moved on meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// The schedule it belongs to (see [`HostBook::due`]).
    pub schedule: u64,
    /// How long to wait.
    pub delay: Duration,
}

/// Every host's connection bookkeeping.
#[derive(Debug)]
pub struct HostBook {
    entries: Mutex<HashMap<HostId, Entry>>,
    policy: ReconnectPolicy,
}

impl Default for HostBook {
    fn default() -> Self {
        Self::new(ReconnectPolicy::exponential())
    }
}

fn unix_ms(t: SystemTime) -> u64 {
    u64::try_from(t.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis()).unwrap_or(u64::MAX)
}

impl HostBook {
    /// A book whose retries follow `policy`'s backoff and jitter.
    pub fn new(policy: ReconnectPolicy) -> Self {
        Self { entries: Mutex::new(HashMap::new()), policy }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<HostId, Entry>> {
        locks::lock(&self.entries)
    }

    /// A host joins (after the ones already there, in the sidebar).
    pub fn add(&self, id: &HostId, label: &str, remote: Option<RemoteView>) {
        let mut entries = self.lock();
        let order = entries.values().map(|e| e.order + 1).max().unwrap_or(0);
        entries.insert(id.clone(), Entry { order, label: label.to_owned(), remote, ..Entry::default() });
    }

    /// A host leaves (its scheduled retry is dropped with it).
    pub fn remove(&self, id: &HostId) {
        self.lock().remove(id);
    }

    /// A host's new label.
    pub fn rename(&self, id: &HostId, label: &str) {
        if let Some(e) = self.lock().get_mut(id) {
            label.clone_into(&mut e.label);
        }
    }

    /// The host's label and sidebar position, if it is in the book.
    pub fn label(&self, id: &HostId) -> Option<(usize, String)> {
        self.lock().get(id).map(|e| (e.order, e.label.clone()))
    }

    /// The host's saved details (remote hosts only).
    pub fn remote(&self, id: &HostId) -> Option<RemoteView> {
        self.lock().get(id).and_then(|e| e.remote.clone())
    }

    /// The transport for an attempt opened (`None`) or failed (`Some`).
    pub fn note_attempt(&self, id: &HostId, failure: Option<Failure>) {
        if let Some(e) = self.lock().get_mut(id) {
            e.failure = failure;
        }
    }

    /// The host connected: failures and the schedule are cleared.
    pub fn connected(&self, id: &HostId) {
        if let Some(e) = self.lock().get_mut(id) {
            e.ever_connected = true;
            e.failure = None;
            e.attempt = 0;
            e.next_attempt_at = None;
            e.schedule += 1;
        }
    }

    /// The multi-host client gave up on an attempt (`error`): note why
    /// (what the transport noted wins over the client's error) and, if the
    /// failure is one that may pass, schedule the next attempt.
    pub fn failed(&self, id: &HostId, error: &ClientError, sample: f64) -> Option<Retry> {
        let mut entries = self.lock();
        let e = entries.get_mut(id)?;
        let failure = e.failure.get_or_insert_with(|| Failure::from_client(error));
        if !failure.retried() {
            e.next_attempt_at = None;
            return None;
        }
        e.attempt += 1;
        e.schedule += 1;
        let delay = self.policy.delay_with_jitter(e.attempt, sample);
        e.next_attempt_at = Some(SystemTime::now() + delay);
        Some(Retry { schedule: e.schedule, delay })
    }

    /// Whether the retry of `schedule` should start now (nothing moved the
    /// schedule on meanwhile); it is then under way.
    pub fn due(&self, id: &HostId, schedule: u64) -> bool {
        let mut entries = self.lock();
        match entries.get_mut(id) {
            Some(e) if e.schedule == schedule => {
                e.next_attempt_at = None;
                true
            }
            _ => false,
        }
    }

    /// Keep `report` as what the host's return left to the person.
    pub fn set_back(&self, id: &HostId, report: BackReport) {
        if let Some(e) = self.lock().get_mut(id) {
            e.back = Some(report);
        }
    }

    /// The person read the report.
    pub fn dismiss_back(&self, id: &HostId) {
        if let Some(e) = self.lock().get_mut(id) {
            e.back = None;
        }
    }

    /// What the host's last return left to the person, if not dismissed.
    pub fn back(&self, id: &HostId) -> Option<BackReport> {
        self.lock().get(id).and_then(|e| e.back.clone())
    }

    /// The hosts waiting for a scheduled retry.
    pub fn scheduled(&self) -> Vec<HostId> {
        self.lock().iter().filter(|(_, e)| e.next_attempt_at.is_some()).map(|(id, _)| id.clone()).collect()
    }

    /// "Retry now" / "Reconnect": cancel the scheduled attempt; a refused
    /// host starts over as if new (its failure stays shown until the
    /// attempt's outcome replaces it).
    pub fn retry_now(&self, id: &HostId) {
        if let Some(e) = self.lock().get_mut(id) {
            e.schedule += 1;
            e.next_attempt_at = None;
            if e.failure.as_ref().is_some_and(|f| !f.retried()) {
                e.attempt = 0;
            }
        }
    }

    /// The connection as the sidebar shows it.
    pub fn connection(&self, id: &HostId, state: &HostState) -> HostConnection {
        let entries = self.lock();
        let Some(e) = entries.get(id) else {
            return match state {
                HostState::Connected => HostConnection::Connected,
                _ => HostConnection::Connecting,
            };
        };
        match (state, &e.failure) {
            (HostState::Connected, _) => HostConnection::Connected,
            // Refusals stay shown while parked, and while "Reconnect" tries again.
            (_, Some(Failure::Refused(refused))) => refused.clone(),
            (_, failure) => {
                let failed = matches!(state, HostState::Failed { .. });
                let next_attempt_at = if failed { e.next_attempt_at.map(unix_ms) } else { None };
                let reason = failure.as_ref().map(Failure::text);
                match (e.ever_connected, reason) {
                    (true, reason) => HostConnection::Reconnecting { attempt: e.attempt, next_attempt_at, reason },
                    (false, Some(reason)) => {
                        HostConnection::Unreachable { attempt: e.attempt, next_attempt_at, reason }
                    }
                    (false, None) => HostConnection::Connecting,
                }
            }
        }
    }
}

/// Whether the computer slept between two readings `tick` apart: the wall
/// clock (which runs on through a suspend) moved on more than `slack` past
/// the monotonic clock (which stops: `CLOCK_MONOTONIC` on Linux,
/// `mach_absolute_time` on macOS). A wall-clock step (NTP) also counts:
/// then an early retry is all it costs.
pub fn slept(monotonic: Duration, wall: Duration, slack: Duration) -> bool {
    wall > monotonic + slack
}

/// Whether a network came up between two readings of the machine's
/// non-loopback addresses: an address is there that was not.
pub fn network_appeared(before: &BTreeSet<IpAddr>, now: &BTreeSet<IpAddr>) -> bool {
    now.iter().any(|a| !before.contains(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn failed_state() -> HostState {
        HostState::Failed { error: Arc::new(ClientError::Shutdown) }
    }

    fn unreachable() -> Failure {
        Failure::Unreachable("cannot reach ws://h:1/: Connection refused".into())
    }

    #[test]
    fn never_connected_is_unreachable_with_its_reason_then_connected() {
        let book = HostBook::default();
        let id = HostId::new("h");
        book.add(&id, "box", None);
        assert_eq!(book.connection(&id, &HostState::Connecting), HostConnection::Connecting);
        book.note_attempt(&id, Some(unreachable()));
        let retry = book.failed(&id, &ClientError::Shutdown, 0.5).unwrap();
        assert_eq!(retry.delay, Duration::from_millis(250), "the first retry after 250 ms (no jitter at 0.5)");
        let HostConnection::Unreachable { attempt: 1, next_attempt_at: Some(at), reason } =
            book.connection(&id, &failed_state())
        else {
            panic!("{:?}", book.connection(&id, &failed_state()))
        };
        assert!(reason.contains("Connection refused"), "{reason}");
        assert!(at >= unix_ms(SystemTime::now()), "the next attempt is ahead");
        assert!(book.due(&id, retry.schedule));
        assert!(
            matches!(
                book.connection(&id, &HostState::Connecting),
                HostConnection::Unreachable { next_attempt_at: None, .. }
            ),
            "an attempt under way has no next time"
        );
        book.connected(&id);
        assert_eq!(book.connection(&id, &HostState::Connected), HostConnection::Connected);
    }

    #[test]
    fn a_lost_connection_is_reconnecting_with_growing_jittered_backoff() {
        let book = HostBook::default();
        let id = HostId::new("h");
        book.add(&id, "box", None);
        book.connected(&id);
        assert_eq!(
            book.connection(&id, &HostState::Reconnecting { attempt: 0 }),
            HostConnection::Reconnecting { attempt: 0, next_attempt_at: None, reason: None }
        );
        let mut delays = Vec::new();
        for sample in [0.0, 1.0, 0.5, 0.5] {
            book.note_attempt(&id, Some(unreachable()));
            delays.push(book.failed(&id, &ClientError::Shutdown, sample).unwrap().delay);
        }
        // 250 ms ±25 %, 500 ms ±25 %, then 1 s, 2 s.
        assert_eq!(delays, [187_500, 625_000, 1_000_000, 2_000_000].map(Duration::from_micros));
        assert!(matches!(
            book.connection(&id, &failed_state()),
            HostConnection::Reconnecting { attempt: 4, next_attempt_at: Some(_), reason: Some(_) }
        ));
    }

    #[test]
    fn retry_now_and_success_cancel_the_scheduled_attempt() {
        let book = HostBook::default();
        let id = HostId::new("h");
        book.add(&id, "box", None);
        book.note_attempt(&id, Some(unreachable()));
        let first = book.failed(&id, &ClientError::Shutdown, 0.5).unwrap();
        book.retry_now(&id);
        assert!(!book.due(&id, first.schedule), "Retry now replaced it");
        book.note_attempt(&id, Some(unreachable()));
        let second = book.failed(&id, &ClientError::Shutdown, 0.5).unwrap();
        book.connected(&id);
        assert!(!book.due(&id, second.schedule), "connected meanwhile");
        book.remove(&id);
        assert!(!book.due(&id, second.schedule + 1), "a removed host is never retried");
    }

    #[test]
    fn a_wake_from_sleep_is_the_wall_clock_running_ahead() {
        let (tick, slack) = (Duration::from_secs(5), Duration::from_secs(10));
        assert!(!slept(tick, tick + Duration::from_millis(30), slack), "a busy tick is not a sleep");
        assert!(slept(tick, Duration::from_secs(3600), slack), "an hour asleep");
    }

    #[test]
    fn a_network_is_up_when_a_new_address_appears() {
        let addr = |s: &str| s.parse::<IpAddr>().unwrap();
        let wifi: BTreeSet<IpAddr> = [addr("192.168.1.20")].into();
        let both: BTreeSet<IpAddr> = [addr("192.168.1.20"), addr("10.8.0.2")].into();
        assert!(network_appeared(&BTreeSet::new(), &wifi), "from offline to a network");
        assert!(network_appeared(&wifi, &both), "a VPN came up");
        assert!(!network_appeared(&both, &wifi), "a network going away is no reason to retry");
        assert!(!network_appeared(&wifi, &wifi));
    }

    #[test]
    fn only_hosts_waiting_for_a_retry_are_scheduled() {
        let book = HostBook::default();
        let (down, refused, up) = (HostId::new("down"), HostId::new("refused"), HostId::new("up"));
        for id in [&down, &refused, &up] {
            book.add(id, id.as_str(), None);
        }
        book.note_attempt(&down, Some(unreachable()));
        book.failed(&down, &ClientError::Shutdown, 0.5);
        book.note_attempt(&refused, Some(Failure::Refused(HostConnection::Failed { reason: "no keyring".into() })));
        book.failed(&refused, &ClientError::Shutdown, 0.5);
        book.connected(&up);
        assert_eq!(book.scheduled(), [down]);
    }

    #[test]
    fn refusals_are_shown_and_not_retried() {
        let book = HostBook::default();
        let id = HostId::new("h");
        book.add(&id, "box", None);
        let refused = HostConnection::TokenRefused { status: 403, reason: "refused".into() };
        book.note_attempt(&id, Some(Failure::Refused(refused)));
        assert_eq!(book.failed(&id, &ClientError::Shutdown, 0.5), None);
        assert_eq!(
            book.connection(&id, &failed_state()),
            HostConnection::TokenRefused { status: 403, reason: "refused".into() }
        );
        // "Reconnect" tries again; the refusal stays shown until the outcome.
        book.retry_now(&id);
        assert!(matches!(book.connection(&id, &HostState::Connecting), HostConnection::TokenRefused { .. }));

        let rpc: ahp_types::JsonRpcError = serde_json::from_value(serde_json::json!({
            "code": UNSUPPORTED_PROTOCOL_VERSION, "message": "no offered protocol version is supported",
            "data": {"supportedVersions": ["2.0.0"]}
        }))
        .unwrap();
        book.note_attempt(&id, None);
        assert_eq!(book.failed(&id, &ClientError::Rpc(rpc), 0.5), None);
        let HostConnection::ProtocolUnsupported { reason } = book.connection(&id, &failed_state()) else {
            panic!("{:?}", book.connection(&id, &failed_state()))
        };
        assert!(reason.contains("2.0.0") && reason.contains(ahp_types::PROTOCOL_VERSION), "{reason}");
    }
}
