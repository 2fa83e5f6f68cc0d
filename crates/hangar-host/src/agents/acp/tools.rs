//! ACP tool-call pieces in AHP terms: content blocks and `diff`s as tool
//! result content and file edits (the agent's exact old/new text, carried in
//! `data:` URIs), locations as `file:` resources (`#L<line>`), permission
//! options as `ConfirmationOption`s, and the option (and the answer to the
//! agent) for a user's confirmation.

use agent_client_protocol::v1::schema::{
    ContentBlock, PermissionOption, PermissionOptionKind, ToolCallContent, ToolCallLocation,
};
use ahp_types::state::{
    ConfirmationOption, ConfirmationOptionKind, ContentRef, FileEdit, FileEditCollection, FileEditDiffStats,
    FileEditSide, ToolResultContent, ToolResultFileEditContent, ToolResultResourceContent, ToolResultTextContent,
};
use base64::Engine as _;
use serde_json::{json, Value};

use crate::resources::uri::path_to_file_uri;

/// A `data:` URI holding `text` exactly.
pub fn data_uri(text: &str) -> String {
    format!("data:text/plain;charset=utf-8;base64,{}", base64::engine::general_purpose::STANDARD.encode(text))
}

/// `file://` URI of an absolute path (a relative one is resolved against
/// `cwd`), percent-encoded by [`path_to_file_uri`].
pub fn file_uri(path: &std::path::Path, cwd: &std::path::Path) -> String {
    path_to_file_uri(&cwd.join(path))
}

/// Lines added and removed between two texts (common prefix and suffix
/// lines are unchanged; the rest counts as replaced).
pub fn diff_stats(old: &str, new: &str) -> FileEditDiffStats {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    FileEditDiffStats {
        added: Some((b.len() - prefix - suffix) as i64),
        removed: Some((a.len() - prefix - suffix) as i64),
    }
}

/// One ACP `diff` as an AHP file edit.
pub fn file_edit(path: &std::path::Path, old: Option<&str>, new: &str, cwd: &std::path::Path) -> FileEdit {
    let uri = file_uri(path, cwd);
    let side = |text: &str| FileEditSide {
        uri: uri.clone(),
        content: ContentRef {
            uri: data_uri(text),
            size_hint: Some(text.len() as i64),
            content_type: Some("text/plain".to_owned()),
            nonce: None,
        },
    };
    FileEdit { before: old.map(side), after: Some(side(new)), diff: Some(diff_stats(old.unwrap_or(""), new)) }
}

/// The edits in a tool call's content.
pub fn edits(content: &[ToolCallContent], cwd: &std::path::Path) -> Option<FileEditCollection> {
    let items: Vec<FileEdit> = content
        .iter()
        .filter_map(|c| match c {
            ToolCallContent::Diff(d) => Some(file_edit(&d.path, d.old_text.as_deref(), &d.new_text, cwd)),
            _ => None,
        })
        .collect();
    (!items.is_empty()).then_some(FileEditCollection { items })
}

/// Text of a content block.
pub fn block_text(block: &ContentBlock) -> Option<String> {
    match block {
        ContentBlock::Text(t) => Some(t.text.clone()),
        ContentBlock::ResourceLink(l) => Some(format!("[{}]({})", l.name, l.uri)),
        _ => None,
    }
}

/// Tool call content as AHP tool result content.
/// A terminal is its channel, command line and (once ended) outcome from
/// `terminals`.
pub fn result_content(
    content: &[ToolCallContent],
    cwd: &std::path::Path,
    terminals: &super::terminal_requests::TerminalLinks,
) -> Vec<ToolResultContent> {
    content
        .iter()
        .filter_map(|c| match c {
            ToolCallContent::Content(c) => {
                block_text(&c.content).map(|text| ToolResultContent::Text(ToolResultTextContent { text }))
            }
            ToolCallContent::Diff(d) => {
                let edit = file_edit(&d.path, d.old_text.as_deref(), &d.new_text, cwd);
                Some(ToolResultContent::FileEdit(ToolResultFileEditContent {
                    before: edit.before,
                    after: edit.after,
                    diff: edit.diff,
                }))
            }
            ToolCallContent::Terminal(t) => Some(match crate::locks::lock(terminals).get(&*t.terminal_id.0) {
                Some(link) => ToolResultContent::Terminal(link.clone()),
                None => ToolResultContent::Text(ToolResultTextContent {
                    text: format!("(terminal {}, not known to this session)", t.terminal_id),
                }),
            }),
            _ => None,
        })
        .collect()
}

/// ACP tool call `locations` as resource content: the file's URI, with
/// `#L<line>` when the agent named a line.
pub fn location_content(locations: &[ToolCallLocation], cwd: &std::path::Path) -> Vec<ToolResultContent> {
    locations
        .iter()
        .map(|l| {
            let mut uri = file_uri(&l.path, cwd);
            if let Some(line) = l.line {
                uri.push_str(&format!("#L{line}"));
            }
            ToolResultContent::Resource(ToolResultResourceContent {
                uri,
                size_hint: None,
                content_type: None,
                nonce: None,
            })
        })
        .collect()
}

