//! A review as the one message it is sent to the agent as, and read back
//! from a transcript. [`review_message`] quotes each comment with its file,
//! line range and the lines it is about, attaches each file once as a
//! `resource` (the host embeds a readable file's text, else sends an ACP
//! `resource_link`), and marks the message with
//! `_meta["hangar/review"] = {"comments": [...]}` (a client convention,
//! docs/desktop.md); [`review_of`] reads that mark back for the transcript.

use ahp_types::state::{Message, MessageAttachment, MessageResourceAttachment};
use serde_json::{json, Map};

use crate::outgoing::Composed;
use hangar_desktop_protocol::review::{ReviewComment, ReviewSide};

/// The `_meta` key of a review message.
pub const REVIEW_META: &str = "hangar/review";

/// "line 4" or "lines 4-6", with the side named for removed lines.
fn lines_text(c: &ReviewComment) -> String {
    let lines = if c.first_line == c.last_line {
        format!("line {}", c.first_line)
    } else {
        format!("lines {}-{}", c.first_line, c.last_line)
    };
    match c.side {
        ReviewSide::New => lines,
        ReviewSide::Old => format!("{lines} before the change (removed)"),
    }
}

/// The message's text: a heading, then each comment with its place, the
/// quoted lines and what the person wrote.
fn text(comments: &[ReviewComment]) -> String {
    let count = if comments.len() == 1 { "1 comment".to_owned() } else { format!("{} comments", comments.len()) };
    let mut out = format!("Review of your changes ({count}). Please address each comment.\n");
    for (i, c) in comments.iter().enumerate() {
        out.push_str(&format!("\n{}. {}, {}:\n```\n", i + 1, c.path, lines_text(c)));
        for line in &c.quote {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("```\n");
        out.push_str(c.body.trim());
        out.push('\n');
    }
    out
}

/// Each file the comments are on, once, in order, as a resource.
fn attachments(comments: &[ReviewComment]) -> Vec<MessageAttachment> {
    let mut seen: Vec<&str> = Vec::new();
    comments
        .iter()
        .filter(|c| {
            let new = !seen.contains(&c.file.as_str());
            if new {
                seen.push(&c.file);
            }
            new
        })
        .map(|c| {
            MessageAttachment::Resource(MessageResourceAttachment {
                label: c.path.clone(),
                range: None,
                display_kind: Some("document".to_owned()),
                meta: None,
                uri: c.file.clone(),
                size_hint: None,
                content_type: None,
                nonce: None,
                selection: None,
            })
        })
        .collect()
}

/// The one message a review is sent as.
pub fn review_message(comments: &[ReviewComment]) -> Composed {
    let mut meta = Map::new();
    meta.insert(REVIEW_META.to_owned(), json!({ "comments": comments }));
    Composed { attachments: attachments(comments), meta: Some(meta), ..Composed::plain(text(comments)) }
}

/// The comments of a review message, if `message` is one.
pub fn review_of(message: &Message) -> Option<Vec<ReviewComment>> {
    let comments = message.meta.as_ref()?.get(REVIEW_META)?.get("comments")?;
    serde_json::from_value(comments.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(file: &str, first: u32, last: u32, body: &str) -> ReviewComment {
        ReviewComment {
            id: format!("{file}{first}"),
            file: format!("file:///w/{file}"),
            path: file.into(),
            first_line: first,
            last_line: last,
            side: ReviewSide::New,
            quote: vec!["+let x = 1;".into()],
            body: body.into(),
        }
    }

    #[test]
    fn a_review_is_one_message_quoting_each_comment_with_each_file_attached_once() {
        let comments =
            [comment("a.rs", 2, 2, "name it"), comment("a.rs", 5, 7, "too long"), comment("b.rs", 1, 1, "x")];
        let m = review_message(&comments).message();
        assert!(m.text.starts_with("Review of your changes (3 comments)"), "{}", m.text);
        assert!(m.text.contains("1. a.rs, line 2:\n```\n+let x = 1;\n```\nname it\n"), "{}", m.text);
        assert!(m.text.contains("2. a.rs, lines 5-7:"), "{}", m.text);
        let uris: Vec<_> = m
            .attachments
            .iter()
            .flatten()
            .map(|a| match a {
                MessageAttachment::Resource(r) => r.uri.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(uris, ["file:///w/a.rs", "file:///w/b.rs"]);
        assert_eq!(review_of(&m).as_deref(), Some(&comments[..]));
    }

    #[test]
    fn removed_lines_are_named_as_before_the_change_and_plain_messages_are_no_review() {
        let removed = ReviewComment { side: ReviewSide::Old, ..comment("a.rs", 3, 4, "keep this") };
        assert!(review_message(&[removed]).text.contains("lines 3-4 before the change (removed)"));
        assert_eq!(review_of(&Composed::plain("hi").message()), None);
    }
}
