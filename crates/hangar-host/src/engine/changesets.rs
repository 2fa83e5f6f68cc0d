//! Changeset channels (`…/changesets/session`, `…/changesets/turn/<id>`):
//! their states, registered and refreshed by the change tracker, and the
//! session's `ChangesSummary` it keeps on `SessionSummary.changes`.

use ahp_types::actions::{ChangesetContentChangedAction, ChangesetStatusChangedAction};
use ahp_types::state::{ChangesSummary, ChangesetState};
use ahp_types::StateAction;

use super::Engine;

/// A changeset channel.
pub(crate) struct ChangesetEntry {
    pub state: ChangesetState,
    pub session: String,
    /// Its place in the order of registration: newer is larger.
    pub registered: u64,
}

impl Engine {
    /// Register changeset `uri` of `session`, or, when it exists, bring it
    /// to `state` through `changeset/statusChanged` and
    /// `changeset/contentChanged` (so its subscribers follow).
    pub fn put_changeset(&mut self, uri: &str, session: &str, state: ChangesetState) {
        if !self.sessions.contains_key(session) {
            return;
        }
        let Some(old) = self.changesets.get(uri).map(|c| &c.state) else {
            self.changesets_registered += 1;
            let entry = ChangesetEntry { state, session: session.to_owned(), registered: self.changesets_registered };
            self.changesets.insert(uri.to_owned(), entry);
            return;
        };
        let status_changed = old.status != state.status;
        let content_changed = old.files != state.files || old.operations != state.operations;
        if status_changed {
            let action = ChangesetStatusChangedAction { status: state.status, error: state.error };
            let _ = self.emit_server(uri, StateAction::ChangesetStatusChanged(action));
        }
        if content_changed {
            let action = ChangesetContentChangedAction { files: state.files, operations: state.operations };
            let _ = self.emit_server(uri, StateAction::ChangesetContentChanged(Box::new(action)));
        }
    }

    /// Keep `session`'s turn changesets bounded: all but the newest `keep`
    /// are dropped from memory unless `followed` says a client subscribes
    /// to one. Nothing is lost: the tracker keeps every turn's changes, and
    /// a subscribe or an operation registers the channel again
    /// (`Host::ensure_changeset`). Returns how many were dropped.
    pub fn trim_turn_changesets(&mut self, session: &str, keep: usize, followed: impl Fn(&str) -> bool) -> usize {
        let prefix = format!("{session}{}turn/", super::changeset_uris::INFIX);
        let mut turns: Vec<(u64, &String)> = self
            .changesets
            .iter()
            .filter(|(uri, c)| c.session == session && uri.starts_with(&prefix))
            .map(|(uri, c)| (c.registered, uri))
            .collect();
        if turns.len() <= keep {
            return 0;
        }
        turns.sort_unstable_by_key(|t| std::cmp::Reverse(t.0));
        let drop: Vec<String> =
            turns[keep..].iter().map(|(_, uri)| (*uri).clone()).filter(|uri| !followed(uri)).collect();
        for uri in &drop {
            self.changesets.remove(uri);
        }
        drop.len()
    }

    /// Set `SessionSummary.changes` of `session`.
    pub fn set_session_changes(&mut self, session: &str, changes: ChangesSummary) {
        if !self.sessions.contains_key(session) {
            return;
        }
        // Once shown, a summary goes to zero rather than away: a partial
        // summary update cannot clear a field.
        let empty = changes.files.unwrap_or(0) == 0;
        let changed = match self.session_changes.get(session) {
            None if empty => false,
            old => old != Some(&changes),
        };
        if changed {
            self.session_changes.insert(session.to_owned(), changes);
            self.sync_session_summary(session);
        }
    }

    /// The changes shown on `session`'s summary.
    pub(super) fn session_changes(&self, session: &str) -> Option<ChangesSummary> {
        self.session_changes.get(session).cloned()
    }

    /// Drop every changeset channel of `session` (disposed).
    pub(super) fn remove_changesets(&mut self, session: &str) {
        self.changesets.retain(|_, c| c.session != session);
        self.session_changes.remove(session);
        self.session_git.remove(session);
    }
}
