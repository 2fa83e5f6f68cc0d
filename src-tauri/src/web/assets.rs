//! The built UI (`ui/dist`), embedded in the binary at compile time
//! (`include_dir`; `build.rs` writes a placeholder page when it was not
//! built), served at `/` and `/assets/…` with its content type. Vite's
//! asset names carry a content hash, so they may be cached; the page itself
//! may not (`guard.rs`).

use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use include_dir::{include_dir, Dir};

static DIST: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../ui/dist");

/// `GET` of a file of the UI; any path without a file is the page itself.
pub(super) async fn asset(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let file = DIST.get_file(path).or_else(|| DIST.get_file("index.html"));
    let Some(file) = file else {
        return (StatusCode::NOT_FOUND, "the UI was not built into this binary").into_response();
    };
    let mime = mime_guess::from_path(file.path()).first_or_octet_stream();
    let immutable = file.path().starts_with("assets");
    let cache = if immutable { "public, max-age=31536000, immutable" } else { "no-store" };
    ([(header::CONTENT_TYPE, mime.as_ref()), (header::CACHE_CONTROL, cache)], file.contents()).into_response()
}
