//! The engine: the only owner of protocol state, changed only by the official
//! `ahp::reducers`.
//!
//! Map:
//! - `mod.rs`       — [`Engine`]: channel lookup, [`Engine::emit`] (reduce,
//!   sequence, persist, publish) — the one path every state change takes.
//! - `channels.rs`  — per-channel entries and snapshots.
//! - `terminal_channels.rs` — terminal channels (commands agents run, logins, a
//!   client's own terminals), listed on the root while they run; who may
//!   type in them.
//! - `changesets.rs` — changeset channels and `SessionSummary.changes`, fed by
//!   the change tracker (`crate::changes`).
//! - `changeset_uris.rs` — changeset URIs and a session's changeset
//!   catalogue (`SessionState.changesets`), set when a session is created.
//! - `summaries.rs` — keeping `session.chats[]` and `SessionSummary` derived
//!   from the chats (`session/chatUpdated`, `root/sessionSummaryChanged`).
//! - `session_git.rs` — a session's branch state on its summary
//!   (`_meta["hangar/git"]`), set by the host.
//! - `session_usage.rs` — a session's context use on its snapshot
//!   (`_meta["hangar/usage"]`).
//! - `sessions.rs`  — create, dispose, list sessions; restore at startup.
//! - `subscriptions.rs` — subscribing a connection with its snapshot and
//!   answering behind every action already queued.
//! - `client_actions.rs` — validating a client's `dispatchAction`.
//! - `dispatchable.rs` — the client-dispatchable action table.
//! - `action_type.rs` — an action's wire `type`, which the official crates
//!   do not give.
//! - `input_requests.rs` — input requests: the session's `inputNeeded`
//!   mirror (input requests, tool confirmations, tool sign-ins) and the
//!   preconditions of a client's answers.
//! - `activity.rs`  — the chat's and session's `activity` in words, derived
//!   from the active turn.
//! - `queue.rs`     — starting queued messages when a chat goes idle or its
//!   session becomes ready (or failed to start: they end with its error).
//! - `effects.rs`   — what the engine asks the outside world to do (agents).
//! - `clock.rs`     — timestamps and ids.
//! - `titles.rs`    — session titles: who set one, whether a new one may
//!   replace it, the automatic title from the first message.
//! - `tests/`       — table tests of the rules above, one file per module.
//!
//! The engine is used under a `Mutex` and never awaits: every method is a
//! short, synchronous state transition.

pub mod action_type;
mod activity;
pub mod changeset_uris;
mod changesets;
mod channels;
pub(crate) mod client_actions;
pub mod clock;
pub mod dispatchable;
mod effects;
mod input_requests;
mod queue;
mod session_git;
mod session_usage;
mod sessions;
mod subscriptions;
mod summaries;
mod terminal_channels;
#[cfg(test)]
mod tests;
pub mod titles;

pub use channels::ChannelRef;
pub use client_actions::Rejection;
pub use effects::{SideEffect, REPLAYED_META_KEY};
pub use session_git::GIT_META;
pub use sessions::{CreateSession, ForkSeed, SessionPage, WORKTREE_META};
pub use terminal_channels::{terminal_uri, BadSize, Size, MAX_CELLS, MAX_TERMINAL_CONTENT};

use std::collections::HashMap;
use std::sync::Arc;

use ahp::reducers::{
    apply_action_to_changeset, apply_action_to_chat, apply_action_to_resource_watch, apply_action_to_root,
    apply_action_to_session, apply_action_to_terminal,
};
use ahp::ReduceOutcome;
use ahp_types::state::{ChangesSummary, ResourceWatchState, RootState};
use ahp_types::{ActionEnvelope, ActionOrigin, StateAction, ROOT_RESOURCE_URI};

use crate::engine::action_type::type_of_action_json;
use crate::hub::Publication;
use crate::store::{StoreOp, StoreWriter};
use changesets::ChangesetEntry;
use channels::{ChatEntry, SessionEntry};
use terminal_channels::TerminalEntry;

/// A channel's actions between two checkpoints.
const CHECKPOINT_EVERY: u32 = 256;

