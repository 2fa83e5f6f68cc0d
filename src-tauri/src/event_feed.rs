//! The pump's input: `MultiHostClient::events()`, checked for lost events.
//!
//! Map:
//! - [`SeqTap`] — per host, the `serverSeq` of every `action` notification
//!   that reached the connection, in arrival order, until the pump sees it.
//! - [`TappedTransport`] — wraps a host connection's transport and notes
//!   each inbound `action` on the tap (parsing the frame once; the client
//!   receives it already parsed).
//! - [`EventFeed`] — the multi-host event stream, compared against the tap:
//!   an envelope whose predecessors on the tap never came through means
//!   envelopes were lost on the way (`Fed::missed`).
//!
//! Why: between the socket and the pump sit two tokio broadcasts — the
//! `ahp::Client`'s all-events channel (`ClientConfig::subscription_buffer`
//! slots) and the multi-host fan-in (1,024 slots) — and both `recv`s skip
//! `RecvError::Lagged` without telling the reader. The tap sees every frame
//! before either broadcast, so a gap is found exactly, on the next envelope
//! from the same host. The core then re-snapshots that host's channels.
//!
//! The `lose` counter given to [`EventFeed::new`] is a fault-injection seam
//! for tests (`Core::lose_next_envelopes`): it drops the next action
//! envelopes the way a lagging broadcast receiver does (oldest first,
//! silently).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use hangar_host::locks;

use crate::host_software::HostSoftware;
use ahp::hosts::{HostId, HostSubscriptionEvent, HostSubscriptionStream};
use ahp::transport::{BoxedTransport, Transport, TransportMessage};
use ahp::{SubscriptionEvent, TransportError};
use ahp_types::messages::JsonRpcMessage;
use futures_util::FutureExt;

/// `serverSeq`s that reached a connection and not yet the pump, per host.
#[derive(Debug, Default)]
pub struct SeqTap {
    seqs: Mutex<HashMap<HostId, VecDeque<i64>>>,
}

impl SeqTap {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<HostId, VecDeque<i64>>> {
        locks::lock(&self.seqs)
    }

    /// An `action` with `seq` arrived on `host`'s connection.
    pub fn arrived(&self, host: &HostId, seq: i64) {
        self.lock().entry(host.clone()).or_default().push_back(seq);
    }

    /// The pump got the envelope `seq` from `host`: how many envelopes that
    /// arrived before it never reached the pump. Envelopes the tap never saw
    /// (replayed in a `reconnect` answer) count nothing.
    pub fn delivered(&self, host: &HostId, seq: i64) -> usize {
        let mut seqs = self.lock();
        let Some(queue) = seqs.get_mut(host) else { return 0 };
        let mut missed = 0;
        while let Some(&front) = queue.front() {
            if front > seq {
                break;
            }
            queue.pop_front();
            if front < seq {
                missed += 1;
            }
        }
        missed
    }
}

/// A host connection's transport that notes inbound `action`s on a tap.
pub struct TappedTransport {
    inner: BoxedTransport,
    host: HostId,
    tap: Arc<SeqTap>,
    software: Option<Arc<HostSoftware>>,
}

impl TappedTransport {
    /// Wrap `inner`, the connection to `host`.
    pub fn new(inner: BoxedTransport, host: HostId, tap: Arc<SeqTap>) -> Self {
        Self { inner, host, tap, software: None }
    }

    /// Also note the host's software from its `initialize` answer.
    pub fn noting_software(mut self, software: Arc<HostSoftware>) -> Self {
        self.software = Some(software);
        self
    }

    fn note(&self, message: TransportMessage) -> TransportMessage {
        let parsed: Result<JsonRpcMessage, _> = match &message {
            TransportMessage::Parsed(_) => return self.note_parsed(message),
            TransportMessage::Text(s) => serde_json::from_str(s),
            TransportMessage::Binary(b) => serde_json::from_slice(b),
        };
        // A frame that does not parse goes on unchanged: the client logs it.
        match parsed {
            Ok(m) => self.note_parsed(TransportMessage::Parsed(m)),
            Err(_) => message,
        }
    }

    fn note_parsed(&self, message: TransportMessage) -> TransportMessage {
        if let (TransportMessage::Parsed(JsonRpcMessage::SuccessResponse(r)), Some(software)) =
            (&message, &self.software)
        {
            software.note(&self.host, &r.result);
        }
        if let TransportMessage::Parsed(JsonRpcMessage::Notification(n)) = &message {
            let seq = n.params.as_ref().and_then(|p| p.get("serverSeq")).and_then(serde_json::Value::as_i64);
            if let (true, Some(seq)) = (n.method == "action", seq) {
                self.tap.arrived(&self.host, seq);
            }
        }
        message
    }
}

