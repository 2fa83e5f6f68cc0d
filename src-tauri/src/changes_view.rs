//! The Changes view's commands over AHP changesets, so they work the same
//! on this computer and on a remote host: the changeset URI from the
//! session's catalogue, its files as rows, a file's diff (its contents read
//! with `resourceRead`) split into hunks, Keep / Undo
//! (`invokeChangesetOperation`) and "viewed" (`changeset/filesReviewChanged`).

use ahp::hosts::HostClientHandle;
use ahp::hosts::HostId;
use ahp_types::actions::ChangesetFilesReviewChangedAction;
use ahp_types::commands::{ChangesetOperationTarget, InvokeChangesetOperationParams, InvokeChangesetOperationResult};
use ahp_types::common::StringOrMarkdown;
use ahp_types::state::{
    ChangesetFile, ChangesetOperationScope, ChangesetState, FileEditSide, SnapshotState, TextPosition, TextRange,
};
use ahp_types::StateAction;
use serde_json::json;

use crate::core::Core;
use crate::error::CoreError;
use crate::host_files::read_text;
use crate::review_diff::review_diff;
use hangar_desktop_protocol::app::ChangeCounts;
use hangar_desktop_protocol::changes::{
    ChangedFile, ChangesArgs, ChangesFileArgs, ChangesInvokeArgs, ChangesInvoked, ChangesReviewArgs, ChangesView,
    FileDiffView, FileStatus, TurnCounts, TurnCountsArgs,
};
use hangar_desktop_protocol::command::Dispatched;

pub(crate) async fn client(core: &Core, host: &HostId) -> Result<HostClientHandle, CoreError> {
    core.multi().client(host).await.ok_or_else(|| CoreError::NotFound(format!("host {host} is not connected")))
}

/// The URI of the session's pending changeset, or of `turn`'s, from the
/// session's catalogue.
pub(crate) async fn changeset_uri(
    core: &Core,
    host: &HostId,
    session: &str,
    turn: Option<&str>,
) -> Result<String, CoreError> {
    let state = core.session_state(host, session).await?;
    let kind = if turn.is_some() { "turn" } else { "session" };
    let entry = state
        .changesets
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.change_kind == kind)
        .ok_or_else(|| CoreError::NotFound(format!("this host keeps no {kind} changes")))?;
    Ok(match turn {
        Some(turn) => entry.uri_template.replace("{turnId}", turn),
        None => entry.uri_template,
    })
}

/// The placeholder of a turn changeset's URI template.
const TURN_ID: &str = "{turnId}";

/// The turn id `uri` names when it fills `template`'s `{turnId}`.
fn turn_of(template: &str, uri: &str) -> Option<String> {
    let (head, tail) = template.split_once(TURN_ID)?;
    let id = uri.strip_prefix(head)?.strip_suffix(tail)?;
    (!id.is_empty() && !id.contains('/')).then(|| id.to_owned())
}

/// A fresh snapshot of a changeset (subscribed only for the moment).
async fn snapshot(core: &Core, host: &HostId, uri: &str) -> Result<ChangesetState, CoreError> {
    let result = core.multi().subscribe(host, uri.to_owned()).await?;
    let _ = core.multi().unsubscribe(host, uri.to_owned()).await;
    match result.snapshot.map(|s| s.state) {
        Some(SnapshotState::Changeset(state)) => Ok(*state),
        _ => Err(CoreError::Unexpected(format!("{uri} is not a changeset"))),
    }
}

/// `path` shown relative to `folder` when inside it.
fn shown_path(uri: &str, folder: Option<&str>) -> String {
    let inside = folder.and_then(|f| uri.strip_prefix(f.trim_end_matches('/'))).and_then(|r| r.strip_prefix('/'));
    let raw = inside.unwrap_or_else(|| uri.strip_prefix("file://").unwrap_or(uri));
    percent_encoding::percent_decode_str(raw).decode_utf8_lossy().into_owned()
}

