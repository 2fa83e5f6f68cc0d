//! File-edit diffs for the UI: decode the before/after contents the host
//! sends (inline `data:` URIs) and turn them into a bounded list of
//! unified-diff lines. Text only goes to the UI as data and is rendered
//! with `textContent`, never as HTML.

use base64::Engine;
use serde_json::{json, Value};
use similar::{ChangeTag, TextDiff};

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

/// One file edit (an AHP `FileEdit` as JSON) as a diff view:
/// `{path, added, removed, lines: [[tag, text], ...], truncated}` where tag
/// is `+`, `-` or ` `.
pub fn file_edit_view(edit: &Value) -> Value {
    let side = |name: &str| -> (Option<String>, Option<String>) {
        let s = &edit[name];
        let uri = s["uri"].as_str().map(str::to_owned);
        let text = s["content"]["uri"].as_str().and_then(data_uri_text);
        (uri, text)
    };
    let (before_uri, before) = side("before");
    let (after_uri, after) = side("after");
    let path = after_uri.or(before_uri).unwrap_or_default();
    let known = before.is_some() || after.is_some();
    let before = before.unwrap_or_default();
    let after = after.unwrap_or_default();
    let diff = TextDiff::from_lines(&before, &after);
    let mut lines = Vec::new();
    let mut truncated = false;
    for change in diff.iter_all_changes() {
        if lines.len() >= MAX_DIFF_LINES {
            truncated = true;
            break;
        }
        let tag = match change.tag() {
            ChangeTag::Insert => "+",
            ChangeTag::Delete => "-",
            ChangeTag::Equal => " ",
        };
        lines.push(json!([tag, change.value().trim_end_matches('\n')]));
    }
    json!({
        "path": path,
        "added": edit["diff"]["added"],
        "removed": edit["diff"]["removed"],
        "known": known,
        "lines": lines,
        "truncated": truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64_and_percent_data_uris() {
        assert_eq!(data_uri_text("data:text/plain;base64,aGVsbG8=").as_deref(), Some("hello"));
        assert_eq!(data_uri_text("data:text/plain,a%20b").as_deref(), Some("a b"));
        assert_eq!(data_uri_text("file:///etc/passwd"), None);
    }

    #[test]
    fn diff_marks_added_and_removed_lines() {
        let edit = json!({
            "before": {"uri": "file:///w/a.txt", "content": {"uri": "data:text/plain,one%0Atwo%0A"}},
            "after": {"uri": "file:///w/a.txt", "content": {"uri": "data:text/plain,one%0Athree%0A"}},
            "diff": {"added": 1, "removed": 1}
        });
        let v = file_edit_view(&edit);
        assert_eq!(v["path"], "file:///w/a.txt");
        assert_eq!(v["lines"], json!([[" ", "one"], ["-", "two"], ["+", "three"]]));
    }
}
