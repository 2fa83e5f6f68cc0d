//! The app's Settings and About: the settings kept in `settings.json`
//! (theme, which notifications are shown, what *New session* starts with),
//! the Settings page's view (with where the data and the log are), what
//! `settings.open` opens, and the About box (the app's version, each
//! host's version and the AHP version negotiated with it).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The colour theme.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum Theme {
    /// Follow the system's light or dark preference.
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

/// Which desktop notifications are shown (only ever while the window is
/// not focused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct NotifySettings {
    /// A tool call waits for approval.
    pub approvals: bool,
    /// The agent asks a question (an input request).
    pub questions: bool,
    /// A turn finished.
    pub finished_turns: bool,
    /// A turn or a session's start failed.
    pub failures: bool,
}

impl Default for NotifySettings {
    fn default() -> Self {
        Self { approvals: true, questions: true, finished_turns: true, failures: true }
    }
}

/// What the *New session* dialog starts with; each field that is `None`
/// (or no longer offered) leaves the dialog's own choice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct NewSessionDefaults {
    /// The host id.
    pub host: Option<String>,
    /// The agent (provider id) on that host.
    pub agent: Option<String>,
    /// The folder (a `file://` URI on that host).
    pub folder: Option<String>,
    /// The folders whose new sessions start in a new worktree ("In a new
    /// worktree" pre-checked; set in Settings, and remembered from the New
    /// session dialog's checkbox).
    pub worktree_folders: Vec<FolderOnHost>,
}

/// A folder on a host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FolderOnHost {
    /// The host id.
    pub host: String,
    /// The folder (a `file://` URI on that host).
    pub folder: String,
}

/// The app's settings (`DATA_DIR/settings.json`). Fields missing from the
/// file take their defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// The colour theme.
    pub theme: Theme,
    /// Which notifications are shown.
    pub notify: NotifySettings,
    /// What *New session* starts with.
    pub new_session: NewSessionDefaults,
    /// *Open from other devices* (off by default).
    pub open_from_devices: crate::devices::DeviceAccess,
    /// The merge mode last chosen in the Changes panel's *Merge back* for
    /// each repository folder (the one a worktree session was made from).
    pub merge_modes: Vec<FolderMergeMode>,
}

/// The merge mode last chosen for a repository folder on a host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FolderMergeMode {
    /// The host id.
    pub host: String,
    /// The repository's folder, as the host names it (`hangar/worktree.repository`).
    pub folder: String,
    /// `merge`, `squash` or `rebase` (`changes.mergeBack`'s `mode`).
    pub mode: String,
}

/// The Settings page: the settings and where the app keeps its things.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    /// The settings.
    pub settings: Settings,
    /// The data directory (sessions, settings, the log).
    pub data_dir: String,
    /// The log file.
    pub log_file: String,
    /// Why the settings file could not be read at launch, and where it was
    /// moved (the defaults are used), until the settings are saved again.
    pub problem: Option<String>,
}

/// A place `settings.open` opens in the desktop's file manager or editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum Place {
    /// The data directory.
    DataDir,
    /// The log file.
    LogFile,
}

/// `settings.open`'s arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct OpenArgs {
    /// What to open.
    pub place: Place,
}

/// One host in the About box.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AboutHost {
    /// Its id.
    pub id: String,
    /// Its label.
    pub label: String,
    /// Whether it is connected now.
    pub connected: bool,
    /// The host software's name and version (its `initialize` answer's
    /// `serverInfo`), once it has connected.
    pub software: Option<String>,
    /// The AHP version negotiated with it.
    pub protocol_version: Option<String>,
}

/// The About box.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AboutView {
    /// The app's version.
    pub version: String,
    /// Every host, the embedded one first.
    pub hosts: Vec<AboutHost>,
}
