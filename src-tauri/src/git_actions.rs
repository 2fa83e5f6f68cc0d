//! The Changes panel's git actions over the host's changeset operations
//! (docs/changesets.md, "Drafts, push, pull request, merge back"):
//! `changes.push`, `changes.pullRequestDraft`, `changes.pullRequest` (or the
//! `gh` command to run when the host has no signed-in `gh`) and
//! `changes.mergeBack` (or the files that conflict). Each answer's `_meta`
//! is read from the raw JSON: `InvokeChangesetOperationResult` has no
//! `_meta` field.

use ahp::hosts::{HostError, HostId};
use ahp_types::commands::{InvokeChangesetOperationParams, InvokeChangesetOperationResult};
use ahp_types::common::StringOrMarkdown;
use serde_json::{json, Value};

use crate::changes_view::{changeset_uri, client};
use crate::core::Core;
use crate::error::CoreError;
use hangar_desktop_protocol::command::SessionArgs;
use hangar_desktop_protocol::git::{
    ConflictFile, MergeBackArgs, MergedBack, PullRequestArgs, PullRequestDraft, PullRequestLink, PullRequestOpened,
    Pushed,
};

/// `_meta` key of a push's answer.
const PUSH_META: &str = "hangar/push";
/// `_meta` key of a pull request's request and answers.
const PULL_REQUEST_META: &str = "hangar/pullRequest";
/// `_meta` key of a merge back's request and answer.
const MERGE_BACK_META: &str = "hangar/mergeBack";
/// The JSON-RPC code of a merge that conflicts.
const CONFLICT: i32 = -32011;

/// `invokeChangesetOperation` of `operation` on the session changeset, with
/// `meta` as its `_meta`; the raw answer.
async fn invoke(
    core: &Core,
    host: &HostId,
    session: &str,
    operation: &str,
    meta: Option<Value>,
) -> Result<Value, CoreError> {
    let channel = changeset_uri(core, host, session, None).await?;
    let params = InvokeChangesetOperationParams {
        channel,
        meta: meta.and_then(|m| m.as_object().cloned()),
        operation_id: operation.into(),
        target: None,
    };
    Ok(client(core, host).await?.request("invokeChangesetOperation", params).await?)
}

/// `value`'s `_meta[key]`.
fn meta<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get("_meta")?.get(key)
}

/// The string at `field` of `value`.
fn text(value: Option<&Value>, field: &str) -> Option<String> {
    value?.get(field)?.as_str().map(str::to_owned)
}

/// The host's words in an operation's answer.
fn message(raw: &Value) -> String {
    match serde_json::from_value::<InvokeChangesetOperationResult>(raw.clone()).ok().and_then(|r| r.message) {
        Some(StringOrMarkdown::Plain(text)) => text,
        Some(StringOrMarkdown::Markdown { markdown }) => markdown,
        None => String::new(),
    }
}

/// The host's JSON-RPC error, when that is why `error` happened.
fn rpc(error: &CoreError) -> Option<&ahp_types::messages::JsonRpcError> {
    match error {
        CoreError::Host(HostError::Client(ahp::ClientError::Rpc(e))) => Some(e),
        _ => None,
    }
}

/// The host's reason without the command it quotes (the panel shows that
/// on its own, with a Copy button).
fn reason(message: &str, command: &str) -> String {
    match message.find(command) {
        Some(at) => message[..at].trim_end_matches([' ', ':', ',', ';']).to_owned(),
        None => message.to_owned(),
    }
}

/// `changes.push`.
pub async fn push(core: &Core, a: SessionArgs) -> Result<Pushed, CoreError> {
    let raw = invoke(core, &HostId::new(a.host.as_str()), &a.session, "push", None).await?;
    let pushed = meta(&raw, PUSH_META);
    Ok(Pushed { message: message(&raw), branch: text(pushed, "branch"), upstream: text(pushed, "upstream") })
}

/// `changes.pullRequestDraft`.
pub async fn pull_request_draft(core: &Core, a: SessionArgs) -> Result<PullRequestDraft, CoreError> {
    let raw = invoke(core, &HostId::new(a.host.as_str()), &a.session, "pullRequestDraft", None).await?;
    let draft = meta(&raw, PULL_REQUEST_META)
        .cloned()
        .ok_or_else(|| CoreError::Unexpected("pullRequestDraft answered without a draft".into()))?;
    serde_json::from_value(draft).map_err(|e| CoreError::Unexpected(format!("pullRequestDraft: {e}")))
}

