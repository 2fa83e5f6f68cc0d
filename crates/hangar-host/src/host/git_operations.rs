//! The session changeset's git operations wired in (`commitDraft`, `push`,
//! `pullRequestDraft`, `pullRequest`, `mergeBack`; the git work is in
//! [`crate::changes::git_loop`]): reading their `_meta`, gathering what a
//! draft is made from (the session's title and prompts), the answer's
//! `_meta`, errors as the client sees them, and the session's branch state
//! (`_meta["hangar/git"]` on its summary) with the pull request opened
//! from it, kept across restarts through the audit log.

use std::path::PathBuf;
use std::sync::Arc;

use ahp_types::commands::{InvokeChangesetOperationParams, InvokeChangesetOperationResult};
use ahp_types::common::StringOrMarkdown;
use ahp_types::state::{ChangesetOperationStatus, ErrorInfo};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::changes::git_loop::draft::{self, PullRequestDraft};
use crate::changes::git_loop::merge_back::{self, Mode};
use crate::changes::git_loop::operations::{
    COMMIT_DRAFT, MERGE_BACK, MERGE_BACK_META, PULL_REQUEST, PULL_REQUEST_DRAFT, PULL_REQUEST_META, PUSH, PUSH_META,
};
use crate::changes::git_loop::state::{self, PullRequest};
use crate::changes::git_loop::{pull_request, push, GitLoopError};
use crate::changes::operations::{OperationError, Outcome};
use crate::engine::clock::now;
use crate::engine::WORKTREE_META;
use crate::host::change_tracking::{audit_entry, COMMIT_META};
use crate::host::Host;
use crate::worktrees::Worktree;
use crate::RpcError;

/// What a git operation answered: its message and its result `_meta`.
pub struct GitAnswer {
    /// The answer's `message`.
    pub message: String,
    /// The answer's `_meta`.
    pub meta: Map<String, Value>,
}

/// `_meta["hangar/pullRequest"]` of a `pullRequest` request.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PullRequestAsk {
    title: Option<String>,
    body: Option<String>,
    base: Option<String>,
}

/// `_meta["hangar/mergeBack"]` of a `mergeBack` request.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MergeBackAsk {
    #[serde(default)]
    mode: Mode,
    /// A squash's commit message (drafted as `commitDraft` when absent).
    message: Option<String>,
}

/// `_meta[key]` of a request as `T` (its default when absent).
fn ask<T: Default + for<'de> Deserialize<'de>>(meta: Option<&Map<String, Value>>, key: &str) -> Result<T, RpcError> {
    match meta.and_then(|m| m.get(key)) {
        None => Ok(T::default()),
        Some(raw) => {
            serde_json::from_value(raw.clone()).map_err(|e| RpcError::invalid_params("_meta", format!("{key}: {e}")))
        }
    }
}

/// A git error as the client sees it.
pub fn rpc_error(e: GitLoopError) -> RpcError {
    match e {
        GitLoopError::Conflict { ref files, ref into, ref theirs, ref detail } => {
            let data = json!({ "conflicts": files, "ours": into, "theirs": theirs, "files": detail });
            RpcError::conflict(e.to_string()).with_data(data)
        }
        GitLoopError::NoGh { ref command, .. } => {
            let command = command.clone();
            RpcError::invalid_params("channel", e.to_string())
                .with_data(json!({ "field": "channel", "_meta": { PULL_REQUEST_META: { "command": command } } }))
        }
        GitLoopError::Io(_) => RpcError::internal(e.to_string()),
        other => RpcError::invalid_params("channel", other.to_string()),
    }
}

fn one(key: &str, value: impl serde::Serialize) -> Map<String, Value> {
    Map::from_iter([(key.to_owned(), serde_json::to_value(value).unwrap_or(Value::Null))])
}

/// The git state of a session: its folder and its worktree, if any.
struct Place {
    dir: PathBuf,
    worktree: Option<Worktree>,
}

impl Place {
    /// The branch `ahead` / `behind` count against without an upstream.
    fn base(&self) -> Option<&str> {
        self.worktree.as_ref().filter(|w| w.base != w.base_commit).map(|w| w.base.as_str())
    }
}

impl Host {
    /// Where `session` works, when its (first) folder is in a repository.
    fn git_place(&self, session: &str) -> Option<Place> {
        let (dir, meta) = self.with_engine_locked(|e| {
            let state = e.session_state(session)?;
            let dir = state.working_directories.as_ref()?.first().cloned()?;
            Some((dir, state.meta.clone()))
        })?;
        let dir = crate::resources::uri::file_uri_to_path(&dir).ok()?;
        let worktree =
            meta.as_ref().and_then(|m| m.get(WORKTREE_META)).and_then(|w| serde_json::from_value(w.clone()).ok());
        Some(Place { dir, worktree })
    }

