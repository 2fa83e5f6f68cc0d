//! The app's log: what it traces goes to stderr, as before, and to
//! `DATA_DIR/hangar-desktop.log` (the file Settings shows and opens). Each
//! launch starts the file afresh and keeps the previous launch's as
//! `hangar-desktop.log.old`. The filter is `RUST_LOG`, else `warn` on
//! stderr and `info` in the file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// The log file of the app whose data directory is `data_dir`.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("hangar-desktop.log")
}

fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| default.into())
}

/// Open this launch's log file (the previous one kept as `.old`).
fn open(data_dir: &Path) -> std::io::Result<std::fs::File> {
    std::fs::create_dir_all(data_dir)?;
    let file = path(data_dir);
    if file.exists() {
        std::fs::rename(&file, file.with_extension("log.old"))?;
    }
    std::fs::File::create(file)
}

/// Install the subscriber: stderr, and the log file under `data_dir` when
/// it is known and can be written (else a warning on stderr says why).
pub fn init(data_dir: Option<&Path>) {
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(filter("warn"));
    let file = data_dir.map(|d| (d, open(d)));
    let (layer, failed) = match file {
        Some((_, Ok(f))) => {
            let layer = tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(Mutex::new(f))
                .with_filter(filter("info"));
            (Some(layer), None)
        }
        Some((d, Err(e))) => (None, Some(format!("{}: {e}", path(d).display()))),
        None => (None, None),
    };
    tracing_subscriber::registry().with(stderr).with(layer).init();
    if let Some(why) = failed {
        tracing::warn!("no log file: {why}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_launch_starts_the_file_afresh_and_keeps_the_last_one() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::io::Write::write_all(&mut open(&data).unwrap(), b"first launch\n").unwrap();
        open(&data).unwrap();
        assert_eq!(std::fs::read_to_string(path(&data)).unwrap(), "");
        assert_eq!(std::fs::read_to_string(data.join("hangar-desktop.log.old")).unwrap(), "first launch\n");
    }
}