impl Transport for TappedTransport {
    fn send(&mut self, msg: TransportMessage) -> impl std::future::Future<Output = Result<(), TransportError>> + Send {
        self.inner.send(msg)
    }

    async fn recv(&mut self) -> Result<Option<TransportMessage>, TransportError> {
        let message = self.inner.recv().await?;
        Ok(message.map(|m| self.note(m)))
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), TransportError>> + Send {
        self.inner.close()
    }
}

/// One event for the pump, with how many envelopes from its host were lost
/// just before it.
pub struct Fed {
    /// The event.
    pub event: HostSubscriptionEvent,
    /// Envelopes lost before it (0 normally).
    pub missed: usize,
}

/// The multi-host event stream, checked against a [`SeqTap`].
pub struct EventFeed {
    events: HostSubscriptionStream,
    tap: Arc<SeqTap>,
    lose: Arc<AtomicUsize>,
}

impl EventFeed {
    /// Check `events` against `tap`. While `lose` is above zero, each action
    /// envelope is dropped unseen and `lose` counts down (a test seam).
    pub fn new(events: HostSubscriptionStream, tap: Arc<SeqTap>, lose: Arc<AtomicUsize>) -> Self {
        Self { events, tap, lose }
    }

    /// The next event; `None` once the multi-host client is gone.
    pub async fn next(&mut self) -> Option<Fed> {
        loop {
            let event = self.events.recv().await?;
            if let Some(fed) = self.check(event) {
                return Some(fed);
            }
        }
    }

    /// The next event if one is already queued.
    pub fn next_ready(&mut self) -> Option<Fed> {
        loop {
            let event = self.events.recv().now_or_never()??;
            if let Some(fed) = self.check(event) {
                return Some(fed);
            }
        }
    }

    fn check(&mut self, event: HostSubscriptionEvent) -> Option<Fed> {
        let SubscriptionEvent::Action(env) = &event.event else { return Some(Fed { event, missed: 0 }) };
        if self.lose.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok() {
            return None;
        }
        let missed = self.tap.delivered(&event.host_id, i64::try_from(env.server_seq).unwrap_or(i64::MAX));
        Some(Fed { event, missed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transport that yields canned inbound frames.
    struct Frames(VecDeque<TransportMessage>);

    impl Transport for Frames {
        async fn send(&mut self, _msg: TransportMessage) -> Result<(), TransportError> {
            Ok(())
        }

        async fn recv(&mut self) -> Result<Option<TransportMessage>, TransportError> {
            Ok(self.0.pop_front())
        }
    }

    #[tokio::test]
    async fn the_transport_notes_actions_and_passes_every_frame_on() {
        let action = |seq: i64| {
            TransportMessage::Text(format!(
                r#"{{"jsonrpc":"2.0","method":"action","params":{{"channel":"ahp-chat:/c","serverSeq":{seq}}}}}"#
            ))
        };
        let frames = [
            action(4),
            TransportMessage::Text(r#"{"jsonrpc":"2.0","method":"root/sessionAdded","params":{"serverSeq":5}}"#.into()),
            TransportMessage::Text("not json".into()),
            action(6),
        ];
        let tap = Arc::new(SeqTap::default());
        let host = HostId::new("h");
        let mut t = TappedTransport::new(BoxedTransport::new(Frames(frames.into())), host.clone(), tap.clone());
        let mut got = Vec::new();
        while let Some(m) = t.recv().await.unwrap() {
            got.push(m);
        }
        assert_eq!(got.len(), 4);
        assert!(matches!(got[0], TransportMessage::Parsed(_)), "parsed once, here");
        assert_eq!(got[2], TransportMessage::Text("not json".into()), "unparsable frames go on unchanged");
        assert_eq!(tap.delivered(&host, 6), 1, "only actions are noted: 4 was never delivered");
    }

    #[test]
    fn the_tap_counts_what_never_reached_the_pump() {
        let tap = SeqTap::default();
        let (a, b) = (HostId::new("a"), HostId::new("b"));
        for seq in [3, 5, 8, 9, 12] {
            tap.arrived(&a, seq);
        }
        tap.arrived(&b, 4);
        assert_eq!(tap.delivered(&a, 3), 0);
        assert_eq!(tap.delivered(&a, 9), 2, "5 and 8 were lost");
        assert_eq!(tap.delivered(&a, 7), 0, "a replayed envelope the tap never saw");
        assert_eq!(tap.delivered(&a, 12), 0);
        assert_eq!(tap.delivered(&b, 4), 0, "hosts are separate");
        assert_eq!(tap.delivered(&HostId::new("c"), 1), 0);
    }
}
