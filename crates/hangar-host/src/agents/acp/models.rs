//! Models an agent offers: from a `configOptions` entry of category `model`
//! (chosen with `session/set_config_option`) or from the `models` block
//! (`session/set_model`). Published into `RootState.agents[].models`
//! (`root/agentsChanged`), and offered by `resolveSessionConfig` /
//! `sessionConfigCompletions` as a `model` property.

use std::collections::HashMap;

use ahp_types::actions::RootAgentsChangedAction;
use ahp_types::state::{SessionConfigPropertySchema, SessionConfigSchema, SessionModelInfo};
use ahp_types::StateAction;
use serde_json::{json, Value};

use super::AgentHost;

/// How the agent switches models.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelSource {
    /// `session/set_config_option {configId}`.
    ConfigOption(String),
    /// `session/set_model`.
    SetModel,
}

/// What one agent session reported.
#[derive(Debug, Default)]
pub struct AgentModels {
    /// How to switch.
    pub source: Option<ModelSource>,
    /// The current model id.
    pub current: Option<String>,
    /// `(id, name, description)`.
    pub available: Vec<(String, String, Option<String>)>,
}

impl AgentModels {
    /// Read a `session/new` / `session/load` result or a
    /// `config_option_update`. True if the list changed.
    pub fn update_from(&mut self, v: &Value) -> bool {
        let before = self.available.clone();
        let option = v
            .get("configOptions")
            .and_then(Value::as_array)
            .and_then(|opts| opts.iter().find(|o| o.get("category").and_then(Value::as_str) == Some("model")));
        if let Some(option) = option {
            let mut list = Vec::new();
            for o in option.get("options").and_then(Value::as_array).into_iter().flatten() {
                // Grouped options nest their own `options`.
                let group = o.get("options").and_then(Value::as_array).cloned().unwrap_or_else(|| vec![o.clone()]);
                for item in group {
                    if let Some(id) = item.get("value").and_then(Value::as_str) {
                        let name = item.get("name").and_then(Value::as_str).unwrap_or(id).to_owned();
                        let desc = item.get("description").and_then(Value::as_str).map(str::to_owned);
                        list.push((id.to_owned(), name, desc));
                    }
                }
            }
            self.source = option.get("id").and_then(Value::as_str).map(|id| ModelSource::ConfigOption(id.to_owned()));
            self.current = option.get("currentValue").and_then(Value::as_str).map(str::to_owned);
            self.available = list;
        } else if let Some(models) = v.get("models") {
            self.available = models
                .get("availableModels")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| {
                    let id = m.get("modelId").and_then(Value::as_str)?;
                    let name = m.get("name").and_then(Value::as_str).unwrap_or(id).to_owned();
                    Some((id.to_owned(), name, m.get("description").and_then(Value::as_str).map(str::to_owned)))
                })
                .collect();
            self.source = Some(ModelSource::SetModel);
            self.current = models.get("currentModelId").and_then(Value::as_str).map(str::to_owned);
        }
        self.available != before
    }

    /// The models in the order they are published: the agent's current
    /// one first (the model its sessions start with, which
    /// `resolveSessionConfig` takes as the default), then the others in the
    /// agent's order. OpenCode lists its cloud models before the one it is
    /// configured with: taking its first would switch a session away from
    /// the configured model.
    fn in_published_order(&self) -> impl Iterator<Item = &(String, String, Option<String>)> {
        let is_current = |m: &&(String, String, Option<String>)| Some(&m.0) == self.current.as_ref();
        self.available.iter().filter(is_current).chain(self.available.iter().filter(move |m| !is_current(m)))
    }

    /// Put the list into `RootState.agents` for `provider` if it differs.
    pub fn publish(&self, host: &dyn AgentHost, provider: &str) {
        let models: Vec<SessionModelInfo> = self
            .in_published_order()
            .map(|(id, name, desc)| SessionModelInfo {
                id: id.clone(),
                provider: provider.to_owned(),
                name: name.clone(),
                max_context_window: None,
                max_output_tokens: None,
                max_prompt_tokens: None,
                supports_vision: None,
                policy_state: None,
                config_schema: None,
                meta: desc.as_ref().and_then(|d| json!({ "description": d }).as_object().cloned()),
            })
            .collect();
        host.emit_on_root(&mut |root| {
            let mut agents = root.agents.clone();
            let agent = agents.iter_mut().find(|a| a.provider == provider)?;
            if agent.models == models {
                return None;
            }
            agent.models = models.clone();
            Some(StateAction::RootAgentsChanged(RootAgentsChangedAction { agents }))
        });
    }
}

