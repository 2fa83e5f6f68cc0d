//! Open a folder or a file with the desktop's own app (Settings' *Open*
//! buttons): `xdg-open PATH`, or the program `HANGAR_DESKTOP_OPENER` names
//! (a seam: the UI tests record what would be opened). The program runs on
//! its own; its exit is reaped on a thread so it leaves no zombie.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::CoreError;

/// Open `path`: an error if it is not there or the opener cannot start.
pub fn open(path: &Path) -> Result<(), CoreError> {
    if !path.exists() {
        return Err(CoreError::NotFound(path.display().to_string()));
    }
    let program = std::env::var_os("HANGAR_DESKTOP_OPENER").unwrap_or_else(|| "xdg-open".into());
    let mut child = Command::new(&program)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| CoreError::Unexpected(format!("{}: {e}", program.to_string_lossy())))?;
    std::thread::spawn(move || child.wait());
    Ok(())
}
