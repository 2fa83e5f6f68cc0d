//! The Changes view's diff of one file: only the hunks with 3 lines of
//! context each (so a 20,000-line file with 500 hunks is 4,000
//! lines, not 20,000), the unchanged stretches between them as gaps with
//! their length, and each hunk's lines on the new side (what Keep / Undo
//! of that hunk send as a `range`).

use ahp_types::state::FileEditDiffStats;
use similar::{DiffOp, TextDiff};

use crate::file_diff::diff_view;
use hangar_desktop_protocol::changes::{FileDiffView, GapView, HunkView, WordsView};
use hangar_desktop_protocol::part::DiffTag;

/// Unchanged lines kept around each hunk.
const CONTEXT: usize = 3;
/// Lines shown at most; a longer diff is cut (and says so). The page draws
/// only the rows in view, so the cut is what one answer should carry: a
/// 2 MiB file (the largest the tracker keeps) of 20-byte lines.
const MAX_LINES: usize = 100_000;

/// The review diff of `before` → `after` (`None`: absent, or not known
/// when both are `None` and `known` is false).
pub fn review_diff(
    path: String,
    before: Option<&str>,
    after: Option<&str>,
    stats: Option<&FileEditDiffStats>,
    known: bool,
    whole: bool,
) -> FileDiffView {
    let (old, new) = (before.unwrap_or_default(), after.unwrap_or_default());
    let diff = TextDiff::from_lines(old, new);
    let context = if whole { diff.old_slices().len().max(diff.new_slices().len()) + 1 } else { CONTEXT };
    let (old_lines, new_lines) = (diff.old_slices(), diff.new_slices());
    let mut lines: Vec<(DiffTag, String)> = Vec::new();
    let mut hunks = Vec::new();
    let mut gaps = Vec::new();
    let mut words = Vec::new();
    let mut next_old = 0;
    let mut truncated = false;
    let text = |s: &str| s.trim_end_matches('\n').trim_end_matches('\r').to_owned();
    'groups: for group in diff.grouped_ops(context) {
        let Some(first) = group.first() else { continue };
        let start_old = first.old_range().start;
        if start_old > next_old {
            gaps.push(GapView { at: lines.len(), hidden: start_old - next_old });
        }
        for op in &group {
            if lines.len() >= MAX_LINES {
                truncated = true;
                break 'groups;
            }
            match op {
                DiffOp::Equal { .. } => {
                    lines.extend(old_lines[op.old_range()].iter().map(|l| (DiffTag::Context, text(l))));
                }
                _ => {
                    let start = lines.len();
                    let (old, new) = (&old_lines[op.old_range()], &new_lines[op.new_range()]);
                    lines.extend(old.iter().map(|l| (DiffTag::Removed, text(l))));
                    lines.extend(new.iter().map(|l| (DiffTag::Added, text(l))));
                    for (k, (o, n)) in old.iter().zip(new.iter()).enumerate().take(MAX_PAIRED) {
                        let (o, n) = (text(o), text(n));
                        let (removed, added) = word_runs(&o, &n);
                        words.push(WordsView { line: start + k, runs: removed });
                        words.push(WordsView { line: start + old.len() + k, runs: added });
                    }
                    let r = op.new_range();
                    let (first_line, last_line) = if r.is_empty() { (r.start, r.start) } else { (r.start, r.end - 1) };
                    hunks.push(HunkView { start, end: lines.len(), first_line, last_line });
                }
            }
            next_old = op.old_range().end;
        }
    }
    if !truncated && next_old < old_lines.len() && !hunks.is_empty() {
        gaps.push(GapView { at: lines.len(), hidden: old_lines.len() - next_old });
    }
    FileDiffView { diff: diff_view(path, stats, known, lines, truncated), hunks, gaps, words }
}

/// Replaced lines paired per hunk at most (a long rewrite is shown by lines).
const MAX_PAIRED: usize = 50;

/// A line's runs of text, each marked changed or not.
type Runs = Vec<(bool, String)>;

