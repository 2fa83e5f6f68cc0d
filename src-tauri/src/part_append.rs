//! The append rule for a streaming markdown (or reasoning) part.
//!
//! The core renders the whole part and cuts the HTML into top-level blocks
//! ([`crate::markdown::render_blocks`]). What the UI holds of the part is
//! remembered ([`SentBlocks`]); the next rendering is compared block by
//! block: when the first blocks are unchanged, a `partAppend` op sends only
//! the blocks after them (`keep`, then the new tail) instead of the whole
//! part. The rule is sound whatever markdown does: the UI ends up with
//! exactly the blocks of a full render, because the comparison is of
//! rendered HTML, not of source. A later change to an earlier block (a
//! reference definition that turns `[x]` into a link, a line that makes a
//! paragraph a setext heading, a list becoming loose) just keeps fewer
//! blocks; when not even the first block is unchanged, the whole part is
//! sent (`part`).

use hangar_desktop_protocol::part::PartView;

/// What the UI holds of a markdown or reasoning part.
#[derive(Debug, Clone, PartialEq)]
pub struct SentBlocks {
    reasoning: bool,
    id: String,
    blocks: Vec<String>,
}

impl SentBlocks {
    /// What the UI holds once it has `part`; `None` for other kinds.
    pub fn of(part: &PartView) -> Option<Self> {
        let (reasoning, p) = match part {
            PartView::Markdown(p) => (false, p),
            PartView::Reasoning(p) => (true, p),
            _ => return None,
        };
        Some(Self { reasoning, id: p.id.clone(), blocks: p.blocks.clone() })
    }
}

/// How to bring the UI's copy (`sent`) to `part` by appending: `(keep,
/// tail)` — keep the first `keep` blocks (at least one) and append `tail`
/// — when `part` is the same part (kind and id) and its first `keep`
/// blocks are those the UI holds. `None`: send the whole part.
///
/// ```
/// use hangar_desktop::markdown::render_blocks;
/// use hangar_desktop::part_append::{append, SentBlocks};
/// use hangar_desktop_protocol::part::{HtmlPart, PartView};
///
/// let md = |text: &str| PartView::Markdown(HtmlPart { id: "m".into(), blocks: render_blocks(text) });
/// let held = SentBlocks::of(&md("Intro.\n\nSome")).unwrap();
///
/// // The last paragraph grew: keep the first block, append the new last one.
/// assert_eq!(append(Some(&held), &md("Intro.\n\nSome more")), Some((1, vec!["<p>Some more</p>\n".to_owned()])));
/// // The first block changed (it became a heading): the whole part is sent.
/// assert_eq!(append(Some(&held), &md("# Intro.\n\nSome more")), None);
/// // Nothing held yet: the whole part is sent.
/// assert_eq!(append(None, &md("Intro.")), None);
/// ```
pub fn append(sent: Option<&SentBlocks>, part: &PartView) -> Option<(usize, Vec<String>)> {
    let sent = sent?;
    let now = SentBlocks::of(part)?;
    if now.reasoning != sent.reasoning || now.id != sent.id {
        return None;
    }
    let keep = sent.blocks.iter().zip(&now.blocks).take_while(|(a, b)| a == b).count();
    // Blocks the UI holds past `keep` are dropped by the op; a part that
    // only shrank (nothing to append) is sent whole, as is one that kept
    // nothing.
    (keep > 0 && keep < now.blocks.len()).then(|| (keep, now.blocks[keep..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hangar_desktop_protocol::part::HtmlPart;

    fn md(text: &str) -> PartView {
        PartView::Markdown(HtmlPart { id: "m".into(), blocks: crate::markdown::render_blocks(text) })
    }

    fn op(before: &str, after: &str) -> Option<(usize, Vec<String>)> {
        append(SentBlocks::of(&md(before)).as_ref(), &md(after))
    }

    #[test]
    fn a_growing_paragraph_appends_its_last_block_only() {
        let (keep, tail) = op("Intro.\n\nSome", "Intro.\n\nSome more").unwrap();
        assert_eq!((keep, tail), (1, vec!["<p>Some more</p>\n".to_owned()]));
        let (keep, tail) = op("Intro.\n\nSome more", "Intro.\n\nSome more\n\n```rust\nfn").unwrap();
        assert_eq!(keep, 2, "both paragraphs stay");
        assert_eq!(tail.len(), 1);
        assert!(tail[0].starts_with("<pre><code class=\"language-rust\">fn"), "{tail:?}");
    }

    #[test]
    fn a_change_inside_an_earlier_block_or_to_the_only_block_replaces() {
        // A reference definition at the end turns an earlier `[x]` into a link.
        assert_eq!(op("[x] and more\n\nnext", "[x] and more\n\nnext\n\n[x]: https://e.com"), None);
        // A setext underline makes the only paragraph a heading.
        assert_eq!(op("Title", "Title\n==="), None);
        // An opened fence in the only block: nothing before it to keep.
        assert_eq!(op("```", "```rust\nfn main"), None);
        // Another part, or another kind, is never appended to.
        let other = PartView::Reasoning(HtmlPart { id: "m".into(), blocks: vec!["<p>a</p>\n".into()] });
        assert_eq!(append(SentBlocks::of(&md("a\n\nb")).as_ref(), &other), None);
        assert_eq!(append(None, &md("a\n\nb")), None);
    }

    /// Stream text chunk by chunk, apply each op to the UI's copy as the UI
    /// does, and compare with a full render at every step.
    #[test]
    fn applied_ops_always_equal_a_full_render() {
        let mut chunks: Vec<String> = Vec::new();
        for i in 0..400 {
            chunks.push(match i % 50 {
                10 => "\n\n```rust\nfn f() {\n".into(),
                20 => "}\n```\n\n".into(),
                25 => "\n- item\n- item two\n\n- loose now".into(),
                30 => "\nHeading\n---\n".into(),
                40 => "\n\n[r]: https://example.com\n\n".into(),
                45 => "see [r] ".into(),
                _ => format!("word{i} "),
            });
        }
        let (mut text, mut ui, mut appended) = (String::new(), Vec::<String>::new(), 0);
        let mut sent: Option<SentBlocks> = None;
        for c in chunks {
            text.push_str(&c);
            let part = md(&text);
            match append(sent.as_ref(), &part) {
                Some((keep, tail)) => {
                    ui.truncate(keep);
                    ui.extend(tail);
                    appended += 1;
                }
                None => ui = crate::markdown::render_blocks(&text),
            }
            sent = SentBlocks::of(&part);
            assert_eq!(ui.concat(), crate::markdown::render(&text), "after {text:?}");
        }
        assert!(appended > 300, "most chunks append ({appended})");
    }
}
