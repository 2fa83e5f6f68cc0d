//! Reading a customization file as text (size cap, UTF-8, no BOM) and
//! turning byte offsets into AHP `TextRange`s (zero-based lines; characters
//! in UTF-16 code units, as LSP and VS Code count them).

use std::path::Path;

use ahp_types::state::{TextPosition, TextRange};

/// Larger files are not customizations anyone wrote by hand
/// (`~/.claude.json` can reach a few MiB with its project history).
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The text of a file without a leading UTF-8 BOM, or why it can't be read.
pub fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let size = file.metadata().map_err(|e| e.to_string())?.len();
    if size > MAX_BYTES {
        return Err(format!("larger than {MAX_BYTES} bytes"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(MAX_BYTES).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|e| format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// Byte offset → line/character over one text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
}

impl LineIndex {
    /// Index the line starts of `text` (`\n` ends a line; a `\r` before it
    /// belongs to the line it ends).
    pub fn new(text: &str) -> Self {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Self { starts }
    }

    /// The position of byte `offset` of `text` (clamped to the text).
    pub fn position(&self, text: &str, offset: usize) -> TextPosition {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|start| *start <= offset).saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        let character = text.get(start..offset).map_or(0, |s| s.encode_utf16().count());
        TextPosition { line: line as i64, character: character as i64 }
    }

    /// The range of bytes `span` of `text`.
    pub fn range(&self, text: &str, span: std::ops::Range<usize>) -> TextRange {
        TextRange { start: self.position(text, span.start), end: self.position(text, span.end) }
    }
}

/// `"line N"` (one-based, as editors show it) of byte `offset`.
pub fn line_label(text: &str, offset: usize) -> String {
    let line = text.get(..offset.min(text.len())).map_or(0, |s| s.matches('\n').count());
    format!("line {}", line + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_utf16_units() {
        let text = "ab\r\né😀x\nlast";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 0), TextPosition { line: 0, character: 0 });
        let x = text.find('x').unwrap();
        assert_eq!(index.position(text, x), TextPosition { line: 1, character: 3 });
        assert_eq!(index.position(text, text.len()), TextPosition { line: 2, character: 4 });
        assert_eq!(line_label(text, x), "line 2");
    }

    #[test]
    fn a_bom_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "\u{feff}hi").unwrap();
        assert_eq!(read_text(&path).unwrap(), "hi");
    }
}
