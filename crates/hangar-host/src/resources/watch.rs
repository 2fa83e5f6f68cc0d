//! `createResourceWatch`: a notify watcher whose events are filtered,
//! coalesced and delivered in batches.
//!
//! The watched path is canonicalized and checked for read access like
//! `resourceRead`. Events are debounced (delivered after [`QUIET`] without new
//! events, at most [`MAX_DELAY`] after the first), coalesced per path (added
//! then deleted cancels out, deleted then added is an update, …) and filtered
//! by `includes`/`excludes` (globs or plain paths relative to the watched URI,
//! given as `{items: [..]}`, a bare array, or a single string; a pattern that
//! matches a folder covers everything below it). Empty batches are never
//! delivered. Reported URIs keep the prefix the caller used (so a watch through
//! a symlinked folder reports under that folder). Symlinks inside the tree are
//! not followed. Each batch re-checks access first: once the grant behind a
//! watch is revoked, it goes silent. Dropping the [`WatchHandle`] stops it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ahp_types::actions::ResourceWatchChangedAction;
use ahp_types::commands::CreateResourceWatchParams;
use ahp_types::state::{ResourceChange, ResourceChangeType, ResourceWatchState};
use globset::{Glob, GlobSet, GlobSetBuilder};
use notify::event::{ModifyKind, RenameMode};
use notify::{Config, Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::file_ops::parse_uri;
use super::policy::{canonicalize_lenient, Need, Policy};
use super::uri::path_to_file_uri;
use crate::RpcError;

/// Quiet time that closes a batch.
pub const QUIET: Duration = Duration::from_millis(75);
/// Longest a change waits before its batch is delivered.
pub const MAX_DELAY: Duration = Duration::from_millis(400);

/// Receives batches of changes (never empty).
pub type OnChange = Box<dyn Fn(Vec<ResourceChange>) + Send + Sync>;

/// A running watch. Dropping it stops the watcher and its delivery thread.
pub struct WatchHandle {
    _watcher: RecommendedWatcher,
    stop: Arc<AtomicBool>,
    state: ResourceWatchState,
}

impl WatchHandle {
    /// The descriptor for the `ahp-resource-watch:` channel's snapshot.
    pub fn state(&self) -> &ResourceWatchState {
        &self.state
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl std::fmt::Debug for WatchHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchHandle").field("state", &self.state).finish_non_exhaustive()
    }
}

/// The `resourceWatch/changed` action for a batch: `changes` is `{items: [..]}`.
pub fn changed_action(changes: Vec<ResourceChange>) -> ResourceWatchChangedAction {
    let items: Vec<serde_json::Value> = changes.iter().filter_map(|c| serde_json::to_value(c).ok()).collect();
    ResourceWatchChangedAction { changes: serde_json::json!({ "items": items }) }
}

/// Patterns from `includes`/`excludes`.
fn patterns(value: Option<&serde_json::Value>, field: &str) -> Result<Option<GlobSet>, RpcError> {
    let Some(value) = value else { return Ok(None) };
    let list = match value {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::Object(map) => map.get("items").cloned().unwrap_or(serde_json::Value::Null),
        other => other.clone(),
    };
    let items: Vec<String> = match list {
        serde_json::Value::Null => Vec::new(),
        serde_json::Value::String(s) => vec![s],
        serde_json::Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                serde_json::Value::String(s) => Ok(s),
                _ => Err(RpcError::invalid_params(field, "items must be strings")),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(RpcError::invalid_params(field, "expected {items: [string]}")),
    };
    if items.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for item in items {
        let item = item.trim_start_matches("./").trim_end_matches('/');
        let glob = Glob::new(item).map_err(|e| RpcError::invalid_params(field, format!("bad pattern: {e}")))?;
        builder.add(glob);
    }
    builder.build().map(Some).map_err(|e| RpcError::invalid_params(field, format!("bad pattern: {e}")))
}

/// True if `rel` or one of its ancestors matches.
fn matches_prefix(set: &GlobSet, rel: &Path) -> bool {
    rel.ancestors().filter(|a| !a.as_os_str().is_empty()).any(|a| set.is_match(a))
}

struct Filter {
    root: PathBuf,
    shown_root: PathBuf,
    recursive: bool,
    root_is_dir: bool,
    includes: Option<GlobSet>,
    excludes: Option<GlobSet>,
}

impl Filter {
    /// The path to report for a changed canonical path, if it passes.
    fn admit(&self, path: &Path) -> Option<PathBuf> {
        let rel = path.strip_prefix(&self.root).ok()?;
        if !self.recursive && rel.components().count() > usize::from(self.root_is_dir) {
            return None;
        }
        if !rel.as_os_str().is_empty() {
            if self.excludes.as_ref().is_some_and(|s| matches_prefix(s, rel)) {
                return None;
            }
            if self.includes.as_ref().is_some_and(|s| !matches_prefix(s, rel)) {
                return None;
            }
        }
        Some(if rel.as_os_str().is_empty() { self.shown_root.clone() } else { self.shown_root.join(rel) })
    }
}

/// Changes collected for one batch, coalesced per path, first-seen order.
#[derive(Default)]
struct Batch {
    order: Vec<PathBuf>,
    kinds: HashMap<PathBuf, Option<ResourceChangeType>>,
}

impl Batch {
    fn add(&mut self, path: PathBuf, kind: ResourceChangeType) {
        use ResourceChangeType::{Added, Deleted, Updated};
        match self.kinds.get_mut(&path) {
            None => {
                self.order.push(path.clone());
                self.kinds.insert(path, Some(kind));
            }
            Some(slot) => {
                *slot = match (*slot, kind) {
                    (None, k) => Some(k),
                    (Some(Added), Updated) => Some(Added),
                    (Some(Added), Deleted) => None,
                    (Some(Deleted), Added) => Some(Updated),
                    (Some(_), k) => Some(k),
                };
            }
        }
    }

    fn into_changes(self) -> Vec<ResourceChange> {
        let mut kinds = self.kinds;
        self.order
            .into_iter()
            .filter_map(|p| {
                let kind = kinds.remove(&p).flatten()?;
                Some(ResourceChange { uri: path_to_file_uri(&p), r#type: kind })
            })
            .collect()
    }
}

/// What an event means for its paths.
fn classify(event: &Event) -> Vec<(PathBuf, ResourceChangeType)> {
    use ResourceChangeType::{Added, Deleted, Updated};
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let each = |kind: ResourceChangeType| event.paths.iter().map(|p| (p.clone(), kind)).collect::<Vec<_>>();
    match &event.kind {
        EventKind::Access(_) => Vec::new(),
        EventKind::Create(_) => each(Added),
        EventKind::Remove(_) => each(Deleted),
        EventKind::Modify(ModifyKind::Name(RenameMode::From)) => each(Deleted),
        EventKind::Modify(ModifyKind::Name(RenameMode::To)) => each(Added),
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
            let mut out = Vec::new();
            if let Some(from) = event.paths.first() {
                out.push((from.clone(), Deleted));
            }
            if let Some(to) = event.paths.get(1) {
                out.push((to.clone(), Added));
            }
            out
        }
        EventKind::Modify(ModifyKind::Name(_)) => {
            event.paths.iter().map(|p| (p.clone(), if exists(p) { Added } else { Deleted })).collect()
        }
        EventKind::Modify(_) => each(Updated),
        EventKind::Any | EventKind::Other => {
            event.paths.iter().map(|p| (p.clone(), if exists(p) { Updated } else { Deleted })).collect()
        }
    }
}

/// Start a watch; see the module docs.
pub fn start(
    policy: Arc<Policy>,
    params: CreateResourceWatchParams,
    on_change: OnChange,
) -> Result<WatchHandle, RpcError> {
    let shown_root = parse_uri(&params.uri, "uri")?;
    let canonical = canonicalize_lenient(&shown_root)?;
    policy.check(&canonical.path, Need::Read, &params.channel)?;
    if !canonical.exists {
        return Err(RpcError::not_found("createResourceWatch: no such file or directory"));
    }
    let md = std::fs::metadata(&canonical.path).map_err(|e| super::policy::io_error("createResourceWatch", &e))?;
    if !(md.is_file() || md.is_dir()) {
        return Err(RpcError::permission_denied("only regular files and directories are served", None));
    }
    let recursive = params.recursive.unwrap_or(false);
    let filter = Filter {
        root: canonical.path.clone(),
        shown_root,
        recursive,
        root_is_dir: md.is_dir(),
        includes: patterns(params.includes.as_ref(), "includes")?,
        excludes: patterns(params.excludes.as_ref(), "excludes")?,
    };

    let (tx, rx) = mpsc::channel::<notify::Result<Event>>();
    let mut watcher = RecommendedWatcher::new(
        move |res| {
            let _ = tx.send(res);
        },
        Config::default().with_follow_symlinks(false),
    )
    .map_err(|e| RpcError::internal(format!("createResourceWatch: {e}")))?;
    let mode = if recursive { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
    watcher.watch(&canonical.path, mode).map_err(|e| RpcError::internal(format!("createResourceWatch: {e}")))?;

    let stop = Arc::new(AtomicBool::new(false));
    let state = ResourceWatchState {
        root: params.uri.clone(),
        recursive,
        excludes: params.excludes.clone(),
        includes: params.includes.clone(),
    };
    let thread_stop = stop.clone();
    let channel = params.channel;
    std::thread::Builder::new()
        .name("hangar-resource-watch".into())
        .spawn(move || deliver(rx, filter, policy, channel, thread_stop, on_change))
        .map_err(|e| RpcError::internal(format!("createResourceWatch: {e}")))?;
    Ok(WatchHandle { _watcher: watcher, stop, state })
}

fn deliver(
    rx: mpsc::Receiver<notify::Result<Event>>,
    filter: Filter,
    policy: Arc<Policy>,
    channel: String,
    stop: Arc<AtomicBool>,
    on_change: OnChange,
) {
    let add = |batch: &mut Batch, res: notify::Result<Event>| {
        let Ok(event) = res else { return };
        if event.need_rescan() {
            batch.add(filter.shown_root.clone(), ResourceChangeType::Updated);
        }
        for (path, kind) in classify(&event) {
            if let Some(shown) = filter.admit(&path) {
                batch.add(shown, kind);
            }
        }
    };
    loop {
        let Ok(first) = rx.recv() else { return };
        let mut batch = Batch::default();
        add(&mut batch, first);
        let started = Instant::now();
        loop {
            let left = MAX_DELAY.saturating_sub(started.elapsed());
            if left.is_zero() {
                break;
            }
            match rx.recv_timeout(QUIET.min(left)) {
                Ok(res) => add(&mut batch, res),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        if stop.load(Ordering::SeqCst) {
            return;
        }
        if policy.check(&filter.root, Need::Read, &channel).is_err() {
            // Access was withdrawn: say nothing more, drain until dropped.
            continue;
        }
        let changes = batch.into_changes();
        if !changes.is_empty() {
            on_change(changes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_wraps_items() {
        let a = changed_action(vec![ResourceChange { uri: "file:///a".into(), r#type: ResourceChangeType::Deleted }]);
        assert_eq!(a.changes, serde_json::json!({"items": [{"uri": "file:///a", "type": "deleted"}]}));
    }

    #[test]
    fn batch_coalesces() {
        use ResourceChangeType::{Added, Deleted, Updated};
        let mut b = Batch::default();
        b.add("/a".into(), Added);
        b.add("/a".into(), Updated);
        b.add("/b".into(), Added);
        b.add("/b".into(), Deleted);
        b.add("/c".into(), Deleted);
        b.add("/c".into(), Added);
        let out: Vec<_> = b.into_changes().into_iter().map(|c| (c.uri, c.r#type)).collect();
        assert_eq!(out, vec![("file:///a".to_owned(), Added), ("file:///c".to_owned(), Updated)]);
    }

    #[test]
    fn filters_by_patterns_and_depth() -> Result<(), RpcError> {
        let f = Filter {
            root: "/r".into(),
            shown_root: "/shown".into(),
            recursive: false,
            root_is_dir: true,
            includes: None,
            excludes: patterns(Some(&serde_json::json!({"items": ["node_modules", "*.log"]})), "excludes")?,
        };
        assert_eq!(f.admit(Path::new("/r/a.txt")), Some(PathBuf::from("/shown/a.txt")));
        assert_eq!(f.admit(Path::new("/r/sub/a.txt")), None);
        assert_eq!(f.admit(Path::new("/r/x.log")), None);
        assert_eq!(f.admit(Path::new("/r/node_modules")), None);
        assert_eq!(f.admit(Path::new("/other/a")), None);
        let f = Filter { recursive: true, includes: patterns(Some(&serde_json::json!(["src"])), "includes")?, ..f };
        assert_eq!(f.admit(Path::new("/r/src/deep/a.rs")), Some(PathBuf::from("/shown/src/deep/a.rs")));
        assert_eq!(f.admit(Path::new("/r/node_modules/src/a")), None);
        assert_eq!(f.admit(Path::new("/r/docs/a.md")), None);
        assert!(patterns(Some(&serde_json::json!({"items": [1]})), "includes").is_err());
        Ok(())
    }
}
