//! `createSession` with `_meta["hangar/fork"]` (`{ chat, turnId }`, the
//! shape of AHP's `ForkChatSource`): a new session whose chat starts with
//! the source chat's transcript through that turn (`origin.kind: "fork"`)
//! and whose working directories are copies of the source's, restored to
//! that turn's end ([`crate::changes::fork`]). The source session and its folders
//! are not touched.
//!
//! AHP's own fork (`createChat` with `source.kind: "fork"`) makes a chat in
//! the same session, sharing its folders; a fork whose files differ needs
//! its own folders, so it is a session of its own, named by this `_meta`
//! key. The agent of the new session has not seen the earlier turns: their
//! text goes with its first prompt (see `agents::acp::session`).

use std::path::PathBuf;
use std::sync::Arc;

use ahp_types::commands::ForkChatSource;
use ahp_types::state::Turn;
use serde_json::{json, Value};

use crate::changes::fork::ForkError;
use crate::engine::clock::new_id;
use crate::engine::{ChannelRef, CreateSession, ForkSeed};
use crate::host::Host;
use crate::resources::uri::{file_uri_to_path, path_to_file_uri};
use crate::RpcError;

/// The `_meta` key of a fork request.
pub const FORK_META: &str = "hangar/fork";

/// The fork a `createSession`'s `_meta` asks for, if any.
pub fn fork_source(meta: Option<&serde_json::Map<String, Value>>) -> Result<Option<ForkChatSource>, RpcError> {
    let Some(raw) = meta.and_then(|m| m.get(FORK_META)) else { return Ok(None) };
    serde_json::from_value(raw.clone())
        .map(Some)
        .map_err(|e| RpcError::invalid_params("_meta", format!("{FORK_META}: {e} (expected {{ chat, turnId }})")))
}

/// "Fork: <source title>" (the word first, so a cut-off title in a list
/// still says it); an untitled source is named by its first message's first
/// line (60 characters at most).
fn fork_title(source: &str, turns: &[Turn]) -> String {
    let first_line = turns.first().and_then(|t| t.message.text.lines().next()).unwrap_or_default().trim();
    let name = if source.is_empty() { first_line } else { source };
    let name = name.strip_prefix("Fork: ").unwrap_or(name);
    match name.char_indices().nth(60) {
        _ if name.is_empty() => "Fork".to_owned(),
        Some((cut, _)) => format!("Fork: {}…", &name[..cut]),
        None => format!("Fork: {name}"),
    }
}

/// The source of a fork, read from the engine.
struct Source {
    session: String,
    provider: String,
    title: String,
    dirs: Vec<PathBuf>,
    /// The chat's completed turns held in memory (the newest ones).
    recent: Vec<Turn>,
}

impl Host {
    /// Make the fork `source` asks for as session `req.uri`; `req.provider`
    /// empty takes the source session's agent.
    pub fn fork_session(self: &Arc<Self>, mut req: CreateSession, source: ForkChatSource) -> Result<(), RpcError> {
        let from = self.fork_source_state(&req.uri, &source)?;
        let turns = self.turns_through(&source.chat, from.recent, &source.turn_id)?;
        let dest_root = self.config.worktrees_dir.join(format!("fork-{}", &new_id()[..8]));
        let copy =
            self.changes.working_copy(&from.session, &source.turn_id, &from.dirs, &dest_root).map_err(|e| match e {
                ForkError::UnknownTurn(_) => RpcError::invalid_params("_meta", e.to_string()),
                other => RpcError::internal(format!("making the fork's working copy: {other}")),
            })?;
        let not_restored: Vec<String> = copy.not_restored.iter().map(|p| p.display().to_string()).collect();
        if !not_restored.is_empty() {
            tracing::warn!(session = req.uri, "fork: not restored (too large, changed since): {not_restored:?}");
        }
        let meta = json!({ FORK_META: {
            "session": from.session, "chat": source.chat, "turnId": source.turn_id,
            "worktrees": copy.worktrees, "notRestored": not_restored,
        } });
        req.working_directories = Some(copy.dirs.iter().map(|d| path_to_file_uri(d)).collect());
        if req.provider.is_empty() {
            req.provider = from.provider;
        }
        let title = fork_title(&from.title, &turns);
        req.fork = Some(ForkSeed {
            chat: source.chat,
            turn_id: source.turn_id,
            turns,
            title,
            meta: meta.as_object().cloned().unwrap_or_default(),
        });
        self.with_engine(|e| e.create_session(req))
    }

    fn fork_source_state(&self, uri: &str, source: &ForkChatSource) -> Result<Source, RpcError> {
        self.with_engine_locked(|e| {
            if e.channel(uri).is_some() {
                return Err(RpcError::session_already_exists(uri));
            }
            let Some(ChannelRef::Chat { session }) = e.channel(&source.chat) else {
                return Err(RpcError::invalid_params("_meta", format!("{FORK_META}: no such chat: {}", source.chat)));
            };
            let chat = e.chat_state(&source.chat).ok_or_else(|| RpcError::not_found(&source.chat))?;
            if chat.active_turn.as_ref().is_some_and(|t| t.id == source.turn_id) {
                return Err(RpcError::invalid_params("_meta", "a fork is made from a completed turn"));
            }
            let recent = chat.turns.clone();
            let state = e.session_state(&session).ok_or_else(|| RpcError::not_found(&session))?;
            let dirs = state.working_directories.iter().flatten().filter_map(|u| file_uri_to_path(u).ok()).collect();
            Ok(Source { provider: state.provider.clone(), title: state.title.clone(), dirs, recent, session })
        })
    }

    /// `chat`'s completed turns through `turn_id`, oldest first: the stored
    /// ones, then those in memory not yet stored.
    fn turns_through(&self, chat: &str, recent: Vec<Turn>, turn_id: &str) -> Result<Vec<Turn>, RpcError> {
        let mut turns = self.chat_turns(chat, recent)?;
        let end = turns.iter().position(|t| t.id == turn_id).ok_or_else(|| {
            RpcError::invalid_params("_meta", format!("{FORK_META}: {turn_id} is not a completed turn of {chat}"))
        })?;
        turns.truncate(end + 1);
        Ok(turns)
    }

    /// `chat`'s completed turns, oldest first: the stored ones, then
    /// `recent` (those in memory, not all stored yet).
    pub(crate) fn chat_turns(&self, chat: &str, recent: Vec<Turn>) -> Result<Vec<Turn>, RpcError> {
        let stored = self
            .turn_pages
            .page(chat, None, usize::MAX >> 1)
            .map_err(|e| RpcError::internal(format!("reading turns: {e}")))?
            .map(|p| p.turns)
            .unwrap_or_default();
        let mut turns: Vec<Turn> = stored.into_iter().filter(|t| !recent.iter().any(|r| r.id == t.id)).collect();
        turns.extend(recent);
        Ok(turns)
    }
}
