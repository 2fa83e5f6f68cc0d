//! The command line of `hangar-desktop` (and, flattened into its own, of
//! `hangar-desktop-bridge`), parsed by `clap`: `--help` lists the options,
//! `--version` prints the workspace version, and an unknown option is an
//! error naming it (exit status 2), never ignored. Each option's value
//! falls back to its environment variable where one exists
//! (`HANGAR_DESKTOP_DATA_DIR`, `HANGAR_BROWSE_ROOTS`, `HANGAR_NO_DISCOVER`,
//! `HANGAR_AGENTS`, `HANGAR_WEBKIT_COMPOSITING`, and for tests
//! `HANGAR_MACHINE_ADDRESSES`; read in [`crate::startup`],
//! [`crate::embedded_host`] and [`crate::webkit_settings`]).

use std::path::PathBuf;

/// The app's options.
#[derive(Debug, Clone, Default, clap::Parser)]
#[command(
    name = "hangar-desktop",
    version,
    about = "Hangar: a home for coding agents. The desktop app, with the AHP host embedded.",
    after_help = "Environment: HANGAR_AGENTS='ID=COMMAND;…', HANGAR_DESKTOP_DATA_DIR, HANGAR_BROWSE_ROOTS=/a:/b, \
                  HANGAR_NO_DISCOVER=1, HANGAR_WEBKIT_COMPOSITING=1, RUST_LOG (the log's filter)."
)]
pub struct AppOptions {
    /// Register an agent on the embedded host, as `hangar serve --agent` does
    /// (repeatable; COMMAND may be `tcp://HOST:PORT`).
    #[arg(long = "agent", value_name = "ID=COMMAND")]
    pub agents: Vec<String>,
    /// The embedded host's data directory (sessions, settings, the log);
    /// default ~/.local/share/hangar-desktop.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// A folder sessions may work in and the folder picker lists
    /// (repeatable; replaces the default, your home).
    #[arg(long = "browse-root", value_name = "DIR")]
    pub browse_roots: Vec<PathBuf>,
    /// Do not look for the well-known ACP agents on PATH.
    #[arg(long)]
    pub no_discover: bool,
    /// Read the saved remote hosts from DIR/hosts.json instead of
    /// `hangar remote`'s list.
    #[arg(long, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// Open the window on an empty page, without host, core or UI (a memory
    /// baseline).
    #[arg(long)]
    pub blank: bool,
    /// Keep WebKitGTK's accelerated compositing (by default the app paints
    /// without it: less memory in the web process; see `webkit_settings`).
    /// Also `HANGAR_WEBKIT_COMPOSITING=1`.
    #[arg(long)]
    pub webkit_compositing: bool,
    /// This computer's addresses (comma-separated) instead of its network
    /// interfaces', for the certificate of *Open from other devices*: a seam
    /// for tests only (`hangar serve --machine-addresses` is the host's).
    /// Also `HANGAR_MACHINE_ADDRESSES`.
    #[arg(long, value_name = "IP,...", value_delimiter = ',', hide = true)]
    pub machine_addresses: Option<Vec<std::net::IpAddr>>,
}

impl AppOptions {
    /// Options from arguments that do not include the program name (as a
    /// test writes them); an unknown option is an error.
    pub fn from_args<I, S>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString> + Clone,
    {
        use clap::Parser;
        Self::try_parse_from(
            std::iter::once(std::ffi::OsString::from("hangar-desktop")).chain(args.into_iter().map(Into::into)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_in_both_forms_and_repeated() {
        let o = AppOptions::from_args(["--browse-root", "/a", "--data-dir=/d", "--browse-root=/b", "--agent", "x=y z"])
            .unwrap();
        assert_eq!(o.browse_roots, [PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(o.data_dir, Some(PathBuf::from("/d")));
        assert_eq!(o.agents, ["x=y z"]);
        assert!(!o.blank && !o.no_discover);
        assert!(AppOptions::from_args(["--blank", "--no-discover"]).is_ok_and(|o| o.blank && o.no_discover));
        assert!(AppOptions::from_args(["--webkit-compositing"]).is_ok_and(|o| o.webkit_compositing));
    }

    #[test]
    fn an_unknown_option_is_an_error_naming_it() {
        let e = AppOptions::from_args(["--browse-rootx=/no"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("--browse-rootx"), "{e}");
        assert!(AppOptions::from_args(["--data-dir"]).is_err(), "a missing value");
    }
}
