//! A terminal's retained output and the decoding of its byte stream.

/// What ACP `terminal/output` returns: the newest `limit` bytes of the
/// output, cut at a character boundary, and whether anything was cut.
#[derive(Debug, Clone)]
pub struct Output {
    text: String,
    limit: usize,
    truncated: bool,
}

impl Output {
    /// Keep at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self { text: String::new(), limit, truncated: false }
    }

    /// Append `more`, dropping the oldest text beyond the limit.
    pub fn push(&mut self, more: &str) {
        self.text.push_str(more);
        if self.text.len() <= self.limit {
            return;
        }
        let mut cut = self.text.len() - self.limit;
        while !self.text.is_char_boundary(cut) {
            cut += 1;
        }
        self.text.drain(..cut);
        self.truncated = true;
    }

    /// The retained text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether older output was dropped.
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

/// Bytes read in arbitrary pieces, as text: an incomplete UTF-8 sequence
/// at the end of a piece waits for the next one; invalid bytes become
/// U+FFFD.
#[derive(Debug, Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// The text of `bytes` after what was held back before.
    pub fn decode(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    out.push_str(valid);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        self.pending = rest.to_vec();
        out
    }

    /// What is left at the end of the stream (an incomplete sequence).
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        String::from_utf8_lossy(&rest).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_keeps_the_newest_bytes_at_a_character_boundary() {
        let mut out = Output::new(5);
        out.push("abc");
        assert_eq!((out.text(), out.truncated()), ("abc", false));
        out.push("déf");
        // "abcdéf" is 7 bytes; cutting 2 lands inside nothing, "cdéf" is 5.
        assert_eq!((out.text(), out.truncated()), ("cdéf", true));
        out.push("é");
        assert_eq!(out.text(), "éfé");
        // A cut inside a character drops the whole character.
        let mut out = Output::new(7);
        out.push("éab");
        out.push("cdef");
        assert_eq!(out.text(), "abcdef");
    }

    #[test]
    fn a_character_split_between_reads_is_kept_whole() {
        let mut s = Utf8Stream::default();
        let bytes = "né".as_bytes();
        assert_eq!(s.decode(&bytes[..2]), "n");
        assert_eq!(s.decode(&bytes[2..]), "é");
        assert_eq!(s.decode(b"a\xffb"), "a\u{fffd}b");
        assert_eq!(s.decode(&[0xc3]), "");
        assert_eq!(s.finish(), "\u{fffd}");
    }
}
