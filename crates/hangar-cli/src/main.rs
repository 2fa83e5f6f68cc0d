//! `hangar`: parses the command line and dispatches to the library
//! (crate map in `lib.rs`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hangar_cli::{agents, reindex, remote, serve, token};

#[derive(Parser)]
#[command(name = "hangar", version, about = "A home for coding agents: an AHP 1.0.0 host")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the AHP host without a desktop.
    Serve(Box<serve::ServeArgs>),
    /// Per-device tokens for this machine's host: create, list, revoke.
    Token(token::TokenArgs),
    /// The hosts this machine connects to: add, list, remove, rename, check.
    Remote(remote::RemoteArgs),
    /// The well-known ACP agents on this machine: installed (where, which version) or missing.
    Agents(agents::AgentsArgs),
    /// Build the search index again from the store (while no host serves the data dir).
    Reindex(reindex::ReindexArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Serve(args) => serve::run(*args).map_err(|e| e.to_string()),
        Command::Token(args) => token::run(args),
        Command::Remote(args) => remote::run(args).map_err(|e| e.to_string()),
        Command::Agents(args) => agents::run(args),
        Command::Reindex(args) => reindex::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hangar: {message}");
            ExitCode::FAILURE
        }
    }
}
