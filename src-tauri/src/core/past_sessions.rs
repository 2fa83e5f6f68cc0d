//! The `agents.pastSessions` command: an agent's own earlier sessions in a
//! folder, as its host lists them (`x-hangar/agentSessions`, docs/host.md
//! "The agents' own earlier sessions"), for the New session dialog to
//! continue one. The host's answer is read leniently: a field missing or of
//! another type is left out, never a failure.

use serde_json::{json, Value};

use super::Core;
use crate::error::CoreError;
use hangar_desktop_protocol::past_sessions::{PastSessionView, PastSessionsArgs, PastSessionsView};

impl Core {
    /// `agents.pastSessions`.
    pub async fn past_sessions(&self, args: PastSessionsArgs) -> Result<PastSessionsView, CoreError> {
        let mut params = json!({ "provider": args.agent });
        if let Some(folder) = &args.folder {
            params["folder"] = json!(folder);
        }
        let answer: Value =
            self.ask_named_host(&args.host, "x-hangar/agentSessions", params, "earlier sessions").await?;
        Ok(view(&args.agent, &answer))
    }
}

/// The host's answer as the dialog shows it.
fn view(agent: &str, answer: &Value) -> PastSessionsView {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let sessions = answer
        .get("sessions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| {
            Some(PastSessionView {
                session_id: text(s, "sessionId")?,
                title: text(s, "title").filter(|t| !t.trim().is_empty()).unwrap_or_else(|| "Untitled".to_owned()),
                folder: text(s, "folder"),
                updated_at: text(s, "updatedAt"),
                opened: text(s, "opened"),
            })
        })
        .collect();
    let opens_with = answer.get("opensWith").and_then(Value::as_str);
    let unavailable = if answer.get("listable").and_then(Value::as_bool) != Some(true) {
        Some(format!("{agent} does not list its earlier sessions to other apps."))
    } else if opens_with.is_none() {
        Some(format!("{agent} lists its earlier sessions but cannot open them in another app."))
    } else {
        None
    };
    PastSessionsView { sessions, unavailable, replays: opens_with == Some("load") }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    #[test]
    fn reads_the_answer_and_says_why_nothing_opens() {
        let v = view(
            "claude",
            &json!({"listable": true, "opensWith": "load", "sessions": [
                {"sessionId": "a", "title": "Fix it", "folder": "file:///w", "updatedAt": "2026-11-20T10:00:00Z"},
                {"sessionId": "b", "title": " "}, {"title": "no id"}]}),
        );
        assert_eq!(v.sessions.len(), 2);
        assert_eq!(v.sessions[1].title, "Untitled");
        assert!(v.replays && v.unavailable.is_none());
        let cannot = view("codex", &json!({"listable": true, "opensWith": null, "sessions": []}));
        assert!(cannot.unavailable.unwrap().contains("cannot open"));
        let unlisted = view("gemini", &json!({"listable": false, "sessions": []}));
        assert!(unlisted.unavailable.unwrap().contains("does not list"));
    }
}
