//! Subscribing a connection atomically with its snapshot, and answering
//! behind every action already queued.
//!
//! The engine's seq counts actions the store writer has not committed (and
//! fan-out not delivered) yet. A reply carrying that seq (`initialize`'s
//! `serverSeq`, a snapshot's `fromSeq`) must not reach the client before
//! those envelopes reach it on its other subscriptions: a client records the
//! highest seq it has seen, and a `reconnect` from there would skip them. So
//! the reply is queued through the writer like an envelope.

use super::Engine;
use crate::hub::{ConnId, Hub, Publication};

impl Engine {
    /// Subscribe `conn` to `channels` from the current seq (the seq of the
    /// snapshots in `frame`) and queue `frame` behind every publication queued
    /// so far: it reaches the client after every envelope up to that seq and
    /// before every later one on these channels. Call with the engine locked
    /// since the snapshots were taken.
    pub fn subscribe_and_reply(&self, hub: &Hub, conn: ConnId, channels: &[String], frame: String) {
        let ticket = hub.subscribe_pending(conn, channels, self.seq);
        self.writer.publish(Publication::Reply { conn, frame: frame.into(), ticket: Some(ticket) });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::sync::Arc;

    use ahp_types::actions::RootAgentsChangedAction;
    use ahp_types::{StateAction, ROOT_RESOURCE_URI};
    use tokio::sync::Notify;

    use super::*;
    use crate::engine::tests::engine_over_store;
    use crate::hub::OutFrame;

    fn release(engine: &Engine, held: &mpsc::Receiver<Vec<Publication>>, hub: &Hub) {
        engine.writer().flush();
        for batch in held.try_iter() {
            hub.publish(batch);
        }
    }

    fn frames(rx: &mut tokio::sync::mpsc::Receiver<OutFrame>) -> Vec<String> {
        std::iter::from_fn(|| rx.try_recv().ok()).map(|f| f.to_string()).collect()
    }

    #[test]
    fn a_subscribe_reply_never_overtakes_an_earlier_envelope() {
        let dir = tempfile::tempdir().unwrap();
        // Committed batches are held back until the test publishes them: a
        // store writer that is slow to commit.
        let (mut engine, held) = engine_over_store(dir.path());
        let hub = Arc::new(Hub::new(1000, 0));
        let (tx, mut rx) = tokio::sync::mpsc::channel(64);
        hub.add_connection(1, tx, Arc::new(Notify::new()));

        engine.subscribe_and_reply(&hub, 1, &[ROOT_RESOURCE_URI.to_owned()], "root reply".to_owned());
        release(&engine, &held, &hub);
        assert_eq!(frames(&mut rx), ["root reply"]);

        // Seq 1 on the root channel is queued, not yet committed …
        let agents = StateAction::RootAgentsChanged(RootAgentsChangedAction { agents: Vec::new() });
        assert_eq!(engine.emit_server(ROOT_RESOURCE_URI, agents), Ok(1));
        // … as is a notification for a channel the next subscribe adds.
        engine.writer().publish(Publication::Notification {
            channel: "ahp-session:/x".into(),
            frame: "earlier notification".into(),
            frame_v0_9: "earlier notification".into(),
        });
        // A subscribe now carries fromSeq 1: its reply waits for seq 1.
        engine.subscribe_and_reply(&hub, 1, &["ahp-session:/x".to_owned()], "session reply (fromSeq 1)".to_owned());
        assert!(frames(&mut rx).is_empty(), "nothing may be sent before the writer commits seq 1");

        release(&engine, &held, &hub);
        let sent = frames(&mut rx);
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert!(sent[0].contains(r#""serverSeq":1"#), "the envelope comes first: {sent:?}");
        assert_eq!(sent[1], "session reply (fromSeq 1)", "no notification from before the subscription");

        // Subscribing again to a channel already followed loses none of its
        // notifications.
        engine.writer().publish(Publication::Notification {
            channel: ROOT_RESOURCE_URI.into(),
            frame: "root notification".into(),
            frame_v0_9: "root notification".into(),
        });
        engine.subscribe_and_reply(&hub, 1, &[ROOT_RESOURCE_URI.to_owned()], "root again".to_owned());
        release(&engine, &held, &hub);
        assert_eq!(frames(&mut rx), ["root notification", "root again"]);
    }
}
