//! # hangar — the command line
//!
//! Map: `main.rs` parses arguments and dispatches; `serve.rs` runs the
//! headless host (`hangar serve`, with `hangar_host::discovery` finding
//! well-known ACP agents on `PATH` / in npm prefixes); `token_file.rs`
//! creates and reads the token file.

mod serve;
mod token_file;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "hangar", version, about = "A home for coding agents: an AHP 1.0.0 host")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the AHP host without a desktop.
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::run(args),
    }
}