/// `resolveSessionConfig`: a `model` property listing the models the agent
/// reported so far (none until one of its sessions started), its current
/// one first and the default, and one
/// property per mode or setting it offered (`config_options.rs`), each with
/// the requested value if it is one the agent offers.
pub fn resolve_session_config(host: &dyn AgentHost, params: &Value) -> Value {
    let provider = params.get("provider").and_then(Value::as_str).map(str::to_owned);
    let (provider, models) = host
        .root(|root| {
            let agents = &root.agents;
            let agent = match &provider {
                Some(p) => agents.iter().find(|a| &a.provider == p),
                None => agents.first(),
            };
            agent.map(|a| (a.provider.clone(), a.models.clone())).unwrap_or_default()
        })
        .unwrap_or_default();
    let mut properties = HashMap::new();
    let mut values = serde_json::Map::new();
    if !models.is_empty() {
        properties.insert(
            "model".to_owned(),
            SessionConfigPropertySchema {
                r#type: "string".to_owned(),
                title: "Model".to_owned(),
                description: Some("The model the agent uses".to_owned()),
                default: models.first().map(|m| Value::String(m.id.clone())),
                r#enum: Some(models.iter().map(|m| Value::String(m.id.clone())).collect()),
                enum_labels: Some(models.iter().map(|m| m.name.clone()).collect()),
                enum_descriptions: None,
                read_only: None,
                items: None,
                min_items: None,
                max_items: None,
                properties: None,
                required: None,
                additional_properties: None,
                enum_dynamic: None,
                session_mutable: Some(true),
            },
        );
        let requested = params.pointer("/config/model").and_then(Value::as_str);
        let value = requested
            .filter(|r| models.iter().any(|m| m.id == *r))
            .map(str::to_owned)
            .or_else(|| models.first().map(|m| m.id.clone()));
        if let Some(value) = value {
            values.insert("model".to_owned(), Value::String(value));
        }
    }
    for option in host.agent_options(&provider) {
        let requested = params.pointer(&format!("/config/{}", option.key)).and_then(Value::as_str);
        let schema = option.schema();
        let value =
            requested.filter(|r| option.offers(r)).map(|r| Value::String(r.to_owned())).or(schema.default.clone());
        if let Some(value) = value {
            values.insert(option.key.clone(), value);
        }
        properties.insert(option.key.clone(), schema);
    }
    let schema = SessionConfigSchema { r#type: "object".to_owned(), properties, required: None };
    json!({ "schema": schema, "values": values })
}

/// `sessionConfigCompletions`: the values of the property (`model`, `mode`,
/// any other the agent offers) whose value or label matches `query`;
/// nothing for a property the schema does not have.
pub fn session_config_completions(host: &dyn AgentHost, params: &Value) -> Value {
    let Some(property) = params.get("property").and_then(Value::as_str) else {
        return json!({ "items": [] });
    };
    let resolved = resolve_session_config(host, params);
    let query = params.get("query").and_then(Value::as_str).unwrap_or_default().to_lowercase();
    let schema = resolved.get("schema").and_then(|s| s.get("properties")).and_then(|p| p.get(property));
    let ids = schema.and_then(|s| s.get("enum")).and_then(Value::as_array).cloned().unwrap_or_default();
    let labels = schema.and_then(|s| s.get("enumLabels")).and_then(Value::as_array).cloned().unwrap_or_default();
    let items: Vec<Value> = ids
        .iter()
        .zip(labels.iter())
        .filter(|(id, label)| {
            query.is_empty()
                || id.as_str().is_some_and(|s| s.to_lowercase().contains(&query))
                || label.as_str().is_some_and(|s| s.to_lowercase().contains(&query))
        })
        .map(|(id, label)| json!({ "value": id, "label": label }))
        .collect();
    json!({ "items": items })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_config_options_and_models() {
        let mut m = AgentModels::default();
        let changed = m.update_from(&json!({"configOptions": [
            {"id": "mode", "category": "mode", "options": [{"value": "x", "name": "X"}]},
            {"id": "model", "category": "model", "currentValue": "b", "options": [{"value": "a", "name": "A"}, {"group": "g", "name": "G", "options": [{"value": "b", "name": "B"}]}]}
        ]}));
        assert!(changed);
        assert_eq!(m.source, Some(ModelSource::ConfigOption("model".into())));
        assert_eq!(m.available.iter().map(|a| a.0.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(m.current.as_deref(), Some("b"));
        let mut m = AgentModels::default();
        m.update_from(
            &json!({"models": {"currentModelId": "d", "availableModels": [{"modelId": "d", "name": "Default"}]}}),
        );
        assert_eq!(m.source, Some(ModelSource::SetModel));
        assert!(!m.update_from(
            &json!({"models": {"currentModelId": "d", "availableModels": [{"modelId": "d", "name": "Default"}]}})
        ));
    }

    #[test]
    fn the_agents_current_model_is_published_first() {
        // As OpenCode answers `session/new`: its cloud models first, the
        // configured one (current) later.
        let mut m = AgentModels::default();
        m.update_from(&json!({"configOptions": [
            {"id": "model", "category": "model", "currentValue": "mock/mock-model", "options": [
                {"value": "opencode/big-pickle", "name": "Big Pickle"},
                {"value": "mock/mock-model", "name": "Mock"},
                {"value": "opencode/other", "name": "Other"}]}
        ]}));
        let order: Vec<&str> = m.in_published_order().map(|(id, _, _)| id.as_str()).collect();
        assert_eq!(order, ["mock/mock-model", "opencode/big-pickle", "opencode/other"]);
        m.current = None;
        let order: Vec<&str> = m.in_published_order().map(|(id, _, _)| id.as_str()).collect();
        assert_eq!(order, ["opencode/big-pickle", "mock/mock-model", "opencode/other"]);
    }
}
