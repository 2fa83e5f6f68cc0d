//! The live tail: a chat keeps only its newest [`Engine::turn_tail`]
//! completed turns in memory, whatever it has run since the host started;
//! the rest are served from the store, and nothing is lost.

use serde_json::json;

use super::{turn_complete, turn_started, By, Fx, On, Start};
use crate::store::{TurnCursor, TurnPages};

/// Run `n` turns (`t0` … `t{n-1}`), each started and completed.
fn run_turns(fx: &mut Fx, n: usize) {
    for i in 0..n {
        let id = format!("t{i}");
        fx.server(On::Chat, turn_started(&id));
        fx.server(On::Chat, turn_complete(&id));
    }
}

fn live_ids(fx: &Fx) -> Vec<String> {
    fx.chat_state().turns.iter().map(|t| t.id.clone()).collect()
}

/// Every turn of the chat: the live ones, then page after page from the
/// store following the cursors, oldest first.
fn every_turn(fx: &mut Fx) -> Vec<String> {
    fx.published(); // the writer has committed everything emitted so far
    let pages = TurnPages::open(&fx._dir.path().join("hangar.db")).unwrap();
    let mut ids = live_ids(fx);
    let mut cursor = fx.chat_state().turns_next_cursor.clone();
    while let Some(raw) = cursor {
        let page =
            pages.page(&fx.chat, TurnCursor::decode(&raw).as_ref(), 50).unwrap().expect("a cursor the host gave");
        let mut older: Vec<String> = page.turns.iter().map(|t| t.id.clone()).collect();
        older.append(&mut ids);
        ids = older;
        cursor = page.next.as_ref().map(TurnCursor::encode);
    }
    ids
}

#[test]
fn a_chat_keeps_only_its_newest_turns_live_and_the_store_has_the_rest() {
    let mut fx = Fx::new(Start::Ready);
    run_turns(&mut fx, 130);
    let tail = fx.engine.turn_tail;
    let live = live_ids(&fx);
    assert_eq!(live.len(), tail, "only the newest {tail} turns stay in memory");
    assert_eq!(live.first().map(String::as_str), Some("t80"));
    assert_eq!(live.last().map(String::as_str), Some("t129"));
    assert_eq!(
        fx.chat_state().turns_next_cursor.as_deref(),
        Some(TurnCursor::before("t80").encode().as_str()),
        "the cursor names the stored turns before the live ones"
    );
    let all = every_turn(&mut fx);
    let expected: Vec<String> = (0..130).map(|i| format!("t{i}")).collect();
    assert_eq!(all, expected, "every turn is live or stored, once, in order");
}

#[test]
fn a_cancelled_or_failed_turn_also_trims() {
    let mut fx = Fx::new(Start::Ready);
    run_turns(&mut fx, 50);
    fx.server(On::Chat, turn_started("cancelled"));
    fx.server(On::Chat, super::turn_cancelled("cancelled"));
    fx.server(On::Chat, turn_started("failed"));
    fx.server(On::Chat, super::turn_error("failed"));
    let live = live_ids(&fx);
    assert_eq!(live.len(), 50);
    assert_eq!(live.first().map(String::as_str), Some("t2"));
    assert_eq!(live.last().map(String::as_str), Some("failed"));
}

#[test]
fn loading_older_turns_reaches_subscribers_but_does_not_grow_the_host() {
    let mut fx = Fx::new(Start::Ready);
    run_turns(&mut fx, 100);
    fx.published();
    let pages = TurnPages::open(&fx._dir.path().join("hangar.db")).unwrap();
    let cursor = TurnCursor::decode(fx.chat_state().turns_next_cursor.as_deref().unwrap());
    let page = pages.page(&fx.chat, cursor.as_ref(), 50).unwrap().unwrap();
    assert_eq!(page.turns.len(), 50);
    let action = json!({ "type": "chat/turnsLoaded", "turns": page.turns, "turnsNextCursor": null });
    fx.server(On::Chat, action);
    let sent = fx.published();
    let loaded = sent.iter().find(|p| p.kind == "chat/turnsLoaded").expect("subscribers get the page");
    assert_eq!(loaded.body["turns"].as_array().map(Vec::len), Some(50));
    assert_eq!(live_ids(&fx).len(), 50, "the host keeps its tail");
    assert_eq!(live_ids(&fx).first().map(String::as_str), Some("t50"));
    assert_eq!(every_turn(&mut fx).len(), 100, "and still leads to every turn");
}

#[test]
fn truncating_from_a_turn_no_longer_live_is_refused_with_the_reason() {
    let mut fx = Fx::new(Start::Ready);
    run_turns(&mut fx, 60);
    let old = fx.apply(By::Client, On::Chat, &json!({ "type": "chat/truncated", "turnId": "t3" }));
    let reason = old.expect_err("t3 is not live");
    assert!(reason.contains("newest turns held live"), "{reason}");
    let recent = fx.apply(By::Client, On::Chat, &json!({ "type": "chat/truncated", "turnId": "t55" }));
    assert!(recent.is_ok(), "{recent:?}");
    assert_eq!(live_ids(&fx).last().map(String::as_str), Some("t55"));
    let all = every_turn(&mut fx);
    assert_eq!(all.len(), 56, "t56 … t59 are gone from the store too: {all:?}");
}

#[test]
fn turn_changesets_beyond_the_newest_leave_memory_unless_followed() {
    let mut fx = Fx::new(Start::Ready);
    let session = super::SESSION;
    let uri = |i: usize| crate::engine::changeset_uris::turn_uri(session, &format!("t{i}"));
    let empty = || {
        serde_json::from_value::<ahp_types::state::ChangesetState>(json!({ "status": "ready", "files": [] })).unwrap()
    };
    for i in 0..60 {
        fx.engine.put_changeset(&uri(i), session, empty());
    }
    let session_changeset = crate::engine::changeset_uris::session_uri(session);
    fx.engine.put_changeset(&session_changeset, session, empty());
    let followed = uri(3);
    let dropped = fx.engine.trim_turn_changesets(session, 50, |u| u == followed);
    assert_eq!(dropped, 9, "t0 … t9 but the followed t3");
    assert!(fx.engine.channel(&uri(3)).is_some(), "a followed changeset stays");
    assert!(fx.engine.channel(&uri(4)).is_none());
    assert!(fx.engine.channel(&uri(10)).is_some(), "the newest 50 stay");
    assert!(fx.engine.channel(&session_changeset).is_some(), "only turn changesets are trimmed");
    assert_eq!(fx.engine.trim_turn_changesets(session, 50, |_| false), 1, "t3 once nobody follows it");
}
