//! Derived summaries: the chat's entry in `session.chats[]`
//! (`session/chatUpdated`) and the `SessionSummary` (`listSessions`,
//! `root/sessionSummaryChanged`) follow the session and chat state.

use ahp_types::state::SessionStatus;
use serde_json::{json, Value};

use super::*;
use crate::engine::clock::instant;

struct Row {
    name: &'static str,
    setup: fn(&mut Fx),
    on: On,
    action: Value,
    /// What is published, in order.
    published: &'static [&'static str],
    /// The fields `root/sessionSummaryChanged` announces, sorted.
    changed: &'static [&'static str],
    /// `SessionSummary.status` afterwards.
    status: u32,
    /// `SessionSummary.activity` afterwards.
    activity: Option<&'static str>,
    /// `SessionSummary.modifiedAt` afterwards (`None`: the session's `createdAt`).
    modified_at: Option<&'static str>,
}

const IDLE: u32 = SessionStatus::Idle.0;
const IN_PROGRESS: u32 = SessionStatus::InProgress.0;
const INPUT_NEEDED: u32 = SessionStatus::InputNeeded.0;
const ERROR: u32 = SessionStatus::Error.0;
const IS_READ: u32 = SessionStatus::IsRead.0;
const IS_ARCHIVED: u32 = SessionStatus::IsArchived.0;

/// `chat/turnComplete` as it is published with what it derives.
/// The first turn of an untitled session starts: the chat and the session
/// say the agent is working, then its message titles the session
/// (`engine/titles.rs`).
const FIRST_TURN_STARTED: &[&str] = &[
    "chat/turnStarted",
    "chat/activityChanged",
    "session/chatUpdated",
    "root/sessionSummaryChanged",
    "session/activityChanged",
    "session/titleChanged",
    "root/sessionSummaryChanged",
];
/// A turn ends: the chat and the session no longer say what it does.
const TURN_ENDED: &[&str] = &[
    "chat/turnComplete",
    "chat/activityChanged",
    "session/chatUpdated",
    "root/sessionSummaryChanged",
    "session/activityChanged",
    "root/sessionSummaryChanged",
];

fn running_and_read(f: &mut Fx) {
    running(f);
    f.server(On::Session, json!({ "type": "session/isReadChanged", "isRead": true }));
}

/// A turn whose tool call `t1` is being prepared.
fn running_a_tool(f: &mut Fx) {
    running(f);
    let [start, _] = tool_call_pending(TURN, "t1");
    f.server(On::Chat, start);
}

fn chat_reading(f: &mut Fx) {
    f.server(On::Chat, json!({ "type": "chat/activityChanged", "activity": "Reading" }));
}

