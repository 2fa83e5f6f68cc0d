//! Fuzzy scoring of relative paths for `@`-mentions.
//!
//! The query must be a case-insensitive subsequence of the path. A match is
//! scored on the shortest window that contains it (found forward, then
//! tightened backward, as fzf's v1 does): every matched character counts,
//! runs of consecutive characters and characters at word starts (after `/`,
//! `_`, `-`, `.`, space, or a lower→upper camelCase step) count extra, skipped
//! characters inside the window cost. A match inside the file name beats one
//! spread over folders; a file name that starts with or equals the query
//! (with or without its extension) beats both; shorter and shallower paths win
//! ties. ASCII queries compare bytes, others compare `char`s.

/// A prepared query.
#[derive(Debug, Clone)]
pub struct Query {
    lower: String,
    ascii: bool,
    chars: Vec<char>,
}

impl Query {
    /// Prepare `text` (case-folded).
    pub fn new(text: &str) -> Self {
        let lower = text.to_lowercase();
        Self { ascii: lower.is_ascii(), chars: lower.chars().collect(), lower }
    }

    /// True for the empty query (everything matches; shallow first).
    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }
}

const MATCH: i32 = 16;
const BOUNDARY: i32 = 12;
const CAMEL: i32 = 8;
const CONSECUTIVE: i32 = 10;
const IN_BASENAME: i32 = 40;
const BASENAME_PREFIX: i32 = 30;
const BASENAME_EXACT: i32 = 60;

fn is_sep_byte(b: u8) -> bool {
    matches!(b, b'/' | b'_' | b'-' | b'.' | b' ')
}

fn is_sep_char(c: char) -> bool {
    matches!(c, '/' | '_' | '-' | '.' | ' ')
}

/// Shortest window `[start, end]` of `hay` containing `q` as a subsequence
/// (greedy forward for the end, greedy backward for the start).
fn window<T: Copy + PartialEq>(q: &[T], hay: &[T]) -> Option<(usize, usize)> {
    if q.is_empty() {
        return None;
    }
    let mut qi = 0;
    let mut end = None;
    for (i, &h) in hay.iter().enumerate() {
        if h == q[qi] {
            qi += 1;
            if qi == q.len() {
                end = Some(i);
                break;
            }
        }
    }
    let end = end?;
    let mut qi = q.len();
    let mut i = end + 1;
    while i > 0 {
        i -= 1;
        if hay[i] == q[qi - 1] {
            qi -= 1;
            if qi == 0 {
                return Some((i, end));
            }
        }
    }
    None
}

/// Score the greedy match of `q` inside `hay[start..=end]`; `orig` is the
/// un-folded text (same indexing) for boundary and camelCase bonuses.
fn score_window<T: Copy + PartialEq>(
    q: &[T],
    hay: &[T],
    orig: &[T],
    (start, end): (usize, usize),
    is_sep: impl Fn(T) -> bool,
    is_upper: impl Fn(T) -> bool,
) -> i32 {
    let mut score = 0;
    let mut qi = 0;
    let mut prev: Option<usize> = None;
    for i in start..=end {
        if qi < q.len() && hay[i] == q[qi] {
            score += MATCH;
            if i == 0 || is_sep(orig[i - 1]) {
                score += BOUNDARY;
            } else if is_upper(orig[i]) && !is_upper(orig[i - 1]) {
                score += CAMEL;
            }
            if prev.is_some_and(|p| p + 1 == i) {
                score += CONSECUTIVE;
            }
            prev = Some(i);
            qi += 1;
        }
    }
    let gaps = (end + 1 - start).saturating_sub(q.len());
    score - i32::try_from(gaps).unwrap_or(i32::MAX / 4)
}

fn score_seq<T: Copy + PartialEq>(
    q: &[T],
    lower: &[T],
    orig: &[T],
    base_start: usize,
    is_sep: impl Fn(T) -> bool + Copy,
    is_upper: impl Fn(T) -> bool + Copy,
) -> Option<i32> {
    let whole = window(q, lower)?;
    let base_lower = lower.get(base_start..).unwrap_or(&[]);
    if let Some((s, e)) = window(q, base_lower) {
        let mut score = score_window(q, lower, orig, (s + base_start, e + base_start), is_sep, is_upper) + IN_BASENAME;
        if base_lower.starts_with(q) {
            score += BASENAME_PREFIX;
            let stem_len = base_lower.iter().rposition(|&c| is_sep(c)).filter(|&p| p > 0).unwrap_or(base_lower.len());
            if base_lower.len() == q.len() || stem_len == q.len() {
                score += BASENAME_EXACT;
            }
        }
        return Some(score);
    }
    Some(score_window(q, lower, orig, whole, is_sep, is_upper))
}

/// Score `path` (with `lower` its lower-cased form and `base_start` the byte
/// offset of its file name in both) against `q`; `None` if it does not match.
/// Higher is better.
pub fn score(q: &Query, path: &str, lower: &str, base_start: usize) -> Option<i32> {
    let length_cost = |depth: i32| depth * 2 + (path.len() as i32) / 4;
    let depth = || path.bytes().filter(|&b| b == b'/').count() as i32;
    if q.is_empty() {
        let depth = depth();
        return Some(-depth * 100 - length_cost(depth));
    }
    let raw = if q.ascii && lower.len() == path.len() {
        score_seq(q.lower.as_bytes(), lower.as_bytes(), path.as_bytes(), base_start, is_sep_byte, |b: u8| {
            b.is_ascii_uppercase()
        })?
    } else {
        let lower_chars: Vec<char> = lower.chars().collect();
        let base = lower_chars.iter().rposition(|&c| c == '/').map_or(0, |i| i + 1);
        let orig_chars: Vec<char> = path.chars().collect();
        // Case folding may change the length (rare): then score on the folded text only.
        let orig = if orig_chars.len() == lower_chars.len() { &orig_chars } else { &lower_chars };
        score_seq(&q.chars, &lower_chars, orig, base, is_sep_char, |c: char| c.is_uppercase())?
    };
    Some(raw * 4 - length_cost(depth()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(q: &str, path: &str) -> Option<i32> {
        let base = path.rfind('/').map_or(0, |i| i + 1);
        score(&Query::new(q), path, &path.to_lowercase(), base)
    }

    #[test]
    fn subsequence_required() {
        assert!(s("abc", "a/b/c").is_some());
        assert!(s("abd", "a/b/c").is_none());
        assert!(s("MAIN", "src/main.rs").is_some());
    }

    #[test]
    fn ranking_prefers_basename_prefix_exact_and_short() {
        let main = s("main", "src/main.rs");
        assert!(main > s("main", "src/domain/ain.rs"), "basename beats spread");
        assert!(main > s("main", "src/remaining.rs"), "prefix beats infix");
        assert!(s("main", "main.rs") > main, "shallower wins");
        assert!(s("mr", "src/main_reader.rs") > s("mr", "src/numbers.rs"), "word starts");
        assert!(s("fb", "src/FooBar.ts") > s("fb", "src/fiddleb.ts"), "camelCase");
        assert!(s("", "a.rs") > s("", "x/a.rs"), "empty query: shallow first");
        assert!(s("über", "docs/Über.md").is_some());
    }
}
