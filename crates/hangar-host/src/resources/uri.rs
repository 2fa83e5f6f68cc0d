//! `file:` URI <-> absolute path, strictly.
//!
//! Parsing is deliberately narrower than RFC 8089: only the `file` scheme, an
//! empty or `localhost` authority, an absolute path, no query or fragment. Each
//! path segment is percent-decoded on its own, and a segment that would decode
//! to a separator (`%2F`, `%5C`) or NUL (`%00`) is refused, as are raw
//! backslashes and the dot segments `.`/`..` (also when encoded as `%2E`).
//! Empty segments (`a//b`) collapse. The result is an absolute path with only
//! normal components, so the policy never has to reason about `..`.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};

use percent_encoding::{percent_decode, AsciiSet, CONTROLS};

/// Why a URI is not accepted as a host file path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    /// The URI has a scheme other than `file:` (or none at all).
    #[error("unsupported URI scheme `{0}`: only file: URIs are served")]
    UnsupportedScheme(String),
    /// The URI is not well formed.
    #[error("malformed file URI: {0}")]
    Malformed(&'static str),
    /// A segment encodes a path separator or NUL (`%2F`, `%5C`, `%00`), or has a raw backslash.
    #[error("file URI encodes a path separator or NUL")]
    EncodedSeparator,
    /// A `.` or `..` segment.
    #[error("file URI contains a `.` or `..` segment")]
    DotSegment,
    /// A non-local authority (`file://otherhost/...`).
    #[error("file URI names a remote host")]
    RemoteHost,
}

/// Characters percent-encoded in a path segment when building a URI.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The scheme of `uri` (lower-cased), if it has a syntactically valid one.
pub fn scheme_of(uri: &str) -> Option<String> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic() || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
        return None;
    }
    Some(scheme.to_ascii_lowercase())
}

/// Parse a `file:` URI into an absolute path made of normal components only.
pub fn file_uri_to_path(uri: &str) -> Result<PathBuf, UriError> {
    let scheme = scheme_of(uri).ok_or(UriError::Malformed("missing scheme"))?;
    if scheme != "file" {
        return Err(UriError::UnsupportedScheme(scheme));
    }
    let rest = &uri[scheme.len() + 1..];
    if rest.contains(['?', '#']) {
        return Err(UriError::Malformed("query or fragment in file URI"));
    }
    let path_part = if let Some(after) = rest.strip_prefix("//") {
        let slash = after.find('/').ok_or(UriError::Malformed("file URI has no path"))?;
        let host = &after[..slash];
        if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
            return Err(UriError::RemoteHost);
        }
        &after[slash..]
    } else {
        rest
    };
    if !path_part.starts_with('/') {
        return Err(UriError::Malformed("file URI path is not absolute"));
    }
    let mut out: Vec<u8> = Vec::with_capacity(path_part.len());
    for segment in path_part.split('/') {
        if segment.is_empty() {
            continue;
        }
        if segment.contains('\\') {
            return Err(UriError::EncodedSeparator);
        }
        let lower = segment.to_ascii_lowercase();
        if lower.contains("%2f") || lower.contains("%5c") || lower.contains("%00") {
            return Err(UriError::EncodedSeparator);
        }
        validate_escapes(segment)?;
        let decoded: Vec<u8> = percent_decode(segment.as_bytes()).collect();
        if decoded.contains(&0) || decoded.contains(&b'/') || decoded.contains(&b'\\') {
            return Err(UriError::EncodedSeparator);
        }
        if decoded == b"." || decoded == b".." {
            return Err(UriError::DotSegment);
        }
        out.push(b'/');
        out.extend_from_slice(&decoded);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    let path = PathBuf::from(OsString::from_vec(out));
    debug_assert!(path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_))));
    Ok(path)
}

