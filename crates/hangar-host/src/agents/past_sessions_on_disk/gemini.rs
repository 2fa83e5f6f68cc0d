//! Gemini CLI's sessions, read from its files: Gemini offers ACP
//! `session/load` but no `session/list`. A folder's sessions are in
//! `<gemini dir>/tmp/<project id>/chats/session-*.json[l]`, where the
//! project id is the short id `<gemini dir>/projects.json` (Gemini's
//! `ProjectRegistry`, `{"projects": {"/abs/folder": "id"}}`) gives the
//! folder, or, in versions before it, the sha256 hex of the folder path.
//! Listed like Gemini's own `getSessionFiles`: only sessions with
//! resumable content, not subagents', one entry per session id (the
//! latest), titled by the summary or else the first user message.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::gemini_record::{self, Record};

/// Gemini's own directory for a home: `<home>/.gemini`.
pub fn gemini_dir(home: &Path) -> PathBuf {
    home.join(".gemini")
}

/// The sessions of `folder` (of every registered folder without one), as
/// ACP `SessionInfo`s (`sessionId`, `cwd`, `title`?, `updatedAt`?), the
/// latest first.
pub fn list(gemini: &Path, folder: Option<&Path>) -> Vec<Value> {
    let projects = registered_projects(gemini);
    let mut dirs: Vec<(PathBuf, String)> = match folder {
        Some(folder) => project_ids(&projects, folder).into_iter().map(|id| (folder.to_path_buf(), id)).collect(),
        None => projects.into_iter().map(|(path, id)| (PathBuf::from(path), id)).collect(),
    };
    dirs.sort();
    let mut latest: HashMap<String, (PathBuf, Record)> = HashMap::new();
    for (folder, id) in dirs {
        for record in chats(&gemini.join("tmp").join(&id).join("chats")) {
            let newer = latest.get(&record.session_id).is_none_or(|(_, r)| r.last_updated < record.last_updated);
            if newer {
                latest.insert(record.session_id.clone(), (folder.clone(), record));
            }
        }
    }
    let mut sessions: Vec<(PathBuf, Record)> = latest.into_values().collect();
    sessions.sort_by(|a, b| b.1.last_updated.cmp(&a.1.last_updated).then(a.1.session_id.cmp(&b.1.session_id)));
    sessions.into_iter().map(|(folder, r)| info(&folder, r)).collect()
}

fn info(folder: &Path, r: Record) -> Value {
    let mut item = json!({ "sessionId": r.session_id, "cwd": folder.display().to_string() });
    let title = r.summary.or(r.first_user_message).map(|t| one_line(&t)).filter(|t| !t.is_empty());
    if let Some(title) = title {
        item["title"] = json!(title);
    }
    if let Some(at) = r.last_updated {
        item["updatedAt"] = json!(at);
    }
    item
}

/// Whitespace runs (newlines too) as one space, trimmed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `projects.json`'s folder → project id map (empty when missing or not
/// Gemini's shape, as Gemini itself treats it).
fn registered_projects(gemini: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(gemini.join("projects.json")) else { return Vec::new() };
    let Ok(v) = serde_json::from_str::<Value>(&text) else { return Vec::new() };
    let Some(projects) = v.get("projects").and_then(Value::as_object) else { return Vec::new() };
    projects.iter().filter_map(|(path, id)| Some((path.clone(), id.as_str()?.to_owned()))).collect()
}

/// The project ids `folder` may have: its registered short id, and the
/// sha256 hex of its path (older Gemini versions).
fn project_ids(projects: &[(String, String)], folder: &Path) -> Vec<String> {
    let path = folder.display().to_string();
    let mut ids: Vec<String> = projects.iter().filter(|(p, _)| *p == path).map(|(_, id)| id.clone()).collect();
    ids.push(hex::encode(Sha256::digest(path.as_bytes())));
    ids
}

