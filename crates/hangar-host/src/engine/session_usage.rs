//! A session's context use on its state (`_meta["hangar/usage"]`:
//! `{"used", "size", "cost"?}`), derived when a snapshot is taken from the
//! newest usage its default chat's agent reported (the running turn's, else
//! the latest completed turn's), so it is never stored twice and a restart
//! brings it back with the turns. Live, `chat/usage` on the chat carries
//! each new report.

use ahp_types::state::{ChatState, SessionState};

use crate::agents::acp::usage::{context_of, USAGE_META};

/// `state` with `_meta["hangar/usage"]` from `chat` when its agent
/// reported a context; unchanged otherwise.
pub fn with_usage(mut state: SessionState, chat: Option<&ChatState>) -> SessionState {
    let Some(context) = chat.and_then(latest_context) else { return state };
    state.meta.get_or_insert_with(Default::default).insert(USAGE_META.to_owned(), context);
    state
}

/// The newest context report of a chat.
fn latest_context(chat: &ChatState) -> Option<serde_json::Value> {
    let active = chat.active_turn.as_ref().and_then(|t| t.usage.as_ref()).and_then(context_of);
    active.or_else(|| chat.turns.iter().rev().find_map(|t| t.usage.as_ref().and_then(context_of)))
}
