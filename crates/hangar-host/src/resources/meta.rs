//! File metadata as the protocol shows it: etags, ISO 8601 times, content types.

use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::SystemTime;

/// Opaque version token: inode, size and mtime (ns). Any write changes it.
pub fn etag(meta: &Metadata) -> String {
    let mtime_ns = (meta.mtime() as i128) * 1_000_000_000 + meta.mtime_nsec() as i128;
    format!("\"{:x}-{:x}-{:x}-{:x}\"", meta.dev(), meta.ino(), meta.size(), mtime_ns)
}

/// ISO 8601 (RFC 3339, UTC) form of a system time.
pub fn iso(time: std::io::Result<SystemTime>) -> Option<String> {
    let time = time.ok()?;
    jiff::Timestamp::try_from(time).ok().map(|t| t.to_string())
}

/// Content type from the file extension, when it is a well-known one.
pub fn content_type_for(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "txt" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "tsx" | "jsx" => "text/typescript",
        "json" => "application/json",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "rs" => "text/x-rust",
        "py" => "text/x-python",
        "c" | "h" => "text/x-c",
        "cpp" | "cc" | "hpp" => "text/x-c++",
        "go" => "text/x-go",
        "java" => "text/x-java",
        "sh" => "application/x-sh",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "tar" => "application/x-tar",
        "wasm" => "application/wasm",
        "mp3" => "audio/mpeg",
        "mp4" => "video/mp4",
        _ => return None,
    })
}

/// Content type of read bytes: by extension, else sniffed as text or binary.
pub fn sniff(path: &Path, bytes: &[u8], is_utf8: bool) -> String {
    if let Some(ct) = content_type_for(path) {
        return ct.to_owned();
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png".to_owned()
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        "image/jpeg".to_owned()
    } else if bytes.starts_with(b"%PDF-") {
        "application/pdf".to_owned()
    } else if is_utf8 && !bytes.contains(&0) {
        "text/plain".to_owned()
    } else {
        "application/octet-stream".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etag_changes_with_content_and_types_are_sniffed() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let f = dir.path().join("a.bin");
        std::fs::write(&f, b"one")?;
        let e1 = etag(&std::fs::metadata(&f)?);
        std::fs::write(&f, b"three")?;
        assert_ne!(e1, etag(&std::fs::metadata(&f)?));
        assert!(iso(std::fs::metadata(&f)?.modified()).is_some_and(|s| s.ends_with('Z')));
        assert_eq!(sniff(Path::new("x.rs"), b"fn", true), "text/x-rust");
        assert_eq!(sniff(Path::new("x"), b"hello", true), "text/plain");
        assert_eq!(sniff(Path::new("x"), b"\x00\x01", false), "application/octet-stream");
        Ok(())
    }
}