    /// `invokeChangesetOperation` of git operation `op` on `channel` (the
    /// session changeset): its status on the channel, its audit entry
    /// (drafts change nothing and are not audited), the answer.
    pub(crate) fn invoke_git_operation(
        self: &Arc<Self>,
        client: (&str, Option<&str>),
        session: &str,
        p: &InvokeChangesetOperationParams,
    ) -> Result<Value, RpcError> {
        let (channel, op) = (p.channel.as_str(), p.operation_id.as_str());
        let draft = op.ends_with("Draft");
        if !draft {
            self.operation_status(channel, op, ChangesetOperationStatus::Running, None);
        }
        let result = self.git_operation(session, op, p.meta.as_ref());
        if !draft {
            let outcome =
                result.as_ref().map(|_| Outcome::default()).map_err(|e| OperationError::Refused(e.message.clone()));
            let mut entry = audit_entry(client.0, client.1, channel, op, None, &outcome);
            if let Ok(answer) = &result {
                entry["result"] = Value::Object(answer.meta.clone());
            }
            if let Err(e) = self.changes.record(session, &now(), &entry) {
                tracing::warn!(session, "writing the audit log: {e}");
            }
            let error = result.as_ref().err().map(|e| ErrorInfo {
                error_type: "operationFailed".into(),
                message: e.message.clone(),
                stack: None,
                meta: None,
            });
            let status = if error.is_some() { ChangesetOperationStatus::Error } else { ChangesetOperationStatus::Idle };
            self.operation_status(channel, op, status, error);
            self.publish_changes(session, &[]);
        }
        let answer = result?;
        let reply =
            InvokeChangesetOperationResult { message: Some(StringOrMarkdown::Plain(answer.message)), follow_up: None };
        let mut reply = serde_json::to_value(reply).map_err(|e| RpcError::internal(e.to_string()))?;
        if let Some(fields) = reply.as_object_mut() {
            fields.insert("_meta".to_owned(), Value::Object(answer.meta));
        }
        Ok(reply)
    }

    /// Run git operation `op` on `session` (blocking).
    pub(crate) fn git_operation(
        self: &Arc<Self>,
        session: &str,
        op: &str,
        meta: Option<&Map<String, Value>>,
    ) -> Result<GitAnswer, RpcError> {
        let not_git = || RpcError::invalid_params("channel", "the session's folder is not in a git repository");
        let place = self.git_place(session).ok_or_else(not_git)?;
        if state::read(&place.dir, None).is_none() {
            return Err(not_git());
        }
        let answer = match op {
            COMMIT_DRAFT => {
                let message = draft::commit_message(&self.draft_session(session)?.as_session());
                GitAnswer {
                    message: "Drafted a commit message.".into(),
                    meta: one(COMMIT_META, json!({ "message": message })),
                }
            }
            PUSH => {
                let pushed = push::push(&place.dir).map_err(rpc_error)?;
                let message = format!("Pushed {} to {}.", pushed.branch, pushed.upstream);
                GitAnswer { message, meta: one(PUSH_META, pushed) }
            }
            PULL_REQUEST_DRAFT => {
                let drafted = self.pull_request_draft(session, &place, PullRequestAsk::default())?;
                GitAnswer { message: "Drafted a pull request.".into(), meta: one(PULL_REQUEST_META, drafted) }
            }
            PULL_REQUEST => self.open_pull_request(session, &place, ask(meta, PULL_REQUEST_META)?)?,
            MERGE_BACK => {
                let asked: MergeBackAsk = ask(meta, MERGE_BACK_META)?;
                let worktree = place.worktree.as_ref().ok_or_else(|| {
                    RpcError::invalid_params(
                        "channel",
                        "merge back is for a session in a worktree of its own (hangar/worktree)",
                    )
                })?;
                let squash_message = match (asked.mode, asked.message) {
                    (Mode::Squash, Some(message)) => message,
                    (Mode::Squash, None) => draft::commit_message(&self.draft_session(session)?.as_session()),
                    (_, None) => String::new(),
                    (_, Some(_)) => {
                        return Err(RpcError::invalid_params(
                            "_meta",
                            format!("{MERGE_BACK_META}: message is only for mode \"squash\""),
                        ))
                    }
                };
                let merged = merge_back::merge_back(worktree, asked.mode, &squash_message).map_err(rpc_error)?;
                let how = match merged.how {
                    "merge" => "merge commit",
                    "rebase" => "rebased, then a fast-forward",
                    "squash" => "one squashed commit",
                    other => other,
                };
                let message = format!("Merged {} into {} ({how}).", worktree.branch, merged.into);
                GitAnswer { message, meta: one(MERGE_BACK_META, merged) }
            }
            other => return Err(RpcError::invalid_params("operationId", format!("{other} is not a git operation"))),
        };
        Ok(answer)
    }