/// The listable conversations in a `chats` directory.
fn chats(dir: &Path) -> Vec<Record> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("session-") && (name.ends_with(".json") || name.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|file| {
            let mut record = gemini_record::parse(&std::fs::read_to_string(&file).ok()?)?;
            if record.session_id.is_empty() || !record.resumable || record.kind.as_deref() == Some("subagent") {
                return None;
            }
            if record.last_updated.is_none() {
                record.last_updated = crate::resources::meta::iso(std::fs::metadata(&file).and_then(|m| m.modified()));
            }
            Some(record)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A conversation file as Gemini CLI 0.61 writes it.
    fn write_chat(gemini: &Path, project: &str, file: &str, lines: &[Value]) {
        let dir = gemini.join("tmp").join(project).join("chats");
        std::fs::create_dir_all(&dir).unwrap();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(file), text).unwrap();
    }

    fn meta(id: &str, updated: &str, kind: &str) -> Value {
        json!({ "sessionId": id, "projectHash": "h", "startTime": "2026-11-01T08:00:00.000Z",
                "lastUpdated": updated, "kind": kind })
    }

    fn user(id: &str, text: &str) -> Value {
        json!({ "id": id, "timestamp": "2026-11-01T08:00:01.000Z", "type": "user", "content": [{ "text": text }] })
    }

    #[test]
    fn a_folders_sessions_are_found_through_the_registry_and_the_old_hash() {
        let home = tempfile::tempdir().unwrap();
        let gemini = gemini_dir(home.path());
        std::fs::create_dir_all(&gemini).unwrap();
        let projects = json!({ "projects": { "/work/app": "app", "/work/other": "other" } });
        std::fs::write(gemini.join("projects.json"), projects.to_string()).unwrap();
        let m1 = [meta("s-1", "2026-11-01T09:00:00.000Z", "main"), user("u1", "Why is\nthe build red?")];
        write_chat(&gemini, "app", "session-2026-11-01T08-00-s1.jsonl", &m1);
        let m2 = [
            meta("s-2", "2026-11-03T09:00:00.000Z", "main"),
            user("u1", "x"),
            json!({ "$set": { "summary": "Speed up CI" } }),
        ];
        write_chat(&gemini, "app", "session-2026-11-03T08-00-s2.jsonl", &m2);
        write_chat(
            &gemini,
            "app",
            "session-sub.jsonl",
            &[meta("s-3", "2026-11-04T00:00:00.000Z", "subagent"), user("u1", "sub")],
        );
        write_chat(&gemini, "app", "session-empty.jsonl", &[meta("s-4", "2026-11-04T00:00:00.000Z", "main")]);
        write_chat(&gemini, "app", "notes.jsonl", &[meta("s-5", "2026-11-04T00:00:00.000Z", "main"), user("u", "n")]);
        write_chat(
            &gemini,
            "other",
            "session-o.jsonl",
            &[meta("s-6", "2026-11-05T00:00:00.000Z", "main"), user("u", "o")],
        );
        let old = hex::encode(Sha256::digest(b"/work/app"));
        write_chat(
            &gemini,
            &old,
            "session-old.json",
            &[meta("s-7", "2026-10-01T00:00:00.000Z", "main"), user("u", "old")],
        );

        let listed = list(&gemini, Some(Path::new("/work/app")));
        let ids: Vec<&str> = listed.iter().filter_map(|s| s["sessionId"].as_str()).collect();
        assert_eq!(ids, ["s-2", "s-1", "s-7"], "latest first; no subagent, empty or other files");
        assert_eq!(listed[0]["title"], "Speed up CI", "the summary first");
        assert_eq!(listed[1]["title"], "Why is the build red?", "else the first user message");
        assert_eq!(listed[1]["cwd"], "/work/app");
        assert_eq!(listed[1]["updatedAt"], "2026-11-01T09:00:00.000Z");

        let all = list(&gemini, None);
        assert_eq!(all.len(), 3, "the registered folders' sessions: {all:?}");
        assert_eq!(all[0]["sessionId"], "s-6");
        assert_eq!(all[0]["cwd"], "/work/other");
    }

    #[test]
    fn the_same_session_in_two_files_is_listed_once_at_its_latest() {
        let home = tempfile::tempdir().unwrap();
        let gemini = gemini_dir(home.path());
        std::fs::create_dir_all(&gemini).unwrap();
        std::fs::write(gemini.join("projects.json"), json!({ "projects": { "/w": "w" } }).to_string()).unwrap();
        write_chat(
            &gemini,
            "w",
            "session-a.jsonl",
            &[meta("s", "2026-11-01T00:00:00.000Z", "main"), user("u", "first")],
        );
        write_chat(
            &gemini,
            "w",
            "session-b.jsonl",
            &[meta("s", "2026-11-02T00:00:00.000Z", "main"), user("u", "later")],
        );
        let listed = list(&gemini, Some(Path::new("/w")));
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0]["title"], "later");
    }

    #[test]
    fn no_gemini_dir_or_a_broken_registry_lists_nothing() {
        let home = tempfile::tempdir().unwrap();
        let gemini = gemini_dir(home.path());
        assert!(list(&gemini, Some(Path::new("/w"))).is_empty());
        std::fs::create_dir_all(&gemini).unwrap();
        std::fs::write(gemini.join("projects.json"), "{ broken").unwrap();
        assert!(list(&gemini, None).is_empty());
    }
}
