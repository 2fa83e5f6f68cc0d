//! The real `hangar-desktop` binary's command line, with no display (so
//! nothing may reach GTK): `--help` lists every option, `--version` prints
//! the workspace version, an unknown option is an error naming it (exit
//! status 2), and so is a known one without its value.

#![allow(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::process::{Command, Output};

fn app(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hangar-desktop"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        // Not the person's data dir, should anything be written.
        .env("HANGAR_DESKTOP_DATA_DIR", std::env::temp_dir().join("hangar-desktop-cli-test"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_lists_every_option_without_a_display() {
    let out = app(&["--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let help = text(&out.stdout);
    for option in [
        "--agent <ID=COMMAND>",
        "--data-dir <DIR>",
        "--browse-root <DIR>",
        "--no-discover",
        "--config-dir <DIR>",
        "--blank",
        "--webkit-compositing",
        "--version",
    ] {
        assert!(help.contains(option), "{option} is not in:\n{help}");
    }
}

#[test]
fn version_prints_the_workspace_version() {
    let out = app(&["--version"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), format!("hangar-desktop {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn an_unknown_option_is_an_error_that_names_it() {
    let out = app(&["--no-discover", "--frobnicate", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("--frobnicate"), "{err}");
    let out = app(&["--data-dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--data-dir"));
}
