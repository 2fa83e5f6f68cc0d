//! The agent's own settings besides the model — its modes (Claude's plan
//! mode, Codex's read-only / auto, Gemini's YOLO…) and any other ACP
//! `configOptions` entry (Codex's reasoning effort, Copilot's permissions) —
//! as session config properties:
//!
//! - read from a `session/new|load|resume` result and from
//!   `config_option_update` (`configOptions`, every category but `model`,
//!   which `models.rs` handles), or from the older `modes` block and
//!   `current_mode_update`;
//! - each one a property of `resolveSessionConfig`'s schema: a category
//!   `mode` option (or the `modes` block) is `mode`, any other is its ACP
//!   id; values, labels and descriptions as the agent gave them; the
//!   agent's current value as the default;
//! - switched on the agent with `session/set_config_option` (or
//!   `session/set_mode`) when the session's configured value differs from
//!   the agent's, before a prompt or at once when idle (`session.rs`).
//!
//! The schema is fixed when a session is created, so the options are cached
//! per agent ([`super::AgentHost::agent_options_changed`]): a session offers
//! what the agent's previous session reported, as models are.

use agent_client_protocol::v1::schema::{CurrentModeUpdate, SessionModeState};
use ahp_types::state::SessionConfigPropertySchema;
use serde_json::{json, Value};

/// How the agent switches one option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Switch {
    /// `session/set_config_option {configId, value}`.
    ConfigOption(String),
    /// `session/set_mode {modeId}`.
    SetMode,
}

/// One setting the agent offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentOption {
    /// The session config property: `mode`, or the ACP option id.
    pub key: String,
    /// Its title.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// `(value, label, description)`, in the agent's order.
    pub values: Vec<(String, String, Option<String>)>,
    /// The agent's current value.
    pub current: Option<String>,
    /// How to change it.
    pub switch: Switch,
}

impl AgentOption {
    /// The property for `resolveSessionConfig`.
    pub fn schema(&self) -> SessionConfigPropertySchema {
        SessionConfigPropertySchema {
            r#type: "string".to_owned(),
            title: self.name.clone(),
            description: self.description.clone(),
            default: self.current.clone().or_else(|| self.values.first().map(|v| v.0.clone())).map(Value::String),
            r#enum: Some(self.values.iter().map(|v| Value::String(v.0.clone())).collect()),
            enum_labels: Some(self.values.iter().map(|v| v.1.clone()).collect()),
            enum_descriptions: Some(self.values.iter().map(|v| v.2.clone().unwrap_or_default()).collect()),
            read_only: None,
            items: None,
            min_items: None,
            max_items: None,
            properties: None,
            required: None,
            additional_properties: None,
            enum_dynamic: None,
            session_mutable: Some(true),
        }
    }

    /// Whether `value` is one the agent offers.
    pub fn offers(&self, value: &str) -> bool {
        self.values.iter().any(|v| v.0 == value)
    }
}

/// What one agent session reported.
#[derive(Debug, Default, Clone)]
pub struct AgentOptions {
    /// In the agent's order.
    pub options: Vec<AgentOption>,
}

impl AgentOptions {
    /// Read a `session/new|load|resume` result or a `config_option_update`.
    /// True when the offered options or values changed (not just a current
    /// value).
    pub fn update_from(&mut self, v: &Value) -> bool {
        let before: Vec<_> = self.options.iter().map(|o| (o.key.clone(), o.values.clone())).collect();
        if let Some(list) = v.get("configOptions").and_then(Value::as_array) {
            let from_options: Vec<AgentOption> = list.iter().filter_map(from_config_option).collect();
            let has_mode = from_options.iter().any(|o| o.key == "mode");
            // Options replace what the `modes` block said, mode included.
            self.options.retain(|o| o.switch == Switch::SetMode && !has_mode);
            self.options.extend(from_options);
        }
        if let Some(modes) = v.get("modes").filter(|m| !m.is_null()) {
            let has_mode_option = self.options.iter().any(|o| o.key == "mode" && o.switch != Switch::SetMode);
            if let (false, Ok(state)) = (has_mode_option, serde_json::from_value::<SessionModeState>(modes.clone())) {
                self.options.retain(|o| o.key != "mode");
                self.options.insert(0, from_modes(&state));
            }
        }
        let after: Vec<_> = self.options.iter().map(|o| (o.key.clone(), o.values.clone())).collect();
        before != after
    }

    /// Read a `current_mode_update`: the mode's key and new value, if it
    /// changed.
    pub fn mode_changed(&mut self, update: &CurrentModeUpdate) -> Option<(String, String)> {
        let id = update.current_mode_id.to_string();
        let mode = self.options.iter_mut().find(|o| o.key == "mode")?;
        if mode.current.as_deref() == Some(id.as_str()) {
            return None;
        }
        mode.current = Some(id.clone());
        Some((mode.key.clone(), id))
    }

    /// Each option's current value, by key.
    pub fn currents(&self) -> Vec<(String, Option<String>)> {
        self.options.iter().map(|o| (o.key.clone(), o.current.clone())).collect()
    }

    /// The options whose current value differs from `before` (the agent
    /// changed them), with their new value.
    pub fn currents_changed_since(&self, before: &[(String, Option<String>)]) -> Vec<(String, String)> {
        self.options
            .iter()
            .filter_map(|o| {
                // An option offered for the first time is not a change.
                let was = before.iter().find(|(k, _)| *k == o.key).and_then(|(_, v)| v.as_deref())?;
                let now = o.current.as_deref()?;
                (was != now).then(|| (o.key.clone(), now.to_owned()))
            })
            .collect()
    }