/// Every `%` must start a valid two-hex-digit escape.
fn validate_escapes(segment: &str) -> Result<(), UriError> {
    let bytes = segment.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let ok = bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
            if !ok {
                return Err(UriError::Malformed("invalid percent escape"));
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    Ok(())
}

/// Build a `file:///...` URI for an absolute path: each segment is
/// percent-encoded on its own (space, `#`, `?`, `%`, non-ASCII bytes, ...),
/// the `/` between them is kept, and `.`/`..` are resolved lexically, so the
/// result always parses back with [`file_uri_to_path`].
pub fn path_to_file_uri(path: &Path) -> String {
    let mut names = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::ParentDir => {
                names.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    if names.is_empty() {
        return String::from("file:///");
    }
    let mut uri = String::from("file://");
    for name in names {
        uri.push('/');
        uri.extend(percent_encoding::percent_encode(name.as_bytes(), SEGMENT));
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_localhost_forms() {
        assert_eq!(file_uri_to_path("file:///tmp/a%20b/c.txt"), Ok(PathBuf::from("/tmp/a b/c.txt")));
        assert_eq!(file_uri_to_path("file://localhost/tmp/x"), Ok(PathBuf::from("/tmp/x")));
        assert_eq!(file_uri_to_path("FILE:/tmp//x/"), Ok(PathBuf::from("/tmp/x")));
        assert_eq!(file_uri_to_path("file:///"), Ok(PathBuf::from("/")));
    }

    #[test]
    fn refuses_other_schemes() {
        assert!(matches!(file_uri_to_path("http://example.com/a"), Err(UriError::UnsupportedScheme(s)) if s == "http"));
        assert!(matches!(file_uri_to_path("ahp-session:/abc"), Err(UriError::UnsupportedScheme(_))));
        assert!(matches!(file_uri_to_path("/etc/passwd"), Err(UriError::Malformed(_))));
        assert!(matches!(file_uri_to_path("virtual://x/y"), Err(UriError::UnsupportedScheme(_))));
    }

    #[test]
    fn refuses_encoded_separators_and_nul() {
        for bad in
            ["file:///tmp/a%2Fb", "file:///tmp/a%2fb", "file:///tmp/a%5Cb", "file:///tmp/a%00b", "file:///tmp/a\\b"]
        {
            assert_eq!(file_uri_to_path(bad), Err(UriError::EncodedSeparator), "{bad}");
        }
    }

    #[test]
    fn refuses_dot_segments_and_remote_hosts_and_bad_escapes() {
        assert_eq!(file_uri_to_path("file:///tmp/../etc/passwd"), Err(UriError::DotSegment));
        assert_eq!(file_uri_to_path("file:///tmp/%2e%2E/etc"), Err(UriError::DotSegment));
        assert_eq!(file_uri_to_path("file:///tmp/./x"), Err(UriError::DotSegment));
        assert_eq!(file_uri_to_path("file://evil.example/etc"), Err(UriError::RemoteHost));
        assert!(matches!(file_uri_to_path("file:///tmp/%zz"), Err(UriError::Malformed(_))));
        assert!(matches!(file_uri_to_path("file:///tmp/a?b"), Err(UriError::Malformed(_))));
        assert!(matches!(file_uri_to_path("file:relative/x"), Err(UriError::Malformed(_))));
    }

    #[test]
    fn round_trips() {
        for p in ["/tmp/a b/ü#?%.txt", "/", "/x/[y]/z", "/My Projects/a#1/b?c/100%/naïve 日本.rs", "/%20/%2F"] {
            let uri = path_to_file_uri(Path::new(p));
            assert!(!uri.contains([' ', '#', '?']) && uri.is_ascii(), "{uri}");
            assert_eq!(file_uri_to_path(&uri), Ok(PathBuf::from(p)), "{uri}");
        }
        assert_eq!(path_to_file_uri(Path::new("/tmp/a b")), "file:///tmp/a%20b");
        assert_eq!(path_to_file_uri(Path::new("/a b/#?%/é")), "file:///a%20b/%23%3F%25/%C3%A9");
    }

    #[test]
    fn non_utf8_names_round_trip() {
        let p = PathBuf::from(OsString::from_vec(b"/tmp/\xff\xfe x".to_vec()));
        let uri = path_to_file_uri(&p);
        assert_eq!(uri, "file:///tmp/%FF%FE%20x");
        assert_eq!(file_uri_to_path(&uri), Ok(p));
    }

    #[test]
    fn dot_segments_are_resolved_not_dropped() {
        assert_eq!(path_to_file_uri(Path::new("/w/src/../a b/./c")), "file:///w/a%20b/c");
        assert_eq!(path_to_file_uri(Path::new("/..")), "file:///");
    }
}