/// Why an action was not applied.
#[derive(Debug, Clone, PartialEq)]
pub enum EmitError {
    /// No such channel: a client action for it is silently ignored.
    UnknownChannel,
    /// The reducer did not apply it; the text is the rejection reason.
    NotApplied(String),
}

/// The state owner.
pub struct Engine {
    seq: u64,
    root: RootState,
    sessions: HashMap<String, SessionEntry>,
    chats: HashMap<String, ChatEntry>,
    watches: HashMap<String, ResourceWatchState>,
    changesets: HashMap<String, ChangesetEntry>,
    /// Changeset channels registered so far (their order, for trimming).
    changesets_registered: u64,
    terminals: HashMap<String, TerminalEntry>,
    /// `SessionSummary.changes` by session (from the change tracker).
    session_changes: HashMap<String, ChangesSummary>,
    /// `_meta["hangar/git"]` by session (`session_git.rs`).
    session_git: HashMap<String, serde_json::Value>,
    writer: StoreWriter<Publication>,
    effects: Vec<SideEffect>,
    /// How many completed turns a chat keeps in memory: at a restart, and
    /// after every turn ends or older turns are loaded (the rest are in the
    /// store, served by `fetchTurns`), so a host's memory does not grow with
    /// the turns it has run.
    pub turn_tail: usize,
    /// Set while the engine titles a session itself (`titles.rs`).
    titling: Option<titles::TitleSource>,
}

impl Engine {
    /// A new engine starting at `seq` (restored from the store).
    pub fn new(seq: u64, root: RootState, writer: StoreWriter<Publication>, turn_tail: usize) -> Self {
        Self {
            seq,
            root,
            sessions: HashMap::new(),
            chats: HashMap::new(),
            watches: HashMap::new(),
            changesets: HashMap::new(),
            changesets_registered: 0,
            terminals: HashMap::new(),
            session_changes: HashMap::new(),
            session_git: HashMap::new(),
            writer,
            effects: Vec::new(),
            turn_tail,
            titling: None,
        }
    }

    /// The last `serverSeq` assigned.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The root state.
    pub fn root(&self) -> &RootState {
        &self.root
    }

    /// Side effects collected since the last call, in order.
    pub fn take_effects(&mut self) -> Vec<SideEffect> {
        std::mem::take(&mut self.effects)
    }

    /// The store writer (for flushing at shutdown).
    pub fn writer(&self) -> &StoreWriter<Publication> {
        &self.writer
    }

    /// Refuse a client's change while the store cannot save (a full disk):
    /// the reason to answer with, or `Ok` when writes are being saved.
    pub fn refuse_while_unsaved(&self) -> Result<(), String> {
        match self.writer.failure() {
            Some(reason) => Err(format!("{reason}: nothing new is accepted until it can save again")),
            None => Ok(()),
        }
    }

    /// Queue a response for `conn` behind every publication queued so far.
    pub fn publish_reply(&self, conn: crate::hub::ConnId, frame: String) {
        self.writer.publish(Publication::Reply { conn, frame: frame.into(), ticket: None });
    }

    /// Apply a server-originated action.
    pub fn emit_server(&mut self, channel: &str, action: StateAction) -> Result<u64, EmitError> {
        self.emit(channel, action, None)
    }

