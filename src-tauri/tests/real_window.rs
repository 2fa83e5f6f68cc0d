//! Runs the real-window tests (`ui/tests/window/run.mjs`): the real
//! `hangar-desktop` binary (built by cargo for this test) in its WebKitGTK
//! window on an X display, driven through Debian's `WebKitWebDriver`
//! (apt `webkit2gtk-driver`) by a zero-dependency Node WebDriver client,
//! with the fake ACP agent. Needs `DISPLAY` (run under
//! `xvfb-run -a -s "-screen 0 1280x800x24"`), `WebKitWebDriver` on `PATH`,
//! `ui/dist` (`cd ui && npm run build`) and `node`. Skipped when those are
//! missing unless `HANGAR_REQUIRE_WINDOW=1` (CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn on_path(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Some(PathBuf::from(name)).filter(|p| p.exists());
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

#[test]
fn ui_in_the_real_window() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let app = PathBuf::from(env!("CARGO_BIN_EXE_hangar-desktop"));
    let fake = app.with_file_name("hangar-fake-agent");
    let hangar = app.with_file_name("hangar");
    let driver = std::env::var("WEBKIT_DRIVER").unwrap_or_else(|_| "WebKitWebDriver".into());
    let mut missing: Vec<String> = [
        (root.join("ui/dist/index.html").exists(), "ui/dist (npm run build)"),
        (fake.exists(), "hangar-fake-agent (cargo build -p hangar-fake-agent)"),
        (hangar.exists(), "hangar (cargo build -p hangar-cli): the remote hosts"),
        (on_path(&driver).is_some(), "WebKitWebDriver (apt webkit2gtk-driver)"),
        (on_path("node").is_some(), "node"),
    ]
    .into_iter()
    .filter(|(ok, _)| !ok)
    .map(|(_, what)| what.to_owned())
    .collect();
    if std::env::var_os("DISPLAY").filter(|d| !d.is_empty()).is_none() {
        missing.push("an X display: DISPLAY is unset (run under xvfb-run -a)".into());
    }
    if !missing.is_empty() {
        assert!(
            std::env::var_os("HANGAR_REQUIRE_WINDOW").is_none(),
            "real-window tests required but missing: {missing:?}"
        );
        eprintln!("skipped: missing {missing:?}");
        return;
    }
    let mut cmd = Command::new("node");
    cmd.arg(root.join("ui/tests/window/run.mjs"))
        .env("APP_BIN", &app)
        .env("FAKE_AGENT_BIN", &fake)
        .env("HANGAR_BIN", &hangar)
        .env("WEBKIT_DRIVER", &driver);
    if let Some(dir) = std::env::var_os("SCREENSHOT_DIR") {
        cmd.env("SCREENSHOT_DIR", dir);
    }
    let status = cmd.status().unwrap();
    assert!(status.success(), "real-window tests failed (see the lines above)");
}
