//! `hangar serve`: the headless host — its arguments, the host
//! configuration they make (TLS included), and the listening host (which the
//! binary serves until SIGTERM/SIGINT, and the end-to-end suites until they
//! drop it).

use std::future::Future;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, FromArgMatches};
use hangar_host::agents::AgentSpec;
use hangar_host::config::{HostConfig, TlsIdentity};
use hangar_host::host::Host;
use hangar_host::hub::{MAX_REPLAY_CAPACITY, MIN_REPLAY_CAPACITY};
use hangar_host::server::{tls, tls_names};
use hangar_remote::Fingerprint;
use tokio::net::TcpListener;

use crate::token_file;

/// Why `hangar serve` could not start: the message the binary prints after `hangar: `.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ServeError(String);

impl From<String> for ServeError {
    fn from(message: String) -> Self {
        Self(message)
    }
}

impl From<&str> for ServeError {
    fn from(message: &str) -> Self {
        Self(message.to_owned())
    }
}

/// `hangar serve`'s arguments.
#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port. Non-loopback
    /// addresses expose the host to the network: only when you mean it.
    #[arg(long, default_value = "127.0.0.1:8765")]
    listen: SocketAddr,
    /// Data directory [default: the platform data dir, ~/.local/share/hangar on Linux].
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Token file [default: DATA_DIR/token]; created with a random token when missing.
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Serve wss:// with this certificate chain (PEM, leaf first); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key", conflicts_with = "tls_self_signed")]
    tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Serve wss:// with a self-signed certificate kept in DATA_DIR/tls/,
    /// made again when this machine's addresses change; its SHA-256
    /// fingerprint is printed on stderr for clients to compare when they pin it.
    #[arg(long)]
    tls_self_signed: bool,
    /// This machine's addresses (comma-separated) instead of its network
    /// interfaces', for the self-signed certificate: a seam for tests only.
    #[arg(long, value_name = "IP,...", value_delimiter = ',', hide = true)]
    machine_addresses: Option<Vec<IpAddr>>,
    /// Also serve the web UI on this port (https://ADDRESS:PORT/ with TLS):
    /// a browser paired with `hangar token create NAME --pair` sees this
    /// host's sessions. Needs TLS unless listening on loopback.
    #[arg(long)]
    web: bool,
    /// Register an ACP agent: ID=COMMAND (COMMAND is split like a shell would).
    #[arg(long = "agent", value_name = "ID=COMMAND")]
    agents: Vec<String>,
    /// Also look for the well-known ACP agents in this npm prefix (its `bin`
    /// and `node_modules/.bin`), besides `PATH`.
    #[arg(long = "npm-prefix", value_name = "DIR")]
    npm_prefixes: Vec<PathBuf>,
    /// Do not register agents found on PATH or in npm prefixes.
    #[arg(long)]
    no_discover: bool,
    /// Also accept WebSocket upgrades from this Origin.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// Where folder pickers may list, and where a client may put a session's
    /// working directory (repeatable) [default: your home directory].
    #[arg(long = "browse-root", value_name = "DIR")]
    browse_roots: Vec<PathBuf>,
    /// How `resourceRequest` grants are decided: `under:PATH` grants inside
    /// PATH, `all` grants everything, `deny` nothing, `ask` asks a connected
    /// client (denied when none accepts in time) [default: under:$HOME].
    /// Credential folders (~/.ssh, ~/.gnupg, ~/.aws, …) and the data dir are never granted.
    #[arg(long, value_name = "POLICY")]
    grant_policy: Option<hangar_host::resources::RequestPolicy>,
    /// Seconds `--grant-policy ask` waits for a client's answer before denying.
    #[arg(long, default_value_t = 120.0, hide = true)]
    grant_ask_timeout_secs: f64,
    /// Resource watches one connection may hold at once.
    #[arg(long, default_value_t = 256, hide = true)]
    max_watches_per_connection: usize,
    /// Log level (error, warn, info, debug, trace); RUST_LOG overrides.
    #[arg(long, default_value = "info")]
    log: String,
    /// Seconds a disconnected client stays an active client of its sessions.
    #[arg(long, default_value_t = 30.0, hide = true)]
    active_client_grace_secs: f64,
    /// Seconds between reads of a watched session's pull request with `gh`.
    #[arg(long, default_value_t = 60.0, hide = true)]
    pull_request_refresh_secs: f64,
    /// Envelopes kept for `reconnect` replay (1,000 to 1,000,000).
    #[arg(long, default_value_t = 4096, hide = true, value_parser = replay_capacity)]
    replay_capacity: usize,
}

