//! The core's hosts: registering one in the multi-host client (the
//! embedded host by URL, a saved remote host through `hangar_remote`), the
//! reconnect schedule the core runs for them ([`HostBook`]: backoff with
//! jitter, refusals parked; at once after a wake from sleep or when a
//! network comes up), and the host
//! menu's commands (rename, remove, reconnect) and "Add host".
//!
//! Every host is added with the multi-host client's own reconnects
//! disabled: after a failed attempt it reports `Failed` and waits, and the
//! core decides when to try again (so the next attempt's time is known and
//! shown) by calling `reconnect_host`. A connection that comes back is
//! re-snapshotted by the watcher in `mod.rs` (`resync`), so open chats keep
//! their view and are brought up to date.

use std::collections::BTreeSet;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime};

use ahp::hosts::{HostConfig, HostEvent, HostHandle, HostId, HostState, ReconnectPolicy};
use ahp::transport::BoxedTransport;
use ahp::{ClientConfig, TransportError};
use ahp_types::ROOT_RESOURCE_URI;
use hangar_remote::{HostStream, Remotes, SavedHost};

use hangar_host::locks::lock;
use hangar_host::server::tls_names::interface_addresses;

use super::{send_app, Core, CoreState, EVENT_BUFFER};
use crate::error::CoreError;
use crate::event_feed::TappedTransport;
use crate::host_book::{network_appeared, slept, Failure};
use crate::remote_hosts;
use crate::session_rows::host_view;
use hangar_desktop_protocol::app::HostView;
use hangar_desktop_protocol::host::{HostAddArgs, HostProbe, RemoteView};
use hangar_desktop_protocol::settings::{AboutHost, AboutView};
use hangar_desktop_protocol::AppOp;

impl Core {
    /// Register a host reachable at `url` (a `ws://` URL carrying its token:
    /// the embedded host).
    pub async fn add_host(&self, id: &str, label: &str, url: String) -> Result<(), CoreError> {
        let open = move || {
            let url = url.clone();
            async move {
                let transport =
                    ahp_ws::WebSocketTransport::connect(&url).await.map_err(|e| Failure::Unreachable(e.to_string()))?;
                Ok(transport)
            }
        };
        self.register(id, label, None, open).await
    }

    /// Register a saved remote host: each attempt reads it from the list
    /// again and connects with its keyring token and pinned certificate.
    pub async fn add_saved_host(&self, saved: &SavedHost) -> Result<(), CoreError> {
        let remotes = self.remotes()?;
        let id = saved.id.clone();
        let open = move || {
            let (remotes, id) = (remotes.clone(), id.clone());
            async move {
                let stream: HostStream = remote_hosts::open_saved(&remotes, &id).await?;
                Ok(ahp_ws::WebSocketTransport::from_stream(stream))
            }
        };
        self.register(&saved.id, &saved.name, Some(remote_hosts::remote_view(saved)), open).await
    }

    /// Keep `remotes` for the host commands and add every host saved in it
    /// (as `hangar remote list` shows them). Returns how many.
    pub async fn load_saved_hosts(&self, remotes: Remotes) -> Result<usize, CoreError> {
        *lock(&self.remotes) = Some(remotes.clone());
        lock(&self.state).outbox = crate::outbox::Outbox::open(remotes.dir());
        let saved = remote_hosts::list(&remotes).await?;
        for host in &saved {
            self.add_saved_host(host).await?;
        }
        Ok(saved.len())
    }

    fn remotes(&self) -> Result<Remotes, CoreError> {
        lock(&self.remotes).clone().ok_or_else(|| {
            CoreError::Unexpected("no saved-host list (no config directory): set XDG_CONFIG_HOME".into())
        })
    }

    /// Add a host to the multi-host client; `open` opens one transport (an
    /// attempt), its failure noted in the book for the host's state.
    async fn register<F, Fut>(
        &self,
        id: &str,
        label: &str,
        remote: Option<RemoteView>,
        open: F,
    ) -> Result<(), CoreError>
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ahp_ws::WebSocketTransport, Failure>> + Send + 'static,
    {
        let (tap, book, open, software) = (self.tap.clone(), self.book.clone(), Arc::new(open), self.software.clone());
        let factory = move |id: HostId| {
            let (tap, book, open, software) = (tap.clone(), book.clone(), open.clone(), software.clone());
            async move {
                match open().await {
                    Ok(transport) => {
                        book.note_attempt(&id, None);
                        let tapped =
                            TappedTransport::new(BoxedTransport::new(transport), id, tap).noting_software(software);
                        Ok(BoxedTransport::new(tapped))
                    }
                    Err(failure) => {
                        let message = failure.text();
                        book.note_attempt(&id, Some(failure));
                        Err(TransportError::Io(message))
                    }
                }
            }
        };
        let host_id = HostId::new(id);
        self.book.add(&host_id, label, remote);
        let config = HostConfig::new(id, label, factory)
            .with_initial_subscriptions(vec![ROOT_RESOURCE_URI.to_owned()])
            .with_client_config(ClientConfig { subscription_buffer: EVENT_BUFFER, ..ClientConfig::default() })
            .with_reconnect_policy(ReconnectPolicy::disabled());
        if let Err(e) = self.multi.add_host(config).await {
            self.book.remove(&host_id);
            return Err(e.into());
        }
        self.push_hosts().await;
        self.refresh_rows().await;
        Ok(())
    }