    /// Reduce `action` on `channel`; if applied, give it the next `serverSeq`,
    /// queue it for the store, publish it after commit, and keep derived
    /// state (summaries, queue) in step.
    ///
    /// The contract: an applied action gets exactly the next `serverSeq`
    /// (returned) and is published only after the store committed it; an
    /// action the reducer does not apply changes nothing (no `serverSeq`
    /// spent, nothing stored or published) and says why; an action for a
    /// channel the engine does not hold is [`EmitError::UnknownChannel`].
    ///
    /// ```
    /// use std::sync::mpsc;
    ///
    /// use ahp_types::state::RootState;
    /// use ahp_types::{StateAction, ROOT_RESOURCE_URI};
    /// use hangar_host::engine::{EmitError, Engine};
    /// use hangar_host::hub::Publication;
    /// use hangar_host::store;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let conn = store::open(&dir.path().join("hangar.db"))?;
    /// let (committed, published) = mpsc::channel();
    /// let (writer, _thread) = store::spawn_writer(conn, None, move |batch: Vec<Publication>| {
    ///     let _ = committed.send(batch);
    /// })?;
    /// let root = RootState { agents: Vec::new(), active_sessions: Some(0), terminals: None, config: None, meta: None };
    /// let mut engine = Engine::new(41, root, writer, 50);
    ///
    /// let action = |json: &str| serde_json::from_str::<StateAction>(json);
    /// // Applied: the next serverSeq, published once the store committed it.
    /// let changed = action(r#"{"type":"root/agentsChanged","agents":[]}"#)?;
    /// assert_eq!(engine.emit(ROOT_RESOURCE_URI, changed, None), Ok(42));
    /// let batch = published.recv()?;
    /// assert!(matches!(&batch[..], [Publication::Envelope { .. }]));
    ///
    /// // A channel the engine does not hold: nothing happens.
    /// let title = action(r#"{"type":"session/titleChanged","title":"x"}"#)?;
    /// assert_eq!(engine.emit("ahp-session:/nobody", title, None), Err(EmitError::UnknownChannel));
    ///
    /// // Not applied (an action of another channel's kind): no serverSeq spent.
    /// let title = action(r#"{"type":"session/titleChanged","title":"x"}"#)?;
    /// assert!(matches!(engine.emit(ROOT_RESOURCE_URI, title, None), Err(EmitError::NotApplied(_))));
    /// let again = action(r#"{"type":"root/agentsChanged","agents":[]}"#)?;
    /// assert_eq!(engine.emit(ROOT_RESOURCE_URI, again, None), Ok(43));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn emit(&mut self, channel: &str, action: StateAction, origin: Option<ActionOrigin>) -> Result<u64, EmitError> {
        if self.terminal_full(channel, &action) {
            return Err(EmitError::NotApplied("the terminal shows no more output".to_owned()));
        }
        self.check_title(channel, &action, origin.is_some())?;
        let outcome = self.reduce(channel, &action)?;
        if outcome != ReduceOutcome::Applied {
            return Err(EmitError::NotApplied(match outcome {
                ReduceOutcome::NoOp => "the action has no effect on the current state".to_owned(),
                ReduceOutcome::OutOfScope => "the action does not belong to this channel".to_owned(),
                ReduceOutcome::Invalid(e) => format!("invalid action: {e}"),
                ReduceOutcome::Applied => String::new(),
            }));
        }
        self.seq += 1;
        let seq = self.seq;
        // A keystroke goes to the pseudo-terminal only: every client (its
        // sender too, for whom the echo only confirms it) gets the action
        // without its text, so what a person types into a login (a password
        // with echo off) is never fanned out or kept for replay.
        let (action, typed) = match action {
            StateAction::TerminalInput(typed) => (
                StateAction::TerminalInput(ahp_types::actions::TerminalInputAction { data: String::new() }),
                Some(typed),
            ),
            other => (other, None),
        };
        // The action is serialized once; the envelope and the notification
        // frame are assembled around it.
        let action_json = serde_json::to_string(&action).unwrap_or_else(|e| {
            tracing::error!("cannot encode an action: {e}");
            "{}".to_owned()
        });
        let kind: Arc<str> = match &action {
            StateAction::Unknown(raw) => raw.get("type").and_then(|t| t.as_str()).unwrap_or_default().into(),
            _ => type_of_action_json(&action_json).unwrap_or_default().into(),
        };
        let envelope_json: Arc<str> = envelope_json(channel, &action_json, seq, origin.as_ref()).into();
        let envelope =
            ActionEnvelope { channel: channel.to_owned(), action, server_seq: seq, origin, rejection_reason: None };
        let channel_arc: Arc<str> = channel.into();
        let ops = self.persistence_ops(&channel_arc, &envelope, &envelope_json);
        debug_assert_eq!(
            serde_json::to_string(&envelope).ok().as_deref(),
            Some(&*envelope_json),
            "the assembled envelope is what serde would write"
        );
        self.writer.write(ops);
        self.trim_live_turns(channel, &envelope.action);
        let frame = format!(r#"{{"jsonrpc":"2.0","method":"action","params":{envelope_json}}}"#).into();
        self.writer.publish(Publication::Envelope {
            seq,
            channel: channel_arc,
            action_type: kind,
            envelope: envelope_json,
            frame,
        });
        let client = envelope.origin.as_ref().map(|o| o.client_id.as_str());
        match typed {
            Some(typed) => self.after_applied(channel, &StateAction::TerminalInput(typed), client),
            None => self.after_applied(channel, &envelope.action, client),
        }
        Ok(seq)
    }

