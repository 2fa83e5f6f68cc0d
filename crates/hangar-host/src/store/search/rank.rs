//! How a match is scored, without FTS5's `bm25()`.
//!
//! `bm25()` weighs each phrase by its inverse document frequency, and to
//! know that frequency FTS5 walks the phrase's whole list of documents once
//! per query: for a common word in a million turns that walk alone is
//! hundreds of milliseconds, whatever `LIMIT` says. A search here ranks only
//! the newest [`super::reader::RANKED`] matches, and every one of them
//! holds every phrase of the query (they are all required), so the score
//! keeps BM25's other two parts and drops the frequency: how often the
//! phrases occur in the document (saturating, `K1`), against how long the
//! document is compared with the others ranked (`B`).
//!
//! The occurrences are counted from FTS5's own `highlight()` of the
//! document with [`OPEN`] and [`CLOSE`] as markers, so what counts as a
//! match is exactly what the index matched (case, accents, prefixes,
//! phrases); the length is the document's words.

/// Marks the start of a match in the highlighted text.
pub const OPEN: char = '\u{2}';
/// Marks the end of a match in the highlighted text.
pub const CLOSE: char = '\u{3}';

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;

/// What the score needs of one highlighted document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counted {
    /// Occurrences of the query's phrases.
    pub matches: u32,
    /// Words in the document.
    pub words: u32,
}

/// The matches in a document highlighted with [`OPEN`] and [`CLOSE`].
pub fn matches(highlighted: &str) -> impl Iterator<Item = &str> {
    highlighted.split(OPEN).skip(1).map(|m| m.split(CLOSE).next().unwrap_or(m))
}

/// Count the matches `counts` accepts, and the words, of a document
/// highlighted with [`OPEN`] and [`CLOSE`].
pub fn count(highlighted: &str, counts: impl Fn(&str) -> bool) -> Counted {
    let matches = matches(highlighted).filter(|m| counts(m)).count();
    let words = highlighted.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).count();
    Counted { matches: u32::try_from(matches).unwrap_or(u32::MAX), words: u32::try_from(words).unwrap_or(u32::MAX) }
}

/// The score of a document (higher is better), given the mean length of
/// the documents ranked with it.
pub fn score(counted: Counted, mean_words: f64) -> f64 {
    let tf = f64::from(counted.matches);
    let norm = if mean_words > 0.0 { f64::from(counted.words) / mean_words } else { 1.0 };
    tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * norm))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str) -> String {
        text.replace('[', &OPEN.to_string()).replace(']', &CLOSE.to_string())
    }

    #[test]
    fn matches_and_words_are_counted_from_the_markers() {
        let text = marked("the [quokka] met a [quokka]-like [wombat], twice");
        assert_eq!(matches(&text).collect::<Vec<_>>(), ["quokka", "quokka", "wombat"]);
        assert_eq!(count(&text, |_| true), Counted { matches: 3, words: 8 });
        assert_eq!(count(&text, |m| m == "wombat"), Counted { matches: 1, words: 8 });
    }

    #[test]
    fn more_matches_score_higher_with_diminishing_returns() {
        let one = score(Counted { matches: 1, words: 10 }, 10.0);
        let two = score(Counted { matches: 2, words: 10 }, 10.0);
        let ten = score(Counted { matches: 10, words: 10 }, 10.0);
        assert!(one < two && two < ten);
        assert!(ten - two < (two - one) * 8.0, "saturates");
        assert!(ten < K1 + 1.0);
    }

    #[test]
    fn a_shorter_document_with_the_same_matches_scores_higher() {
        let short = score(Counted { matches: 1, words: 5 }, 20.0);
        let long = score(Counted { matches: 1, words: 80 }, 20.0);
        assert!(short > long);
    }

    #[test]
    fn no_documents_to_compare_with_is_not_a_division_by_zero() {
        assert!(score(Counted { matches: 1, words: 0 }, 0.0).is_finite());
    }
}