    /// Follow a host's connection: a success clears its failures; a failed
    /// attempt is retried after a backoff with jitter, unless it was a
    /// refusal (token, certificate, protocol version, setup).
    pub(super) fn on_host_event(self: &Arc<Self>, event: &HostEvent) {
        match event {
            HostEvent::Connected { host_id, .. } => {
                // The new connection's `listSessions` has the branch states.
                lock(&self.state).git.retain(|(h, _), _| h != host_id.as_str());
                self.book.connected(host_id)
            }
            HostEvent::StateChanged { host_id, state: HostState::Failed { error }, .. } => {
                let Some(retry) = self.book.failed(host_id, error, rand::random()) else { return };
                let (core, id) = (Arc::downgrade(self), host_id.clone());
                tokio::spawn(async move {
                    tokio::time::sleep(retry.delay).await;
                    retry_if_due(core, id, retry.schedule).await;
                });
            }
            HostEvent::Removed { host_id } => self.book.remove(host_id),
            _ => {}
        }
    }

    /// "Retry now" / "Reconnect": a new attempt at once (a connected host
    /// reconnects). Returns before the attempt ends.
    pub async fn reconnect(&self, id: &HostId) -> Result<(), CoreError> {
        if self.book.label(id).is_none() {
            return Err(CoreError::NotFound(format!("host {id}")));
        }
        self.book.retry_now(id);
        self.push_hosts().await;
        let (multi, id) = (self.multi.clone(), id.clone());
        // The host's supervisor answers only once an attempt under way ends.
        tokio::spawn(async move {
            if let Err(e) = multi.reconnect_host(&id).await {
                tracing::warn!("reconnecting {id}: {e}");
            }
        });
        Ok(())
    }

    /// "Add host", step one (see [`remote_hosts::probe`]).
    pub async fn probe_host(&self, url: &str) -> Result<HostProbe, CoreError> {
        remote_hosts::probe(url).await
    }

    /// "Add host": save it as `hangar remote add` does, then connect.
    pub async fn save_host(&self, args: HostAddArgs) -> Result<String, CoreError> {
        let saved = remote_hosts::save(&self.remotes()?, args).await?;
        self.add_saved_host(&saved).await?;
        Ok(saved.id)
    }

    /// Rename a saved host (in the list, and in the sidebar at once).
    pub async fn rename_host(&self, id: &HostId, name: &str) -> Result<(), CoreError> {
        self.saved_only(id)?;
        remote_hosts::rename(&self.remotes()?, id.as_str(), name).await?;
        self.book.rename(id, name.trim());
        self.push_hosts().await;
        self.refresh_rows().await;
        Ok(())
    }

    /// Forget a saved host and its token, and drop everything the core held on it.
    pub async fn remove_host(&self, id: &HostId) -> Result<(), CoreError> {
        self.saved_only(id)?;
        remote_hosts::remove(&self.remotes()?, id.as_str()).await?;
        self.multi.remove_host(id).await?;
        self.book.remove(id);
        {
            let mut st = lock(&self.state);
            let CoreState {
                mirror, chats, sessions, pending, floors, streams, inbox, statuses, seen_hosts, git, ..
            } = &mut *st;
            mirror.reset_host(id);
            chats.retain(|k, _| &k.host_id != id);
            sessions.retain(|k| &k.host_id != id);
            pending.retain(|k, _| &k.host_id != id);
            floors.retain(|k, _| &k.host_id != id);
            streams.retain(|_, k| &k.host_id != id);
            inbox.retain(|(h, _, _), _| h != id.as_str());
            statuses.retain(|(h, _), _| h != id.as_str());
            git.retain(|(h, _), _| h != id.as_str());
            seen_hosts.remove(id.as_str());
            let items = inbox.values().cloned().collect();
            send_app(&mut st.app_sinks, AppOp::Inbox { items });
        }
        self.push_hosts().await;
        self.refresh_rows().await;
        Ok(())
    }

