//! `hangar agents list`: the well-known ACP agents and whether this machine
//! has them — where (on `PATH` or in an npm prefix), at which version of
//! their npm package — or, when missing, the package to install. The same
//! search `hangar serve` registers agents with
//! (`hangar_host::discovery`).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde::Serialize;

use crate::listing;

/// `hangar agents`'s arguments.
#[derive(Args)]
pub struct AgentsArgs {
    #[command(subcommand)]
    command: AgentsCommand,
}

#[derive(Subcommand)]
enum AgentsCommand {
    /// List the well-known agents: installed (where, which version) or missing.
    List {
        /// Print JSON (id, name, state, program, version, package) instead of a table.
        #[arg(long)]
        json: bool,
        /// Also look in this npm prefix (its `bin` and `node_modules/.bin`), as `hangar serve --npm-prefix`.
        #[arg(long = "npm-prefix", value_name = "DIR")]
        npm_prefixes: Vec<PathBuf>,
    },
}

/// One agent as listed.
#[derive(Serialize)]
struct Listed {
    id: String,
    name: String,
    /// `installed` or `missing`.
    state: &'static str,
    program: Option<String>,
    version: Option<String>,
    package: String,
}

/// Run `hangar agents …`.
pub fn run(args: AgentsArgs) -> Result<(), String> {
    match args.command {
        AgentsCommand::List { json, npm_prefixes } => {
            let found = hangar_host::discovery::survey(std::env::var_os("PATH").as_deref(), &npm_prefixes);
            let listed: Vec<Listed> = found
                .into_iter()
                .map(|p| Listed {
                    state: if p.program.is_some() { "installed" } else { "missing" },
                    id: p.id,
                    name: p.display_name,
                    program: p.program.map(|x| x.display().to_string()),
                    version: p.version,
                    package: p.package,
                })
                .collect();
            listing::print(&listed, json, "", |a| match &a.program {
                Some(program) => {
                    let version = a.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
                    format!("{}\t{}\tinstalled{version}\t{program}", a.id, a.name)
                }
                None => format!("{}\t{}\tmissing\tnpm install -g {}", a.id, a.name, a.package),
            })
        }
    }
}
