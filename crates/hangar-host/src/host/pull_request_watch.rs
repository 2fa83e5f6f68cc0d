//! A session's pull request read again with `gh pr view <number> --json
//! state,url,number`, so a PR merged or closed on GitHub shows as such in
//! `_meta["hangar/git"].pullRequest`: at every refresh of the session's
//! branch state (a turn's end, an operation, a subscription), and every
//! `config.pull_request_refresh` (60 s) for the sessions a client is
//! subscribed to. A merged pull request is not read again (it stays
//! merged); when `gh` cannot say, the state last read is kept.

use std::path::Path;
use std::sync::Arc;

use crate::changes::git_loop::pull_request;
use crate::changes::git_loop::state::PullRequest;
use crate::host::{run_blocking, Host};

impl Host {
    /// `shown` as `gh` sees it now (as it was when `gh` cannot say).
    pub(crate) fn reread_pull_request(&self, dir: &Path, shown: PullRequest) -> PullRequest {
        if shown.state == "MERGED" {
            return shown;
        }
        match pull_request::view(dir, shown.number) {
            Ok(now) => now,
            Err(e) => {
                tracing::debug!(number = shown.number, "reading the pull request again: {e}");
                shown
            }
        }
    }

    /// Start the timer that reads the open pull requests of watched
    /// sessions again (once per host; called on a tokio runtime's thread,
    /// else it waits for the next call from one).
    pub(crate) fn watch_pull_requests(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        self.pull_request_watch.get_or_init(|| {
            // Weak: the timer must not keep a dropped host alive.
            let host = Arc::downgrade(self);
            let every = self.config.pull_request_refresh;
            runtime.spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.tick().await;
                loop {
                    tick.tick().await;
                    let Some(host) = host.upgrade() else { return };
                    let sessions = host.with_engine_locked(|e| e.sessions_with_open_pull_request());
                    for session in sessions.into_iter().filter(|s| host.hub.has_subscribers(s)) {
                        let host = host.clone();
                        run_blocking(move || host.refresh_git_state(&session));
                    }
                }
            });
        });
    }
}