    /// Refuse the host menu's list operations on a host not in the saved list.
    fn saved_only(&self, id: &HostId) -> Result<(), CoreError> {
        match self.book.remote(id) {
            Some(_) => Ok(()),
            None if self.book.label(id).is_some() => {
                Err(CoreError::Unexpected(format!("{id} is this computer's own host: it is not in the saved list")))
            }
            None => Err(CoreError::NotFound(format!("host {id}"))),
        }
    }

    /// Every host, in the sidebar's order, with its current label.
    pub(super) async fn handles(&self) -> Vec<HostHandle> {
        let mut hosts: Vec<(usize, HostHandle)> =
            self.multi.hosts().await.into_iter().map(|h| self.relabel(h)).collect();
        hosts.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.label.cmp(&b.1.label)));
        hosts.into_iter().map(|(_, h)| h).collect()
    }

    /// A host's handle with its current label (renames), and its position.
    pub(super) fn relabel(&self, mut handle: HostHandle) -> (usize, HostHandle) {
        let (order, label) = self.book.label(&handle.id).unwrap_or((usize::MAX, handle.label.clone()));
        handle.label = label;
        (order, handle)
    }

    /// A host as the sidebar shows it: with its connection in words.
    /// The About box: the app's version, and each host's software and the
    /// AHP version negotiated with it (in the sidebar's order: this
    /// computer first).
    pub async fn about(&self) -> AboutView {
        let hosts = self
            .handles()
            .await
            .into_iter()
            .map(|h| AboutHost {
                connected: matches!(h.state, HostState::Connected),
                software: self.software.of(&h.id),
                protocol_version: h.protocol_version,
                id: h.id.as_str().to_owned(),
                label: h.label,
            })
            .collect();
        AboutView { version: env!("CARGO_PKG_VERSION").to_owned(), hosts }
    }

    pub(super) fn view(&self, handle: &HostHandle) -> HostView {
        let mut view = host_view(handle, self.book.connection(&handle.id, &handle.state), self.book.remote(&handle.id));
        view.back = self.book.back(&handle.id);
        view
    }

    /// The host came back from a lost connection: note which of its
    /// sessions resumed and which need the person (the host header says so
    /// until dismissed).
    pub(super) async fn report_back(&self, id: &HostId) {
        let rows: Vec<_> = self.rows().await.into_iter().filter(|r| r.host == id.as_str()).collect();
        self.book.set_back(id, crate::session_rows::back_report(&rows, crate::outgoing::now()));
    }

    /// "Dismiss" on a host's return report.
    pub async fn dismiss_back(&self, id: &HostId) {
        self.book.dismiss_back(id);
        self.push_hosts().await;
    }
}

/// How often the clocks and the machine's addresses are read to notice a
/// wake from sleep or a network coming up.
const WAKE_TICK: Duration = Duration::from_secs(5);

/// The machine's non-loopback addresses (empty if they cannot be read).
fn addresses() -> BTreeSet<IpAddr> {
    interface_addresses().into_iter().filter(|ip| !ip.is_loopback()).collect()
}

/// After the computer slept or a network came up, try every host waiting
/// for a scheduled retry at once instead of waiting out its backoff (up to
/// 30 s). Ends with the core.
pub(super) async fn retry_on_wake_or_network(core: Weak<Core>) {
    let mut last = (Instant::now(), SystemTime::now());
    let mut last_addresses = addresses();
    loop {
        tokio::time::sleep(WAKE_TICK).await;
        let now = (Instant::now(), SystemTime::now());
        let wall = now.1.duration_since(last.1).unwrap_or_default();
        let woke = slept(now.0 - last.0, wall, 2 * WAKE_TICK);
        last = now;
        let now_addresses = addresses();
        let network_up = network_appeared(&last_addresses, &now_addresses);
        last_addresses = now_addresses;
        let Some(core) = core.upgrade() else { return };
        if woke || network_up {
            let why = if woke { "woke from sleep" } else { "a network came up" };
            for id in core.book.scheduled() {
                tracing::info!("{why}: trying {id} now");
                if let Err(e) = core.reconnect(&id).await {
                    tracing::warn!("reconnecting {id}: {e}");
                }
            }
        }
    }
}

/// Start the retry of `schedule` unless it was cancelled meanwhile.
async fn retry_if_due(core: Weak<Core>, id: HostId, schedule: u64) {
    let Some(core) = core.upgrade() else { return };
    if !core.book.due(&id, schedule) {
        return;
    }
    core.push_hosts().await;
    if let Err(e) = core.multi.reconnect_host(&id).await {
        tracing::warn!("reconnecting {id}: {e}");
    }
}
