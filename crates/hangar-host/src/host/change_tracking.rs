//! The change tracker wired into the host: the turn hooks, the changeset
//! channels and `SessionSummary.changes`, `invokeChangesetOperation` with
//! its audit entries (the `commit` operation's message in and id out in
//! `_meta["hangar/commit"]`), "viewed" marks, and `resourceRead` of kept
//! content.

use std::path::PathBuf;
use std::sync::Arc;

use ahp_types::actions::{
    ChangesetOperationStatusChangedAction, ChangesetStatusChangedAction, SessionChangesetsChangedAction,
};
use ahp_types::commands::{
    ChangesetOperationFollowUp, ChangesetOperationTarget, ContentEncoding, InvokeChangesetOperationParams,
    InvokeChangesetOperationResult, ResourceReadResult,
};
use ahp_types::common::StringOrMarkdown;
use ahp_types::state::{ChangesetOperationScope, ChangesetOperationStatus, ChangesetStatus, ContentRef, ErrorInfo};
use ahp_types::StateAction;
use base64::Engine as _;
use serde_json::{json, Value};

use crate::changes::changeset::{self, AUDIT_SCHEME, CONTENT_SCHEME};
use crate::changes::commit::COMMIT_OPERATION;
use crate::changes::operations::{OperationError, Outcome, Scope, Source};
use crate::engine::clock::{new_id, now};
use crate::host::Host;
use crate::resources::uri::file_uri_to_path;
use crate::RpcError;

/// The content type of a follow-up naming a changeset (an undo's record).
pub const CHANGESET_CONTENT_TYPE: &str = "application/vnd.hangar.changeset";

impl Host {
    /// A session's working directories as paths.
    fn session_dirs(&self, session: &str) -> Vec<PathBuf> {
        self.with_engine_locked(|e| e.session_state(session).and_then(|s| s.working_directories.clone()))
            .unwrap_or_default()
            .iter()
            .filter_map(|uri| file_uri_to_path(uri).ok())
            .collect()
    }

    /// Before `turn`'s prompt is sent (blocking): record the working
    /// directories; a turn left open by a crash is closed and published.
    pub fn changes_before_turn(&self, session: &str, turn: &str) {
        let dirs = self.session_dirs(session);
        if dirs.is_empty() {
            return;
        }
        match self.changes.begin_turn(session, turn, &dirs) {
            Ok(closed) => {
                if let Some(closed) = closed {
                    self.publish_changes(session, &[closed.turn]);
                }
            }
            Err(e) => {
                tracing::warn!(session, "recording the files before turn {turn}: {e}");
                self.changes_failed(session, &e.to_string());
            }
        }
    }

    /// Ahead of a first prompt (a session created, or subscribed to): when
    /// `uri` is a session with folders, scan them and start their watcher
    /// on a thread of its own (`Tracker::prepare`), so the session's next
    /// turn waits only for a scan of what changed since; its branch state
    /// (`_meta["hangar/git"]`) is read there first. A no-op for other
    /// channels and for sessions already watched.
    pub(crate) fn prepare_changes(self: &Arc<Self>, uri: &str) {
        let dirs = self.session_dirs(uri);
        if dirs.is_empty() {
            return;
        }
        // Its pull request, once it has one, is read again while watched.
        self.watch_pull_requests();
        let (host, session) = (self.clone(), uri.to_owned());
        let spawned = std::thread::Builder::new().name("changes-prepare".into()).spawn(move || {
            host.refresh_git_state(&session);
            if let Err(e) = host.changes.prepare(&session, &dirs) {
                tracing::warn!(session, "recording the files ahead of the first turn: {e}");
                host.changes_failed(&session, &e.to_string());
            }
        });
        if let Err(e) = spawned {
            tracing::warn!(uri, "recording the files ahead of the first turn: no thread ({e})");
        }
    }

    /// Show on the session changeset why changes are not tracked.
    fn changes_failed(&self, session: &str, message: &str) {
        self.ensure_changeset(&changeset::session_uri(session));
        let error = ErrorInfo { error_type: "notTracked".into(), message: message.to_owned(), stack: None, meta: None };
        let action = ChangesetStatusChangedAction { status: ChangesetStatus::Error, error: Some(error) };
        let uri = changeset::session_uri(session);
        let _ = self.with_engine_locked(|e| e.emit_server(&uri, StateAction::ChangesetStatusChanged(action)));
    }