fn row(file: &ChangesetFile, folder: Option<&str>) -> ChangedFile {
    let edit = &file.edit;
    let status = match (&edit.before, &edit.after) {
        (None, _) => FileStatus::Added,
        (_, None) => FileStatus::Deleted,
        _ => FileStatus::Modified,
    };
    let not_diffed = file
        .meta
        .as_ref()
        .and_then(|m| m.get("hangar"))
        .and_then(|h| h.get("notDiffed"))
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    ChangedFile {
        id: file.id.clone(),
        path: shown_path(&file.id, folder),
        status,
        added: edit.diff.as_ref().and_then(|d| d.added),
        removed: edit.diff.as_ref().and_then(|d| d.removed),
        reviewed: file.reviewed == Some(true),
        not_diffed,
    }
}

/// The session state's `_meta` key of a session in a worktree of its own.
const WORKTREE_META: &str = "hangar/worktree";

/// `changes.list`.
pub async fn list(core: &Core, a: ChangesArgs) -> Result<ChangesView, CoreError> {
    let host = HostId::new(a.host);
    let uri = changeset_uri(core, &host, &a.session, a.turn.as_deref()).await?;
    let state = snapshot(core, &host, &uri).await?;
    let session = core.session_state(&host, &a.session).await?;
    let folder = session.working_directories.as_deref().and_then(<[String]>::first).map(String::as_str);
    let review = session
        .changesets
        .unwrap_or_default()
        .iter()
        .any(|c| c.uri_template == uri && c.capabilities.as_ref().is_some_and(|c| c.review.is_some()));
    let accept_lines = state
        .operations
        .iter()
        .flatten()
        .any(|o| o.id == "accept" && o.scopes.contains(&ChangesetOperationScope::Range));
    let operations = state.operations.iter().flatten().map(|o| o.id.clone()).collect();
    let worktree = session.meta.as_ref().is_some_and(|m| m.contains_key(WORKTREE_META));
    let mut files: Vec<ChangedFile> = state.files.iter().map(|f| row(f, folder)).collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ChangesView {
        uri,
        files,
        error: state.error.map(|e| e.message),
        can_review: review,
        accept_lines,
        operations,
        worktree,
    })
}

/// The text of one side, read from the host (`None`: absent, binary or
/// not kept).
async fn side_text(
    client: &HostClientHandle,
    session: &str,
    side: Option<&FileEditSide>,
) -> Result<Option<String>, CoreError> {
    let Some(side) = side else { return Ok(None) };
    read_text(client, session, &side.content.uri).await
}

/// `changes.diff`.
pub async fn diff(core: &Core, a: ChangesFileArgs) -> Result<FileDiffView, CoreError> {
    let host = HostId::new(a.host);
    let uri = changeset_uri(core, &host, &a.session, a.turn.as_deref()).await?;
    let client = client(core, &host).await?;
    let state = snapshot(core, &host, &uri).await?;
    let file = state
        .files
        .iter()
        .find(|f| f.id == a.file)
        .ok_or_else(|| CoreError::NotFound(format!("{} is no longer changed", a.file)))?;
    let not_diffed = file.meta.as_ref().is_some_and(|m| m.contains_key("hangar"));
    let (before, after) = if not_diffed {
        (None, None)
    } else {
        (
            side_text(&client, &a.session, file.edit.before.as_ref()).await?,
            side_text(&client, &a.session, file.edit.after.as_ref()).await?,
        )
    };
    let whole = a.whole == Some(true);
    Ok(review_diff(file.id.clone(), before.as_deref(), after.as_deref(), file.edit.diff.as_ref(), !not_diffed, whole))
}

