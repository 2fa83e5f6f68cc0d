//! [`Customizations`]: what each open session's customizations are, kept
//! current. It discovers a session's tree when the session starts (or is
//! first used after a restart), applies the toggle decisions, re-discovers
//! when the watcher reports a change under a session's roots, and answers
//! the agent layer (the MCP servers to pass), the `/` completions and the
//! custom-agent lookup. It returns the actions to publish; the host emits
//! them, so this file knows nothing of the engine.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ahp_types::actions::{
    SessionCustomizationRemovedAction, SessionCustomizationUpdatedAction, SessionCustomizationsChangedAction,
};
use ahp_types::state::{AgentCustomization, ChildCustomization, Customization, CustomizationEnablement};
use ahp_types::StateAction;

use super::annotate::annotate;
use super::enablement::{self, Decisions, EnablementError};
use super::watcher::CustomizationWatcher;
use super::{Discovery, McpLaunch, Roots, WatchPoint};
use crate::locks::lock;
use crate::resources::uri::file_uri_to_path;

/// Discovery as a function, so tests can count or slow it.
pub type DiscoverFn = Arc<dyn Fn(&Roots) -> Discovery + Send + Sync>;

/// An action to publish on a session channel.
pub type Publish = (String, StateAction);

/// The customizations of every open session.
pub struct Customizations {
    discover: DiscoverFn,
    decisions: Decisions,
    home: Option<PathBuf>,
    sessions: Mutex<HashMap<String, Tracked>>,
    /// What to watch for the user-level (home) customizations alone.
    user_watch: Mutex<Vec<WatchPoint>>,
    /// The writable user-level folders (`~/.claude/agents`, …).
    user_folders: Mutex<Vec<PathBuf>>,
    watcher: Mutex<Option<CustomizationWatcher>>,
}

/// One session's customizations.
struct Tracked {
    /// The session's agent id (for what it reads by itself).
    provider: String,
    roots: Roots,
    /// The working directories as `file:` URIs (workspace decisions).
    workspaces: Vec<String>,
    found: Discovery,
    /// Session-scope decisions by customization id.
    session_decisions: HashMap<String, Vec<CustomizationEnablement>>,
    /// The tree last published.
    published: Vec<Customization>,
    /// MCP server ids handed to the running agent (`None`: not started).
    applied_mcp: Option<BTreeSet<String>>,
    /// Enabled MCP servers the running agent could not take, with why.
    skipped_mcp: HashMap<String, String>,
}

impl Customizations {
    /// Open the decisions kept under `data_dir`; `home` is the user's home.
    pub fn open(data_dir: &Path, home: Option<PathBuf>, discover: DiscoverFn) -> Result<Self, EnablementError> {
        Ok(Self {
            discover,
            decisions: Decisions::open(data_dir)?,
            home,
            sessions: Mutex::new(HashMap::new()),
            user_watch: Mutex::new(Vec::new()),
            user_folders: Mutex::new(Vec::new()),
            watcher: Mutex::new(None),
        })
    }

    /// Start watching; changed paths go to `on_paths` (which calls
    /// [`Self::files_changed`] and publishes). Without a watcher (it failed
    /// to start) customizations are discovered but not kept current.
    pub fn start_watching(&self, on_paths: super::watcher::OnPaths) {
        match CustomizationWatcher::new(on_paths) {
            Ok(watcher) => *lock(&self.watcher) = Some(watcher),
            Err(e) => tracing::warn!("customizations will not follow file changes: {e}"),
        }
        self.sync_watches();
    }

    /// Stop following file changes (at shutdown).
    pub fn stop_watching(&self) {
        lock(&self.watcher).take();
    }

