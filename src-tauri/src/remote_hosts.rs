//! Saved remote hosts (`hangar_remote`, the list `hangar remote` keeps) as
//! the desktop uses them: opening a connection to one with its saved token
//! and pinned certificate (each failure told apart for the host's state),
//! and the "Add host" dialog's steps, the same as `hangar remote add`: the
//! certificate's fingerprint shown for the person to trust, then one real
//! connection with the token and that pin, then the token into the keyring
//! and the host into the list.

use std::time::Duration;

use hangar_remote::connect::check_url;
use hangar_remote::{
    connect, probe_fingerprint, ConnectError, Fingerprint, HostStream, NewHost, RemoteError, Remotes, SavedHost,
    TokenStorage,
};

use crate::error::CoreError;
use crate::host_book::Failure;
use hangar_desktop_protocol::host::{HostAddArgs, HostProbe, RemoteView};

/// How long one connection attempt (TCP, TLS and the upgrade) may take: a
/// host whose packets vanish would otherwise hold an attempt for the OS's
/// TCP timeout (minutes) with nothing to show.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// What the sidebar shows of a saved host.
pub fn remote_view(saved: &SavedHost) -> RemoteView {
    RemoteView {
        url: saved.url.clone(),
        fingerprint: saved.fingerprint.map(|f| f.to_string()),
        insecure_token_file: saved.token_storage == TokenStorage::InsecureFile,
    }
}

/// Run a blocking `hangar_remote` call (the list file, the keyring) off the runtime.
async fn blocking<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, RemoteError> + Send + 'static,
) -> Result<T, RemoteError> {
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| RemoteError::Keyring(format!("the keyring or host list call did not finish: {e}")))?
}

/// `connect` within [`CONNECT_TIMEOUT`].
async fn connect_in_time(url: &str, token: &str, pin: Option<Fingerprint>) -> Result<HostStream, ConnectError> {
    tokio::time::timeout(CONNECT_TIMEOUT, connect(url, token, pin)).await.unwrap_or_else(|_| {
        Err(ConnectError::Unreachable {
            url: url.to_owned(),
            detail: format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        })
    })
}

/// A connection to the saved host `id`, read from the list again on every
/// attempt (a rename or a new token from the command line is followed),
/// with its token from the keyring and its pinned certificate.
pub async fn open_saved(remotes: &Remotes, id: &str) -> Result<HostStream, Failure> {
    let (remotes, wanted) = (remotes.clone(), id.to_owned());
    let found = blocking(move || {
        let host = remotes.list()?.into_iter().find(|h| h.id == wanted).ok_or_else(|| {
            RemoteError::NotFound(format!("{wanted} (removed from the host list by another program)"))
        })?;
        let token = remotes.token(&host)?;
        Ok((host, token))
    })
    .await;
    let (host, token) = found.map_err(|e| Failure::from_remote(&e))?;
    connect_in_time(&host.url, &token, host.fingerprint).await.map_err(|e| Failure::from_connect(&e))
}

/// "Add host", step one: whether the URL is `wss://` and, if so, the
/// fingerprint of the certificate the host presents (no token is sent).
pub async fn probe(url: &str) -> Result<HostProbe, CoreError> {
    let secure = check_url(url).map_err(RemoteError::from)?;
    if !secure {
        return Ok(HostProbe { secure, fingerprint: None });
    }
    let found = tokio::time::timeout(CONNECT_TIMEOUT, probe_fingerprint(url))
        .await
        .map_err(|_| CoreError::Unexpected(format!("{url} did not answer within {} s", CONNECT_TIMEOUT.as_secs())))?
        .map_err(RemoteError::from)?;
    Ok(HostProbe { secure, fingerprint: Some(found.to_string()) })
}

/// "Add host", step two, as `hangar remote add`: prove the token (and the
/// confirmed pin) with one connection, then keep the token in the OS
/// keyring (or, opted in, a 0600 file) and the host in the list.
pub async fn save(remotes: &Remotes, args: HostAddArgs) -> Result<SavedHost, CoreError> {
    let HostAddArgs { name, url, token, fingerprint, insecure_token_file } = args;
    let name = name.trim().to_owned();
    let token = token.trim().to_owned();
    let secure = check_url(&url).map_err(RemoteError::from)?;
    let fingerprint = match (secure, fingerprint.filter(|f| !f.trim().is_empty())) {
        (true, Some(f)) => Some(f.parse::<Fingerprint>().map_err(RemoteError::from)?),
        (true, None) => return Err(RemoteError::Connect(ConnectError::NotPinned(url)).into()),
        (false, _) => None,
    };
    let listed = remotes.clone();
    let taken = name.clone();
    if blocking(move || listed.list()).await?.iter().any(|h| h.name == taken) {
        return Err(RemoteError::Exists(name).into());
    }
    let mut stream = connect_in_time(&url, &token, fingerprint).await.map_err(RemoteError::from)?;
    // Proven: leave politely (the host may be gone already; nothing to report then).
    let _ = stream.close(None).await;
    let token_storage =
        if insecure_token_file == Some(true) { TokenStorage::InsecureFile } else { TokenStorage::Keyring };
    let remotes = remotes.clone();
    let new = NewHost { name, url, token, fingerprint, token_storage };
    Ok(blocking(move || remotes.add(new)).await?)
}

/// Rename the saved host `id`.
pub async fn rename(remotes: &Remotes, id: &str, name: &str) -> Result<(), CoreError> {
    let (remotes, id, name) = (remotes.clone(), id.to_owned(), name.trim().to_owned());
    Ok(blocking(move || {
        let current = saved(&remotes, &id)?;
        remotes.rename(&current.name, &name)
    })
    .await?)
}

/// Forget the saved host `id` and its token.
pub async fn remove(remotes: &Remotes, id: &str) -> Result<(), CoreError> {
    let (remotes, id) = (remotes.clone(), id.to_owned());
    blocking(move || {
        let current = saved(&remotes, &id)?;
        remotes.remove(&current.name)
    })
    .await?;
    Ok(())
}

/// Every saved host.
pub async fn list(remotes: &Remotes) -> Result<Vec<SavedHost>, CoreError> {
    let remotes = remotes.clone();
    Ok(blocking(move || remotes.list()).await?)
}

fn saved(remotes: &Remotes, id: &str) -> Result<SavedHost, RemoteError> {
    remotes.list()?.into_iter().find(|h| h.id == id).ok_or_else(|| RemoteError::NotFound(id.to_owned()))
}
