//! Line hunks between two versions of a file (`similar`), picking some of
//! them (a `range` operation), and the three-way merge a conflict-aware
//! reject needs (`diffy`).

use std::ops::Range;

use similar::{DiffOp, TextDiff};

/// `bytes` as text, or `None` for binary content (not UTF-8, or a NUL in
/// the first 8,000 bytes, git's rule).
pub fn as_text(bytes: &[u8]) -> Option<&str> {
    if bytes.iter().take(8000).any(|b| *b == 0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// Lines added and removed from `before` to `after`.
pub fn line_stats(before: &str, after: &str) -> (i64, i64) {
    let diff = TextDiff::from_lines(before, after);
    let (mut added, mut removed) = (0i64, 0i64);
    for op in diff.ops() {
        let (_, old, new) = op.as_tag_tuple();
        if !matches!(op, DiffOp::Equal { .. }) {
            removed += old.len() as i64;
            added += new.len() as i64;
        }
    }
    (added, removed)
}

/// Whether a hunk whose lines on the `after` side are `hunk` touches the
/// zero-based line range `first..=last` of `after`. A pure deletion (an
/// empty `hunk`) sits between two lines and touches a range that reaches
/// the line after it or the line before it.
pub fn touches(hunk: &Range<usize>, first: usize, last: usize) -> bool {
    if hunk.is_empty() {
        hunk.start >= first && hunk.start <= last.saturating_add(1)
    } else {
        hunk.start <= last && hunk.end > first
    }
}

/// `before` with the hunks for which `take_after` (given each hunk's line
/// range on the `after` side) is true taken from `after`; the others keep
/// `before`'s lines.
pub fn splice(before: &str, after: &str, take_after: &dyn Fn(&Range<usize>) -> bool) -> String {
    let diff = TextDiff::from_lines(before, after);
    let old: Vec<&str> = diff.old_slices().to_vec();
    let new: Vec<&str> = diff.new_slices().to_vec();
    let mut out = String::with_capacity(after.len().max(before.len()));
    for op in diff.ops() {
        let (_, old_range, new_range) = op.as_tag_tuple();
        let lines = match op {
            DiffOp::Equal { .. } => &old[old_range],
            _ if take_after(&new_range) => &new[new_range],
            _ => &old[old_range],
        };
        for line in lines {
            out.push_str(line);
        }
    }
    out
}

/// The hunks of `before` → `after` as line ranges on the `after` side.
pub fn hunks(before: &str, after: &str) -> Vec<Range<usize>> {
    let diff = TextDiff::from_lines(before, after);
    diff.ops().iter().filter(|op| !matches!(op, DiffOp::Equal { .. })).map(|op| op.as_tag_tuple().2).collect()
}

/// Three-way merge: `ours` with the change from `base` to `theirs` applied;
/// `None` when the two changes overlap.
pub fn merge(base: &str, ours: &str, theirs: &str) -> Option<String> {
    diffy::merge(base, ours, theirs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "a\nb\nc\nd\ne\nf\n";
    const AFTER: &str = "a\nB\nc\nd\ne\nF\ng\n";

    #[test]
    fn a_range_picks_only_the_hunks_it_overlaps() {
        assert_eq!(hunks(BEFORE, AFTER), [1..2, 5..7]);
        // Undo the first hunk (line 1 of after), keep the second.
        let undone = splice(BEFORE, AFTER, &|h| !touches(h, 1, 1));
        assert_eq!(undone, "a\nb\nc\nd\ne\nF\ng\n");
        // Accept only the second: the new base has it, not the first.
        let base = splice(BEFORE, AFTER, &|h| touches(h, 6, 6));
        assert_eq!(base, "a\nb\nc\nd\ne\nF\ng\n");
        assert_eq!(splice(BEFORE, AFTER, &|_| true), AFTER);
        assert_eq!(splice(BEFORE, AFTER, &|_| false), BEFORE);
    }

    #[test]
    fn a_deletion_is_touched_by_the_lines_around_it() {
        let h = hunks("a\nb\nc\n", "a\nc\n");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0], 1..1);
        assert!(touches(&h[0], 1, 1));
        assert!(touches(&h[0], 0, 0));
        assert!(!touches(&h[0], 2, 3));
    }

    #[test]
    fn a_later_edit_elsewhere_survives_a_three_way_revert() {
        // The agent changed lines 2 and 6–7; the user then changed line 4.
        let user = "a\nB\nc\nUSER\ne\nF\ng\n";
        assert_eq!(merge(AFTER, user, BEFORE).as_deref(), Some("a\nb\nc\nUSER\ne\nf\n"));
        // The user rewrote the agent's own line: no clean revert.
        assert_eq!(merge(AFTER, "a\nMINE\nc\nd\ne\nF\ng\n", BEFORE), None);
        assert_eq!(line_stats(BEFORE, AFTER), (3, 2));
        assert_eq!(as_text(b"x\0y"), None);
    }
}