    fn pull_request_draft(
        &self,
        session: &str,
        place: &Place,
        asked: PullRequestAsk,
    ) -> Result<PullRequestDraft, RpcError> {
        let head = push::current_branch(&place.dir).map_err(rpc_error)?;
        let base = asked
            .base
            .or_else(|| place.base().map(str::to_owned))
            .or_else(|| state::remote_default_branch(&place.dir))
            .unwrap_or_else(|| "main".to_owned());
        let commits = state::commits_since(&place.dir, &base);
        let mut drafted = draft::pull_request(&self.draft_session(session)?.as_session(), &commits, &base, &head);
        if let Some(title) = asked.title.filter(|t| !t.trim().is_empty()) {
            drafted.title = title;
        }
        if let Some(body) = asked.body {
            drafted.body = body;
        }
        Ok(drafted)
    }

    /// `pullRequest`: `gh` must be ready; push when the branch is not on
    /// its upstream yet; `gh pr create`; the PR is kept with the session.
    fn open_pull_request(
        self: &Arc<Self>,
        session: &str,
        place: &Place,
        asked: PullRequestAsk,
    ) -> Result<GitAnswer, RpcError> {
        let drafted = self.pull_request_draft(session, place, asked)?;
        pull_request::check_gh(&place.dir, &drafted).map_err(rpc_error)?;
        let before = state::read(&place.dir, place.base());
        if before.is_none_or(|s| s.upstream.is_none() || s.ahead > 0) {
            push::push(&place.dir).map_err(rpc_error)?;
        }
        let pr = pull_request::create(&place.dir, &drafted).map_err(rpc_error)?;
        self.watch_pull_requests();
        let message = format!("Opened pull request #{} ({}).", pr.number, pr.url);
        let meta = json!({
            "url": pr.url, "number": pr.number, "state": pr.state,
            "title": drafted.title, "base": drafted.base, "head": drafted.head,
        });
        self.with_engine_locked(|e| {
            let mut git = e.session_git(session).cloned().unwrap_or_else(|| json!({}));
            git["pullRequest"] = json!(pr);
            e.set_session_git(session, git);
        });
        Ok(GitAnswer { message, meta: one(PULL_REQUEST_META, meta) })
    }

    /// The session's title and its turns' prompts.
    fn draft_session(&self, session: &str) -> Result<DraftSource, RpcError> {
        let (title, chats) = self
            .with_engine_locked(|e| {
                let state = e.session_state(session)?;
                let chats: Vec<(String, Vec<ahp_types::state::Turn>)> = state
                    .chats
                    .iter()
                    .map(|c| {
                        (c.resource.clone(), e.chat_state(&c.resource).map(|s| s.turns.clone()).unwrap_or_default())
                    })
                    .collect();
                Some((state.title.clone(), chats))
            })
            .ok_or_else(|| RpcError::session_not_found(session))?;
        let mut prompts = Vec::new();
        for (chat, recent) in chats {
            prompts.extend(self.chat_turns(&chat, recent)?.into_iter().map(|t| t.message.text));
        }
        Ok(DraftSource { id: session.to_owned(), title, prompts })
    }

    /// Read `session`'s branch state and show it on its summary; the pull
    /// request opened from it is kept (after a restart, found in the audit
    /// log) and read again with `gh` (`pull_request_watch.rs`).
    pub(crate) fn refresh_git_state(&self, session: &str) {
        let Some(place) = self.git_place(session) else { return };
        let Some(mut fresh) = state::read(&place.dir, place.base()) else { return };
        let shown = self.with_engine_locked(|e| e.session_git(session).cloned());
        let known = match shown {
            Some(old) => old.get("pullRequest").and_then(|p| serde_json::from_value(p.clone()).ok()),
            None => self.pull_request_in_audit(session),
        };
        fresh.pull_request = known.map(|pr| self.reread_pull_request(&place.dir, pr));
        match serde_json::to_value(&fresh) {
            Ok(value) => self.with_engine_locked(|e| e.set_session_git(session, value)),
            Err(e) => tracing::warn!(session, "showing the branch state: {e}"),
        }
    }

    /// The last pull request the audit log says was opened from `session`.
    fn pull_request_in_audit(&self, session: &str) -> Option<PullRequest> {
        self.changes_audit(session)
            .iter()
            .rev()
            .filter(|e| e["operation"] == PULL_REQUEST && e["error"].is_null())
            .find_map(|e| serde_json::from_value(e["result"][PULL_REQUEST_META].clone()).ok())
    }
}

/// What a draft is made from, owned.
struct DraftSource {
    id: String,
    title: String,
    prompts: Vec<String>,
}

impl DraftSource {
    fn as_session(&self) -> draft::Session<'_> {
        draft::Session { id: &self.id, title: &self.title, prompts: self.prompts.clone() }
    }
}

/// The operation ids handled here.
pub fn is_git_operation(id: &str) -> bool {
    crate::changes::git_loop::operations::ALL.contains(&id)
}
