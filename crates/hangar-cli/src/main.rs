//! `hangar`: parses the command line and dispatches to the library
//! (crate map in `lib.rs`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hangar_cli::serve;

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
