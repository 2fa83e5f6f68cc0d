//! Messages typed while their host is unreachable: kept on disk
//! (`outbox.json` beside the saved host list) until the host is back, then
//! sent exactly once.
//!
//! Map: [`OutboxEntry`] — one message with the ids it will be sent under
//! (the turn's id, or the queued message's id when a turn runs), fixed when
//! it is typed so a delivery can be recognised; [`Outbox`] — the file: read
//! at launch (a file that does not parse is moved aside, never overwritten),
//! written whole on every change (staged, synced, renamed), so a crash or
//! `kill -9` loses nothing typed; [`delivered`] — whether a chat already
//! holds an entry (then it is dropped instead of sent again).

use std::path::{Path, PathBuf};

use ahp_types::state::{ChatState, Message};
use serde::{Deserialize, Serialize};

use hangar_desktop_protocol::chat::PendingView;

/// The file, in the saved host list's folder.
pub const OUTBOX_FILE: &str = "outbox.json";

/// One message waiting for its host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntry {
    /// Its id: the queued message's id if it goes behind a running turn.
    pub id: String,
    /// The id of the turn it starts.
    pub turn_id: String,
    /// The host.
    pub host: String,
    /// The chat channel.
    pub chat: String,
    /// The message as it will be sent.
    pub message: Message,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct OutboxFile {
    version: u32,
    entries: Vec<OutboxEntry>,
}

/// The messages waiting for their hosts, mirrored to a file.
#[derive(Debug, Default)]
pub struct Outbox {
    path: Option<PathBuf>,
    entries: Vec<OutboxEntry>,
}

impl Outbox {
    /// The outbox kept in `dir` (read now; empty when there is no file). A
    /// file that does not parse is renamed `outbox.json.unreadable` and the
    /// outbox starts empty: what it held is not overwritten.
    pub fn open(dir: &Path) -> Self {
        let path = dir.join(OUTBOX_FILE);
        let entries = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<OutboxFile>(&bytes) {
                Ok(file) => file.entries,
                Err(e) => {
                    let aside = path.with_extension("json.unreadable");
                    tracing::error!("{} does not parse ({e}); kept as {}", path.display(), aside.display());
                    if let Err(e) = std::fs::rename(&path, &aside) {
                        tracing::error!("moving {} aside: {e}", path.display());
                    }
                    Vec::new()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                tracing::error!("reading {}: {e}", path.display());
                Vec::new()
            }
        };
        Self { path: Some(path), entries }
    }

    /// Keep `entry`, on disk before this returns.
    pub fn add(&mut self, entry: OutboxEntry) -> std::io::Result<()> {
        self.entries.push(entry);
        let written = self.write();
        if written.is_err() {
            self.entries.pop();
        }
        written
    }

    /// Drop the entries `gone` says were delivered; true if any was.
    pub fn remove_where(&mut self, gone: impl Fn(&OutboxEntry) -> bool) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| !gone(e));
        if self.entries.len() == before {
            return false;
        }
        if let Err(e) = self.write() {
            tracing::error!("updating the outbox: {e}");
        }
        true
    }

    /// The entries for `host`, oldest first.
    pub fn for_host(&self, host: &str) -> Vec<OutboxEntry> {
        self.entries.iter().filter(|e| e.host == host).cloned().collect()
    }

    /// The entries for a chat, as the chat view lists them.
    pub fn views(&self, host: &str, chat: &str) -> Vec<PendingView> {
        self.entries
            .iter()
            .filter(|e| e.host == host && e.chat == chat)
            .map(|e| PendingView { id: e.id.clone(), text: e.message.text.clone() })
            .collect()
    }

    fn write(&self) -> std::io::Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        let body = serde_json::to_vec_pretty(&OutboxFile { version: 1, entries: self.entries.clone() })
            .map_err(std::io::Error::other)?;
        crate::atomic_file::write(path, &body)
    }
}

/// Whether `chat` already holds `entry`: a turn with its turn id, or a
/// queued message with its id.
pub fn delivered(chat: &ChatState, entry: &OutboxEntry) -> bool {
    chat.turns.iter().any(|t| t.id == entry.turn_id)
        || chat.active_turn.as_ref().is_some_and(|t| t.id == entry.turn_id)
        || chat.queued_messages.iter().flatten().any(|m| m.id == entry.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(id: &str, host: &str) -> OutboxEntry {
        OutboxEntry {
            id: id.into(),
            turn_id: format!("t-{id}"),
            host: host.into(),
            chat: "ahp-chat:/c".into(),
            message: serde_json::from_value(json!({"text": format!("msg {id}"), "origin": {"kind": "user"}})).unwrap(),
        }
    }

    #[test]
    fn entries_survive_a_restart_and_leave_once_delivered() {
        let dir = tempfile::tempdir().unwrap();
        let mut outbox = Outbox::open(dir.path());
        outbox.add(entry("a", "box")).unwrap();
        outbox.add(entry("b", "other")).unwrap();
        let mut reopened = Outbox::open(dir.path());
        assert_eq!(reopened.for_host("box"), [entry("a", "box")]);
        assert_eq!(reopened.views("other", "ahp-chat:/c")[0].text, "msg b");
        assert!(reopened.remove_where(|e| e.id == "a"));
        assert!(!reopened.remove_where(|e| e.id == "a"), "nothing left to remove");
        assert!(Outbox::open(dir.path()).for_host("box").is_empty());
    }

    #[test]
    fn an_unreadable_file_is_kept_aside_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(OUTBOX_FILE), "{ not json").unwrap();
        let mut outbox = Outbox::open(dir.path());
        assert!(outbox.for_host("box").is_empty());
        outbox.add(entry("a", "box")).unwrap();
        let aside = std::fs::read_to_string(dir.path().join("outbox.json.unreadable")).unwrap();
        assert_eq!(aside, "{ not json");
    }

    #[test]
    fn a_delivered_entry_is_recognised_by_its_ids() {
        let chat: ChatState = serde_json::from_value(json!({"resource": "ahp-chat:/c", "title": "", "status": 1,
            "modifiedAt": "x", "turns": [{"id": "t-a", "message": {"text": "msg a", "origin": {"kind": "user"}},
            "responseParts": [], "state": "complete", "startedAt": "x"}]}))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(delivered(&chat, &entry("a", "box")));
        assert!(!delivered(&chat, &entry("b", "box")));
    }
}