/// `changes.invoke`.
pub async fn invoke(core: &Core, a: ChangesInvokeArgs) -> Result<ChangesInvoked, CoreError> {
    let host = HostId::new(a.host);
    let uri = changeset_uri(core, &host, &a.session, a.turn.as_deref()).await?;
    let position = |line: usize| TextPosition { line: line as i64, character: 0 };
    let target = match (a.file, a.lines) {
        (None, _) => None,
        (Some(resource), None) => Some(ChangesetOperationTarget::Resource { resource, side: None }),
        (Some(resource), Some((first, last))) => Some(ChangesetOperationTarget::Range {
            resource,
            side: None,
            range: TextRange { start: position(first), end: position(last) },
        }),
    };
    let meta = a.message.map(|m| json!({ COMMIT_META: { "message": m } })).and_then(|m| m.as_object().cloned());
    let params = InvokeChangesetOperationParams { channel: uri, meta, operation_id: a.operation, target };
    // Read as JSON first: the result's `_meta` (a commit's id) is not a
    // field of `InvokeChangesetOperationResult`.
    let raw: serde_json::Value = client(core, &host).await?.request("invokeChangesetOperation", params).await?;
    let commit = raw
        .pointer(&format!("/_meta/{}/id", COMMIT_META.replace('/', "~1")))
        .and_then(|id| id.as_str())
        .map(str::to_owned);
    let result: InvokeChangesetOperationResult =
        serde_json::from_value(raw).map_err(|e| CoreError::Unexpected(format!("invokeChangesetOperation: {e}")))?;
    let message = match result.message {
        Some(StringOrMarkdown::Plain(text)) => text,
        Some(StringOrMarkdown::Markdown { markdown }) => markdown,
        None => String::new(),
    };
    // A follow-up naming one of the session's turn changesets is the
    // undo's record.
    let redo = match result.follow_up {
        Some(f) => {
            let template = changeset_uri(core, &host, &a.session, Some(TURN_ID)).await.ok();
            template.and_then(|t| turn_of(&t, &f.content.uri))
        }
        None => None,
    };
    Ok(ChangesInvoked { message, redo, commit })
}

/// The `_meta` key of a commit's message and of its answer's commit id
/// (docs/changesets.md).
pub const COMMIT_META: &str = "hangar/commit";

/// The URI of the session's changeset and whether it offers `operation`.
pub async fn offers(core: &Core, host: &HostId, session: &str, operation: &str) -> Result<(String, bool), CoreError> {
    let uri = changeset_uri(core, host, session, None).await?;
    let state = snapshot(core, host, &uri).await?;
    let offered = state.operations.iter().flatten().any(|o| o.id == operation);
    Ok((uri, offered))
}

/// `changes.turnCounts`: the turns among `a.turns` that changed files.
pub async fn turn_counts(core: &Core, a: TurnCountsArgs) -> Result<Vec<TurnCounts>, CoreError> {
    let host = HostId::new(a.host);
    let mut out = Vec::new();
    for turn in a.turns {
        let uri = changeset_uri(core, &host, &a.session, Some(&turn)).await?;
        let state = snapshot(core, &host, &uri).await?;
        if state.files.is_empty() {
            continue;
        }
        let sum = |f: fn(&ahp_types::state::FileEditDiffStats) -> Option<i64>| {
            state.files.iter().filter_map(|x| x.edit.diff.as_ref().and_then(f)).sum::<i64>()
        };
        let counts =
            ChangeCounts { files: state.files.len() as i64, added: sum(|d| d.added), removed: sum(|d| d.removed) };
        out.push(TurnCounts { turn, counts });
    }
    Ok(out)
}

/// `changes.review`.
pub async fn review(core: &Core, a: ChangesReviewArgs) -> Result<Dispatched, CoreError> {
    let host = HostId::new(a.host);
    let uri = changeset_uri(core, &host, &a.session, None).await?;
    let action = StateAction::ChangesetFilesReviewChanged(ChangesetFilesReviewChangedAction {
        files: a.files,
        reviewed: a.reviewed,
    });
    let handle = core.multi().dispatch(&host, uri, action).await?;
    Ok(Dispatched { client_seq: handle.client_seq })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_show_relative_to_the_folder_and_decoded() {
        assert_eq!(shown_path("file:///w/src/a%20b.rs", Some("file:///w")), "src/a b.rs");
        assert_eq!(shown_path("file:///elsewhere/x", Some("file:///w")), "/elsewhere/x");
    }

    #[test]
    fn an_undos_record_is_read_from_a_turn_changeset_uri() {
        let template = "ahp-session:/s/changesets/turn/{turnId}";
        assert_eq!(turn_of(template, "ahp-session:/s/changesets/turn/undo-1").as_deref(), Some("undo-1"));
        assert_eq!(turn_of(template, "ahp-session:/other/changesets/turn/undo-1"), None);
        assert_eq!(turn_of(template, "https://example.com/pr/1"), None);
    }
}
