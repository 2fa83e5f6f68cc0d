//! The AHP view of tracked changes: changeset URIs, the session's
//! catalogue, each changeset's `ChangesetState` (files with `before` /
//! `after` content refs and line counts, operations), and the session's
//! `ChangesSummary`.

use std::path::Path;

use ahp_types::common::StringOrMarkdown;
use ahp_types::state::{
    ChangesSummary, ChangesetFile, ChangesetOperation, ChangesetOperationScope, ChangesetOperationStatus,
    ChangesetState, ChangesetStatus, ContentRef, FileEdit, FileEditDiffStats, FileEditSide,
};
use serde_json::json;

use super::changes_db::{ChangeStoreError, FileChange};
use super::git_loop::operations as git_ops;
use super::hunks::{as_text, line_stats};
use super::operations::Source;
use super::scan::is_stored;
use super::tracker::Tracker;
use crate::engine::changeset_uris::INFIX;
pub use crate::engine::changeset_uris::{catalogue, session_uri, turn_uri, uncommitted_entry, uncommitted_uri};
use crate::resources::uri::path_to_file_uri;

/// The scheme of stored content (`resourceRead` serves it).
pub const CONTENT_SCHEME: &str = "hangar-content:/";
/// The scheme of a session's audit log (`hangar-audit:` + session URI),
/// readable with `resourceRead` as JSON lines.
pub const AUDIT_SCHEME: &str = "hangar-audit:";
/// The session and changeset a changeset URI names.
pub fn parse(uri: &str) -> Option<(String, Source)> {
    let (session, rest) = uri.split_once(INFIX)?;
    let source = match rest {
        "session" => Source::Session,
        "uncommitted" => Source::Uncommitted,
        _ => Source::Turn(rest.strip_prefix("turn/").filter(|t| !t.is_empty())?.to_owned()),
    };
    Some((session.to_owned(), source))
}

fn operation(id: &str, label: &str, scopes: &[ChangesetOperationScope], confirm: Option<&str>) -> ChangesetOperation {
    ChangesetOperation {
        id: id.to_owned(),
        label: label.to_owned(),
        description: None,
        scopes: scopes.to_vec(),
        confirmation: confirm.map(|c| StringOrMarkdown::Plain(c.to_owned())),
        icon: Some(if id == "accept" { "check" } else { "discard" }.to_owned()),
        group: None,
        status: ChangesetOperationStatus::Idle,
        error: None,
    }
}

/// A read-only operation a client calls for an editable draft (not a
/// button: its group says so).
fn draft(id: &str) -> ChangesetOperation {
    ChangesetOperation {
        group: Some(git_ops::DRAFT_GROUP.to_owned()),
        icon: None,
        ..operation(id, id, &[ChangesetOperationScope::Changeset], None)
    }
}

/// The operations a changeset offers: `accept` and `reject`, and on the
/// session changeset `commit` (of the kept changes, whole changeset only),
/// the git operations after it (`git_loop`) and their drafts;
/// a turn's `accept` has no `range` scope (a turn's lines are not what is
/// pending).
pub fn operations(source: &Source) -> Vec<ChangesetOperation> {
    use ChangesetOperationScope::{Changeset as All, Range, Resource};
    match source {
        Source::Session => vec![
            operation("accept", "Keep", &[All, Resource, Range], None),
            operation("reject", "Undo", &[All, Resource, Range], None),
            operation(super::commit::COMMIT_OPERATION, "Commit", &[All], None),
            draft(git_ops::COMMIT_DRAFT),
            operation(git_ops::PUSH, "Push", &[All], None),
            draft(git_ops::PULL_REQUEST_DRAFT),
            operation(git_ops::PULL_REQUEST, "Open pull request", &[All], None),
            operation(
                git_ops::MERGE_BACK,
                "Merge back",
                &[All],
                Some("Merge this session's branch into the branch checked out in the folder it came from?"),
            ),
        ],
        Source::Uncommitted => Vec::new(),
        Source::Turn(_) => vec![
            operation("accept", "Keep", &[All, Resource], None),
            operation(
                "reject",
                "Rewind",
                &[All, Resource, Range],
                Some("Restore these files to how they were before this turn? Later edits are kept where they do not overlap."),
            ),
        ],
    }
}

fn side(tracker: &Tracker, path: &Path, hash: &str) -> (FileEditSide, Option<String>) {
    let uri = path_to_file_uri(path);
    if !is_stored(hash) {
        let content = ContentRef { uri: uri.clone(), size_hint: None, content_type: None, nonce: None };
        return (FileEditSide { uri, content }, None);
    }
    let bytes = tracker.blob(hash).ok().flatten().unwrap_or_default();
    let text = as_text(&bytes).map(str::to_owned);
    let content = ContentRef {
        uri: format!("{CONTENT_SCHEME}{hash}"),
        size_hint: Some(bytes.len() as i64),
        content_type: Some(if text.is_some() { "text/plain" } else { "application/octet-stream" }.to_owned()),
        nonce: None,
    };
    (FileEditSide { uri, content }, text)
}