fn rows() -> Vec<Row> {
    use On::*;
    vec![
        Row {
            name: "a started turn puts the session in progress",
            setup: idle,
            on: Chat,
            action: turn_started(TURN),
            published: FIRST_TURN_STARTED,
            changed: &["_meta", "activity", "chats", "modifiedAt", "status", "title"],
            status: IN_PROGRESS,
            activity: Some("Working"),
            modified_at: Some(STARTED_AT),
        },
        Row {
            name: "a turn dated before the session leaves modifiedAt at its creation",
            setup: idle,
            on: Chat,
            action: json!({ "type": "chat/turnStarted", "turnId": TURN, "startedAt": "2000-01-01T00:00:00Z",
                "message": user_message("hi") }),
            published: FIRST_TURN_STARTED,
            changed: &["_meta", "activity", "chats", "status", "title"],
            status: IN_PROGRESS,
            activity: Some("Working"),
            modified_at: None,
        },
        Row {
            name: "a completed turn leaves the session idle",
            setup: running,
            on: Chat,
            action: turn_complete(TURN),
            published: TURN_ENDED,
            changed: &["activity", "chats", "modifiedAt", "status"],
            status: IDLE,
            activity: None,
            modified_at: Some("2099-01-01T00:00:00.005Z"),
        },
        Row {
            name: "a turn ending on a read session marks it unread",
            setup: running_and_read,
            on: Chat,
            action: turn_complete(TURN),
            published: &[
                "chat/turnComplete",
                "chat/activityChanged",
                "session/chatUpdated",
                "root/sessionSummaryChanged",
                "session/activityChanged",
                "root/sessionSummaryChanged",
                "session/isReadChanged",
                "root/sessionSummaryChanged",
            ],
            changed: &["activity", "chats", "modifiedAt", "status"],
            status: IDLE,
            activity: None,
            modified_at: Some("2099-01-01T00:00:00.005Z"),
        },
        Row {
            name: "a failed turn shows the error",
            setup: running,
            on: Chat,
            action: turn_error(TURN),
            published: &[
                "chat/error",
                "chat/activityChanged",
                "session/chatUpdated",
                "root/sessionSummaryChanged",
                "session/activityChanged",
                "root/sessionSummaryChanged",
            ],
            changed: &["activity", "chats", "modifiedAt", "status"],
            status: ERROR,
            activity: None,
            modified_at: Some("2099-01-01T00:00:00.005Z"),
        },
        Row {
            name: "an open input request shows that input is needed",
            setup: running,
            on: Chat,
            action: json!({ "type": "chat/inputRequested", "request": { "id": "r1" } }),
            published: &[
                "chat/inputRequested",
                "session/inputNeededSet",
                "root/sessionSummaryChanged",
                "chat/activityChanged",
                "session/chatUpdated",
                "root/sessionSummaryChanged",
                "session/activityChanged",
                "root/sessionSummaryChanged",
            ],
            changed: &["activity", "chats", "status"],
            status: INPUT_NEEDED,
            activity: Some("Waiting for your answer"),
            modified_at: Some(STARTED_AT),
        },
        Row {
            name: "a tool call waiting for approval says so in the activity",
            setup: running_a_tool,
            on: Chat,
            action: tool_call_pending(TURN, "t1")[1].clone(),
            published: &[
                "chat/toolCallReady",
                "session/inputNeededSet",
                "root/sessionSummaryChanged",
                "chat/activityChanged",
                "session/chatUpdated",
                "root/sessionSummaryChanged",
                "session/activityChanged",
                "root/sessionSummaryChanged",
            ],
            changed: &["activity", "chats", "status"],
            status: INPUT_NEEDED,
            activity: Some("Waiting for approval: Shell"),
            modified_at: Some(STARTED_AT),
        },
        Row {
            name: "the chat's activity is the session's",
            setup: idle,
            on: Chat,
            action: json!({ "type": "chat/activityChanged", "activity": "Reading" }),
            published: &["chat/activityChanged", "session/chatUpdated", "root/sessionSummaryChanged"],
            changed: &["activity"],
            status: IDLE,
            activity: Some("Reading"),
            modified_at: None,
        },
        Row {
            name: "the session's own activity comes before the chat's",
            setup: chat_reading,
            on: Session,
            action: json!({ "type": "session/activityChanged", "activity": "Planning" }),
            published: &["session/activityChanged", "root/sessionSummaryChanged"],
            changed: &["activity"],
            status: IDLE,
            activity: Some("Planning"),
            modified_at: None,
        },
        Row {
            name: "marking the session read sets its flag",
            setup: idle,
            on: Session,
            action: json!({ "type": "session/isReadChanged", "isRead": true }),
            published: &["session/isReadChanged", "root/sessionSummaryChanged"],
            changed: &["status"],
            status: IDLE | IS_READ,
            activity: None,
            modified_at: None,
        },
        Row {
            name: "archiving the session sets its flag",
            setup: idle,
            on: Session,
            action: json!({ "type": "session/isArchivedChanged", "isArchived": true }),
            published: &["session/isArchivedChanged", "root/sessionSummaryChanged"],
            changed: &["status"],
            status: IDLE | IS_ARCHIVED,
            activity: None,
            modified_at: None,
        },
        Row {
            name: "a renamed session announces its title and who set it, only",
            setup: idle,
            on: Session,
            action: json!({ "type": "session/titleChanged", "title": "Renamed" }),
            published: &["session/titleChanged", "root/sessionSummaryChanged"],
            changed: &["_meta", "title"],
            status: IDLE,
            activity: None,
            modified_at: None,
        },
        Row {
            name: "an action that changes no summary field announces nothing",
            setup: running,
            on: Chat,
            action: pending_message("steering", "s1", "also this"),
            published: &["chat/pendingMessageSet"],
            changed: &[],
            status: IN_PROGRESS,
            activity: Some("Working"),
            modified_at: Some(STARTED_AT),
        },
    ]
}

