//! A session's line comments not yet sent to its agent, kept on disk so they
//! survive a restart of the app: one file per session in `reviews/` of the
//! app's data dir (the name is the host id and session URI,
//! percent-encoded), written whole and atomically on every change
//! ([`crate::atomic_file`]), removed when the review is sent or emptied. A
//! file that does not parse is moved aside (`.unreadable`), never
//! overwritten.

use std::path::{Path, PathBuf};

use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde::{Deserialize, Serialize};

use hangar_desktop_protocol::review::ReviewComment;

/// The folder in the data dir.
pub const REVIEWS_DIR: &str = "reviews";

/// Why the comments could not be kept.
#[derive(Debug, thiserror::Error)]
#[error("keeping the review comments in {path}: {source}")]
pub struct ReviewStoreError {
    /// The file.
    pub path: String,
    /// What went wrong.
    #[source]
    pub source: std::io::Error,
}

#[derive(Debug, Serialize, Deserialize)]
struct ReviewFile {
    version: u32,
    host: String,
    session: String,
    comments: Vec<ReviewComment>,
}

/// The kept comments of every session, in one folder.
#[derive(Debug, Clone)]
pub struct ReviewStore {
    dir: PathBuf,
}

impl ReviewStore {
    /// The store in `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        Self { dir: data_dir.join(REVIEWS_DIR) }
    }

    fn path(&self, host: &str, session: &str) -> PathBuf {
        let key = format!("{host} {session}");
        self.dir.join(format!("{}.json", utf8_percent_encode(&key, NON_ALPHANUMERIC)))
    }

    /// The session's comments, oldest first (none when nothing is kept).
    pub fn load(&self, host: &str, session: &str) -> Vec<ReviewComment> {
        let path = self.path(host, session);
        match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<ReviewFile>(&bytes) {
                Ok(file) => file.comments,
                Err(e) => {
                    let mut aside = path.clone().into_os_string();
                    aside.push(".unreadable");
                    tracing::error!("{} does not parse ({e}); moved aside", path.display());
                    if let Err(e) = std::fs::rename(&path, &aside) {
                        tracing::error!("moving {} aside: {e}", path.display());
                    }
                    Vec::new()
                }
            },
            Err(e) => {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::error!("reading {}: {e}", path.display());
                }
                Vec::new()
            }
        }
    }

    /// Keep `comments` as the session's, on disk before this returns; none
    /// removes the file.
    pub fn save(&self, host: &str, session: &str, comments: &[ReviewComment]) -> Result<(), ReviewStoreError> {
        let path = self.path(host, session);
        let err = |source| ReviewStoreError { path: path.display().to_string(), source };
        if comments.is_empty() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(err(e)),
                _ => Ok(()),
            };
        }
        let file =
            ReviewFile { version: 1, host: host.to_owned(), session: session.to_owned(), comments: comments.to_vec() };
        let body = serde_json::to_vec_pretty(&file).map_err(|e| err(std::io::Error::other(e)))?;
        crate::atomic_file::write(&path, &body).map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hangar_desktop_protocol::review::ReviewSide;

    fn comment(id: &str) -> ReviewComment {
        ReviewComment {
            id: id.into(),
            file: "file:///w/a.rs".into(),
            path: "a.rs".into(),
            first_line: 2,
            last_line: 3,
            side: ReviewSide::New,
            quote: vec!["+let x = 1;".into(), " let y = 2;".into()],
            body: "why?".into(),
        }
    }

    #[test]
    fn comments_are_kept_per_session_across_a_reopen_and_removed_when_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let store = ReviewStore::new(dir.path());
        store.save("local", "ahp-session:/a", &[comment("1"), comment("2")]).unwrap();
        store.save("local", "ahp-session:/b", &[comment("3")]).unwrap();
        let reopened = ReviewStore::new(dir.path());
        assert_eq!(reopened.load("local", "ahp-session:/a"), [comment("1"), comment("2")]);
        assert_eq!(reopened.load("other", "ahp-session:/a"), []);
        reopened.save("local", "ahp-session:/a", &[]).unwrap();
        assert_eq!(reopened.load("local", "ahp-session:/a"), []);
        let left = std::fs::read_dir(dir.path().join(REVIEWS_DIR)).unwrap().count();
        assert_eq!(left, 1, "only session b's file is left");
    }

    #[test]
    fn an_unreadable_file_is_moved_aside_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let store = ReviewStore::new(dir.path());
        store.save("local", "s", &[comment("1")]).unwrap();
        let path = store.path("local", "s");
        std::fs::write(&path, "{ not json").unwrap();
        assert_eq!(store.load("local", "s"), []);
        let mut aside = path.into_os_string();
        aside.push(".unreadable");
        assert_eq!(std::fs::read_to_string(aside).unwrap(), "{ not json");
    }
}