/// One file of a changeset.
pub fn file(tracker: &Tracker, change: &FileChange, reviewed: Option<bool>) -> ChangesetFile {
    let before = change.before.as_deref().map(|h| side(tracker, &change.path, h));
    let after = change.after.as_deref().map(|h| side(tracker, &change.path, h));
    let before_text = before.as_ref().map(|(_, t)| t.clone());
    let after_text = after.as_ref().map(|(_, t)| t.clone());
    let diffable = |t: Option<Option<String>>| match t {
        None => Some(String::new()),
        Some(text) => text,
    };
    let (diff, meta) = match (diffable(before_text), diffable(after_text)) {
        (Some(b), Some(a)) => {
            let (added, removed) = line_stats(&b, &a);
            (Some(FileEditDiffStats { added: Some(added), removed: Some(removed) }), None)
        }
        _ => {
            let large = [&change.before, &change.after].into_iter().flatten().any(|h| !is_stored(h));
            let why = if large { "tooLarge" } else { "binary" };
            (None, json!({ "hangar": { "notDiffed": why } }).as_object().cloned())
        }
    };
    let id = path_to_file_uri(&change.path);
    ChangesetFile {
        id,
        edit: FileEdit { before: before.map(|(s, _)| s), after: after.map(|(s, _)| s), diff },
        reviewed,
        meta,
    }
}

/// The session changeset's state and the session's `ChangesSummary`.
pub fn session_state(tracker: &Tracker, session: &str) -> Result<(ChangesetState, ChangesSummary), ChangeStoreError> {
    let mut files = Vec::new();
    for (p, now) in tracker.pending(session)? {
        let change = FileChange { path: p.path.clone(), before: p.before.clone(), after: now };
        files.push(file(tracker, &change, p.reviewed.then_some(true)));
    }
    let summary = summary(&files);
    Ok((ready(files, &Source::Session), summary))
}

/// A turn changeset's state.
pub fn turn_state(tracker: &Tracker, session: &str, turn: &str) -> Result<ChangesetState, ChangeStoreError> {
    let files = tracker.turn_changes(session, turn)?.iter().map(|c| file(tracker, c, None)).collect();
    Ok(ready(files, &Source::Turn(turn.to_owned())))
}

/// The `uncommitted` changeset's state (its contents kept, so
/// `resourceRead` serves them like any other), or `None` when no folder is
/// in a git repository.
pub fn uncommitted_state(tracker: &Tracker, dirs: &[std::path::PathBuf]) -> Option<ChangesetState> {
    let mut items = Vec::new();
    let mut any = false;
    for dir in dirs {
        if let Some(found) = super::uncommitted::changes(dir) {
            any = true;
            items.extend(found);
        }
    }
    if !any {
        return None;
    }
    let changes = tracker.keep_contents(&items).ok()?;
    let files = changes.iter().map(|c| file(tracker, c, None)).collect();
    Some(ready(files, &Source::Uncommitted))
}

fn ready(files: Vec<ChangesetFile>, source: &Source) -> ChangesetState {
    ChangesetState { status: ChangesetStatus::Ready, error: None, files, operations: Some(operations(source)) }
}

/// Files and line counts of a changeset's files.
pub fn summary(files: &[ChangesetFile]) -> ChangesSummary {
    let (mut additions, mut deletions) = (0, 0);
    for f in files {
        if let Some(d) = &f.edit.diff {
            additions += d.added.unwrap_or(0);
            deletions += d.removed.unwrap_or(0);
        }
    }
    ChangesSummary { additions: Some(additions), deletions: Some(deletions), files: Some(files.len() as i64) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changeset_uris_name_their_session_and_turn() {
        let s = "ahp-session:/abc";
        assert_eq!(parse(&session_uri(s)), Some((s.to_owned(), Source::Session)));
        assert_eq!(parse(&turn_uri(s, "t-1")), Some((s.to_owned(), Source::Turn("t-1".into()))));
        assert_eq!(parse("ahp-session:/abc/changesets/turn/"), None);
        assert_eq!(parse("ahp-session:/abc"), None);
        // The template expands to the turn URI.
        let template = &catalogue(s)[1].uri_template;
        assert_eq!(template.replace("{turnId}", "t-1"), turn_uri(s, "t-1"));
    }
}
