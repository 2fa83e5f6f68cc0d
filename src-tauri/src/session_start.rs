//! A session's start as an open chat shows it, and the messages typed
//! before the agent was ready.
//!
//! Map: [`Lifecycle`] (a protocol type) — `creating` / `ready` / `failed`
//! from the mirrored `SessionState` (unknown or unsubscribed counts as
//! ready: the host decides); [`SessionStart`] — per open chat, the messages
//! held while the session is `creating` and what the UI was last sent, as a
//! [`StartView`] and `start` ops when it changes;
//! [`SessionStart::release`] hands the held messages over once the session
//! is ready. The core (`core.rs`) sends them: the first as a turn, the rest
//! queued behind it.

use ahp_types::state::{SessionConfigState, SessionState};

use crate::outgoing::{fresh_id, Composed};
pub use hangar_desktop_protocol::chat::Lifecycle;
use hangar_desktop_protocol::chat::{ChatOp, PendingView, SettingOption, SettingView, StartView};
use hangar_desktop_protocol::sign_in::SignInView;

/// The session config's properties with a list of string values, but the
/// model (chosen per message): `mode` first, then by title.
pub fn settings(config: &SessionConfigState) -> Vec<SettingView> {
    let mut settings: Vec<SettingView> = config
        .schema
        .properties
        .iter()
        .filter(|(key, p)| key.as_str() != "model" && p.session_mutable != Some(false) && p.read_only != Some(true))
        .filter_map(|(key, p)| {
            let values = p.r#enum.as_ref()?;
            let options = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let value = v.as_str()?.to_owned();
                    let label = p.enum_labels.as_ref().and_then(|l| l.get(i)).cloned().unwrap_or_else(|| value.clone());
                    let description =
                        p.enum_descriptions.as_ref().and_then(|d| d.get(i)).filter(|d| !d.is_empty()).cloned();
                    Some(SettingOption { value, label, description })
                })
                .collect::<Vec<_>>();
            (!options.is_empty()).then(|| SettingView {
                key: key.clone(),
                title: p.title.clone(),
                description: p.description.clone(),
                value: config.values.get(key).and_then(|v| v.as_str()).map(str::to_owned),
                options,
            })
        })
        .collect();
    settings.sort_by(|a, b| (a.key != "mode", &a.title).cmp(&(b.key != "mode", &b.title)));
    settings
}

/// A message typed before the session was ready.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldMessage {
    /// Id shown to the UI.
    pub id: String,
    /// The message as composed.
    pub message: Composed,
}

/// One open chat's view of its session's start.
#[derive(Debug, Default)]
pub struct SessionStart {
    held: Vec<HeldMessage>,
    sent: Option<StartView>,
}

impl SessionStart {
    /// The `start` view: lifecycle, provider, the creation error, the held
    /// messages (on `failed` they were not sent) and the `unsent` ones
    /// waiting for the host (the core's outbox).
    pub fn view(&self, session: Option<&SessionState>, unsent: Vec<PendingView>) -> StartView {
        StartView {
            lifecycle: Lifecycle::of(session),
            provider: session.map(|s| s.provider.clone()),
            error: session.and_then(|s| s.creation_error.as_ref()).map(|e| e.message.clone()),
            sign_in: session.and_then(|s| s.creation_error.as_ref()).and_then(SignInView::from_error),
            held: self.held.iter().map(|m| PendingView { id: m.id.clone(), text: m.message.text.clone() }).collect(),
            unsent,
            settings: session.and_then(|s| s.config.as_ref()).map(settings).unwrap_or_default(),
        }
    }

    /// The view, remembered as sent (for a chat snapshot).
    pub fn snapshot(&mut self, session: Option<&SessionState>, unsent: Vec<PendingView>) -> StartView {
        let view = self.view(session, unsent);
        self.sent = Some(view.clone());
        view
    }

    /// A `start` op when the view differs from what was last sent.
    pub fn update(&mut self, session: Option<&SessionState>, unsent: Vec<PendingView>) -> Option<ChatOp> {
        let view = self.view(session, unsent);
        if self.sent.as_ref() == Some(&view) {
            return None;
        }
        self.sent = Some(view.clone());
        Some(ChatOp::Start { start: view })
    }

    /// Hold a message until the session is ready; returns its id.
    pub fn hold(&mut self, message: Composed) -> String {
        let id = fresh_id();
        self.held.push(HeldMessage { id: id.clone(), message });
        id
    }

