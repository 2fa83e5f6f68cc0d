//! `hangar agents list`: the well-known ACP agents and whether this machine
//! has them — where (in Hangar's own prefix, on `PATH` or in an npm
//! prefix), at which version of their npm package — or, when missing, how to
//! install them. The same search `hangar serve` registers agents with
//! (`hangar_host::agents::discovery`). `hangar agents install NAME` / `remove NAME`:
//! npm into (out of) `DATA_DIR/agents` at the pinned version
//! (`hangar_host::agents::install`); a `hangar serve` on that data dir finds
//! it at its next start (an install through the host itself, from the
//! app's Agents page, is used at once).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde::Serialize;

use hangar_host::agents::install;

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
        /// The data directory whose installed agents to list (default: `hangar serve`'s).
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Install a well-known agent with npm into the data directory, at the version Hangar is tested with.
    Install {
        /// The agent: claude, codex, gemini, copilot, opencode or qwen.
        name: String,
        /// Another version of its npm package.
        #[arg(long)]
        version: Option<String>,
        /// The data directory (default: `hangar serve`'s).
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
    },
    /// Remove an agent `install` put in the data directory.
    Remove {
        /// The agent.
        name: String,
        /// The data directory (default: `hangar serve`'s).
        #[arg(long, value_name = "DIR")]
        data_dir: Option<PathBuf>,
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
        AgentsCommand::Install { name, version, data_dir } => {
            let data_dir = crate::serve::data_dir(data_dir).map_err(|e| e.to_string())?;
            let (package, version) =
                install::install(&data_dir, &name, version.as_deref(), true, &mut |_| {}).map_err(|e| e.to_string())?;
            println!("installed {name}: {package}@{version} in {}", install::prefix(&data_dir).display());
            println!(
                "hangar serve --data-dir {} finds it at its next start (installs from the app's Agents page are used at once)",
                data_dir.display()
            );
            Ok(())
        }
        AgentsCommand::Remove { name, data_dir } => {
            let data_dir = crate::serve::data_dir(data_dir).map_err(|e| e.to_string())?;
            let package = install::remove(&data_dir, &name, true).map_err(|e| e.to_string())?;
            println!("removed {name} ({package}) from {}", install::prefix(&data_dir).display());
            Ok(())
        }
        AgentsCommand::List { json, npm_prefixes, data_dir } => {
            let data_dir = crate::serve::data_dir(data_dir).map_err(|e| e.to_string())?;
            let mut prefixes = vec![install::prefix(&data_dir)];
            prefixes.extend(npm_prefixes);
            let found = hangar_host::agents::discovery::survey(std::env::var_os("PATH").as_deref(), &prefixes);
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
                None => format!("{}\t{}\tmissing\thangar agents install {}", a.id, a.name, a.id),
            })
        }
    }
}
