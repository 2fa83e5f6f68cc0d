//! `hangar-desktop-bridge`: the desktop core (embedded host included)
//! behind a loopback WebSocket, serving the built UI, for UI tests and
//! browser development. Prints `listening http://ADDR` when ready.
//!
//! Usage: `hangar-desktop-bridge [APP OPTIONS] [--ui DIR] [--listen
//! 127.0.0.1:PORT]` (`--help` lists them; an unknown one is an error).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use hangar_desktop::options::AppOptions;

/// The bridge's options: the app's, and where to serve what.
#[derive(Parser)]
#[command(
    name = "hangar-desktop-bridge",
    version,
    about = "The desktop core behind a loopback WebSocket, serving the UI."
)]
struct BridgeOptions {
    #[command(flatten)]
    app: AppOptions,
    /// The built UI to serve (default: ui/dist of this checkout).
    #[arg(long, value_name = "DIR")]
    ui: Option<PathBuf>,
    /// The loopback address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
}

#[tokio::main]
async fn main() -> ExitCode {
    let BridgeOptions { app, ui, listen } = BridgeOptions::parse();
    hangar_desktop::log_file::init(hangar_desktop::startup::data_dir(&app).ok().as_deref());
    let ui = ui.unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../ui/dist")));
    if !listen.ip().is_loopback() {
        eprintln!("hangar-desktop-bridge: only loopback addresses are allowed");
        return ExitCode::FAILURE;
    }
    let started = match hangar_desktop::startup::start(&app).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hangar-desktop-bridge: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (addr, server) = match hangar_desktop::bridge::serve(started.core.clone(), ui, listen).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hangar-desktop-bridge: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening http://{addr}").and_then(|()| out.flush());
    drop(out);
    tokio::select! {
        r = server => if let Err(e) = r { eprintln!("hangar-desktop-bridge: {e}"); },
        _ = tokio::signal::ctrl_c() => {}
    }
    drop(started);
    ExitCode::SUCCESS
}
