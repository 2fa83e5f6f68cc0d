//! Rebuilding state at startup: checkpoints, then the log written after them
//! (through the official reducers), then each chat's newest turns.

use std::collections::HashMap;

use ahp::reducers::{apply_action_to_chat, apply_action_to_session};
use ahp_types::state::{ChatState, SessionState, SessionSummary};
use ahp_types::ActionEnvelope;
use rusqlite::Connection;

use super::turn_pages::{read_page, TurnCursor};
use super::StoreError;

/// A session as stored.
pub struct LoadedSession {
    /// Its URI.
    pub uri: String,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// Its state.
    pub state: SessionState,
    /// Its last indexed summary.
    pub summary: SessionSummary,
}

/// A chat as stored, with only its newest turns in `state.turns`.
pub struct LoadedChat {
    /// Its URI.
    pub uri: String,
    /// The session it belongs to.
    pub session: String,
    /// Its state.
    pub state: ChatState,
}

/// Everything `load` rebuilt.
pub struct LoadedState {
    /// The highest `serverSeq` ever used.
    pub server_seq: u64,
    /// Sessions.
    pub sessions: Vec<LoadedSession>,
    /// Chats.
    pub chats: Vec<LoadedChat>,
}

fn json<T: serde::de::DeserializeOwned>(table: &'static str, raw: &str) -> Result<T, StoreError> {
    serde_json::from_str(raw).map_err(|source| StoreError::Json { table, source })
}

/// Load all sessions and chats; `tail` is how many turns each chat keeps in
/// memory (older ones are paged in with `fetchTurns`).
pub fn load(conn: &Connection, tail: usize) -> Result<LoadedState, StoreError> {
    let server_seq: i64 = conn.query_row(
        "SELECT MAX(
            COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'server_seq'), 0),
            COALESCE((SELECT MAX(seq) FROM log), 0),
            COALESCE((SELECT MAX(seq) FROM checkpoints), 0))",
        [],
        |r| r.get(0),
    )?;

    let mut index: HashMap<String, (String, SessionSummary)> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT uri, created_at, summary FROM sessions")?;
        let rows =
            stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?;
        for row in rows {
            let (uri, created_at, summary) = row?;
            index.insert(uri, (created_at, json("sessions", &summary)?));
        }
    }

    let mut sessions: HashMap<String, SessionState> = HashMap::new();
    let mut chats: HashMap<String, (String, ChatState)> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT channel, kind, parent, state FROM checkpoints")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?, r.get::<_, String>(3)?))
        })?;
        for row in rows {
            let (channel, kind, parent, state) = row?;
            match (kind.as_str(), parent) {
                ("session", _) => {
                    sessions.insert(channel, json("checkpoints", &state)?);
                }
                ("chat", Some(parent)) => {
                    chats.insert(channel, (parent, json("checkpoints", &state)?));
                }
                _ => {}
            }
        }
    }

    {
        let mut stmt = conn.prepare("SELECT channel, envelope FROM log ORDER BY seq")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (channel, envelope) = row?;
            let envelope: ActionEnvelope = json("log", &envelope)?;
            if let Some(state) = sessions.get_mut(&channel) {
                apply_action_to_session(state, &envelope.action);
            } else if let Some((_, state)) = chats.get_mut(&channel) {
                apply_action_to_chat(state, &envelope.action);
            }
        }
    }

    let mut loaded_chats = Vec::with_capacity(chats.len());
    for (uri, (session, mut state)) in chats {
        if !sessions.contains_key(&session) {
            continue;
        }
        let page = read_page(conn, &uri, None, tail)?.unwrap_or_default();
        state.turns = page.turns;
        state.turns_next_cursor = page.next.as_ref().map(TurnCursor::encode);
        loaded_chats.push(LoadedChat { uri, session, state });
    }

    let mut loaded_sessions = Vec::with_capacity(sessions.len());
    for (uri, state) in sessions {
        let Some((created_at, summary)) = index.remove(&uri) else {
            continue;
        };
        loaded_sessions.push(LoadedSession { uri, created_at, state, summary });
    }

    Ok(LoadedState { server_seq: server_seq.max(0) as u64, sessions: loaded_sessions, chats: loaded_chats })
}
