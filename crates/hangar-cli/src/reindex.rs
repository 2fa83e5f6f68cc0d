//! `hangar reindex --data-dir D`: build the search index again from the
//! store (`hangar_host::store::search`), while no host serves that data
//! directory. A host also rebuilds it at start when it is missing or older.

use std::path::PathBuf;

use clap::Args;

use crate::serve::data_dir;

/// `hangar reindex`'s arguments.
#[derive(Args)]
pub struct ReindexArgs {
    /// Data directory [default: the platform data dir, ~/.local/share/hangar on Linux].
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

/// Rebuild, print what was indexed.
pub fn run(args: ReindexArgs) -> Result<(), String> {
    let dir = data_dir(args.data_dir).map_err(|e| e.to_string())?;
    let lock_path = dir.join("hangar.lock");
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("opening {}: {e}", lock_path.display()))?;
    if lock.try_lock().is_err() {
        return Err(format!("a host is serving {}; stop it first (it keeps the index current)", dir.display()));
    }
    let report = hangar_host::store::reindex(&dir.join("hangar.db")).map_err(|e| e.to_string())?;
    println!(
        "search index rebuilt in {}: {} session titles, {} turns, {} ms",
        dir.display(),
        report.titles,
        report.turns,
        report.took.as_millis()
    );
    Ok(())
}
