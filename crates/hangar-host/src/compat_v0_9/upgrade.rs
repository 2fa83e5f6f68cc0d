//! 0.9 → 1.0: what the host reads from a 0.9 connection.
//!
//! Every action and command 0.9 defines exists in 1.0 under the same name,
//! so lifting is small: the one payload 1.0 made stricter is a client's
//! plugin list (`ClientPluginCustomization.type`, required since 1.0), in
//! `session/activeClientSet` and in `createSession.activeClient`. Action
//! types 0.9 does not define are refused: a 0.9 client has no business
//! sending them.

use serde_json::Value;

use super::defines_action;

/// Lift a 0.9 client's action to 1.0 in place; `Err` names why it is refused.
pub fn action(action: &mut Value) -> Result<(), String> {
    let kind = action.get("type").and_then(Value::as_str).unwrap_or_default();
    if !defines_action(kind) {
        return Err(format!("{kind} is not an AHP 0.9 action: this connection negotiated 0.9"));
    }
    if kind == "session/activeClientSet" {
        if let Some(client) = action.get_mut("activeClient") {
            active_client(client);
        }
    }
    Ok(())
}

/// Lift the params of a 0.9 client's request to 1.0 in place.
pub fn request_params(method: &str, params: &mut Value) {
    if method == "createSession" {
        if let Some(client) = params.get_mut("activeClient") {
            active_client(client);
        }
    }
}

/// Whether a request's params need lifting (the others are read as sent).
pub fn lifts_request(method: &str) -> bool {
    method == "createSession"
}

/// 1.0 tags each of a client's plugins with `"type": "plugin"`.
fn active_client(client: &mut Value) {
    if let Some(Value::Array(plugins)) = client.get_mut("customizations") {
        for plugin in plugins {
            if let Value::Object(fields) = plugin {
                fields.entry("type").or_insert_with(|| Value::from("plugin"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_0_9_active_client_reads_as_1_0() {
        let mut set = json!({ "type": "session/activeClientSet", "activeClient": {
            "clientId": "vs", "tools": [], "customizations": [{ "id": "p", "uri": "virtual://p", "name": "P" }]
        } });
        action(&mut set).unwrap();
        let lifted: ahp_types::StateAction = serde_json::from_value(set).unwrap();
        assert!(matches!(
            lifted,
            ahp_types::StateAction::SessionActiveClientSet(a) if a.active_client.customizations.as_ref().map(Vec::len) == Some(1)
        ));
        let mut params = json!({ "channel": "ahp-session:/s", "activeClient": {
            "clientId": "vs", "tools": [], "customizations": [{ "id": "p", "uri": "virtual://p", "name": "P" }]
        } });
        assert!(lifts_request("createSession"));
        request_params("createSession", &mut params);
        let lifted: ahp_types::commands::CreateSessionParams = serde_json::from_value(params).unwrap();
        assert_eq!(lifted.active_client.map(|c| c.client_id).as_deref(), Some("vs"));
    }

    #[test]
    fn actions_0_9_does_not_define_are_refused() {
        assert!(action(&mut json!({ "type": "chat/isReadChanged", "isRead": true })).is_err());
        assert!(action(&mut json!({ "type": "chat/turnCancelled", "turnId": "t" })).is_ok());
    }
}
