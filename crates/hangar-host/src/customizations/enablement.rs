//! Toggle decisions: the `workspace` and `global` enablement the user chose
//! for each customization, kept in the host's data dir (never in the user's
//! files), and applied to a discovered tree together with the session's own
//! decisions.
//!
//! Storage: a table in its own SQLite file, `customizations.db`, in WAL mode
//! with `synchronous=NORMAL` like the host's store (`store/schema.rs`): a
//! committed transaction survives `kill -9` (only an OS crash may lose the
//! last commits), replacing one id's decisions is one transaction (no
//! half-written list), and an interrupted write leaves a WAL that the next
//! open recovers, with no temp-file/fsync/rename code of our own. A separate
//! file keeps the decisions apart from the action log's schema and lifetime.
//!
//! `session`-scope decisions are not stored here: they live in the session's
//! state (`session/customizationToggled`, reduced by `ahp::reducers`, which
//! the host's action log persists). [`Decisions::apply`] takes them from the
//! caller ([`session_decisions`] reads them back from a session's tree).
//!
//! The effective state follows `ahp::reducers`: the decisions are applied
//! with the official reducer (`session/customizationToggled` on a scratch
//! session), so a plugin or MCP server gets `enablement`, a directory or
//! child its `enabled` (`enablement[0].enabled`, absent = enabled). Since a
//! directory or non-MCP child has no `enablement` field, its list is kept in
//! `_meta["hangar.enablement"]` ([`META_KEY`]) so a client can see which
//! scope decided.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ahp::reducers::apply_action_to_session;
use ahp_types::actions::SessionCustomizationToggledAction;
use ahp_types::common::JsonObject;
use ahp_types::state::{ChildCustomization, Customization, CustomizationEnablement, SessionLifecycle, SessionState};
use ahp_types::StateAction;
use rusqlite::{params, Connection};

use crate::locks;

/// The file, in the data dir.
pub const FILE: &str = "customizations.db";

/// Key in a directory's or child's `_meta` holding its enablement list
/// (session, workspace, global; most specific first).
pub const META_KEY: &str = "hangar.enablement";

/// Why the decisions could not be read or kept.
#[derive(Debug, thiserror::Error)]
pub enum EnablementError {
    /// The data dir could not be created.
    #[error("cannot create {path}: {source}")]
    Dir {
        /// The folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// SQLite refused.
    #[error("customization decisions in {path}: {source}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// The error.
        source: rusqlite::Error,
    },
}

/// A stored decision: `uri` is `None` for `global`.
#[derive(Debug, Clone, PartialEq)]
struct Stored {
    uri: Option<String>,
    enabled: bool,
}

/// The `workspace` and `global` toggle decisions, by customization id.
pub struct Decisions {
    path: PathBuf,
    inner: Mutex<Inner>,
}

struct Inner {
    conn: Connection,
    /// Every id's decisions in the order given (most specific first).
    cache: HashMap<String, Vec<Stored>>,
}

