//! The Settings page's commands: its view (the settings, the data dir, the
//! log file, a problem reading the file), saving, and opening the data dir
//! or the log file.

use std::path::PathBuf;

use crate::core::Core;
use crate::error::CoreError;
use hangar_desktop_protocol::settings::{Place, Settings, SettingsView};

fn shown(path: Option<PathBuf>) -> String {
    path.map(|p| p.display().to_string()).unwrap_or_default()
}

/// What Settings shows now.
pub fn view(core: &Core) -> SettingsView {
    let (file, data_dir) = core.settings();
    SettingsView {
        settings: file.get(),
        log_file: shown(data_dir.as_deref().map(crate::log_file::path)),
        data_dir: shown(data_dir),
        problem: file.problem(),
    }
}

/// Keep `settings` (on disk first), serve *Open from other devices* as
/// they say, and answer with the new view. A port the page does not name
/// is the one kept.
pub async fn save(core: &Core, mut settings: Settings) -> Result<SettingsView, CoreError> {
    let file = core.settings().0;
    if settings.open_from_devices.port.is_none() {
        settings.open_from_devices.port = file.get().open_from_devices.port;
    }
    file.save(settings)?;
    crate::devices_page::apply_setting(core).await?;
    Ok(view(core))
}

/// Open the data dir or the log file with the desktop's own app.
pub fn open(core: &Core, place: Place) -> Result<(), CoreError> {
    let data_dir = core.settings().1.ok_or_else(|| CoreError::NotFound("the app has no data directory".into()))?;
    crate::opener::open(&match place {
        Place::DataDir => data_dir,
        Place::LogFile => crate::log_file::path(&data_dir),
    })
}