    /// The held messages, taken once the session is ready (empty before).
    pub fn release(&mut self, session: Option<&SessionState>) -> Vec<HeldMessage> {
        if Lifecycle::of(session) == Lifecycle::Ready {
            std::mem::take(&mut self.held)
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn start_of(op: Option<ChatOp>) -> Value {
        match op {
            Some(ChatOp::Start { start }) => serde_json::to_value(start).unwrap(),
            other => panic!("not a start op: {other:?}"),
        }
    }

    fn session(lifecycle: &str, error: Option<&str>) -> SessionState {
        let mut v = json!({"provider": "fake", "title": "", "status": 1, "resource": "ahp-session:/s", "createdAt": "x",
            "modifiedAt": "x", "lifecycle": lifecycle, "chats": [], "activeClients": []});
        if let Some(message) = error {
            v["creationError"] = json!({"errorType": "agentStartFailed", "message": message});
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn messages_wait_for_ready_and_are_released_once() {
        let mut start = SessionStart::default();
        let creating = session("creating", None);
        assert_eq!(start.snapshot(Some(&creating), Vec::new()).lifecycle, Lifecycle::Creating);
        start.hold(Composed::plain("first"));
        start.hold(Composed { model: Some("m".into()), ..Composed::plain("second") });
        assert!(start.release(Some(&creating)).is_empty(), "nothing leaves while creating");
        let op = start_of(start.update(Some(&creating), Vec::new()));
        assert_eq!(op["held"][1]["text"], "second");
        assert!(start.update(Some(&creating), Vec::new()).is_none(), "unchanged views are not re-sent");
        let ready = session("ready", None);
        let released = start.release(Some(&ready));
        assert_eq!(released.iter().map(|m| m.message.text.as_str()).collect::<Vec<_>>(), ["first", "second"]);
        assert_eq!(released[1].message.model.as_deref(), Some("m"));
        assert!(start.release(Some(&ready)).is_empty());
        let op = start_of(start.update(Some(&ready), Vec::new()));
        assert_eq!(op["lifecycle"], "ready");
        assert_eq!(op["held"], json!([]));
    }

    #[test]
    fn a_failed_start_keeps_the_messages_and_shows_why() {
        let mut start = SessionStart::default();
        start.hold(Composed::plain("lost?"));
        let failed = session("failed", Some("the agent exited with status 3"));
        assert!(start.release(Some(&failed)).is_empty());
        let view = serde_json::to_value(start.view(Some(&failed), Vec::new())).unwrap();
        assert_eq!(view["lifecycle"], "failed");
        assert_eq!(view["error"], "the agent exited with status 3");
        assert_eq!(view["held"][0]["text"], "lost?");
        assert_eq!(Lifecycle::of(None), Lifecycle::Ready, "unknown sessions are left to the host");
    }

    #[test]
    fn the_agent_settings_come_from_the_session_config_mode_first_model_left_out() {
        let mut s = session("ready", None);
        s.config = Some(
            serde_json::from_value(json!({
                "schema": { "type": "object", "properties": {
                    "model": { "type": "string", "title": "Model", "enum": ["m1"] },
                    "effort": { "type": "string", "title": "Reasoning effort", "enum": ["low", "high"], "sessionMutable": true },
                    "mode": { "type": "string", "title": "Mode", "enum": ["default", "plan"],
                              "enumLabels": ["Default", "Plan"], "enumDescriptions": ["Asks first", ""], "sessionMutable": true },
                    "branch": { "type": "string", "title": "Branch" }
                } },
                "values": { "mode": "plan", "effort": "low", "model": "m1" }
            }))
            .unwrap(),
        );
        let view = serde_json::to_value(SessionStart::default().view(Some(&s), Vec::new())).unwrap();
        assert_eq!(
            view["settings"],
            json!([
                { "key": "mode", "title": "Mode", "description": null, "value": "plan", "options": [
                    { "value": "default", "label": "Default", "description": "Asks first" },
                    { "value": "plan", "label": "Plan", "description": null }] },
                { "key": "effort", "title": "Reasoning effort", "description": null, "value": "low", "options": [
                    { "value": "low", "label": "low", "description": null },
                    { "value": "high", "label": "high", "description": null }] }
            ])
        );
    }
}