    /// After `turn` ended (blocking): what it changed, published.
    pub fn changes_after_turn(&self, session: &str, turn: &str) {
        let dirs = self.session_dirs(session);
        match self.changes.end_turn(session, turn, &dirs) {
            Ok(Some(delta)) => self.publish_changes(session, &[delta.turn]),
            Ok(None) => {}
            Err(e) => tracing::warn!(session, "reading what turn {turn} changed: {e}"),
        }
    }

    /// Refresh the session changeset, the given turns' changesets, the
    /// session's summary and its branch state (`_meta["hangar/git"]`).
    pub(super) fn publish_changes(&self, session: &str, turns: &[String]) {
        self.publish_tracked(session, turns);
        self.publish_uncommitted(session);
        self.refresh_git_state(session);
    }

    /// The session changeset, the given turns' changesets and the session's
    /// summary, from the tracker.
    fn publish_tracked(&self, session: &str, turns: &[String]) {
        let (state, summary) = match changeset::session_state(&self.changes, session) {
            Ok(s) => s,
            Err(e) => return tracing::warn!(session, "reading pending changes: {e}"),
        };
        let turn_states: Vec<_> = turns
            .iter()
            .filter_map(|t| changeset::turn_state(&self.changes, session, t).ok().map(|s| (t, s)))
            .collect();
        self.with_engine_locked(|e| {
            e.put_changeset(&changeset::session_uri(session), session, state);
            for (turn, state) in turn_states {
                e.put_changeset(&changeset::turn_uri(session, turn), session, state);
            }
            let keep = e.turn_tail;
            e.trim_turn_changesets(session, keep, |uri| self.hub.has_subscribers(uri));
            e.set_session_changes(session, summary);
        });
    }

    /// The `uncommitted` changeset (`git status`), when the session's
    /// folder is in a repository.
    fn publish_uncommitted(&self, session: &str) {
        let Some(state) = changeset::uncommitted_state(&self.changes, &self.session_dirs(session)) else { return };
        self.with_engine_locked(|e| {
            advertise_uncommitted(e, session);
            e.put_changeset(&changeset::uncommitted_uri(session), session, state);
        });
    }

    /// At start: every session advertises its changesets; those the tracker
    /// has changes of get their session and turn changesets and summary.
    /// Nothing else is read: no `git` runs and no file is looked at, so a
    /// host with many sessions starts as fast as before (the others'
    /// changesets are made when a client subscribes to them).
    pub(crate) fn restore_changes(&self) {
        let sessions: Vec<(String, bool)> = self.with_engine_locked(|e| {
            e.session_uris()
                .into_iter()
                .map(|s| (s.clone(), e.session_state(&s).is_some_and(|st| st.changesets.is_none())))
                .collect()
        });
        let tracked: std::collections::HashSet<String> =
            self.changes.sessions().unwrap_or_default().into_iter().collect();
        for (session, missing) in sessions {
            if missing {
                let action = SessionChangesetsChangedAction { changesets: Some(changeset::catalogue(&session)) };
                let _ =
                    self.with_engine_locked(|e| e.emit_server(&session, StateAction::SessionChangesetsChanged(action)));
            }
            if tracked.contains(&session) {
                let turns = self.changes.turns(&session).unwrap_or_default();
                self.publish_tracked(&session, &turns);
            }
        }
    }

    /// Before a subscribe: the session changeset is brought up to date
    /// (its files are looked at again: "after" is now); a turn changeset
    /// with nothing in it yet exists as an empty changeset (any turn of the
    /// session may be expanded).
    pub(crate) fn ensure_changeset(&self, uri: &str) {
        let Some((session, source)) = changeset::parse(uri) else { return };
        let (exists, known) =
            self.with_engine_locked(|e| (e.channel(uri).is_some(), e.session_state(&session).is_some()));
        match source {
            _ if !known => {}
            Source::Session => self.publish_changes(&session, &[]),
            Source::Turn(turn) if !exists => self.publish_changes(&session, &[turn]),
            Source::Turn(_) => {}
            Source::Uncommitted => self.publish_changes(&session, &[]),
        }
    }