    /// Track `session` (its agent, its `file:` working directories): discover
    /// its customizations. `stored` is the tree its state already holds
    /// (after a restart): its session-scope decisions are kept, and nothing
    /// is published when nothing changed. Tracking a tracked session does
    /// nothing.
    pub fn track(
        &self,
        session: &str,
        provider: &str,
        working_dirs: &[String],
        stored: Option<&[Customization]>,
    ) -> Vec<Publish> {
        if lock(&self.sessions).contains_key(session) {
            return Vec::new();
        }
        let roots = Roots {
            working_dirs: working_dirs.iter().filter_map(|uri| file_uri_to_path(uri).ok()).collect(),
            home: self.home.clone(),
        };
        let found = (self.discover)(&roots);
        let mut tracked = Tracked {
            provider: provider.to_owned(),
            roots,
            workspaces: working_dirs.to_vec(),
            found,
            session_decisions: stored.map(enablement::session_decisions).unwrap_or_default(),
            published: Vec::new(),
            applied_mcp: None,
            skipped_mcp: HashMap::new(),
        };
        let tree = self.compose(&tracked);
        let out = if stored == Some(tree.as_slice()) {
            Vec::new()
        } else {
            vec![(session.to_owned(), changed(tree.clone()))]
        };
        tracked.published = tree;
        lock(&self.sessions).insert(session.to_owned(), tracked);
        self.sync_watches();
        out
    }

    /// Whether `session` is tracked.
    pub fn is_tracked(&self, session: &str) -> bool {
        lock(&self.sessions).contains_key(session)
    }

    /// Stop tracking a disposed session.
    pub fn forget(&self, session: &str) {
        lock(&self.sessions).remove(session);
        self.sync_watches();
    }

    /// A client toggled `id` on `session` with `enablement` (the full list).
    /// Workspace and global decisions are kept for every session; every
    /// tracked session whose effective tree changes gets it republished.
    pub fn toggled(&self, session: &str, id: &str, enablement: &[CustomizationEnablement]) -> Vec<Publish> {
        if let Err(e) = self.decisions.record(id, enablement) {
            tracing::error!("cannot keep the toggle of {id}: {e}");
        }
        let mut sessions = lock(&self.sessions);
        if let Some(tracked) = sessions.get_mut(session) {
            let own: Vec<CustomizationEnablement> =
                enablement.iter().filter(|e| matches!(e, CustomizationEnablement::Session { .. })).cloned().collect();
            if own.is_empty() {
                tracked.session_decisions.remove(id);
            } else {
                tracked.session_decisions.insert(id.to_owned(), own);
            }
        }
        let mut out = Vec::new();
        for (uri, tracked) in sessions.iter_mut() {
            let tree = self.compose(tracked);
            // The session the client toggled holds the reducer's result
            // already; republish it too, for the `_meta` the reducer leaves.
            if tree != tracked.published || uri == session {
                out.push((uri.clone(), changed(tree.clone())));
                tracked.published = tree;
            }
        }
        out
    }

    /// Files changed: re-discover every session with a root above one of
    /// them, publish what differs (upserts and removals by top-level id),
    /// and follow new or vanished folders.
    pub fn files_changed(&self, paths: &[PathBuf]) -> Vec<Publish> {
        let mut out = Vec::new();
        {
            let mut sessions = lock(&self.sessions);
            let mut by_roots: Vec<(Roots, Discovery)> = Vec::new();
            for (uri, tracked) in sessions.iter_mut() {
                if !paths.iter().any(|p| concerns(&tracked.roots, p)) {
                    continue;
                }
                let found = match by_roots.iter().find(|(r, _)| *r == tracked.roots) {
                    Some((_, found)) => found.clone(),
                    None => {
                        let found = (self.discover)(&tracked.roots);
                        by_roots.push((tracked.roots.clone(), found.clone()));
                        found
                    }
                };
                tracked.found = found;
                let tree = self.compose(tracked);
                out.extend(diff(&tracked.published, &tree).into_iter().map(|a| (uri.clone(), a)));
                tracked.published = tree;
            }
        }
        self.sync_watches();
        out
    }

    /// How to start the MCP server `id` of `session` (any discovered one,
    /// on or off: a Test is asked for by a person).
    pub fn mcp_launch(&self, session: &str, id: &str) -> Option<McpLaunch> {
        let sessions = lock(&self.sessions);
        sessions.get(session)?.found.mcp.iter().find(|l| l.id == id).cloned()
    }

    /// The enabled MCP servers to hand `session`'s agent as it starts
    /// (remembered: a later toggle marks a restart as pending), and the
    /// tree to republish when that clears a pending restart.
    pub fn mcp_for_agent(&self, session: &str) -> (Vec<McpLaunch>, Vec<Publish>) {
        let mut sessions = lock(&self.sessions);
        let Some(tracked) = sessions.get_mut(session) else {
            return (Vec::new(), Vec::new());
        };
        let launches = enabled_mcp(tracked, &tracked.published);
        tracked.skipped_mcp.clear();
        tracked.applied_mcp = Some(launches.iter().map(|l| l.id.clone()).collect());
        let tree = self.compose(tracked);
        let out =
            if tree == tracked.published { Vec::new() } else { vec![(session.to_owned(), changed(tree.clone()))] };
        tracked.published = tree;
        (launches, out)
    }