    /// The option whose property is `key`.
    pub fn get(&self, key: &str) -> Option<&AgentOption> {
        self.options.iter().find(|o| o.key == key)
    }

    /// Record that the agent now has `value` for `key`.
    pub fn set_current(&mut self, key: &str, value: &str) {
        if let Some(o) = self.options.iter_mut().find(|o| o.key == key) {
            o.current = Some(value.to_owned());
        }
    }

    /// The ACP request that sets `key` to `value` on session `sid`.
    pub fn request(&self, key: &str, value: &str, sid: &str) -> Option<(&'static str, Value)> {
        match &self.get(key)?.switch {
            Switch::ConfigOption(config_id) => {
                Some(("session/set_config_option", json!({ "sessionId": sid, "configId": config_id, "value": value })))
            }
            Switch::SetMode => Some(("session/set_mode", json!({ "sessionId": sid, "modeId": value }))),
        }
    }
}

fn from_config_option(o: &Value) -> Option<AgentOption> {
    let id = o.get("id")?.as_str()?;
    let category = o.get("category").and_then(Value::as_str);
    if category == Some("model") || id == "model" {
        return None;
    }
    let mut values = Vec::new();
    for item in o.get("options").and_then(Value::as_array).into_iter().flatten() {
        // Grouped options nest their own `options`.
        let group = item.get("options").and_then(Value::as_array).cloned().unwrap_or_else(|| vec![item.clone()]);
        for entry in group {
            if let Some(value) = entry.get("value").and_then(Value::as_str) {
                let label = entry.get("name").and_then(Value::as_str).unwrap_or(value).to_owned();
                let desc = entry.get("description").and_then(Value::as_str).map(str::to_owned);
                values.push((value.to_owned(), label, desc));
            }
        }
    }
    if values.is_empty() {
        return None;
    }
    Some(AgentOption {
        key: if category == Some("mode") { "mode".to_owned() } else { id.to_owned() },
        name: o.get("name").and_then(Value::as_str).unwrap_or(id).to_owned(),
        description: o.get("description").and_then(Value::as_str).map(str::to_owned),
        values,
        current: o.get("currentValue").and_then(Value::as_str).map(str::to_owned),
        switch: Switch::ConfigOption(id.to_owned()),
    })
}

fn from_modes(state: &SessionModeState) -> AgentOption {
    AgentOption {
        key: "mode".to_owned(),
        name: "Mode".to_owned(),
        description: Some("How the agent works: what it may do without asking".to_owned()),
        values: state
            .available_modes
            .iter()
            .map(|m| (m.id.to_string(), m.name.clone(), m.description.clone()))
            .collect(),
        current: Some(state.current_mode_id.to_string()),
        switch: Switch::SetMode,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_options_win_over_the_modes_block_and_model_is_left_out() {
        let mut o = AgentOptions::default();
        let changed = o.update_from(&json!({
            "modes": {"currentModeId": "default", "availableModes": [{"id": "default", "name": "Default"}, {"id": "plan", "name": "Plan"}]},
            "configOptions": [
                {"id": "mode", "name": "Mode", "category": "mode", "currentValue": "default",
                 "options": [{"value": "default", "name": "Default"}, {"value": "plan", "name": "Plan Mode"}]},
                {"id": "model", "category": "model", "options": [{"value": "m"}]},
                {"id": "reasoning_effort", "name": "Reasoning", "category": "thought_level", "currentValue": "medium",
                 "options": [{"value": "low", "name": "Low"}, {"value": "medium", "name": "Medium"}]}
            ]
        }));
        assert!(changed);
        let keys: Vec<&str> = o.options.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, ["mode", "reasoning_effort"]);
        assert_eq!(o.get("mode").unwrap().switch, Switch::ConfigOption("mode".into()));
        assert_eq!(o.get("mode").unwrap().values[1].1, "Plan Mode");
        let (method, params) = o.request("reasoning_effort", "low", "s1").unwrap();
        assert_eq!(method, "session/set_config_option");
        assert_eq!(params, json!({"sessionId": "s1", "configId": "reasoning_effort", "value": "low"}));
        assert!(
            !o.update_from(&json!({"configOptions": [
                {"id": "mode", "name": "Mode", "category": "mode", "currentValue": "plan",
                 "options": [{"value": "default", "name": "Default"}, {"value": "plan", "name": "Plan Mode"}]},
                {"id": "reasoning_effort", "name": "Reasoning", "category": "thought_level", "currentValue": "medium",
                 "options": [{"value": "low", "name": "Low"}, {"value": "medium", "name": "Medium"}]}
            ]})),
            "a new current value is not a new offer"
        );
        assert_eq!(o.get("mode").unwrap().current.as_deref(), Some("plan"));
    }

    #[test]
    fn the_modes_block_alone_is_set_with_set_mode_and_follows_current_mode_updates() {
        let mut o = AgentOptions::default();
        o.update_from(&json!({"modes": {"currentModeId": "default", "availableModes": [
            {"id": "default", "name": "Default", "description": "Prompts for approval"},
            {"id": "yolo", "name": "YOLO"}]}}));
        let mode = o.get("mode").unwrap();
        assert_eq!(mode.switch, Switch::SetMode);
        assert_eq!(mode.schema().default, Some(json!("default")));
        assert_eq!(
            o.request("mode", "yolo", "s").unwrap(),
            ("session/set_mode", json!({"sessionId": "s", "modeId": "yolo"}))
        );
        let update: CurrentModeUpdate =
            serde_json::from_value(json!({"sessionUpdate": "current_mode_update", "currentModeId": "yolo"})).unwrap();
        assert_eq!(o.mode_changed(&update), Some(("mode".into(), "yolo".into())));
        assert_eq!(o.mode_changed(&update), None);
    }
}