impl Decisions {
    /// Open (or create) `customizations.db` in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, EnablementError> {
        std::fs::create_dir_all(data_dir)
            .map_err(|source| EnablementError::Dir { path: data_dir.to_owned(), source })?;
        let path = data_dir.join(FILE);
        let sqlite = |source| EnablementError::Sqlite { path: path.clone(), source };
        let conn = Connection::open(&path).map_err(sqlite)?;
        prepare(&conn).map_err(sqlite)?;
        let cache = load(&conn).map_err(sqlite)?;
        Ok(Self { path, inner: Mutex::new(Inner { conn, cache }) })
    }

    /// Keep the `global` and `workspace` entries of `enablement` (the full
    /// list a `session/customizationToggled` carries for `id`, most specific
    /// first) in place of `id`'s earlier ones; `session` entries are not
    /// kept here. Durable when it returns.
    pub fn record(&self, id: &str, enablement: &[CustomizationEnablement]) -> Result<(), EnablementError> {
        let mut kept: Vec<Stored> = Vec::new();
        for entry in enablement {
            let stored = match entry {
                CustomizationEnablement::Global { enabled } => Stored { uri: None, enabled: *enabled },
                CustomizationEnablement::Workspace { uri, enabled } => {
                    Stored { uri: Some(uri.clone()), enabled: *enabled }
                }
                CustomizationEnablement::Session { .. } | CustomizationEnablement::Unknown(_) => continue,
            };
            // The first (most specific) decision per scope and folder wins.
            if !kept.iter().any(|k| k.uri == stored.uri) {
                kept.push(stored);
            }
        }
        let mut inner = locks::lock(&self.inner);
        write(&mut inner.conn, id, &kept)
            .map_err(|source| EnablementError::Sqlite { path: self.path.clone(), source })?;
        if kept.is_empty() {
            inner.cache.remove(id);
        } else {
            inner.cache.insert(id.to_owned(), kept);
        }
        Ok(())
    }

    /// `id`'s full list for a session working in `workspace_uris` (`file:`
    /// URIs): its `session` entries from `session`, then the stored
    /// `workspace` entries for those folders, then the `global` one.
    pub fn list_for(
        &self,
        id: &str,
        workspace_uris: &[String],
        session: &[CustomizationEnablement],
    ) -> Vec<CustomizationEnablement> {
        let inner = locks::lock(&self.inner);
        combine(inner.cache.get(id).map(Vec::as_slice).unwrap_or_default(), workspace_uris, session)
    }

    /// Give every entry of a freshly discovered `tree` its decisions for a
    /// session working in `workspace_uris`, with the session's own
    /// decisions `session_decisions` (by id; only their `session` entries
    /// count). An entry without any decision is left as discovered.
    pub fn apply(
        &self,
        tree: &mut [Customization],
        workspace_uris: &[String],
        session_decisions: &HashMap<String, Vec<CustomizationEnablement>>,
    ) {
        let lists: HashMap<String, Vec<CustomizationEnablement>> = {
            let inner = locks::lock(&self.inner);
            let ids = inner.cache.keys().chain(session_decisions.keys());
            ids.filter_map(|id| {
                let stored = inner.cache.get(id).map(Vec::as_slice).unwrap_or_default();
                let session = session_decisions.get(id).map(Vec::as_slice).unwrap_or_default();
                let list = combine(stored, workspace_uris, session);
                (!list.is_empty()).then(|| (id.clone(), list))
            })
            .collect()
        };
        apply_lists(tree, &lists);
    }
}

/// Pragmas and the table.
fn prepare(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // NORMAL in WAL mode: a committed transaction survives a process crash.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // `uri` is '' for a global decision; `ord` keeps the given order.
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS decisions (
             id TEXT NOT NULL,
             scope TEXT NOT NULL CHECK (scope IN ('global', 'workspace')),
             uri TEXT NOT NULL,
             enabled INTEGER NOT NULL,
             ord INTEGER NOT NULL,
             PRIMARY KEY (id, scope, uri));",
    )
}

/// Every stored decision, by id, in order.
fn load(conn: &Connection) -> rusqlite::Result<HashMap<String, Vec<Stored>>> {
    let mut stmt = conn.prepare("SELECT id, scope, uri, enabled FROM decisions ORDER BY id, ord")?;
    let rows = stmt.query_map([], |row| {
        let scope: String = row.get(1)?;
        let uri: String = row.get(2)?;
        Ok((row.get::<_, String>(0)?, Stored { uri: (scope == "workspace").then_some(uri), enabled: row.get(3)? }))
    })?;
    let mut out: HashMap<String, Vec<Stored>> = HashMap::new();
    for row in rows {
        let (id, stored) = row?;
        out.entry(id).or_default().push(stored);
    }
    Ok(out)
}

/// Replace `id`'s rows with `kept`, in one transaction.
fn write(conn: &mut Connection, id: &str, kept: &[Stored]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    tx.execute("DELETE FROM decisions WHERE id = ?1", params![id])?;
    for (ord, stored) in kept.iter().enumerate() {
        let (scope, uri) = match &stored.uri {
            Some(uri) => ("workspace", uri.as_str()),
            None => ("global", ""),
        };
        tx.execute(
            "INSERT INTO decisions (id, scope, uri, enabled, ord) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, scope, uri, stored.enabled, i64::try_from(ord).unwrap_or(i64::MAX)],
        )?;
    }
    tx.commit()
}