    /// `session`'s agent was stopped (a Restart asked for): nothing is
    /// pending any more, its next start takes the servers as they are then.
    pub fn agent_stopped(&self, session: &str) -> Vec<Publish> {
        let mut sessions = lock(&self.sessions);
        let Some(tracked) = sessions.get_mut(session) else {
            return Vec::new();
        };
        tracked.applied_mcp = None;
        tracked.skipped_mcp.clear();
        let tree = self.compose(tracked);
        if tree == tracked.published {
            return Vec::new();
        }
        tracked.published = tree.clone();
        vec![(session.to_owned(), changed(tree))]
    }

    /// The agent could not take these of the servers it was given (its
    /// `mcpCapabilities`): say so on them.
    pub fn mcp_skipped(&self, session: &str, skipped: Vec<super::acp_mcp::Skipped>) -> Vec<Publish> {
        let mut sessions = lock(&self.sessions);
        let Some(tracked) = sessions.get_mut(session) else {
            return Vec::new();
        };
        tracked.skipped_mcp = skipped.into_iter().map(|s| (s.id, s.reason)).collect();
        for id in tracked.skipped_mcp.keys() {
            if let Some(applied) = tracked.applied_mcp.as_mut() {
                applied.remove(id);
            }
        }
        let tree = self.compose(tracked);
        if tree == tracked.published {
            return Vec::new();
        }
        tracked.published = tree.clone();
        vec![(session.to_owned(), changed(tree))]
    }

    /// The enabled prompts and skills of `session`, for `/` completions.
    pub fn slash_commands(&self, session: &str) -> Vec<super::slash_completions::SlashCommand> {
        lock(&self.sessions)
            .get(session)
            .map(|t| super::slash_completions::slash_commands(&t.published))
            .unwrap_or_default()
    }

    /// The enabled custom agent of `session` with this URI.
    pub fn custom_agent(&self, session: &str, uri: &str) -> Option<AgentCustomization> {
        let sessions = lock(&self.sessions);
        let tracked = sessions.get(session)?;
        let found = children(&tracked.published).find_map(|(container_on, child)| match child {
            ChildCustomization::Agent(a) if a.uri == uri && container_on && a.enabled != Some(false) => Some(a.clone()),
            _ => None,
        });
        found
    }

    /// The user-level customizations (home only) as each of `agents` sees
    /// them, for `RootState.agents[].customizations`: what that agent reads
    /// itself and the MCP servers the host passes to every agent.
    pub fn user_level(&self, agents: &[&str]) -> Vec<Vec<Customization>> {
        let found = (self.discover)(&Roots { working_dirs: Vec::new(), home: self.home.clone() });
        *lock(&self.user_watch) = found.watch;
        *lock(&self.user_folders) = writable_folders(&found.user);
        let mut tree = found.user;
        self.decisions.apply(&mut tree, &[], &HashMap::new());
        agents
            .iter()
            .map(|agent| {
                let mut mine: Vec<Customization> = tree
                    .iter()
                    .filter(|c| matches!(c, Customization::McpServer(_)) || super::annotate::read_by(c, agent))
                    .cloned()
                    .collect();
                annotate(&mut mine, agent, &BTreeSet::new(), &HashMap::new());
                mine
            })
            .collect()
    }

    /// The user-level customization folders a client may write into (the
    /// writable `directory` containers under home; not single files such as
    /// `~/.claude.json`, which hold more than customizations).
    pub fn user_folders(&self) -> Vec<PathBuf> {
        lock(&self.user_folders).clone()
    }

    /// Whether a change at one of `paths` concerns the user-level
    /// customizations (then `RootState.agents` needs [`Self::user_level`]).
    pub fn concerns_home(&self, paths: &[PathBuf]) -> bool {
        self.home.as_ref().is_some_and(|home| paths.iter().any(|p| p.starts_with(home)))
    }

