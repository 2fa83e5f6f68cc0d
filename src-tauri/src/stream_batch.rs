//! One IPC message per frame for a stream's events.
//!
//! Tauri delivers each `Channel` message under 8 KiB as its own
//! `webview.eval` of a script (`tauri::ipc::channel`): one GTK main-loop
//! dispatch in the app and one script compiled and run in the web process
//! per event. A streaming turn sends an event per delta, hundreds a second,
//! while the page renders at most once per frame anyway
//! (`ui/src/state/frame-batch.ts`). So [`FrameBatcher`] sends the events of
//! one frame as one message, a list, in order: an event after a quiet frame
//! goes at once (no added latency when nothing streams), the ones that
//! follow it within [`FRAME`] go together at the end of that frame.
//!
//! The WebSocket bridge (`bridge.rs`, UI tests in Chromium) sends events
//! one by one: a frame there costs no script compile.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long events are gathered before they go (one frame at 60 Hz).
pub const FRAME: Duration = Duration::from_millis(16);

/// Sends a list of events; `false` once the receiver is gone.
type Send<T> = Arc<dyn Fn(Vec<T>) -> bool + std::marker::Send + Sync>;

/// Gathers a stream's events into one message per frame (see the module doc).
pub struct FrameBatcher<T> {
    batch: Arc<Mutex<Batch<T>>>,
    send: Send<T>,
}

struct Batch<T> {
    /// Events waiting for the end of the frame.
    queued: Vec<T>,
    /// Whether a flush at the end of the frame is scheduled (when not,
    /// nothing is queued).
    flush_due: bool,
    /// When the last message went.
    last_sent: Option<Instant>,
    /// `false` once a send failed: the receiver is gone.
    alive: bool,
}

fn lock<T>(batch: &Mutex<Batch<T>>) -> MutexGuard<'_, Batch<T>> {
    batch.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<T: std::marker::Send + 'static> FrameBatcher<T> {
    /// A batcher that hands each frame's events to `send`.
    pub fn new(send: impl Fn(Vec<T>) -> bool + std::marker::Send + Sync + 'static) -> Self {
        let batch = Batch { queued: Vec::new(), flush_due: false, last_sent: None, alive: true };
        Self { batch: Arc::new(Mutex::new(batch)), send: Arc::new(send) }
    }

    /// Send `event` now or with the rest of its frame; `false` once the
    /// receiver is gone (as far as the last send knows).
    pub fn push(&self, event: T) -> bool {
        let mut batch = lock(&self.batch);
        if !batch.alive {
            return false;
        }
        let quiet = batch.last_sent.is_none_or(|at| at.elapsed() >= FRAME);
        if quiet && !batch.flush_due {
            batch.alive = (self.send)(vec![event]);
            batch.last_sent = Some(Instant::now());
            return batch.alive;
        }
        batch.queued.push(event);
        if !batch.flush_due {
            batch.flush_due = true;
            let due = batch.last_sent.map_or_else(Instant::now, |at| at + FRAME);
            let (shared, send) = (self.batch.clone(), self.send.clone());
            tauri::async_runtime::spawn(async move {
                tokio::time::sleep_until(due.into()).await;
                let mut batch = lock(&shared);
                batch.flush_due = false;
                let events = std::mem::take(&mut batch.queued);
                if batch.alive && !events.is_empty() {
                    batch.alive = send(events);
                    batch.last_sent = Some(Instant::now());
                }
            });
        }
        batch.alive
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    type Sent = Arc<Mutex<Vec<(Instant, Vec<u32>)>>>;

    fn recorder(alive: bool) -> (FrameBatcher<u32>, Sent) {
        let sent: Sent = Arc::default();
        let log = sent.clone();
        let batcher = FrameBatcher::new(move |events| {
            log.lock().unwrap().push((Instant::now(), events));
            alive
        });
        (batcher, sent)
    }

    async fn settle(sent: &Sent, events: usize) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while sent.lock().unwrap().iter().map(|(_, e)| e.len()).sum::<usize>() < events {
            assert!(Instant::now() < deadline, "events did not all go");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    #[tokio::test]
    async fn a_burst_goes_as_the_first_event_then_one_message_in_order() {
        let (batcher, sent) = recorder(true);
        let t0 = Instant::now();
        for n in 0..500 {
            assert!(batcher.push(n));
        }
        settle(&sent, 500).await;
        let sent = sent.lock().unwrap();
        assert_eq!(sent.len(), 2, "the first at once, the other 499 together");
        assert_eq!(sent[0].1, [0]);
        assert_eq!(sent[1].1, (1..500).collect::<Vec<_>>());
        assert!(sent[1].0 >= t0 + FRAME, "the rest waited for the end of the frame");
    }

    #[tokio::test]
    async fn events_a_frame_apart_each_go_at_once() {
        let (batcher, sent) = recorder(true);
        for n in 0..3 {
            batcher.push(n);
            tokio::time::sleep(FRAME + Duration::from_millis(5)).await;
        }
        settle(&sent, 3).await;
        let batches: Vec<Vec<u32>> = sent.lock().unwrap().iter().map(|(_, e)| e.clone()).collect();
        assert_eq!(batches, [vec![0], vec![1], vec![2]]);
    }

    #[tokio::test]
    async fn a_gone_receiver_ends_the_stream() {
        let (batcher, sent) = recorder(false);
        assert!(!batcher.push(1), "the failed send says so");
        assert!(!batcher.push(2), "and nothing more is sent");
        assert_eq!(sent.lock().unwrap().len(), 1);
    }
}