    fn reduce(&mut self, channel: &str, action: &StateAction) -> Result<ReduceOutcome, EmitError> {
        if channel == ROOT_RESOURCE_URI {
            return Ok(apply_action_to_root(&mut self.root, action));
        }
        if let Some(entry) = self.chats.get_mut(channel) {
            return Ok(apply_action_to_chat(&mut entry.state, action));
        }
        if let Some(entry) = self.sessions.get_mut(channel) {
            return Ok(apply_action_to_session(&mut entry.state, action));
        }
        if let Some(entry) = self.changesets.get_mut(channel) {
            return Ok(apply_action_to_changeset(&mut entry.state, action));
        }
        if let Some(entry) = self.terminals.get_mut(channel) {
            // Input changes no state (the reducer's `NoOp`); it is an event
            // for the process, echoed like any accepted action.
            return Ok(match apply_action_to_terminal(&mut entry.state, action) {
                ReduceOutcome::NoOp if matches!(action, StateAction::TerminalInput(_)) => ReduceOutcome::Applied,
                other => other,
            });
        }
        if let Some(state) = self.watches.get_mut(channel) {
            // The reducer keeps a watch's descriptor unchanged (`NoOp`); its
            // actions are events, so an event the reducer recognises is sent.
            return Ok(match apply_action_to_resource_watch(state, action) {
                ReduceOutcome::NoOp if matches!(action, StateAction::ResourceWatchChanged(_)) => ReduceOutcome::Applied,
                other => other,
            });
        }
        Err(EmitError::UnknownChannel)
    }

    /// The store writes for one applied envelope: the log row, and a
    /// checkpoint (with the completed turn) when one is due.
    fn persistence_ops(
        &mut self,
        channel: &Arc<str>,
        envelope: &ActionEnvelope,
        envelope_json: &Arc<str>,
    ) -> Vec<StoreOp> {
        let seq = envelope.server_seq;
        let mut ops = Vec::new();
        if let Some(entry) = self.chats.get_mut(&**channel) {
            ops.push(StoreOp::Log { seq, channel: channel.clone(), envelope: envelope_json.clone() });
            let checkpoint_now = match &envelope.action {
                StateAction::ChatTurnComplete(_) | StateAction::ChatTurnCancelled(_) | StateAction::ChatError(_) => {
                    if let Some(turn) = entry.state.turns.last() {
                        if let Ok(json) = serde_json::to_string(turn) {
                            ops.push(StoreOp::TurnEnded {
                                chat: channel.clone(),
                                turn_id: turn.id.clone(),
                                turn: json,
                            });
                        }
                    }
                    true
                }
                StateAction::ChatTruncated(a) => {
                    ops.push(StoreOp::TurnsTruncated { chat: channel.clone(), keep_through: a.turn_id.clone() });
                    true
                }
                _ => {
                    entry.since_checkpoint += 1;
                    entry.since_checkpoint >= CHECKPOINT_EVERY
                }
            };
            if checkpoint_now {
                ops.extend(entry.checkpoint(channel, seq));
            }
        } else if let Some(entry) = self.sessions.get_mut(&**channel) {
            ops.push(StoreOp::Log { seq, channel: channel.clone(), envelope: envelope_json.clone() });
            entry.since_checkpoint += 1;
            if entry.since_checkpoint >= CHECKPOINT_EVERY {
                ops.extend(entry.checkpoint(channel, seq));
            }
        }
        ops
    }