/// The same folder, whatever trailing slash.
fn same_folder(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Session entries, then workspace entries for `workspace_uris`, then global.
fn combine(
    stored: &[Stored],
    workspace_uris: &[String],
    session: &[CustomizationEnablement],
) -> Vec<CustomizationEnablement> {
    let session = session.iter().filter(|e| matches!(e, CustomizationEnablement::Session { .. })).cloned();
    let workspace = stored.iter().filter_map(|s| {
        let uri = s.uri.as_ref()?;
        workspace_uris
            .iter()
            .any(|w| same_folder(w, uri))
            .then(|| CustomizationEnablement::Workspace { uri: uri.clone(), enabled: s.enabled })
    });
    let global =
        stored.iter().filter(|s| s.uri.is_none()).map(|s| CustomizationEnablement::Global { enabled: s.enabled });
    session.chain(workspace).chain(global).collect()
}

/// Apply each id's full list with the official reducer, then mirror the
/// lists of directories and non-MCP children into their `_meta`.
fn apply_lists(tree: &mut [Customization], lists: &HashMap<String, Vec<CustomizationEnablement>>) {
    if lists.is_empty() {
        return;
    }
    let placeholder = || Customization::Unknown(serde_json::Value::Null);
    let mut scratch = scratch_session(tree.iter_mut().map(|c| std::mem::replace(c, placeholder())).collect());
    for (id, enablement) in lists {
        let action = SessionCustomizationToggledAction { id: id.clone(), enablement: enablement.clone() };
        // `NoOp` when the id is not in this tree (a decision for another
        // session's folder or a customization since removed).
        apply_action_to_session(&mut scratch, &StateAction::SessionCustomizationToggled(action));
    }
    for (slot, c) in tree.iter_mut().zip(scratch.customizations.unwrap_or_default()) {
        *slot = c;
    }
    for c in tree.iter_mut() {
        if let Customization::Directory(d) = c {
            set_meta(&mut d.meta, lists.get(&d.id));
        }
        let children = match c {
            Customization::Plugin(p) => p.children.as_mut(),
            Customization::Directory(d) => d.children.as_mut(),
            Customization::McpServer(_) | Customization::Unknown(_) => None,
        };
        for child in children.into_iter().flatten() {
            let (id, meta) = match child {
                ChildCustomization::Agent(x) => (&x.id, &mut x.meta),
                ChildCustomization::Skill(x) => (&x.id, &mut x.meta),
                ChildCustomization::Prompt(x) => (&x.id, &mut x.meta),
                ChildCustomization::Rule(x) => (&x.id, &mut x.meta),
                ChildCustomization::Hook(x) => (&x.id, &mut x.meta),
                ChildCustomization::McpServer(_) | ChildCustomization::Unknown(_) => continue,
            };
            set_meta(meta, lists.get(id));
        }
    }
}

/// Put `list` under [`META_KEY`] in `meta`.
fn set_meta(meta: &mut Option<JsonObject>, list: Option<&Vec<CustomizationEnablement>>) {
    let Some(list) = list else { return };
    if let Ok(value) = serde_json::to_value(list) {
        meta.get_or_insert_with(JsonObject::new).insert(META_KEY.to_owned(), value);
    }
}

/// A session holding only `customizations`, for the reducer.
fn scratch_session(customizations: Vec<Customization>) -> SessionState {
    // What the reducer reads first, then the rest, all empty.
    SessionState {
        customizations: Some(customizations),
        lifecycle: SessionLifecycle::Ready,
        active_clients: Vec::new(),
        chats: Vec::new(),
        provider: String::new(),
        title: String::new(),
        status: 0,
        config: None,
        activity: None,
        origin: None,
        changesets: None,
        project: None,
        working_directories: None,
        input_needed: None,
        annotations: None,
        creation_error: None,
        server_tools: None,
        default_chat: None,
        meta: None,
    }
}

/// The `session` decisions a session's `tree` carries, by id (from the
/// `enablement` of plugins and MCP servers and the [`META_KEY`] list of
/// directories and children), to pass to [`Decisions::apply`] when the
/// tree is discovered again.
pub fn session_decisions(tree: &[Customization]) -> HashMap<String, Vec<CustomizationEnablement>> {
    let mut out = HashMap::new();
    let mut keep = |id: &str, list: Option<Vec<CustomizationEnablement>>| {
        let session: Vec<_> = list
            .unwrap_or_default()
            .into_iter()
            .filter(|e| matches!(e, CustomizationEnablement::Session { .. }))
            .collect();
        if !session.is_empty() {
            out.insert(id.to_owned(), session);
        }
    };
    let from_meta = |meta: &Option<JsonObject>| {
        meta.as_ref().and_then(|m| m.get(META_KEY)).and_then(|v| serde_json::from_value(v.clone()).ok())
    };
    for c in tree {
        let children = match c {
            Customization::Plugin(p) => {
                keep(&p.id, p.enablement.clone());
                p.children.as_deref()
            }
            Customization::Directory(d) => {
                keep(&d.id, from_meta(&d.meta));
                d.children.as_deref()
            }
            Customization::McpServer(m) => {
                keep(&m.id, m.enablement.clone());
                None
            }
            Customization::Unknown(_) => None,
        };
        for child in children.unwrap_or_default() {
            match child {
                ChildCustomization::Agent(x) => keep(&x.id, from_meta(&x.meta)),
                ChildCustomization::Skill(x) => keep(&x.id, from_meta(&x.meta)),
                ChildCustomization::Prompt(x) => keep(&x.id, from_meta(&x.meta)),
                ChildCustomization::Rule(x) => keep(&x.id, from_meta(&x.meta)),
                ChildCustomization::Hook(x) => keep(&x.id, from_meta(&x.meta)),
                ChildCustomization::McpServer(x) => keep(&x.id, x.enablement.clone()),
                ChildCustomization::Unknown(_) => {}
            }
        }
    }
    out
}

/// `enablement[0].enabled`, absent = enabled (as `ahp::reducers`; an entry
/// of an unknown kind counts as disabled there too).
pub fn effective_enablement(enablement: Option<&[CustomizationEnablement]>) -> bool {
    match enablement.and_then(<[_]>::first) {
        None => true,
        Some(
            CustomizationEnablement::Global { enabled }
            | CustomizationEnablement::Workspace { enabled, .. }
            | CustomizationEnablement::Session { enabled },
        ) => *enabled,
        Some(CustomizationEnablement::Unknown(_)) => false,
    }
}

/// Whether customization `id` of `tree` is in effect: its own state and,
/// for a child, its container's (a disabled plugin or directory disables
/// its children). An id not in `tree` is not in effect.
pub fn effective(tree: &[Customization], id: &str) -> bool {
    for c in tree {
        let (own, enabled, children) = match c {
            Customization::Plugin(p) => (&p.id, effective_enablement(p.enablement.as_deref()), p.children.as_deref()),
            Customization::Directory(d) => (&d.id, d.enabled, d.children.as_deref()),
            Customization::McpServer(m) => (&m.id, effective_enablement(m.enablement.as_deref()), None),
            Customization::Unknown(_) => continue,
        };
        if own == id {
            return enabled;
        }
        if let Some(child) = children.unwrap_or_default().iter().find(|ch| child_id(ch) == Some(id)) {
            return enabled && child_enabled(child);
        }
    }
    false
}

/// A child's id.
fn child_id(c: &ChildCustomization) -> Option<&str> {
    match c {
        ChildCustomization::Agent(x) => Some(&x.id),
        ChildCustomization::Skill(x) => Some(&x.id),
        ChildCustomization::Prompt(x) => Some(&x.id),
        ChildCustomization::Rule(x) => Some(&x.id),
        ChildCustomization::Hook(x) => Some(&x.id),
        ChildCustomization::McpServer(x) => Some(&x.id),
        ChildCustomization::Unknown(_) => None,
    }
}

/// A child's own state (`enabled` absent = enabled).
fn child_enabled(c: &ChildCustomization) -> bool {
    match c {
        ChildCustomization::Agent(x) => x.enabled.unwrap_or(true),
        ChildCustomization::Skill(x) => x.enabled.unwrap_or(true),
        ChildCustomization::Prompt(x) => x.enabled.unwrap_or(true),
        ChildCustomization::Rule(x) => x.enabled.unwrap_or(true),
        ChildCustomization::Hook(x) => x.enabled.unwrap_or(true),
        ChildCustomization::McpServer(x) => effective_enablement(x.enablement.as_deref()),
        ChildCustomization::Unknown(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    use ahp_types::state::{ChildCustomization, Customization, CustomizationEnablement};
    use serde_json::json;

    use super::{effective, session_decisions, Decisions, FILE, META_KEY};

    const W1: &str = "file:///w1";
    const W2: &str = "file:///w2";

    fn global(enabled: bool) -> CustomizationEnablement {
        CustomizationEnablement::Global { enabled }
    }
    fn workspace(uri: &str, enabled: bool) -> CustomizationEnablement {
        CustomizationEnablement::Workspace { uri: uri.to_owned(), enabled }
    }
    fn session(enabled: bool) -> CustomizationEnablement {
        CustomizationEnablement::Session { enabled }
    }

    /// A plugin `p` (skill child `p-s`), a directory `d` (agent child `a`)
    /// and a top-level MCP server `m`.
    fn tree() -> Vec<Customization> {
        let tree: Vec<Customization> = serde_json::from_value(json!([
            { "type": "plugin", "id": "p", "uri": "file:///p", "name": "p",
              "children": [{ "type": "skill", "id": "p-s", "uri": "file:///p/s/SKILL.md", "name": "s" }] },
            { "type": "directory", "id": "d", "uri": "file:///w1/.claude/agents", "name": "agents",
              "enabled": true, "contents": "agent", "writable": true,
              "children": [{ "type": "agent", "id": "a", "uri": "file:///w1/.claude/agents/a.md", "name": "a" }] },
            { "type": "mcpServer", "id": "m", "uri": "file:///w1/.mcp.json", "name": "m",
              "state": { "kind": "stopped" } },
        ]))
        .unwrap();
        assert!(tree.iter().all(|c| !matches!(c, Customization::Unknown(_))), "fixture parses: {tree:?}");
        tree
    }

    fn open() -> (tempfile::TempDir, Decisions) {
        let dir = tempfile::tempdir().unwrap();
        let decisions = Decisions::open(dir.path()).unwrap();
        (dir, decisions)
    }

    /// `tree()` with `decisions` applied for a session in `workspaces`.
    fn applied(
        decisions: &Decisions,
        workspaces: &[&str],
        session: &[(&str, Vec<CustomizationEnablement>)],
    ) -> Vec<Customization> {
        let mut t = tree();
        let uris: Vec<String> = workspaces.iter().map(|s| (*s).to_owned()).collect();
        let session: HashMap<String, Vec<CustomizationEnablement>> =
            session.iter().map(|(id, list)| ((*id).to_owned(), list.clone())).collect();
        decisions.apply(&mut t, &uris, &session);
        t
    }

    fn mcp_enablement(tree: &[Customization]) -> Option<Vec<CustomizationEnablement>> {
        tree.iter().find_map(|c| match c {
            Customization::McpServer(m) => Some(m.enablement.clone()),
            _ => None,
        })?
    }

    fn agent_meta(tree: &[Customization]) -> Option<serde_json::Value> {
        let Customization::Directory(d) = &tree[1] else { panic!("not a directory") };
        let ChildCustomization::Agent(a) = &d.children.as_ref().unwrap()[0] else { panic!("not an agent") };
        a.meta.as_ref()?.get(META_KEY).cloned()
    }

    #[test]
    fn each_scope_decides_alone() {
        let (_dir, decisions) = open();
        // Global.
        decisions.record("m", &[global(false)]).unwrap();
        let t = applied(&decisions, &[W1], &[]);
        assert_eq!(mcp_enablement(&t), Some(vec![global(false)]));
        assert!(!effective(&t, "m"));
        // Workspace.
        decisions.record("a", &[workspace(W1, false)]).unwrap();
        let t = applied(&decisions, &[W1], &[]);
        assert!(!effective(&t, "a"));
        assert_eq!(agent_meta(&t), Some(json!([{ "kind": "workspace", "uri": W1, "enabled": false }])));
        // Session: not stored, taken from the caller.
        decisions.record("d", &[session(false)]).unwrap();
        assert!(effective(&applied(&decisions, &[W1], &[]), "d"), "a session decision is not stored");
        let t = applied(&decisions, &[W1], &[("d", vec![session(false)])]);
        assert!(!effective(&t, "d"));
        let Customization::Directory(d) = &t[1] else { panic!() };
        assert!(!d.enabled);
        assert_eq!(d.meta.as_ref().unwrap()[META_KEY], json!([{ "kind": "session", "enabled": false }]));
        // Untouched entries stay as discovered.
        assert_eq!(t[0], tree()[0]);
    }

    #[test]
    fn the_most_specific_decision_wins() {
        let (_dir, decisions) = open();
        decisions.record("m", &[workspace(W1, true), global(false)]).unwrap();
        let t = applied(&decisions, &[W1], &[]);
        assert!(effective(&t, "m"), "workspace on over global off");
        assert!(!effective(&applied(&decisions, &[W2], &[]), "m"), "global off elsewhere");
        let t = applied(&decisions, &[W1], &[("m", vec![session(false)])]);
        assert_eq!(mcp_enablement(&t), Some(vec![session(false), workspace(W1, true), global(false)]));
        assert!(!effective(&t, "m"), "session off over workspace on");
    }

    #[test]
    fn a_workspace_decision_applies_only_to_sessions_in_that_folder() {
        let (_dir, decisions) = open();
        decisions.record("a", &[workspace(W1, false)]).unwrap();
        let elsewhere = applied(&decisions, &[W2], &[]);
        assert!(effective(&elsewhere, "a"));
        assert_eq!(elsewhere, tree(), "nothing to apply in another folder");
        assert!(!effective(&applied(&decisions, &[W2, "file:///w1/"], &[]), "a"), "trailing slash, second folder");
    }

    #[test]
    fn record_replaces_the_ids_earlier_decisions() {
        let (_dir, decisions) = open();
        decisions.record("m", &[workspace(W1, false), global(false)]).unwrap();
        decisions.record("m", &[session(true), global(true)]).unwrap();
        assert_eq!(decisions.list_for("m", &[W1.to_owned()], &[]), vec![global(true)]);
        decisions.record("m", &[]).unwrap();
        assert_eq!(mcp_enablement(&applied(&decisions, &[W1], &[])), None);
    }

    #[test]
    fn decisions_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let decisions = Decisions::open(dir.path()).unwrap();
        decisions.record("p", &[workspace(W1, false), global(true)]).unwrap();
        drop(decisions);
        let decisions = Decisions::open(dir.path()).unwrap();
        assert_eq!(decisions.list_for("p", &[W1.to_owned()], &[]), vec![workspace(W1, false), global(true)]);
    }

    /// Run by [`decisions_survive_kill_9`] in a child process: record, say
    /// so, then wait to be killed.
    #[test]
    #[ignore = "helper of decisions_survive_kill_9"]
    fn killed_child_helper() {
        let Some(dir) = std::env::var_os("HANGAR_DECISIONS_CHILD") else { return };
        let decisions = Decisions::open(std::path::Path::new(&dir)).unwrap();
        decisions.record("m", &[workspace(W1, false), global(true)]).unwrap();
        println!("recorded");
        std::thread::sleep(std::time::Duration::from_secs(120));
    }

    #[test]
    fn decisions_survive_kill_9() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["customizations::enablement::tests::killed_child_helper", "--exact", "--ignored", "--nocapture"])
            .env("HANGAR_DECISIONS_CHILD", dir.path())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        assert!(stdout.lines().map_while(Result::ok).any(|l| l.trim() == "recorded"), "the child recorded");
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // Killed with the commit still in the write-ahead log (no close, no
        // checkpoint): opening recovers it.
        let wal = dir.path().join(format!("{FILE}-wal"));
        assert!(std::fs::metadata(&wal).map(|m| m.len() > 0).unwrap_or(false), "the commit sits in the WAL");
        let decisions = Decisions::open(dir.path()).unwrap();
        assert_eq!(decisions.list_for("m", &[W1.to_owned()], &[]), vec![workspace(W1, false), global(true)]);
    }

    #[test]
    fn a_disabled_container_disables_its_children() {
        let (_dir, decisions) = open();
        assert!(effective(&tree(), "p-s") && effective(&tree(), "a"));
        decisions.record("p", &[global(false)]).unwrap();
        decisions.record("d", &[global(false)]).unwrap();
        let t = applied(&decisions, &[W1], &[]);
        assert!(!effective(&t, "p") && !effective(&t, "p-s"));
        assert!(!effective(&t, "d") && !effective(&t, "a"));
        assert!(!effective(&t, "no-such-id"));
        // A child turned off under an enabled container.
        decisions.record("p", &[]).unwrap();
        decisions.record("p-s", &[global(false)]).unwrap();
        let t = applied(&decisions, &[W1], &[]);
        assert!(effective(&t, "p") && !effective(&t, "p-s"));
    }

    #[test]
    fn session_decisions_read_back_from_an_applied_tree() {
        let (_dir, decisions) = open();
        decisions.record("a", &[global(true)]).unwrap();
        let session = [("a", vec![session(false)]), ("m", vec![session(true)]), ("p", vec![session(false)])];
        let t = applied(&decisions, &[W1], &session);
        let back = session_decisions(&t);
        let want: HashMap<String, Vec<CustomizationEnablement>> =
            session.iter().map(|(id, list)| ((*id).to_owned(), list.clone())).collect();
        assert_eq!(back, want, "only session entries, for every kind");
    }
}
