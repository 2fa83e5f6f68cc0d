//! `hangar-desktop`: the desktop app. See the crate docs of `hangar_desktop`.
//! The options are parsed first (`--help`, `--version` and a bad option
//! print and exit before any window or display is touched), then the log
//! is set up.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use clap::Parser;
use hangar_desktop::options::AppOptions;

fn main() -> std::process::ExitCode {
    let options = AppOptions::parse();
    hangar_desktop::log_file::init(hangar_desktop::startup::data_dir(&options).ok().as_deref());
    match hangar_desktop::tauri_app::run(&options) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hangar-desktop: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
