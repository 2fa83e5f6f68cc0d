//! A long last word, found through the prefix index.
//!
//! The last word of a query is a prefix (`quok` finds `quokka`). The index
//! keeps prefixes of two to four characters (`schema.rs`); a longer one,
//! such as a whole word typed out, makes FTS5 gather the complete list of
//! every word it starts before it can return a single row: for a common
//! word in a million turns, a tenth of a second or more, however few rows
//! are wanted.
//!
//! So such a query is first run with its last word cut to its first
//! [`INDEXED`] characters (a prefix the index keeps, read newest first and
//! only as far as needed), and each row's highlighted matches show whether
//! it holds a word that starts with the whole last word; those rows are
//! exactly the query's. When the narrowed rows run out before enough are
//! kept, the search runs the query as typed ([`super::reader`]).
//!
//! Only a last word of ASCII letters and digits is narrowed, so comparing
//! it with a match folded here ([`fold`]) agrees with FTS5's own folding.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::query::{terms, Term};

/// The longest prefix the index keeps (`schema.rs`: `prefix = '2 3 4'`).
pub const INDEXED: usize = 4;

/// A query whose last word is narrowed.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowed {
    /// The MATCH expression with the last word cut to [`INDEXED`]
    /// characters.
    pub expression: String,
    /// The whole last word, lower case: a kept row has a match starting so.
    pub last: String,
    /// The first word of each term, folded: a match that starts with one of
    /// them counts for the score.
    pub starts: Vec<String>,
}

/// The narrowed form of `query`, when its last word is a prefix longer
/// than the index keeps; `None` otherwise (the query runs as typed).
pub fn narrowed(query: &str) -> Option<Narrowed> {
    let terms = terms(query);
    let (last, rest) = terms.split_last()?;
    let long_ascii_word =
        !last.phrase && last.text.len() > INDEXED && last.text.chars().all(|c| c.is_ascii_alphanumeric());
    if !long_ascii_word {
        return None;
    }
    let cut = &last.text[..INDEXED];
    let mut parts: Vec<String> = rest.iter().map(Term::quoted).collect();
    parts.push(format!("\"{cut}\"*"));
    let starts = terms
        .iter()
        .filter_map(|t| t.text.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()).map(fold))
        .collect();
    Some(Narrowed { expression: parts.join(" "), last: last.text.to_ascii_lowercase(), starts })
}

impl Narrowed {
    /// Whether a match of the narrowed query starts with the whole last
    /// word (its row is the query's).
    pub fn holds_last(&self, matched: &str) -> bool {
        fold(matched).starts_with(&self.last)
    }

    /// Whether a match of the narrowed query is one of the query's words,
    /// not only a word that starts like the last one.
    pub fn is_query_word(&self, matched: &str) -> bool {
        let matched = fold(matched);
        self.starts.iter().any(|s| matched.starts_with(s.as_str()))
    }

    /// A snippet of the narrowed query (`«` and `»` around each match)
    /// with the marks kept only around the query's words.
    pub fn unmark_others(&self, snippet: &str) -> String {
        let mut out = String::with_capacity(snippet.len());
        let mut rest = snippet;
        while let Some(open) = rest.find('«') {
            out.push_str(&rest[..open]);
            let after = &rest[open + '«'.len_utf8()..];
            let Some(close) = after.find('»') else {
                out.push_str(&rest[open..]);
                return out;
            };
            let matched = &after[..close];
            if self.is_query_word(matched) {
                out.push('«');
                out.push_str(matched);
                out.push('»');
            } else {
                out.push_str(matched);
            }
            rest = &after[close + '»'.len_utf8()..];
        }
        out.push_str(rest);
        out
    }
}

/// A match's text as the index compares it: decomposed, marks dropped,
/// lower case.
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.nfd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_last_word_is_cut_to_the_indexed_prefix() {
        let n = narrowed("fix the Parser").unwrap();
        assert_eq!(n.expression, r#""fix" "the" "Pars"*"#);
        assert_eq!(n.last, "parser");
        assert_eq!(n.starts, ["fix", "the", "parser"]);
    }

    #[test]
    fn short_phrase_and_non_ascii_last_words_run_as_typed() {
        assert_eq!(narrowed("quok"), None, "the index keeps it");
        assert_eq!(narrowed(r#"say "red panda""#), None, "a phrase is not a prefix");
        assert_eq!(narrowed("école"), None, "folded by FTS5 alone");
        assert_eq!(narrowed("foo_bar"), None, "two words to the tokenizer");
        assert_eq!(narrowed("  "), None);
    }

    #[test]
    fn only_the_query_words_stay_marked_in_a_snippet() {
        let n = narrowed("fix parser").unwrap();
        assert_eq!(n.unmark_others("«fix» the «parsing» of «Parsers»…"), "«fix» the parsing of «Parsers»…");
        assert!(n.holds_last("Parsers") && !n.holds_last("parsing"));
        assert_eq!(n.unmark_others("an open «mark"), "an open «mark", "an unclosed mark is left as it is");
    }

    #[test]
    fn matches_fold_as_the_index_does() {
        assert_eq!(fold("Café"), "cafe");
        assert_eq!(fold("ÉCOLE"), "ecole");
        assert_eq!(fold("Quokka"), "quokka");
    }
}
