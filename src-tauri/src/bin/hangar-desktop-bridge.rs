//! `hangar-desktop-bridge`: the desktop core (embedded host included)
//! behind a loopback WebSocket, serving the built UI, for UI tests and
//! browser development. Prints `listening http://ADDR` when ready.
//!
//! Usage: `hangar-desktop-bridge [--data-dir DIR] [--agent ID=COMMAND]...
//! [--ui DIR] [--listen 127.0.0.1:PORT]`.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ui = flag(&args, "--ui")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/dist")));
    let listen: SocketAddr = match flag(&args, "--listen").unwrap_or_else(|| "127.0.0.1:0".into()).parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("hangar-desktop-bridge: --listen: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !listen.ip().is_loopback() {
        eprintln!("hangar-desktop-bridge: only loopback addresses are allowed");
        return ExitCode::FAILURE;
    }
    let started = match hangar_desktop::startup::start(&args).await {
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