    /// A client set "viewed" marks on the session changeset: kept.
    pub(crate) fn changes_reviewed(&self, session: &str, changeset_uri: &str, files: &[String], reviewed: bool) {
        if changeset::parse(changeset_uri).map(|(_, s)| s) != Some(Source::Session) {
            return;
        }
        let paths: Vec<PathBuf> = files.iter().filter_map(|f| file_uri_to_path(f).ok()).collect();
        if let Err(e) = self.changes.set_reviewed(session, &paths, reviewed) {
            tracing::warn!(session, "keeping viewed marks: {e}");
        }
    }

    /// `resourceRead` of a `hangar-content:/<hash>` URI (kept content) or
    /// a `hangar-audit:<session>` URI (the audit log, JSON lines); `None`
    /// for any other URI.
    pub(crate) fn read_kept_content(&self, params: &Value) -> Option<Result<Value, RpcError>> {
        let uri = params.get("uri")?.as_str()?;
        if let Some(session) = uri.strip_prefix(AUDIT_SCHEME) {
            let lines: Vec<String> = self.changes_audit(session).iter().map(Value::to_string).collect();
            let result = ResourceReadResult {
                data: lines.join("\n"),
                encoding: ContentEncoding::Utf8,
                content_type: Some("application/jsonl".into()),
            };
            return Some(serde_json::to_value(result).map_err(|e| RpcError::internal(e.to_string())));
        }
        let hash = uri.strip_prefix(CONTENT_SCHEME)?;
        let read = || -> Result<Value, RpcError> {
            let bytes = self
                .changes
                .blob(hash)
                .map_err(|e| RpcError::internal(e.to_string()))?
                .ok_or_else(|| RpcError::not_found(format!("no kept content {uri}")))?;
            let base64 = params.get("encoding").and_then(Value::as_str) == Some("base64");
            let result = match String::from_utf8(bytes) {
                Ok(text) if !base64 => ResourceReadResult {
                    data: text,
                    encoding: ContentEncoding::Utf8,
                    content_type: Some("text/plain".into()),
                },
                Ok(text) => ResourceReadResult {
                    data: base64::engine::general_purpose::STANDARD.encode(text.as_bytes()),
                    encoding: ContentEncoding::Base64,
                    content_type: Some("text/plain".into()),
                },
                Err(e) => ResourceReadResult {
                    data: base64::engine::general_purpose::STANDARD.encode(e.as_bytes()),
                    encoding: ContentEncoding::Base64,
                    content_type: Some("application/octet-stream".into()),
                },
            };
            serde_json::to_value(result).map_err(|e| RpcError::internal(e.to_string()))
        };
        Some(read())
    }

