//! File-edit diffs for the UI: decode the before/after contents the host
//! sends (inline `data:` URIs) and turn them into a bounded list of
//! unified-diff lines. Text only goes to the UI as data and is rendered
//! with `textContent`, never as HTML.

use ahp_types::state::{FileEditDiffStats, FileEditSide};
use base64::Engine;
use similar::{ChangeTag, TextDiff};

use hangar_desktop_protocol::part::{DiffTag, DiffView};

/// Lines shown per file before the diff is cut.
pub const MAX_DIFF_LINES: usize = 2000;
/// Largest side decoded for a diff.
const MAX_SIDE_BYTES: usize = 2 * 1024 * 1024;

/// The text of a `data:` URI (`;base64` or percent-encoded). Other schemes
/// are not fetched here.
pub fn data_uri_text(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("data:")?;
    let (head, body) = rest.split_once(',')?;
    if body.len() > MAX_SIDE_BYTES * 2 {
        return None;
    }
    let bytes = if head.ends_with(";base64") {
        base64::engine::general_purpose::STANDARD.decode(body).ok()?
    } else {
        percent_encoding::percent_decode_str(body).collect()
    };
    String::from_utf8(bytes).ok()
}

/// One file edit (an AHP `FileEdit` or a tool result's `fileEdit`: its two
/// sides and the host's counts) as a diff view; `lines` are `(tag, text)`.
pub fn file_edit_view(
    before: Option<&FileEditSide>,
    after: Option<&FileEditSide>,
    stats: Option<&FileEditDiffStats>,
) -> DiffView {
    let side = |s: Option<&FileEditSide>| -> (Option<String>, Option<String>) {
        (s.map(|s| s.uri.clone()), s.and_then(|s| data_uri_text(&s.content.uri)))
    };
    let (before_uri, before) = side(before);
    let (after_uri, after) = side(after);
    let path = after_uri.or(before_uri).unwrap_or_default();
    text_diff(path, before.as_deref(), after.as_deref(), stats)
}

/// The diff view of two texts (`None`: that side is unknown or absent).
pub fn text_diff(
    path: String,
    before: Option<&str>,
    after: Option<&str>,
    stats: Option<&FileEditDiffStats>,
) -> DiffView {
    let known = before.is_some() || after.is_some();
    let diff = TextDiff::from_lines(before.unwrap_or_default(), after.unwrap_or_default());
    let mut lines = Vec::new();
    let mut truncated = false;
    for change in diff.iter_all_changes() {
        if lines.len() >= MAX_DIFF_LINES {
            truncated = true;
            break;
        }
        let tag = match change.tag() {
            ChangeTag::Insert => DiffTag::Added,
            ChangeTag::Delete => DiffTag::Removed,
            ChangeTag::Equal => DiffTag::Context,
        };
        lines.push((tag, change.value().trim_end_matches('\n').to_owned()));
    }
    diff_view(path, stats, known, lines, truncated)
}

/// A diff view of `lines`, with the host's counts from `stats`.
pub fn diff_view(
    path: String,
    stats: Option<&FileEditDiffStats>,
    known: bool,
    lines: Vec<(DiffTag, String)>,
    truncated: bool,
) -> DiffView {
    DiffView {
        path,
        added: stats.and_then(|d| d.added),
        removed: stats.and_then(|d| d.removed),
        known,
        lines,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ahp_types::state::FileEdit;
    use serde_json::json;

    #[test]
    fn decodes_base64_and_percent_data_uris() {
        assert_eq!(data_uri_text("data:text/plain;base64,aGVsbG8=").as_deref(), Some("hello"));
        assert_eq!(data_uri_text("data:text/plain,a%20b").as_deref(), Some("a b"));
        assert_eq!(data_uri_text("file:///etc/passwd"), None);
    }

    #[test]
    fn diff_marks_added_and_removed_lines() {
        let edit: FileEdit = serde_json::from_value(json!({
            "before": {"uri": "file:///w/a.txt", "content": {"uri": "data:text/plain,one%0Atwo%0A"}},
            "after": {"uri": "file:///w/a.txt", "content": {"uri": "data:text/plain,one%0Athree%0A"}},
            "diff": {"added": 1, "removed": 1}
        }))
        .unwrap();
        let v = file_edit_view(edit.before.as_ref(), edit.after.as_ref(), edit.diff.as_ref());
        assert_eq!(v.path, "file:///w/a.txt");
        assert_eq!(v.added, Some(1));
        let v = serde_json::to_value(v).unwrap();
        assert_eq!(v["lines"], json!([[" ", "one"], ["-", "two"], ["+", "three"]]));
    }
}
