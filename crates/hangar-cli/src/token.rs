//! `hangar token create|list|revoke`: per-device tokens for `hangar serve`
//! (`hangar_host::server::device_tokens`: hashes only, in the data
//! directory). A running host on the same data directory sees the change at
//! once: a revoked device's open connections are closed. `create --pair`
//! prints a one-time pairing URL instead (`pairing.rs`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use hangar_host::server::device_tokens::DeviceTokenStore;

use crate::serve::data_dir;
use crate::{listing, pairing};

/// `hangar token`'s arguments.
#[derive(Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
    /// The host's data directory [default: the platform data dir, ~/.local/share/hangar on Linux].
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Mint a token for a device and print it (once: only its hash is kept).
    Create {
        /// The device's name (e.g. "laptop").
        name: String,
        /// Instead of a token, a one-time pairing URL (valid 10 minutes) for
        /// a browser on the device, printed and drawn as a QR code.
        #[arg(long)]
        pair: bool,
        /// With --pair: the host's web address as the device reaches it
        /// [default: the one a running `hangar serve --web` noted].
        #[arg(long, value_name = "URL", requires = "pair")]
        url: Option<String>,
    },
    /// List the devices that have a token.
    List {
        /// Print JSON (name, created, sha256) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a device's token: a running host closes its connections at once.
    Revoke {
        /// The device's name.
        name: String,
    },
}

/// Run `hangar token …`; `Err` is the message to print.
pub fn run(args: TokenArgs) -> Result<(), String> {
    let data_dir = data_dir(args.data_dir).map_err(|e| e.to_string())?;
    let store = DeviceTokenStore::in_data_dir(&data_dir);
    let mut out = std::io::stdout().lock();
    let written = match args.command {
        TokenCommand::Create { name, pair: true, url } => {
            return pairing::print_pairing(&data_dir, &name, url, &mut out)
        }
        TokenCommand::Create { name, .. } => {
            let token = store.create(&name).map_err(|e| e.to_string())?;
            eprintln!(
                "hangar: token for {name:?} (shown once; on the device: `hangar remote add NAME URL --token-stdin`):"
            );
            writeln!(out, "{token}")
        }
        TokenCommand::List { json } => {
            let devices = store.list().map_err(|e| e.to_string())?;
            let empty = "no device tokens (`hangar token create NAME` makes one)";
            return listing::print(&devices, json, empty, |d| format!("{}\tcreated {}", d.name, d.created));
        }
        TokenCommand::Revoke { name } => {
            store.revoke(&name).map_err(|e| e.to_string())?;
            writeln!(out, "revoked {name:?}")
        }
    };
    written.map_err(|e| format!("writing to stdout: {e}"))
}
