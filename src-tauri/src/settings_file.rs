//! The app's settings on disk: `DATA_DIR/settings.json`, read at launch and
//! written whole on every change, atomically (a temp file beside it, then a
//! rename), so a crash mid-write leaves the old file or the new one. A file
//! that does not parse is never silently dropped: it is moved aside to
//! `settings.json.corrupt-SECONDS`, the defaults are used, and the problem
//! is reported (Settings shows it) until the settings are saved again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hangar_host::locks::lock;

use hangar_desktop_protocol::settings::Settings;

/// Why the settings could not be saved.
#[derive(Debug, thiserror::Error)]
#[error("saving the settings to {path}: {source}")]
pub struct SaveError {
    path: String,
    #[source]
    source: std::io::Error,
}

struct Kept {
    settings: Settings,
    problem: Option<String>,
}

/// The settings, kept in a file (or, without one, in memory).
pub struct SettingsFile {
    path: Option<PathBuf>,
    kept: Mutex<Kept>,
}

impl Default for SettingsFile {
    /// In memory only (a core started without a data dir, as in tests).
    fn default() -> Self {
        Self { path: None, kept: Mutex::new(Kept { settings: Settings::default(), problem: None }) }
    }
}

/// Read `path`: the defaults when it is missing; when it cannot be read or
/// parsed, the defaults and why (the file moved aside when it is there).
fn read(path: &Path) -> (Settings, Option<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Settings::default(), None),
        Err(e) => {
            return (
                Settings::default(),
                Some(format!("{} could not be read ({e}); the defaults are used", path.display())),
            )
        }
    };
    match serde_json::from_str(&text) {
        Ok(s) => (s, None),
        Err(e) => {
            let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
            let aside = path.with_extension(format!("json.corrupt-{secs}"));
            let moved = match std::fs::rename(path, &aside) {
                Ok(()) => format!("it was moved to {}", aside.display()),
                Err(m) => format!("moving it aside failed ({m})"),
            };
            tracing::warn!("{}: {e}; {moved}", path.display());
            (
                Settings::default(),
                Some(format!("{} was not valid ({e}); {moved} and the defaults are used", path.display())),
            )
        }
    }
}

impl SettingsFile {
    /// The settings in `path` (see [`read`]).
    pub fn open(path: PathBuf) -> Self {
        let (settings, problem) = read(&path);
        Self { path: Some(path), kept: Mutex::new(Kept { settings, problem }) }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        lock(&self.kept)
    }

    /// The current settings.
    pub fn get(&self) -> Settings {
        self.kept().settings.clone()
    }

    /// What went wrong reading the file at launch, until the next save.
    pub fn problem(&self) -> Option<String> {
        self.kept().problem.clone()
    }

    /// Keep `settings`: written to the file (temp file + rename) first, and
    /// only then taken.
    pub fn save(&self, settings: Settings) -> Result<(), SaveError> {
        let mut kept = self.kept();
        if let Some(path) = &self.path {
            let err = |source| SaveError { path: path.display().to_string(), source };
            let text = serde_json::to_vec_pretty(&settings).map_err(|e| err(std::io::Error::other(e)))?;
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(err)?;
            }
            // Synced before the rename: after a power cut the file holds the
            // old settings or the new ones, never an empty file.
            let tmp = path.with_extension("json.tmp");
            let mut file = std::fs::File::create(&tmp).map_err(err)?;
            file.write_all(&text).and_then(|()| file.sync_all()).map_err(err)?;
            std::fs::rename(&tmp, path).map_err(err)?;
        }
        *kept = Kept { settings, problem: None };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hangar_desktop_protocol::settings::Theme;

    #[test]
    fn saved_settings_are_there_at_the_next_launch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data/settings.json");
        let file = SettingsFile::open(path.clone());
        assert_eq!(file.get(), Settings::default());
        assert_eq!(file.problem(), None);
        let mut s = Settings { theme: Theme::Dark, ..Settings::default() };
        s.notify.finished_turns = false;
        s.new_session.folder = Some("file:///w".into());
        file.save(s.clone()).unwrap();
        assert_eq!(SettingsFile::open(path.clone()).get(), s);
        assert!(!path.with_extension("json.tmp").exists(), "the temp file is renamed over the file");
    }

    #[test]
    fn a_corrupt_file_is_moved_aside_and_reported_never_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{\"theme\": \"dark\",").unwrap();
        let file = SettingsFile::open(path.clone());
        assert_eq!(file.get(), Settings::default());
        let problem = file.problem().unwrap();
        assert!(problem.contains("was not valid") && problem.contains("corrupt-"), "{problem}");
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("settings.json.corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");
        assert_eq!(std::fs::read_to_string(dir.path().join(&aside[0])).unwrap(), "{\"theme\": \"dark\",");
        assert!(!path.exists());
        file.save(Settings::default()).unwrap();
        assert_eq!(file.problem(), None, "a save clears the report");
    }

    #[test]
    fn fields_missing_from_the_file_take_their_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, r#"{"theme":"light","notify":{"approvals":false}}"#).unwrap();
        let s = SettingsFile::open(path).get();
        assert_eq!(s.theme, Theme::Light);
        assert!(!s.notify.approvals && s.notify.questions && s.notify.failures);
    }
}