/// `summary` with `changes` (a partial summary) applied, as a client does:
/// an empty activity is none.
fn merged(mut summary: Value, changes: &Value) -> Value {
    if let (Some(summary), Some(changes)) = (summary.as_object_mut(), changes.as_object()) {
        summary.extend(changes.clone());
        if summary.get("activity").is_some_and(|a| a == "") {
            summary.remove("activity");
        }
    }
    summary
}

#[test]
fn summaries_follow_the_session_and_its_chats() {
    for row in rows() {
        let name = row.name;
        let mut f = Fx::for_row(Start::Ready, row.setup);
        let before = serde_json::to_value(f.summary()).unwrap();
        f.server(row.on, row.action.clone());
        let published = f.published();
        let kinds: Vec<&str> = published.iter().map(|p| p.kind.as_str()).collect();
        assert_eq!(kinds, row.published, "{name}: published");

        let summary = f.summary();
        assert_eq!(summary.status, row.status, "{name}: status");
        assert_eq!(summary.activity.as_deref(), row.activity, "{name}: activity");
        let modified_at = row.modified_at.unwrap_or(&summary.created_at);
        assert_eq!(instant(&summary.modified_at), instant(modified_at), "{name}: modifiedAt");

        // The chat's entry in the session is its state's summary fields.
        let chat = f.chat_state();
        let entry = f.session_state().chats.iter().find(|c| c.resource == f.chat).unwrap();
        let fields = |title: &str, status: u32, modified_at: &str| (title.to_owned(), status, modified_at.to_owned());
        assert_eq!(
            fields(&entry.title, entry.status, &entry.modified_at),
            fields(&chat.title, chat.status, &chat.modified_at),
            "{name}: session.chats[] follows the chat"
        );
        let shown = entry.activity.as_deref().filter(|a| !a.is_empty());
        assert_eq!(shown, chat.activity.as_deref(), "{name}: the chat's activity in session.chats[]");

        // The announcements carry exactly the changed fields: applied to the
        // summary before, they give the summary after.
        let announced: Vec<&Published> = published.iter().filter(|p| p.kind == "root/sessionSummaryChanged").collect();
        let mut changed: Vec<&str> = announced
            .iter()
            .flat_map(|p| p.body["changes"].as_object())
            .flat_map(|c| c.keys())
            .map(String::as_str)
            .collect();
        changed.sort_unstable();
        changed.dedup();
        assert_eq!(changed, row.changed, "{name}: fields announced");
        let replayed = announced.iter().fold(before, |s, p| merged(s, &p.body["changes"]));
        assert_eq!(replayed, serde_json::to_value(&summary).unwrap(), "{name}: announcements replay to the summary");
        for p in &announced {
            let mut expected_v0_9 = p.body.clone();
            if let Some(changes) = expected_v0_9["changes"].as_object_mut() {
                changes.remove("chats");
                changes.remove("defaultChat");
            }
            assert_eq!(p.body_v0_9, expected_v0_9, "{name}: 0.9 clients get the change without 1.0-only fields");
        }
    }
}