/// The word runs of a removed line and of the added line paired with it.
fn word_runs(old: &str, new: &str) -> (Runs, Runs) {
    let diff = TextDiff::from_words(old, new);
    let (mut removed, mut added): (Runs, Runs) = (Vec::new(), Vec::new());
    let push = |runs: &mut Runs, changed: bool, t: &str| match runs.last_mut() {
        Some((c, text)) if *c == changed => text.push_str(t),
        _ => runs.push((changed, t.to_owned())),
    };
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Equal => {
                push(&mut removed, false, change.value());
                push(&mut added, false, change.value());
            }
            similar::ChangeTag::Delete => push(&mut removed, true, change.value()),
            similar::ChangeTag::Insert => push(&mut added, true, change.value()),
        }
    }
    (removed, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize, changed: impl Fn(usize) -> bool) -> String {
        (0..n).map(|i| if changed(i) { format!("line {i} changed\n") } else { format!("line {i}\n") }).collect()
    }

    #[test]
    fn only_hunks_with_context_are_sent_and_gaps_say_how_much_is_hidden() {
        let before = numbered(20, |_| false);
        let after = numbered(20, |i| i == 1 || i == 15);
        let v = review_diff("f".into(), Some(&before), Some(&after), None, true, false);
        // Hunk 1: lines 0 (context), 1 (-/+), 2..=4 (context). Gap 5..=11 (7 lines).
        // Hunk 2: 12..=14 context, 15 -/+, 16..=18 context. Gap: 19 (1 line).
        assert_eq!(v.gaps.iter().map(|g| (g.at, g.hidden)).collect::<Vec<_>>(), [(6, 7), (14, 1)]);
        let h: Vec<(usize, usize, usize, usize)> =
            v.hunks.iter().map(|h| (h.start, h.end, h.first_line, h.last_line)).collect();
        assert_eq!(h, [(1, 3, 1, 1), (9, 11, 15, 15)]);
        assert_eq!(v.diff.lines[1], (DiffTag::Removed, "line 1".to_owned()));
        assert_eq!(v.diff.lines[2], (DiffTag::Added, "line 1 changed".to_owned()));
        assert_eq!(v.diff.lines.len(), 14);
        // Expanded: every line, no gaps, the same hunks.
        let whole = review_diff("f".into(), Some(&before), Some(&after), None, true, true);
        assert!(whole.gaps.is_empty());
        assert_eq!(whole.diff.lines.len(), 22);
        let lines: Vec<(usize, usize)> = whole.hunks.iter().map(|h| (h.first_line, h.last_line)).collect();
        assert_eq!(lines, [(1, 1), (15, 15)]);
    }

    #[test]
    fn a_replaced_line_marks_the_words_that_changed() {
        let v = review_diff("f".into(), Some("let x = 1;\n"), Some("let y = 1;\n"), None, true, false);
        let runs: Vec<(usize, Runs)> = v.words.iter().map(|w| (w.line, w.runs.clone())).collect();
        let r = |c: bool, t: &str| (c, t.to_owned());
        assert_eq!(
            runs,
            [
                (0, vec![r(false, "let "), r(true, "x"), r(false, " = 1;")]),
                (1, vec![r(false, "let "), r(true, "y"), r(false, " = 1;")]),
            ]
        );
    }

    #[test]
    fn a_deletion_targets_the_line_after_it_and_a_created_file_is_one_hunk() {
        let v = review_diff("f".into(), Some("a\nb\nc\n"), Some("a\nc\n"), None, true, false);
        assert_eq!(v.hunks.iter().map(|h| (h.first_line, h.last_line)).collect::<Vec<_>>(), [(1, 1)]);
        let v = review_diff("f".into(), None, Some("x\ny\n"), None, true, false);
        assert_eq!(
            v.hunks.iter().map(|h| (h.start, h.end, h.first_line, h.last_line)).collect::<Vec<_>>(),
            [(0, 2, 0, 1)]
        );
        assert!(v.gaps.is_empty());
    }

    #[test]
    fn twenty_thousand_lines_with_five_hundred_hunks_send_4000() {
        let before = numbered(20_000, |_| false);
        let after = numbered(20_000, |i| i % 40 == 7);
        let v = review_diff("f".into(), Some(&before), Some(&after), None, true, false);
        assert_eq!(v.hunks.len(), 500);
        // Each hunk: 3 lines of context, the old line, the new one, 3 more.
        assert_eq!(v.diff.lines.len(), 4_000);
        assert!(!v.diff.truncated);
    }
}
