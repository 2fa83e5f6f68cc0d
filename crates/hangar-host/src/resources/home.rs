//! The user's home directory and the defaults derived from it: the one rule
//! for finding home, and the credential folders under it that no grant
//! opens. `config` builds its defaults from these, so `resources`
//! never reaches back into the configuration.

use std::path::{Path, PathBuf};

/// The user's home directory, when `HOME` names an absolute path (the one
/// rule for every default derived from it).
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from).filter(|p| p.is_absolute())
}

/// Credential folders and files under `home` that no grant opens: SSH, GnuPG,
/// cloud and registry tokens, keyrings, password stores.
pub fn credential_dirs(home: &Path) -> Vec<PathBuf> {
    [
        ".ssh",
        ".gnupg",
        ".aws",
        ".azure",
        ".kube",
        ".docker",
        ".password-store",
        ".netrc",
        ".git-credentials",
        ".pypirc",
        ".npmrc",
        ".cargo/credentials",
        ".cargo/credentials.toml",
        ".config/gh",
        ".config/gcloud",
        ".config/hub",
        ".local/share/keyrings",
    ]
    .iter()
    .map(|name| home.join(name))
    .collect()
}
