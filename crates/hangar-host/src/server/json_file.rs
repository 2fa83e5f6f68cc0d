//! The small JSON files of `DATA_DIR/devices/` (device tokens, pairing
//! codes): read (a missing file is the default), replaced atomically (a
//! reader sees the old content or the new), changed under a lock file (one
//! writer at a time, across processes).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a file could not be read, written or locked.
#[derive(Debug, thiserror::Error)]
pub enum JsonFileError {
    /// Reading, writing or locking failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not the JSON expected.
    #[error("{path} is not the list Hangar writes: {source}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What did not parse.
        source: serde_json::Error,
    },
}

/// The content of `path`; the default when it does not exist.
pub(crate) fn read<T: DeserializeOwned + Default>(path: &Path) -> Result<T, JsonFileError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes).map_err(|source| JsonFileError::Corrupt { path: path.to_owned(), source })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(source) => Err(JsonFileError::Io { path: path.to_owned(), source }),
    }
}

/// Replace `path` (in an existing folder) with `value`, atomically.
pub(crate) fn replace<T: Serialize>(path: &Path, value: &T) -> Result<(), JsonFileError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| JsonFileError::Io { path, source }
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let body =
        serde_json::to_vec_pretty(value).map_err(|source| JsonFileError::Corrupt { path: path.to_owned(), source })?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io(dir))?;
    tmp.write_all(&body).and_then(|()| tmp.as_file().sync_all()).map_err(io(tmp.path()))?;
    tmp.persist(path).map_err(|e| JsonFileError::Io { path: path.to_owned(), source: e.error })?;
    Ok(())
}

/// Hold the lock file `name` in `dir` (created with the folder if missing)
/// until the returned file is dropped.
pub(crate) fn lock(dir: &Path, name: &str) -> Result<File, JsonFileError> {
    let io = |source| JsonFileError::Io { path: dir.to_owned(), source };
    std::fs::create_dir_all(dir).map_err(io)?;
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(name)).map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}
