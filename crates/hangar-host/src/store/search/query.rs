//! A person's query as an FTS5 MATCH expression. The text is never handed to
//! FTS5 as syntax: it is cut into words and `"quoted phrases"`, each becomes
//! an FTS5 string (inner `"` doubled), and they are joined with spaces
//! (every one must match). The last word, unless it closes a phrase or is
//! a single letter or digit, is a prefix (`"quok"*`): a one-letter prefix
//! would match nearly every word, and the index keeps prefixes of two to
//! four characters only (`schema.rs`). Words without a letter or digit (`-`, `*`, `:`) are
//! dropped: the tokenizer would drop them anyway. So `NEAR`, `AND`, `-x`,
//! `col:x` or a stray `"` are plain words, never operators.

/// Why a query has nothing to search for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Empty, or only spaces.
    #[error("the query is empty")]
    Empty,
    /// Only punctuation: no letter or digit to look for.
    #[error("the query has no letters or digits to search for")]
    NoWords,
}

/// One piece of the query.
pub(super) struct Term {
    /// Its text, as typed (without the quotes of a phrase).
    pub text: String,
    /// Whether it was quoted.
    pub phrase: bool,
}

impl Term {
    /// As an FTS5 string (inner `"` doubled).
    pub fn quoted(&self) -> String {
        format!("\"{}\"", self.text.replace('"', "\"\""))
    }
}

/// The query's terms that have a letter or digit to look for.
pub(super) fn terms(query: &str) -> Vec<Term> {
    split(query).into_iter().filter(|t| t.text.chars().any(char::is_alphanumeric)).collect()
}

/// The MATCH expression for `query`.
pub fn match_expression(query: &str) -> Result<String, QueryError> {
    if query.trim().is_empty() {
        return Err(QueryError::Empty);
    }
    let terms = terms(query);
    let Some(last) = terms.len().checked_sub(1) else {
        return Err(QueryError::NoWords);
    };
    let parts: Vec<String> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let quoted = t.quoted();
            if i == last && !t.phrase && t.text.chars().filter(|c| c.is_alphanumeric()).count() > 1 {
                quoted + "*"
            } else {
                quoted
            }
        })
        .collect();
    Ok(parts.join(" "))
}

/// Words split at whitespace; `"…"` keeps its words together (an unclosed
/// quote runs to the end).
fn split(query: &str) -> Vec<Term> {
    let mut terms = Vec::new();
    let mut current = String::new();
    let mut in_phrase = false;
    for c in query.chars() {
        match c {
            '"' if in_phrase => {
                terms.push(Term { text: std::mem::take(&mut current), phrase: true });
                in_phrase = false;
            }
            '"' => {
                if !current.is_empty() {
                    terms.push(Term { text: std::mem::take(&mut current), phrase: false });
                }
                in_phrase = true;
            }
            c if c.is_whitespace() && !in_phrase => {
                if !current.is_empty() {
                    terms.push(Term { text: std::mem::take(&mut current), phrase: false });
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        terms.push(Term { text: current, phrase: in_phrase });
    }
    terms
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn words_phrases_and_last_word_prefix() {
        assert_eq!(match_expression("quok").as_deref(), Ok(r#""quok"*"#));
        assert_eq!(match_expression("fix  the parser").as_deref(), Ok(r#""fix" "the" "parser"*"#));
        assert_eq!(match_expression(r#"say "red panda""#).as_deref(), Ok(r#""say" "red panda""#));
        assert_eq!(match_expression(r#""red panda" ea"#).as_deref(), Ok(r#""red panda" "ea"*"#));
        assert_eq!(match_expression("fix a").as_deref(), Ok(r#""fix" "a""#), "one letter is a word");
        assert_eq!(match_expression("fix ab").as_deref(), Ok(r#""fix" "ab"*"#));
        assert_eq!(match_expression("  "), Err(QueryError::Empty));
        assert_eq!(match_expression("- * : \"\""), Err(QueryError::NoWords));
    }

    /// Every hostile query is a valid MATCH expression for FTS5 itself.
    #[test]
    fn hostile_input_never_reaches_fts5_as_syntax() -> Result<(), Box<dyn std::error::Error>> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
             INSERT INTO t(body) VALUES('NEAR the quokka: a-b \"c\" * d'), ('col:x OR y AND z NOT w');",
        )?;
        let hostile = [
            "\"",
            "\"\"\"",
            "a\"b",
            "quokka\"",
            "*",
            "a*",
            "*a",
            "NEAR(a b)",
            "NEAR",
            "a NEAR b",
            "-quokka",
            "quokka -",
            "body:quokka",
            "col:x",
            "{body}: x",
            "^quokka",
            "a OR b",
            "AND",
            "NOT x",
            "x AND",
            "(",
            ")",
            "a) OR (b",
            "'",
            "\\",
            "+x",
            "a:b:c",
            "\u{0}",
            "日本語",
            "ÉCOLE",
            "x\"y\"z\"",
        ];
        for q in hostile {
            let Ok(expr) = match_expression(q) else { continue };
            let mut stmt = conn.prepare("SELECT COUNT(*) FROM t WHERE t MATCH ?1")?;
            let r: rusqlite::Result<i64> = stmt.query_row([&expr], |r| r.get(0));
            assert!(r.is_ok(), "{q:?} → {expr:?}: {r:?}");
        }
        let n: i64 =
            conn.query_row("SELECT COUNT(*) FROM t WHERE t MATCH ?1", [match_expression("NEAR the")?], |r| r.get(0))?;
        assert_eq!(n, 1, "NEAR is a word");
        let n: i64 =
            conn.query_row("SELECT COUNT(*) FROM t WHERE t MATCH ?1", [match_expression("col:x OR")?], |r| r.get(0))?;
        assert_eq!(n, 1, "col:x OR is three words");
        Ok(())
    }
}
