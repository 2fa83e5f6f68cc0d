//! The user's home directory and the defaults derived from it: the one rule
//! for finding home, and the credential folders under it that no grant
//! opens. `config` builds its defaults from these, so `resources`
//! never reaches back into the configuration. For tests: `FakeHome`, the
//! one fixture of a home with a private key to keep out.

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

/// A home for tests of the never-served paths: a canonical temporary folder
/// holding a private key in `.ssh` (`.ssh/id_ed25519`, "PRIVATE KEY"),
/// removed when dropped.
#[cfg(test)]
pub(crate) struct FakeHome {
    _dir: tempfile::TempDir,
    /// The home folder (canonical).
    pub home: PathBuf,
    /// Its `.ssh` folder.
    pub ssh: PathBuf,
}

#[cfg(test)]
impl FakeHome {
    pub(crate) fn new() -> std::io::Result<Self> {
        let dir = tempfile::tempdir()?;
        let home = dir.path().canonicalize()?;
        let ssh = home.join(".ssh");
        std::fs::create_dir(&ssh)?;
        std::fs::write(ssh.join("id_ed25519"), "PRIVATE KEY")?;
        Ok(Self { _dir: dir, home, ssh })
    }
}
