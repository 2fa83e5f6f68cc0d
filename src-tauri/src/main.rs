//! `hangar-desktop`: the desktop app. See the crate docs of `hangar_desktop`.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    match hangar_desktop::tauri_app::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hangar-desktop: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
