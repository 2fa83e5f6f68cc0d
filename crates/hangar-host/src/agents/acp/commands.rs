//! The agent's own `/` commands: ACP `available_commands_update` read with
//! the official v1 schema types, as [`AgentCommand`]s the `/` completions
//! offer (`customizations::completions`).

use agent_client_protocol::v1::schema::{AvailableCommandInput, AvailableCommandsUpdate};
use serde_json::Value;

use crate::customizations::slash_completions::AgentCommand;

/// The commands an `available_commands_update` (the `update` object of a
/// `session/update`) lists; `None` when it is not one. Items the schema
/// cannot read are skipped, as the schema's own deserializer does.
pub fn from_update(update: &Value) -> Option<Vec<AgentCommand>> {
    if update.get("sessionUpdate").and_then(Value::as_str) != Some("available_commands_update") {
        return None;
    }
    let parsed: AvailableCommandsUpdate = serde_json::from_value(update.clone()).ok()?;
    let mut commands: Vec<AgentCommand> = parsed
        .available_commands
        .into_iter()
        .filter(|c| !c.name.trim().is_empty())
        .map(|c| AgentCommand {
            name: c.name.trim_start_matches('/').to_owned(),
            description: c.description,
            hint: c.input.and_then(|input| match input {
                AvailableCommandInput::Unstructured(i) => Some(i.hint).filter(|h| !h.is_empty()),
                _ => None,
            }),
        })
        .collect();
    commands.dedup_by(|a, b| a.name == b.name);
    Some(commands)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_names_descriptions_and_hints() {
        let update = json!({ "sessionUpdate": "available_commands_update", "availableCommands": [
            { "name": "review", "description": "Review the diff", "input": { "hint": "what to focus on" } },
            { "name": "/init", "description": "Write AGENTS.md" },
            { "description": "no name: skipped" },
            { "name": "", "description": "empty name: skipped" }
        ] });
        let commands = from_update(&update).unwrap();
        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["review", "init"]);
        assert_eq!(commands[0].hint.as_deref(), Some("what to focus on"));
        assert_eq!(commands[1].hint, None);
        assert_eq!(commands[1].description, "Write AGENTS.md");
    }

    #[test]
    fn other_updates_are_not_commands() {
        assert_eq!(from_update(&json!({ "sessionUpdate": "plan", "entries": [] })), None);
        let empty = from_update(&json!({ "sessionUpdate": "available_commands_update", "availableCommands": [] }));
        assert_eq!(empty, Some(Vec::new()), "an empty list clears the commands");
    }
}
