//! Approvals bound to what was shown: when a person approves a tool call
//! whose permission request carried file diffs, the content hash of each
//! approved result is kept for the turn. A later `fs/write_text_file` of
//! that file with other content is refused, and a file the agent wrote
//! itself that differs from the approved result when its tool call
//! completes is reported in the turn.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::ToolCallContent;

use crate::changes::scan::hash_of;

/// One turn's proposed and approved file results.
#[derive(Debug, Default)]
pub struct Approvals {
    /// By tool call: each file the permission request showed, with the
    /// hash of its proposed content.
    proposed: HashMap<String, Vec<(PathBuf, String)>>,
    /// By tool call: the same, once approved.
    approved: HashMap<String, Vec<(PathBuf, String)>>,
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

impl Approvals {
    /// A permission request for `tool_call` showed `content`.
    pub fn propose(&mut self, tool_call: &str, content: &[ToolCallContent], cwd: &Path) {
        let files: Vec<(PathBuf, String)> = content
            .iter()
            .filter_map(|c| match c {
                ToolCallContent::Diff(d) => Some((absolute(&d.path, cwd), hash_of(d.new_text.as_bytes()))),
                _ => None,
            })
            .collect();
        if !files.is_empty() {
            self.proposed.insert(tool_call.to_owned(), files);
        }
    }

    /// The person answered `tool_call`: the files it showed (path, hash of
    /// the proposed content), bound when approved.
    pub fn decide(&mut self, tool_call: &str, approved: bool) -> Vec<(PathBuf, String)> {
        let files = self.proposed.remove(tool_call).unwrap_or_default();
        if approved && !files.is_empty() {
            self.approved.insert(tool_call.to_owned(), files.clone());
        }
        files
    }

    /// Whether the agent may write `content` to `path`: refused (the reason)
    /// when an approved diff of this turn bound `path` to other content.
    pub fn check_write(&self, path: &Path, content: &str, cwd: &Path) -> Result<(), String> {
        let path = absolute(path, cwd);
        let bound: Vec<&String> =
            self.approved.values().flatten().filter(|(p, _)| *p == path).map(|(_, hash)| hash).collect();
        if bound.is_empty() || bound.contains(&&hash_of(content.as_bytes())) {
            return Ok(());
        }
        Err(format!("Refused the agent's write to {}: it is not the change that was approved.", path.display()))
    }

    /// After `tool_call` completed: each approved file whose content on disk
    /// is not the approved one, in words.
    pub fn check_disk(&mut self, tool_call: &str) -> Vec<String> {
        let Some(files) = self.approved.get(tool_call) else { return Vec::new() };
        files
            .iter()
            .filter(|(path, hash)| std::fs::read(path).map(|b| hash_of(&b) != *hash).unwrap_or(true))
            .map(|(path, _)| {
                format!("{} on disk is not the change that was approved: review it under Changes.", path.display())
            })
            .collect()
    }
}

/// The audit log entry of a person's answer to a tool call's confirmation.
pub fn audit_entry(
    chat: &str,
    client: Option<&str>,
    action: &ahp_types::actions::ChatToolCallConfirmedAction,
    files: &[(PathBuf, String)],
) -> serde_json::Value {
    serde_json::json!({
        "at": crate::engine::clock::now(),
        "kind": "toolCallConfirmation",
        "client": { "id": client },
        "chat": chat,
        "turn": action.turn_id,
        "toolCall": action.tool_call_id,
        "approved": action.approved,
        "option": action.selected_option_id,
        "files": files.iter().map(|(path, hash)| serde_json::json!({ "path": path, "after": hash })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::Diff;

    fn diff(path: &str, new_text: &str) -> ToolCallContent {
        ToolCallContent::Diff(Diff::new(path, new_text))
    }

    #[test]
    fn an_approved_diff_binds_its_file_and_a_denied_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        let mut a = Approvals::default();
        a.propose("t1", &[diff("a.txt", "approved\n")], cwd);
        a.propose("t2", &[diff("b.txt", "denied\n")], cwd);
        assert_eq!(a.decide("t1", true).len(), 1);
        assert_eq!(a.decide("t2", false).len(), 1);
        assert!(a.check_write(Path::new("a.txt"), "approved\n", cwd).is_ok());
        assert!(a.check_write(&cwd.join("a.txt"), "something else\n", cwd).is_err());
        assert!(a.check_write(Path::new("b.txt"), "anything\n", cwd).is_ok());
        // The agent wrote the file itself, with other content.
        std::fs::write(cwd.join("a.txt"), "something else\n").unwrap();
        assert_eq!(a.check_disk("t1").len(), 1);
        std::fs::write(cwd.join("a.txt"), "approved\n").unwrap();
        assert!(a.check_disk("t1").is_empty());
    }
}
