//! `hangar remote add|list|remove|rename|check`: the saved hosts
//! (`hangar_remote`): the list in the config directory, tokens in the OS
//! keyring. `check` connects with the saved token and pin. `add` connects once: for `wss://` it shows the certificate's fingerprint and
//! pins it once confirmed (a prompt on a terminal, `--accept-fingerprint`
//! in scripts), then proves the token before saving anything.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::PathBuf;

use crate::listing;
use clap::{Args, Subcommand};
use hangar_remote::{connect, probe_fingerprint, Fingerprint, NewHost, RemoteError, Remotes, TokenStorage};

/// `hangar remote`'s arguments.
#[derive(Args)]
pub struct RemoteArgs {
    #[command(subcommand)]
    command: RemoteCommand,
}

#[derive(Subcommand)]
enum RemoteCommand {
    /// Save a host: check its certificate and token, keep the token in the OS keyring.
    Add(AddArgs),
    /// List the saved hosts (names, URLs, pinned fingerprints; never tokens).
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Forget a saved host and its token.
    Remove {
        /// The host's name.
        name: String,
    },
    /// Rename a saved host.
    Rename {
        /// The current name.
        name: String,
        /// The new name.
        new_name: String,
    },
    /// Connect to a saved host with its saved token and pinned certificate.
    Check {
        /// The host's name.
        name: String,
    },
}

#[derive(Args)]
struct AddArgs {
    /// A name for the host (unique).
    name: String,
    /// Its URL: ws://HOST:PORT/ or wss://HOST:PORT/ (without a token).
    url: String,
    /// Read the token from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "token_stdin")]
    token_file: Option<PathBuf>,
    /// Read the token from standard input. Without either flag the token is
    /// asked for on the terminal.
    #[arg(long)]
    token_stdin: bool,
    /// Pin this SHA-256 fingerprint without asking (it must be the one the
    /// host presents; `hangar serve --tls-*` prints it).
    #[arg(long, value_name = "SHA256")]
    accept_fingerprint: Option<Fingerprint>,
    /// Keep the token in a plaintext file (mode 0600) in the config
    /// directory instead of the OS keyring: only where no keyring exists.
    #[arg(long)]
    insecure_token_file: bool,
}

/// Why a `hangar remote` command failed.
#[derive(Debug, thiserror::Error)]
pub enum RemoteCommandError {
    /// What the saved-host library said.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// Anything else (reading the token, the terminal, stdout).
    #[error("{0}")]
    Other(String),
}

impl From<String> for RemoteCommandError {
    fn from(message: String) -> Self {
        Self::Other(message)
    }
}

/// Run `hangar remote …`.
pub fn run(args: RemoteArgs) -> Result<(), RemoteCommandError> {
    let remotes = Remotes::open()?;
    let mut out = std::io::stdout().lock();
    let written = match args.command {
        RemoteCommand::Add(add_args) => {
            let saved = add(&remotes, add_args)?;
            let kept = match saved.token_storage {
                TokenStorage::Keyring => "the OS keyring",
                TokenStorage::InsecureFile => "a plaintext token file (mode 0600)",
            };
            writeln!(out, "saved {:?} ({}); its token is in {kept}", saved.name, saved.url)
        }
        RemoteCommand::List { json } => {
            let empty = "no saved hosts (`hangar remote add NAME URL` saves one)";
            let listed = listing::print(&remotes.list()?, json, empty, |h| {
                let pin = h.fingerprint.map_or_else(|| "-".to_owned(), |f| format!("SHA256 {f}"));
                format!("{}\t{}\t{pin}", h.name, h.url)
            });
            return Ok(listed?);
        }
        RemoteCommand::Remove { name } => {
            let removed = remotes.remove(&name)?;
            writeln!(out, "removed {:?} and its token", removed.name)
        }
        RemoteCommand::Rename { name, new_name } => {
            remotes.rename(&name, &new_name)?;
            writeln!(out, "renamed {name:?} to {new_name:?}")
        }
        RemoteCommand::Check { name } => {
            runtime()?.block_on(async {
                let mut stream = remotes.connect(&name).await?;
                let _ = stream.close(None).await;
                Ok::<_, RemoteError>(())
            })?;
            writeln!(out, "connected to {name:?}: certificate and token accepted")
        }
    };
    Ok(written.map_err(|e| format!("writing to stdout: {e}"))?)
}

/// `remote add`: token, fingerprint (for `wss://`), one real connection, then save.
fn add(remotes: &Remotes, args: AddArgs) -> Result<hangar_remote::SavedHost, RemoteCommandError> {
    if remotes.list()?.iter().any(|h| h.name == args.name) {
        return Err(RemoteError::Exists(args.name).into());
    }
    let secure = hangar_remote::connect::check_url(&args.url).map_err(RemoteError::from)?;
    let token = read_token(&args)?;
    let runtime = runtime()?;
    let fingerprint = if secure {
        let found = runtime.block_on(probe_fingerprint(&args.url)).map_err(RemoteError::from)?;
        Some(confirm_fingerprint(&args.url, found, args.accept_fingerprint)?)
    } else {
        None
    };
    runtime.block_on(async {
        let mut stream = connect(&args.url, &token, fingerprint).await.map_err(RemoteError::from)?;
        // The check is done: leave politely (the host may already be gone; nothing to report then).
        let _ = stream.close(None).await;
        Ok::<_, RemoteError>(())
    })?;
    let token_storage = if args.insecure_token_file { TokenStorage::InsecureFile } else { TokenStorage::Keyring };
    Ok(remotes.add(NewHost { name: args.name, url: args.url, token, fingerprint, token_storage })?)
}

fn runtime() -> Result<tokio::runtime::Runtime, RemoteCommandError> {
    let built = tokio::runtime::Builder::new_current_thread().enable_all().build();
    Ok(built.map_err(|e| format!("starting the runtime: {e}"))?)
}

/// The token from `--token-file`, `--token-stdin`, or the terminal (not echoed).
fn read_token(args: &AddArgs) -> Result<String, RemoteCommandError> {
    let token = if let Some(path) = &args.token_file {
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?
    } else if args.token_stdin {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("reading the token from stdin: {e}"))?;
        text
    } else if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("Token for {}: ", args.name))
            .map_err(|e| format!("reading the token: {e}"))?
    } else {
        return Err("give the token with --token-file FILE or --token-stdin".to_owned().into());
    };
    Ok(token.trim().to_owned())
}

/// Pin `found` if the person (or `--accept-fingerprint`) confirms it.
fn confirm_fingerprint(
    url: &str,
    found: Fingerprint,
    accepted: Option<Fingerprint>,
) -> Result<Fingerprint, RemoteCommandError> {
    if let Some(expected) = accepted {
        return if expected == found {
            Ok(found)
        } else {
            Err(RemoteError::FingerprintMismatch { expected, found }.into())
        };
    }
    if !std::io::stdin().is_terminal() {
        return Err(format!(
            "{url} presents a certificate with SHA-256 fingerprint {found}; not asking without a terminal: \
             compare it with the one `hangar serve` printed and pass --accept-fingerprint {found}"
        )
        .into());
    }
    let mut err = std::io::stderr().lock();
    let asked = write!(
        err,
        "{url} presents a TLS certificate with SHA-256 fingerprint\n  {found}\n\
         Compare it with the one `hangar serve` printed on the host. Pin it and save the host? [y/N] "
    )
    .and_then(|()| err.flush());
    asked.map_err(|e| format!("writing to stderr: {e}"))?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).map_err(|e| format!("reading the answer: {e}"))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(found)
    } else {
        Err("not pinned; nothing was saved".to_owned().into())
    }
}