    /// The session's tree: discovery, then decisions, then notes.
    fn compose(&self, tracked: &Tracked) -> Vec<Customization> {
        let mut tree = tracked.found.tree.clone();
        self.decisions.apply(&mut tree, &tracked.workspaces, &tracked.session_decisions);
        let pending = match &tracked.applied_mcp {
            Some(applied) => {
                let now: BTreeSet<String> = enabled_mcp(tracked, &tree)
                    .into_iter()
                    .map(|l| l.id)
                    .filter(|id| !tracked.skipped_mcp.contains_key(id))
                    .collect();
                now.symmetric_difference(applied).cloned().collect()
            }
            None => BTreeSet::new(),
        };
        let mut not_passed = super::mcp_policy::withheld(&tree, &tracked.provider);
        not_passed.extend(tracked.skipped_mcp.iter().map(|(k, v)| (k.clone(), v.clone())));
        annotate(&mut tree, &tracked.provider, &pending, &not_passed);
        tree
    }

    fn sync_watches(&self) {
        let mut points: BTreeSet<WatchPoint> =
            lock(&self.sessions).values().flat_map(|t| t.found.watch.iter().cloned()).collect();
        points.extend(lock(&self.user_watch).iter().cloned());
        if let Some(watcher) = lock(&self.watcher).as_ref() {
            watcher.sync(&points);
        }
    }
}

/// The paths of the writable `directory` containers of `tree`.
fn writable_folders(tree: &[Customization]) -> Vec<PathBuf> {
    tree.iter()
        .filter_map(|c| match c {
            Customization::Directory(d) if d.writable => file_uri_to_path(&d.uri).ok(),
            _ => None,
        })
        .collect()
}

/// `session/customizationsChanged` with `tree`.
fn changed(tree: Vec<Customization>) -> StateAction {
    StateAction::SessionCustomizationsChanged(SessionCustomizationsChangedAction { customizations: tree })
}

/// Whether a change at `path` can concern a session with these roots.
fn concerns(roots: &Roots, path: &Path) -> bool {
    roots.working_dirs.iter().chain(roots.home.as_ref()).any(|root| path.starts_with(root))
}

/// The launches whose customization is in effect in `tree` and that this
/// session's agent is given (`mcp_policy`).
fn enabled_mcp(tracked: &Tracked, tree: &[Customization]) -> Vec<McpLaunch> {
    let withheld = super::mcp_policy::withheld(tree, &tracked.provider);
    super::acp_mcp::enabled_launches(&tracked.found.mcp, tree)
        .into_iter()
        .filter(|l| !withheld.contains_key(&l.id))
        .collect()
}

/// Upserts for new or changed top-level entries, removals for gone ones.
fn diff(old: &[Customization], new: &[Customization]) -> Vec<StateAction> {
    let id = |c: &Customization| match c {
        Customization::Plugin(p) => Some(p.id.clone()),
        Customization::Directory(d) => Some(d.id.clone()),
        Customization::McpServer(m) => Some(m.id.clone()),
        Customization::Unknown(_) => None,
    };
    let old_ids: Vec<Option<String>> = old.iter().map(id).collect();
    let new_ids: Vec<Option<String>> = new.iter().map(id).collect();
    let same_order = old_ids.iter().filter(|i| new_ids.contains(i)).eq(new_ids.iter().filter(|i| old_ids.contains(i)));
    if !same_order {
        return vec![changed(new.to_vec())];
    }
    let mut actions: Vec<StateAction> = old_ids
        .iter()
        .flatten()
        .filter(|i| !new_ids.contains(&Some((*i).clone())))
        .map(|i| StateAction::SessionCustomizationRemoved(SessionCustomizationRemovedAction { id: i.clone() }))
        .collect();
    for entry in new {
        if !old.contains(entry) {
            actions.push(StateAction::SessionCustomizationUpdated(Box::new(SessionCustomizationUpdatedAction {
                customization: entry.clone(),
            })));
        }
    }
    actions
}

/// Every child of every container, with whether its container is on.
fn children(tree: &[Customization]) -> impl Iterator<Item = (bool, &ChildCustomization)> {
    tree.iter().flat_map(|c| {
        let (on, kids) = match c {
            Customization::Plugin(p) => (enablement::effective_enablement(p.enablement.as_deref()), &p.children),
            Customization::Directory(d) => (d.enabled, &d.children),
            _ => (true, &None),
        };
        kids.iter().flatten().map(move |k| (on, k))
    })
}