fn option_kind_name(kind: PermissionOptionKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// The agent's options as AHP confirmation options: allow kinds approve,
/// reject kinds deny; group 1 holds the one-time choices, group 2 the
/// "always" ones.
pub fn confirmation_options(options: &[PermissionOption]) -> Vec<ConfirmationOption> {
    options
        .iter()
        .map(|o| {
            let kind = option_kind_name(o.kind);
            ConfirmationOption {
                id: o.option_id.to_string(),
                label: o.name.clone(),
                kind: if kind.starts_with("allow") {
                    ConfirmationOptionKind::Approve
                } else {
                    ConfirmationOptionKind::Deny
                },
                group: Some(if kind.ends_with("always") { 2 } else { 1 }),
            }
        })
        .collect()
}

/// The option answering a confirmation: the selected one if the agent
/// offered it, else by kind (allow_once, then allow_always; reject_once,
/// then reject_always). `None` means "cancelled".
pub fn pick_option(options: &[PermissionOption], approved: bool, selected: Option<&str>) -> Option<String> {
    if let Some(sel) = selected {
        if let Some(o) = options.iter().find(|o| o.option_id.to_string() == sel) {
            let is_allow = option_kind_name(o.kind).starts_with("allow");
            if is_allow == approved {
                return Some(sel.to_owned());
            }
        }
    }
    let order: &[&str] = if approved { &["allow_once", "allow_always"] } else { &["reject_once", "reject_always"] };
    order.iter().find_map(|k| options.iter().find(|o| option_kind_name(o.kind) == *k)).map(|o| o.option_id.to_string())
}

/// The answer to a `session/request_permission`: the chosen option
/// (`selected`), or `cancelled` when there is none.
pub fn permission_outcome(choice: Option<String>) -> Value {
    match choice {
        Some(id) => json!({ "outcome": { "outcome": "selected", "optionId": id } }),
        None => json!({ "outcome": { "outcome": "cancelled" } }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Vec<PermissionOption> {
        serde_json::from_value(serde_json::json!([
            {"optionId": "proceed_always", "name": "Always", "kind": "allow_always"},
            {"optionId": "proceed_once", "name": "Once", "kind": "allow_once"},
            {"optionId": "cancel", "name": "No", "kind": "reject_once"}
        ]))
        .unwrap()
    }

    #[test]
    fn picks_by_selection_then_kind() {
        let o = opts();
        assert_eq!(pick_option(&o, true, None).as_deref(), Some("proceed_once"));
        assert_eq!(pick_option(&o, true, Some("proceed_always")).as_deref(), Some("proceed_always"));
        assert_eq!(pick_option(&o, false, None).as_deref(), Some("cancel"));
        assert_eq!(pick_option(&o, false, Some("proceed_once")).as_deref(), Some("cancel"));
        let only_always: Vec<PermissionOption> =
            serde_json::from_value(serde_json::json!([{"optionId": "a", "name": "A", "kind": "allow_always"}]))
                .unwrap();
        assert_eq!(pick_option(&only_always, true, None).as_deref(), Some("a"));
        assert_eq!(pick_option(&only_always, false, None), None);
        let c = confirmation_options(&o);
        assert_eq!(c[0].group, Some(2));
        assert_eq!(c[2].kind, ConfirmationOptionKind::Deny);
    }

    #[test]
    fn location_uris_are_percent_encoded() {
        use crate::resources::uri::file_uri_to_path;
        use std::path::{Path, PathBuf};
        let cwd = Path::new("/home/u/My Work");
        let locations: Vec<ToolCallLocation> = serde_json::from_value(serde_json::json!([
            {"path": "src/a#b?.rs", "line": 3},
            {"path": "/abs/100% ü.txt"}
        ]))
        .unwrap();
        let uris: Vec<String> = location_content(&locations, cwd)
            .into_iter()
            .map(|c| match c {
                ToolResultContent::Resource(r) => r.uri,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(uris, ["file:///home/u/My%20Work/src/a%23b%3F.rs#L3", "file:///abs/100%25%20%C3%BC.txt"]);
        let (file, line) = uris[0].split_once("#L").unwrap();
        assert_eq!((file_uri_to_path(file), line), (Ok(PathBuf::from("/home/u/My Work/src/a#b?.rs")), "3"));
        assert_eq!(file_uri_to_path(&uris[1]), Ok(PathBuf::from("/abs/100% ü.txt")));
        let edit = file_edit(Path::new("notes #1.md"), None, "x", cwd);
        let uri = serde_json::to_value(&edit).unwrap()["after"]["uri"].as_str().unwrap().to_owned();
        assert_eq!(file_uri_to_path(&uri), Ok(PathBuf::from("/home/u/My Work/notes #1.md")));
    }

    #[test]
    fn counts_lines() {
        let s = diff_stats("a\nb\nc\n", "a\nB\nX\nc\n");
        assert_eq!((s.added, s.removed), (Some(2), Some(1)));
        // An approximation: everything between the common ends counts.
        let s = diff_stats("a\nb\nc\n", "a\nB\nc\nd\n");
        assert_eq!((s.added, s.removed), (Some(3), Some(2)));
    }
}
