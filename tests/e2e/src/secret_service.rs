//! [`SecretService`]: a real Secret Service for keyring tests — a private
//! D-Bus session (`dbus-run-session`) with `gnome-keyring-daemon` unlocked
//! in it (a non-empty password, or no "login" collection is made), its
//! files in a temporary HOME. Processes get it through [`SecretService::env`].
//! The session lives while its `cat` reads our pipe: dropping the handle (or
//! the test process dying) closes the pipe, which ends the session, and
//! gnome-keyring-daemon leaves with its bus.
//!
//! Unavailable (no `dbus-run-session` or `gnome-keyring-daemon`): the test
//! is skipped with a message, unless `HANGAR_REQUIRE_KEYRING` is set
//! (scripts/test.sh sets it, after scripts/setup.sh installed both).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Unlocks gnome-keyring's login collection, prints the bus address, then
/// holds the session open until stdin closes.
const SESSION_SCRIPT: &str = r#"set -e
eval "$(printf %s hangar-test-password | gnome-keyring-daemon --unlock --components=secrets)"
echo "DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
exec cat >/dev/null"#;

/// A running private Secret Service.
pub struct SecretService {
    session: Child,
    bus_address: String,
    tmp: tempfile::TempDir,
}

impl SecretService {
    /// Start one, or `None` (after saying why) when the tools are missing
    /// and `HANGAR_REQUIRE_KEYRING` is unset.
    pub fn start() -> Option<Self> {
        let missing: Vec<&str> =
            ["dbus-run-session", "gnome-keyring-daemon"].into_iter().filter(|tool| !on_path(tool)).collect();
        if !missing.is_empty() {
            let why = format!(
                "{} not found: install the apt packages dbus-daemon and gnome-keyring (scripts/setup.sh does)",
                missing.join(" and ")
            );
            assert!(std::env::var_os("HANGAR_REQUIRE_KEYRING").is_none(), "HANGAR_REQUIRE_KEYRING is set but {why}");
            eprintln!("SKIPPED: no Secret Service for the keyring test: {why}");
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        let runtime_dir = tmp.path().join("run");
        std::fs::create_dir_all(&runtime_dir).unwrap();
        std::fs::set_permissions(&runtime_dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        let mut session = Command::new("dbus-run-session")
            .args(["--", "sh", "-c", SESSION_SCRIPT])
            .env("HOME", tmp.path())
            .env("XDG_DATA_HOME", tmp.path().join("share"))
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("DISPLAY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(session.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let bus_address = line.trim().strip_prefix("DBUS_SESSION_BUS_ADDRESS=").unwrap_or_default().to_owned();
        assert!(!bus_address.is_empty(), "the Secret Service session did not start (got {line:?})");
        Some(Self { session, bus_address, tmp })
    }

    /// The environment a process needs to use this Secret Service.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![("DBUS_SESSION_BUS_ADDRESS".into(), self.bus_address.clone())]
    }

    /// Its HOME: where gnome-keyring keeps its (encrypted) keyring files.
    pub fn home(&self) -> &Path {
        self.tmp.path()
    }
}

impl Drop for SecretService {
    fn drop(&mut self) {
        drop(self.session.stdin.take());
        let _ = self.session.wait();
    }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| is_executable(&dir.join(tool))))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}