    /// `invokeChangesetOperation` (blocking): check the operation and
    /// scope, run it, show its status on the channel, audit it.
    pub fn invoke_changeset_operation(
        self: &Arc<Self>,
        client_id: &str,
        p: &InvokeChangesetOperationParams,
    ) -> Result<Value, RpcError> {
        let unknown = || RpcError::not_found(format!("no such changeset: {}", p.channel));
        let (session, source) = changeset::parse(&p.channel).ok_or_else(unknown)?;
        // An older turn's changeset may have left memory (see
        // `Engine::trim_turn_changesets`): registered again here.
        if matches!(source, Source::Turn(_)) {
            self.ensure_changeset(&p.channel);
        }
        let client = self.with_engine_locked(|e| {
            e.channel(&p.channel).ok_or_else(unknown)?;
            Ok::<_, RpcError>(e.session_state(&session).and_then(|s| {
                s.active_clients.iter().find(|c| c.client_id == client_id).and_then(|c| c.display_name.clone())
            }))
        })?;
        let operations = changeset::operations(&source);
        let op = operations.iter().find(|o| o.id == p.operation_id).ok_or_else(|| {
            RpcError::invalid_params(
                "operationId",
                format!(
                    "unknown operation {:?}: this changeset offers {}",
                    p.operation_id,
                    operations.iter().map(|o| o.id.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        let (scope, kind) = scope_of(p.target.as_ref())?;
        if !op.scopes.contains(&kind) {
            return Err(RpcError::invalid_params("target", format!("{} has no {kind:?} scope here", op.id)));
        }
        if super::git_operations::is_git_operation(&op.id) {
            return self.invoke_git_operation((client_id, client.as_deref()), &session, p);
        }
        let commit_message = (op.id == COMMIT_OPERATION).then(|| commit_message(p.meta.as_ref())).transpose()?;
        self.operation_status(&p.channel, &op.id, ChangesetOperationStatus::Running, None);
        let undo_id = format!("{}{}", crate::changes::operations::UNDO_PREFIX, new_id());
        let result = match (op.id.as_str(), commit_message) {
            ("accept", _) => self.changes.accept(&session, &source, &scope),
            (_, Some(message)) => self.changes.commit(&session, &self.session_dirs(&session), &message),
            _ => self.changes.reject(&session, &source, &scope, &undo_id),
        };
        let entry = audit_entry(client_id, client.as_deref(), &p.channel, &op.id, p.target.as_ref(), &result);
        if let Err(e) = self.changes.record(&session, &now(), &entry) {
            tracing::warn!(session, "writing the audit log: {e}");
        }
        match result {
            Ok(outcome) => {
                self.operation_status(&p.channel, &op.id, ChangesetOperationStatus::Idle, None);
                let mut turns: Vec<String> = outcome.undo.iter().cloned().collect();
                if let Source::Turn(t) = &source {
                    turns.push(t.clone());
                }
                self.publish_changes(&session, &turns);
                // An undo is recorded as a turn: its changeset (whose
                // `reject` redoes what was undone) is the follow-up.
                let follow_up = outcome.undo.as_ref().map(|undo| ChangesetOperationFollowUp {
                    content: ContentRef {
                        uri: changeset::turn_uri(&session, undo),
                        size_hint: None,
                        content_type: Some(CHANGESET_CONTENT_TYPE.to_owned()),
                        nonce: None,
                    },
                    external: Some(false),
                });
                let result = InvokeChangesetOperationResult {
                    message: Some(StringOrMarkdown::Plain(message(&op.id, &source, &outcome))),
                    follow_up,
                };
                let mut result = serde_json::to_value(result).map_err(|e| RpcError::internal(e.to_string()))?;
                if let (Some(commit), Some(fields)) = (&outcome.commit, result.as_object_mut()) {
                    let meta = json!({ COMMIT_META: { "id": commit.id, "branch": commit.branch } });
                    fields.insert("_meta".to_owned(), meta);
                }
                Ok(result)
            }
            Err(e) => {
                let info =
                    ErrorInfo { error_type: "operationFailed".into(), message: e.to_string(), stack: None, meta: None };
                self.operation_status(&p.channel, &op.id, ChangesetOperationStatus::Error, Some(info));
                // What the person sees is brought up to date (a conflict
                // usually means the file changed since).
                self.publish_changes(&session, &[]);
                Err(match e {
                    OperationError::NotInChangeset(_) | OperationError::Unsupported(_) => {
                        RpcError::invalid_params("target", e.to_string())
                    }
                    OperationError::Refused(_) => RpcError::invalid_params("channel", e.to_string()),
                    OperationError::Conflict(_) => RpcError::conflict(e.to_string()),
                    OperationError::TurnRunning => RpcError::turn_in_progress(e.to_string()),
                    OperationError::Store(_) | OperationError::Io(_) => RpcError::internal(e.to_string()),
                })
            }
        }
    }

    pub(super) fn operation_status(
        &self,
        channel: &str,
        id: &str,
        status: ChangesetOperationStatus,
        error: Option<ErrorInfo>,
    ) {
        let action = ChangesetOperationStatusChangedAction { operation_id: id.to_owned(), status, error };
        let _ =
            self.with_engine_locked(|e| e.emit_server(channel, StateAction::ChangesetOperationStatusChanged(action)));
    }

    /// `session`'s audit log (decisions on edits), oldest first.
    pub fn changes_audit(&self, session: &str) -> Vec<Value> {
        self.changes.audit(session).unwrap_or_default()
    }
}

/// Add the `uncommitted` entry to the session's catalogue when it lacks it.
fn advertise_uncommitted(engine: &mut crate::engine::Engine, session: &str) {
    let Some(mut catalogue) = engine.session_state(session).map(|s| s.changesets.clone().unwrap_or_default()) else {
        return;
    };
    if catalogue.iter().any(|c| c.change_kind == "uncommitted") {
        return;
    }
    catalogue.push(changeset::uncommitted_entry(session));
    let action = SessionChangesetsChangedAction { changesets: Some(catalogue) };
    let _ = engine.emit_server(session, StateAction::SessionChangesetsChanged(action));
}

/// The tracker's scope for a target, and the protocol scope it needs.
fn scope_of(target: Option<&ChangesetOperationTarget>) -> Result<(Scope, ChangesetOperationScope), RpcError> {
    let path = |uri: &str| {
        file_uri_to_path(uri).map_err(|e| RpcError::invalid_params("target.resource", format!("{uri}: {e}")))
    };
    Ok(match target {
        None => (Scope::All, ChangesetOperationScope::Changeset),
        Some(ChangesetOperationTarget::Resource { resource, .. }) => {
            (Scope::File(path(resource)?), ChangesetOperationScope::Resource)
        }
        Some(ChangesetOperationTarget::Range { resource, range, .. }) => {
            let line =
                |n: i64| usize::try_from(n).map_err(|_| RpcError::invalid_params("target.range", "negative line"));
            let (first, last) = (line(range.start.line)?, line(range.end.line)?);
            if last < first {
                return Err(RpcError::invalid_params("target.range", "the range ends before it starts"));
            }
            (Scope::Lines(path(resource)?, first, last), ChangesetOperationScope::Range)
        }
        Some(ChangesetOperationTarget::Unknown(v)) => {
            return Err(RpcError::invalid_params("target", format!("unknown target kind: {v}")));
        }
    })
}

/// The `_meta` key of a commit's message (request) and id (result).
pub const COMMIT_META: &str = "hangar/commit";

/// `_meta["hangar/commit"].message`, which must have some text.
fn commit_message(meta: Option<&serde_json::Map<String, Value>>) -> Result<String, RpcError> {
    let message = meta.and_then(|m| m.get(COMMIT_META)).and_then(|c| c.get("message")).and_then(Value::as_str);
    match message {
        Some(text) if !text.trim().is_empty() => Ok(text.to_owned()),
        _ => Err(RpcError::invalid_params(
            "_meta",
            format!("{COMMIT_META}: a commit needs a message ({{\"{COMMIT_META}\": {{\"message\": \"…\"}}}})"),
        )),
    }
}

fn message(op: &str, source: &Source, outcome: &Outcome) -> String {
    let n = outcome.files.len();
    let files = if n == 1 { "1 file".to_owned() } else { format!("{n} files") };
    if let Some(commit) = &outcome.commit {
        let short = commit.id.get(..8).unwrap_or(&commit.id);
        return format!("Committed {files} as {short} on {}.", commit.branch);
    }
    let redo = matches!(source, Source::Turn(t) if t.starts_with(crate::changes::operations::UNDO_PREFIX));
    match &outcome.undo {
        Some(_) if op == "reject" && redo => format!("Redid the changes in {files}."),
        Some(_) if op == "reject" => format!("Undid the changes in {files}."),
        _ => format!("Kept the changes in {files}."),
    }
}

/// One audit log entry: who, when, what, with content hashes.
pub(super) fn audit_entry(
    client_id: &str,
    client_name: Option<&str>,
    channel: &str,
    operation: &str,
    target: Option<&ChangesetOperationTarget>,
    result: &Result<Outcome, OperationError>,
) -> Value {
    let (files, error, undo) = match result {
        Ok(o) => (
            o.files.iter().map(|f| json!({ "path": f.path, "before": f.before, "after": f.after })).collect(),
            None,
            o.undo.clone(),
        ),
        Err(e) => (Vec::new(), Some(e.to_string()), None),
    };
    let commit = result.as_ref().ok().and_then(|o| o.commit.as_ref()).map(|c| c.id.clone());
    json!({
        "at": now(),
        "client": { "id": client_id, "name": client_name },
        "kind": "changesetOperation",
        "operation": operation,
        "changeset": channel,
        "target": target,
        "files": files,
        "undo": undo,
        "commit": commit,
        "error": error,
    })
}
