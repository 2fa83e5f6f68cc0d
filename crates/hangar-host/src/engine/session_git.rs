//! A session's branch state, `_meta["hangar/git"]` on its summary: set by
//! the host after it reads the session's repository
//! (`changes::git_loop::state`), kept here so every summary (list, added,
//! changed) carries the last one read.

use serde_json::Value;

use super::Engine;

/// The summary `_meta` key of a session's branch state.
pub const GIT_META: &str = "hangar/git";

impl Engine {
    /// Show `state` as `session`'s branch state (a summary change when it
    /// differs from the last).
    pub fn set_session_git(&mut self, session: &str, state: Value) {
        if !self.sessions.contains_key(session) || self.session_git.get(session) == Some(&state) {
            return;
        }
        self.session_git.insert(session.to_owned(), state);
        self.sync_session_summary(session);
    }

    /// The branch state last shown for `session`.
    pub fn session_git(&self, session: &str) -> Option<&Value> {
        self.session_git.get(session)
    }

    /// The sessions whose branch state shows a pull request not merged
    /// yet (its state can still change).
    pub fn sessions_with_open_pull_request(&self) -> Vec<String> {
        let open = |git: &Value| git["pullRequest"].is_object() && git["pullRequest"]["state"] != "MERGED";
        self.session_git.iter().filter(|(_, git)| open(git)).map(|(s, _)| s.clone()).collect()
    }
}
