//! A chat snapshot that asks (`view.turns`) for more completed turns than
//! the host holds live: the live tail, with the older ones read from the
//! store in front of it.
//!
//! The host keeps only a chat's newest `turn_tail` turns in memory (see
//! `Engine::turn_tail`), so a client asking for 1,000 turns of a long chat
//! gets them from `turns`, oldest first, exactly as before the tail was
//! bounded. The store is read outside the engine lock; the snapshot is
//! taken under it and takes the page only if the live tail has not moved
//! in between (a turn that ended meanwhile moves it: read again).

use std::sync::Arc;

use ahp_types::state::{Snapshot, SnapshotState};

use crate::engine::{ChannelRef, Engine};
use crate::host::Host;
use crate::store::{TurnCursor, TurnPage};
use crate::RpcError;

/// The most stored turns one snapshot reads; a client wanting more pages
/// with `fetchTurns` from the snapshot's cursor.
pub const MAX_STORED_TURNS: usize = 10_000;

/// Reads of the store before giving up on a tail that keeps moving.
const ATTEMPTS: usize = 3;

/// What must be read from the store for a snapshot of `tail` turns: the
/// live tail's cursor and how many older turns to read.
fn wanted(engine: &Engine, channel: &str, tail: Option<usize>) -> Option<(String, usize)> {
    let tail = tail?;
    if !matches!(engine.channel(channel), Some(ChannelRef::Chat { .. })) {
        return None;
    }
    let chat = engine.chat_state(channel)?;
    let missing = tail.checked_sub(chat.turns.len()).filter(|n| *n > 0)?;
    Some((chat.turns_next_cursor.clone()?, missing.min(MAX_STORED_TURNS)))
}

/// A snapshot of `channel` with up to `tail` completed turns (for a chat),
/// taken under the engine lock by `then`, which also sends it: the result
/// of `then`.
pub fn with_snapshot<R>(
    host: &Arc<Host>,
    channel: &str,
    tail: Option<usize>,
    then: impl Fn(&mut Engine, Snapshot) -> Result<R, RpcError>,
) -> Result<R, RpcError> {
    let not_found = || RpcError::not_found(format!("no such channel: {channel}"));
    for _ in 0..ATTEMPTS {
        let Some((cursor, missing)) = host.with_engine_locked(|engine| Ok(wanted(engine, channel, tail)))? else {
            break;
        };
        let page = read_before(host, channel, &cursor, missing)?;
        let taken = host.with_engine_locked(|engine| {
            if wanted(engine, channel, tail).map(|(c, _)| c).as_deref() != Some(cursor.as_str()) {
                return Ok(None);
            }
            let mut snapshot = engine.snapshot_with_tail(channel, tail).ok_or_else(not_found)?;
            prepend(&mut snapshot, page);
            then(engine, snapshot).map(Some)
        })?;
        if let Some(result) = taken {
            return Ok(result);
        }
    }
    host.with_engine_locked(|engine| {
        let snapshot = engine.snapshot_with_tail(channel, tail).ok_or_else(not_found)?;
        then(engine, snapshot)
    })
}

/// At most `limit` stored turns before `cursor`'s (the oldest live) turn.
fn read_before(host: &Host, channel: &str, cursor: &str, limit: usize) -> Result<TurnPage, RpcError> {
    let Some(cursor) = TurnCursor::decode(cursor) else {
        return Ok(TurnPage::default());
    };
    let page = host
        .turn_pages
        .page(channel, Some(&cursor), limit)
        .map_err(|e| RpcError::internal(format!("reading turns: {e}")))?;
    Ok(page.unwrap_or_default())
}

/// Put the stored `page` in front of a chat snapshot's live turns.
fn prepend(snapshot: &mut Snapshot, page: TurnPage) {
    if let SnapshotState::Chat(chat) = &mut snapshot.state {
        let mut turns = page.turns;
        turns.append(&mut chat.turns);
        chat.turns = turns;
        chat.turns_next_cursor = page.next.as_ref().map(TurnCursor::encode);
    }
}