    /// Bound a chat's live turns once a turn has ended or an older page was
    /// loaded: the envelope is already out (subscribers' mirrors keep what
    /// they were sent), the host keeps the newest [`Engine::turn_tail`].
    fn trim_live_turns(&mut self, channel: &str, action: &StateAction) {
        let ends_or_loads = matches!(
            action,
            StateAction::ChatTurnComplete(_)
                | StateAction::ChatTurnCancelled(_)
                | StateAction::ChatError(_)
                | StateAction::ChatTurnsLoaded(_)
        );
        if ends_or_loads {
            if let Some(entry) = self.chats.get_mut(channel) {
                entry.trim_turns(self.turn_tail.max(1));
            }
        }
    }

    /// Derived state after an applied action: chat → session summaries,
    /// queued messages, side effects for the agent layer.
    fn after_applied(&mut self, channel: &str, action: &StateAction, client: Option<&str>) {
        if is_streaming(action) {
            return;
        }
        if let Some(session) = self.chats.get(channel).map(|c| c.session.clone()) {
            self.record_effect(&session, channel, action, client);
            if input_requests::touches_input_requests(action) {
                self.sync_input_needed(&session, channel);
            }
            if input_requests::touches_input_requests(action) || matches!(action, StateAction::ChatTurnStarted(_)) {
                self.sync_activity(&session, channel);
            }
            self.sync_chat_summary(&session, channel);
            self.auto_title_on_turn(&session, action);
            if ends_turn(action) {
                self.mark_session_unread(&session);
                self.start_next_queued(channel);
            }
            self.sync_session_summary(&session);
        } else if self.sessions.contains_key(channel) {
            self.record_session_effect(channel, action);
            if matches!(action, StateAction::SessionTitleChanged(_)) {
                self.title_applied(channel, client.is_some());
            }
            if matches!(action, StateAction::SessionReady(_) | StateAction::SessionCreationFailed(_)) {
                self.start_queued_of_session(channel);
            }
            self.sync_session_summary(channel);
        } else if self.terminals.contains_key(channel) {
            self.after_terminal_action(channel, action, client);
        } else if let (Some(entry), StateAction::ChangesetFilesReviewChanged(a)) =
            (self.changesets.get(channel), action)
        {
            self.effects.push(SideEffect::ChangesetReviewed {
                session: entry.session.clone(),
                changeset: channel.to_owned(),
                files: a.files.clone(),
                reviewed: a.reviewed,
            });
        }
    }

    /// Persist every channel's state now (at shutdown).
    pub fn checkpoint_all(&mut self) {
        let seq = self.seq;
        let mut ops = Vec::new();
        for (uri, entry) in &mut self.sessions {
            ops.extend(entry.checkpoint(&Arc::from(uri.as_str()), seq));
        }
        for (uri, entry) in &mut self.chats {
            ops.extend(entry.checkpoint(&Arc::from(uri.as_str()), seq));
        }
        self.writer.write(ops);
    }
}

/// `ActionEnvelope` JSON around an already serialized action (field order
/// and names as `ahp-types` writes them).
fn envelope_json(channel: &str, action_json: &str, seq: u64, origin: Option<&ActionOrigin>) -> String {
    let channel = serde_json::Value::from(channel);
    match origin {
        Some(o) => format!(
            r#"{{"channel":{channel},"action":{action_json},"serverSeq":{seq},"origin":{{"clientId":{},"clientSeq":{}}}}}"#,
            serde_json::Value::from(o.client_id.as_str()),
            o.client_seq
        ),
        None => format!(r#"{{"channel":{channel},"action":{action_json},"serverSeq":{seq}}}"#),
    }
}

/// Actions sent per token: no summaries or effects derive from them.
fn is_streaming(action: &StateAction) -> bool {
    matches!(
        action,
        StateAction::ChatDelta(_)
            | StateAction::ChatReasoning(_)
            | StateAction::ChatToolCallDelta(_)
            | StateAction::ChatUsage(_)
            | StateAction::ChatResponsePart(_)
            | StateAction::ChatDraftChanged(_)
            | StateAction::ChatInputAnswerChanged(_)
            | StateAction::ResourceWatchChanged(_)
            | StateAction::TerminalData(_)
    )
}

/// Actions that end the active turn.
pub(crate) fn ends_turn(action: &StateAction) -> bool {
    matches!(action, StateAction::ChatTurnComplete(_) | StateAction::ChatTurnCancelled(_) | StateAction::ChatError(_))
}