impl ServeArgs {
    /// Parse `hangar serve`'s arguments (`args` without `hangar serve`) as the binary does.
    pub fn try_parse(args: &[&str]) -> Result<Self, ServeError> {
        let command = Self::augment_args(clap::Command::new("hangar serve"));
        let argv = std::iter::once("hangar serve").chain(args.iter().copied());
        let matches = command.try_get_matches_from(argv).map_err(|e| e.to_string())?;
        Ok(Self::from_arg_matches(&matches).map_err(|e| e.to_string())?)
    }
}

/// Run `hangar serve` until SIGTERM or SIGINT.
pub fn run(args: ServeArgs) -> Result<(), ServeError> {
    init_logging(&args.log);
    serve(args)
}

/// `--replay-capacity`: AHP hosts keep at least 1,000 envelopes for `reconnect`.
fn replay_capacity(value: &str) -> Result<usize, String> {
    let range = MIN_REPLAY_CAPACITY..=MAX_REPLAY_CAPACITY;
    match value.parse::<usize>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(format!("must be a number of envelopes from {} to {}", range.start(), range.end())),
    }
}

fn init_logging(level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("hangar_host={level},hangar={level},warn")));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
}

fn serve(args: ServeArgs) -> Result<(), ServeError> {
    let web = args.web;
    let config = host_config(args)?;
    if let Some(tls) = &config.tls {
        // Not a log line: shown whatever the log level, for the person pairing a client.
        eprintln!("hangar: TLS certificate SHA-256 fingerprint: {}", Fingerprint::of_der(&tls.certificate));
    }
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("starting the runtime: {e}"))?;
    runtime.block_on(async move {
        let mut listening = listen(config).await?;
        let web = if web { Some(listening.add_web().await?) } else { None };
        let shutdown = shutdown_signal()?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", listening.ready_line)
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("writing the ready line: {e}"))?;
        drop(stdout);
        tracing::info!("hangar host ready on {}", listening.url);
        listening.serve(shutdown).await;
        drop(web);
        Ok(())
    })
}

