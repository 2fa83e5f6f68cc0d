//! Closing a worktree session: what `session.worktree` reports (the
//! session's `_meta["hangar/worktree"]`), and archiving or disposing it
//! with its worktree removed (`_meta: {"hangar/worktree": {"remove": true,
//! "force"}}` on the host's `dispatchAction` / `disposeSession`,
//! docs/host.md). An archive the host refuses comes back as the action's
//! rejection, not as an error answer, so [`archive_removing`] waits for the
//! echo of its own dispatch and reports a rejection as the command's error.
//! When no echo comes in time, the host's own list of sessions says
//! whether the session was archived; if not, the command says that the
//! host did not answer (it never takes the archive as done unseen).

use std::sync::atomic::{AtomicI64, Ordering};

use ahp::hosts::HostId;
use ahp::SubscriptionEvent;
use ahp_types::actions::SessionIsArchivedChangedAction;
use ahp_types::commands::ListSessionsResult;
use ahp_types::common::JsonObject;
use ahp_types::state::SessionStatus;
use ahp_types::StateAction;
use serde_json::{json, Value};

use crate::core::Core;
use crate::error::CoreError;
use hangar_desktop_protocol::command::Dispatched;
use hangar_desktop_protocol::git::{WorktreeInfo, WorktreeRemoval};

/// The session state's `_meta` key of a session in a worktree of its own.
const WORKTREE_META: &str = "hangar/worktree";

/// How long an archive waits for the host's echo before asking the host,
/// in milliseconds ([`Core::archive_echo_wait`]).
pub const ECHO_WAIT_MS: u64 = 15_000;

/// Client sequence numbers of these dispatches: far above the AHP client's
/// own counter (which starts at 0), so an echo is never mistaken.
static NEXT_SEQ: AtomicI64 = AtomicI64::new(1 << 40);

/// The worktree a session works in, from its state's `_meta`.
pub async fn worktree(core: &Core, host: &HostId, session: &str) -> Result<Option<WorktreeInfo>, CoreError> {
    let state = core.session_state(host, session).await?;
    Ok(state.meta.as_ref().and_then(|m| m.get(WORKTREE_META)).and_then(|w| serde_json::from_value(w.clone()).ok()))
}

/// The `_meta` that asks the host to remove the worktree as well.
pub fn removal_meta(removal: WorktreeRemoval) -> JsonObject {
    let mut meta = JsonObject::new();
    meta.insert(WORKTREE_META.to_owned(), json!({ "remove": true, "force": removal.force }));
    meta
}

/// Archive `session` and remove its worktree; the host's rejection (the
/// worktree has edits or unmerged commits and `force` is off, or it has
/// none) is [`CoreError::Refused`] with the host's reason, and then
/// nothing changed.
pub async fn archive_removing(
    core: &Core,
    host: &HostId,
    session: &str,
    removal: WorktreeRemoval,
) -> Result<Dispatched, CoreError> {
    // Subscribed to the session (its state is read), so its echo comes here.
    core.session_state(host, session).await?;
    let client =
        core.multi().client(host).await.ok_or_else(|| CoreError::NotFound(format!("host {host} is not connected")))?;
    let client_seq = NEXT_SEQ.fetch_add(1, Ordering::Relaxed);
    let action = StateAction::SessionIsArchivedChanged(SessionIsArchivedChangedAction { is_archived: true });
    let params = json!({
        "channel": session,
        "clientSeq": client_seq,
        "action": serde_json::to_value(&action).map_err(|e| CoreError::Unexpected(e.to_string()))?,
        "_meta": Value::Object(removal_meta(removal)),
    });
    // Listen before sending, so the echo cannot pass unseen.
    let mut events = core.multi().events();
    client.check_alive().await?;
    client.raw_client().notify("dispatchAction", params).await.map_err(ahp::hosts::HostError::from)?;
    // The echo: `Some(rejection)`; `None` when the events ended first.
    let echo = async {
        while let Some(ev) = events.recv().await {
            if &ev.host_id != host {
                continue;
            }
            if let SubscriptionEvent::Action(env) = ev.event {
                if env.origin.as_ref().is_some_and(|o| o.client_seq == client_seq) {
                    return Some(env.rejection_reason);
                }
            }
        }
        None
    };
    let wait = core.archive_echo_wait();
    let heard = if wait.is_zero() { None } else { tokio::time::timeout(wait, echo).await.ok().flatten() };
    match heard {
        Some(None) => Ok(Dispatched { client_seq }),
        Some(Some(reason)) => Err(CoreError::Refused(reason)),
        // No echo: the host's list says whether it happened.
        None => match archived_on_host(core, host, session).await {
            Ok(true) => Ok(Dispatched { client_seq }),
            Ok(false) => Err(CoreError::Unexpected(format!(
                "the host did not answer the archive within {} s, and the session is not archived: its worktree was not removed",
                wait.as_secs()
            ))),
            Err(e) => Err(CoreError::Unexpected(format!(
                "the host did not answer the archive within {} s, and whether it was done could not be read: {e}",
                wait.as_secs()
            ))),
        },
    }
}

/// Whether `host`'s `listSessions` shows `session` archived.
async fn archived_on_host(core: &Core, host: &HostId, session: &str) -> Result<bool, CoreError> {
    let client =
        core.multi().client(host).await.ok_or_else(|| CoreError::NotFound(format!("host {host} is not connected")))?;
    let mut cursor: Option<String> = None;
    loop {
        let mut params = json!({ "channel": ahp_types::ROOT_RESOURCE_URI });
        if let Some(c) = cursor.take() {
            params["cursor"] = json!(c);
        }
        let page: ListSessionsResult = client.request("listSessions", params).await?;
        if let Some(s) = page.items.iter().find(|s| s.resource == session) {
            return Ok(SessionStatus::from_bits(s.status).contains(SessionStatus::IsArchived));
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_removal_meta_is_the_hosts_shape() {
        let meta = removal_meta(WorktreeRemoval { force: true });
        assert_eq!(Value::Object(meta), json!({"hangar/worktree": {"remove": true, "force": true}}));
    }
}