/// `changes.pullRequest`.
pub async fn pull_request(core: &Core, a: PullRequestArgs) -> Result<PullRequestOpened, CoreError> {
    let mut asked = json!({ "title": a.title, "body": a.body });
    if let Some(base) = a.base.filter(|b| !b.trim().is_empty()) {
        asked["base"] = json!(base);
    }
    let host = HostId::new(a.host.as_str());
    let raw = match invoke(core, &host, &a.session, "pullRequest", Some(json!({ PULL_REQUEST_META: asked }))).await {
        Ok(raw) => raw,
        Err(error) => {
            let command =
                rpc(&error).and_then(|e| text(e.data.as_ref().and_then(|d| meta(d, PULL_REQUEST_META)), "command"));
            return match (command, rpc(&error)) {
                (Some(command), Some(e)) => {
                    Ok(PullRequestOpened::Command { reason: reason(&e.message, &command), command })
                }
                _ => Err(error),
            };
        }
    };
    let link = meta(&raw, PULL_REQUEST_META)
        .cloned()
        .and_then(|l| serde_json::from_value::<PullRequestLink>(l).ok())
        .ok_or_else(|| CoreError::Unexpected("pullRequest answered without the pull request".into()))?;
    Ok(PullRequestOpened::Opened { link })
}

/// `changes.mergeBack`.
pub async fn merge_back(core: &Core, a: MergeBackArgs) -> Result<MergedBack, CoreError> {
    let mut fields = serde_json::Map::new();
    if let Some(mode) = a.mode {
        fields.insert("mode".into(), json!(mode));
    }
    if let Some(message) = a.message {
        fields.insert("message".into(), json!(message));
    }
    let asked = (!fields.is_empty()).then(|| json!({ MERGE_BACK_META: fields }));
    let host = HostId::new(a.host.as_str());
    match invoke(core, &host, &a.session, "mergeBack", asked).await {
        Ok(raw) => {
            let merged = meta(&raw, MERGE_BACK_META);
            Ok(MergedBack::Merged {
                message: message(&raw),
                into: text(merged, "into"),
                commit: text(merged, "commit"),
            })
        }
        Err(error) => match rpc(&error).filter(|e| e.code == CONFLICT) {
            Some(e) => Ok(conflicts(&e.message, e.data.as_ref())),
            None => Err(error),
        },
    }
}

/// A `-32011` of `mergeBack` as the conflicts to show: `data.conflicts`
/// (the files), and, from a host that sends them, `ours` / `theirs` and
/// each file's blocks (`data.files`).
fn conflicts(message: &str, data: Option<&Value>) -> MergedBack {
    let field = |key: &str| data.and_then(|d| d.get(key));
    let files = field("conflicts")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let details = field("files").and_then(|f| serde_json::from_value::<Vec<ConflictFile>>(f.clone()).ok());
    MergedBack::Conflicts {
        message: message.to_owned(),
        files,
        ours: field("ours").and_then(Value::as_str).map(str::to_owned),
        theirs: field("theirs").and_then(Value::as_str).map(str::to_owned),
        details: details.unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::{conflicts, reason};
    use hangar_desktop_protocol::git::MergedBack;
    use serde_json::json;

    #[test]
    fn conflicts_keep_the_files_of_an_older_host_and_the_blocks_of_a_newer_one() {
        let older = conflicts("m", Some(&json!({ "conflicts": ["a.txt"] })));
        let MergedBack::Conflicts { files, details, ours, .. } = older else { panic!("{older:?}") };
        assert_eq!((files, details.len(), ours), (vec!["a.txt".to_owned()], 0, None));
        let data = json!({ "conflicts": ["a.txt"], "ours": "main", "theirs": "hangar/x",
            "files": [{ "path": "a.txt", "hunks": [{ "line": 3, "ours": ["x"], "theirs": ["y"] }] }] });
        let newer = conflicts("m", Some(&data));
        let MergedBack::Conflicts { details, ours, theirs, .. } = newer else { panic!("{newer:?}") };
        assert_eq!((ours.as_deref(), theirs.as_deref()), (Some("main"), Some("hangar/x")));
        assert_eq!((details[0].hunks[0].line, details[0].hunks[0].theirs.clone()), (3, vec!["y".to_owned()]));
    }

    #[test]
    fn the_reason_leaves_out_the_command_it_quotes() {
        let command = "gh pr create --title 'T' --base main";
        let message =
            format!("gh is not installed on this host; run this instead, after pushing the branch: {command}");
        assert_eq!(
            reason(&message, command),
            "gh is not installed on this host; run this instead, after pushing the branch"
        );
        assert_eq!(reason("no gh", command), "no gh");
    }
}