/// The host configuration `args` make: the data directory (created,
/// canonical), its token (the file created when missing), the agents (found
/// on `PATH` and in npm prefixes unless `--no-discover`), limits and policies.
pub fn host_config(args: ServeArgs) -> Result<HostConfig, ServeError> {
    let data_dir = data_dir(args.data_dir)?;
    let machine = args.machine_addresses;
    let self_signed = args
        .tls_self_signed
        .then(|| self_signed_names(args.listen, || machine.unwrap_or_else(tls_names::interface_addresses)));
    let tls = tls_identity(&data_dir, args.tls_cert.zip(args.tls_key), self_signed)?;
    let token_path = args.token_file.unwrap_or_else(|| data_dir.join("token"));
    let token = token_file::read_or_create(&token_path)?;
    let agents =
        args.agents.iter().map(|a| AgentSpec::parse(a).map_err(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?;
    // The host searches the agents `hangar agents install` (or the app)
    // put in this data dir first, then these prefixes, then PATH.
    let discovery = (!args.no_discover).then(|| hangar_host::agents::registry::Discovery {
        path: std::env::var_os("PATH"),
        npm_prefixes: args.npm_prefixes.clone(),
    });
    if args.web && !args.listen.ip().is_loopback() && tls.is_none() {
        return Err("--web beyond loopback needs TLS: add --tls-self-signed or --tls-cert/--tls-key".into());
    }
    if !args.listen.ip().is_loopback() && tls.is_none() {
        tracing::warn!(
            "listening on {} — reachable from the network; clients still need the token, and traffic is not \
             encrypted (--tls-self-signed or --tls-cert/--tls-key serve wss://)",
            args.listen
        );
    }
    let mut config = HostConfig::new(data_dir, token);
    config.listen = args.listen;
    config.tls = tls;
    config.agents = agents;
    config.discovery = discovery;
    config.allowed_origins = args.allow_origins;
    config.active_client_grace = Duration::from_secs_f64(args.active_client_grace_secs.max(0.0));
    config.replay_capacity = args.replay_capacity;
    if !args.browse_roots.is_empty() {
        config.browse_roots = args.browse_roots;
    }
    if let Some(policy) = args.grant_policy {
        config.request_policy = policy;
    }
    config.grant_ask_timeout = Duration::from_secs_f64(args.grant_ask_timeout_secs.max(0.0));
    config.max_watches_per_connection = args.max_watches_per_connection;
    config.pull_request_refresh = Duration::from_secs_f64(args.pull_request_refresh_secs.max(1.0));
    Ok(config)
}

/// The data directory `arg` names, or the platform's
/// (`~/.local/share/hangar` on Linux): created if missing, canonical.
pub fn data_dir(arg: Option<PathBuf>) -> Result<PathBuf, ServeError> {
    let data_dir = match arg {
        Some(dir) => dir,
        None => dirs::data_dir().ok_or("no platform data directory; pass --data-dir")?.join("hangar"),
    };
    std::fs::create_dir_all(&data_dir).map_err(|e| format!("creating {}: {e}", data_dir.display()))?;
    Ok(data_dir.canonicalize().map_err(|e| format!("{}: {e}", data_dir.display()))?)
}

/// TLS from `--tls-cert`/`--tls-key`, or the self-signed pair of the data
/// directory for `self_signed` (the names it must carry): made the first
/// time, and made again when the kept one names anything else, which is
/// said on stderr with the new fingerprint, since clients pinned the old one.
fn tls_identity(
    data_dir: &std::path::Path,
    files: Option<(PathBuf, PathBuf)>,
    self_signed: Option<Vec<String>>,
) -> Result<Option<TlsIdentity>, ServeError> {
    if let Some((cert, key)) = files {
        return Ok(Some(tls::from_pem_files(&cert, &key).map_err(|e| e.to_string())?));
    }
    let Some(names) = self_signed else { return Ok(None) };
    let dir = data_dir.join(tls::SELF_SIGNED_DIR);
    let made = !dir.exists();
    let (identity, renewed) = tls::self_signed_current(data_dir, &names).map_err(|e| e.to_string())?;
    if made {
        eprintln!("hangar: made a self-signed TLS certificate in {}", dir.display());
    }
    if let Some(why) = renewed {
        // Not a log line: shown whatever the log level, for the person whose clients pinned the old one.
        eprintln!(
            "hangar: made the self-signed TLS certificate again ({why}; it now names {}): its new SHA-256 \
             fingerprint is {}, clients that pinned the old one must accept this one",
            names.join(", "),
            Fingerprint::of_der(&identity.certificate)
        );
    }
    Ok(Some(identity))
}

/// The names the self-signed certificate carries when listening on
/// `listen`: loopback, and the address listened on, or this machine's
/// addresses (`machine`) when listening on all of them.
fn self_signed_names(listen: SocketAddr, machine: impl FnOnce() -> Vec<IpAddr>) -> Vec<String> {
    let ip = listen.ip();
    let lan = if ip.is_unspecified() { machine() } else { vec![ip] };
    tls_names::certificate_names(lan)
}

/// A host opened on its data directory and listening: what `hangar serve`
/// has when it prints its ready line.
pub struct Listening {
    host: Arc<Host>,
    listener: TcpListener,
    web: Option<Arc<dyn hangar_host::server::web_route::WebService>>,
    /// `ws://ADDRESS:PORT/` (`wss://` with TLS).
    pub url: String,
    /// The TLS certificate's fingerprint, when serving `wss://`.
    pub tls_fingerprint: Option<Fingerprint>,
    /// The ready line, `{"type":"ready","url":…,"dataDir":…}`, with
    /// `"tlsFingerprint":…` last when serving `wss://`.
    pub ready_line: String,
}

/// Open the host `config` describes and bind `config.listen` (port 0 picks a free port).
pub async fn listen(config: HostConfig) -> Result<Listening, ServeError> {
    let addr = config.listen;
    let data_dir = config.data_dir.display().to_string();
    let tls_fingerprint = config.tls.as_ref().map(|tls| Fingerprint::of_der(&tls.certificate));
    let host = Host::open(config).map_err(|e| e.to_string())?;
    let listener = TcpListener::bind(addr).await.map_err(|e| format!("listening on {addr}: {e}"))?;
    let scheme = if tls_fingerprint.is_some() { "wss" } else { "ws" };
    let url = format!("{scheme}://{}/", listener.local_addr().map_err(|e| e.to_string())?);
    // Field order as documented: type, url, dataDir, then tlsFingerprint with TLS.
    let mut ready_line = format!(
        r#"{{"type":"ready","url":{},"dataDir":{}"#,
        serde_json::Value::from(url.as_str()),
        serde_json::Value::from(data_dir),
    );
    if let Some(fingerprint) = tls_fingerprint {
        ready_line.push_str(&format!(r#","tlsFingerprint":"{fingerprint}""#));
    }
    ready_line.push('}');
    Ok(Listening { host, listener, web: None, url, tls_fingerprint, ready_line })
}

impl Listening {
    /// Serve until `shutdown` resolves, then stop the host (agents stopped,
    /// state checkpointed and flushed).
    pub async fn serve(self, shutdown: impl Future<Output = ()>) {
        let tls = self.host.config.tls.as_ref().map(|tls| tls.server_config.clone());
        let options = hangar_host::server::ListenOptions { tls, web: self.web };
        hangar_host::server::serve_with(self.host.clone(), self.listener, shutdown, options).await;
        tracing::info!("shutting down");
        self.host.shutdown();
    }

    /// Serve the web UI on this port too (`--web`); what is returned keeps
    /// its core's loopback listener open.
    pub async fn add_web(&mut self) -> Result<crate::web_serve::WebSide, ServeError> {
        let addr = self.listener.local_addr().map_err(|e| e.to_string())?;
        let page = crate::web_serve::page_url(addr, self.tls_fingerprint.is_some());
        let side = crate::web_serve::start(&self.host, &page).await?;
        self.web = Some(side.service.clone());
        Ok(side)
    }
}

/// SIGTERM or SIGINT, caught from the moment this returns: called before the
/// ready line, so a signal sent as soon as it is read ends the host cleanly
/// instead of killing it (the handlers of a future are only installed when
/// it is first polled, which was after the ready line).
fn shutdown_signal() -> Result<impl Future<Output = ()>, ServeError> {
    use tokio::signal::unix::{signal, SignalKind};
    let listen = |kind| signal(kind).map_err(|e| format!("listening for signals: {e}"));
    let (mut term, mut int) = (listen(SignalKind::terminate())?, listen(SignalKind::interrupt())?);
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_certificate_names_the_address_listened_on_or_every_address_of_the_machine() {
        let lan = || vec!["192.168.1.5".parse().unwrap(), "10.0.0.7".parse().unwrap()];
        let names = |listen: &str| self_signed_names(listen.parse().unwrap(), lan);
        assert_eq!(names("127.0.0.1:0"), ["localhost", "127.0.0.1", "::1"]);
        assert_eq!(names("[::1]:0"), ["localhost", "127.0.0.1", "::1"]);
        assert_eq!(names("192.168.1.5:0"), ["localhost", "127.0.0.1", "::1", "192.168.1.5"]);
        assert_eq!(names("0.0.0.0:0"), ["localhost", "127.0.0.1", "::1", "192.168.1.5", "10.0.0.7"]);
        assert_eq!(names("[::]:0"), ["localhost", "127.0.0.1", "::1", "192.168.1.5", "10.0.0.7"]);
    }

    #[test]
    fn web_beyond_loopback_needs_tls() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().to_str().unwrap();
        let base = ["--web", "--no-discover", "--data-dir", data, "--listen"];
        let open = ServeArgs::try_parse(&[&base[..], &["0.0.0.0:0"]].concat()).unwrap();
        let err = host_config(open).err().unwrap().to_string();
        assert!(err.contains("needs TLS"), "{err}");
        let tls = ServeArgs::try_parse(&[&base[..], &["0.0.0.0:0", "--tls-self-signed"]].concat()).unwrap();
        assert!(host_config(tls).is_ok());
        let loopback = ServeArgs::try_parse(&[&base[..], &["127.0.0.1:0"]].concat()).unwrap();
        assert!(host_config(loopback).is_ok());
    }
}
