//! 1.0 → 0.9: what a 0.9 connection receives.
//!
//! Actions 0.9 does not define are hidden; the payloads and snapshots 0.9
//! does define lose the fields 1.0 added, and values 0.9 has no word for are
//! mapped to the nearest one it has (`recomputing` → `computing`). Nothing is
//! renamed between 0.9 and 1.0: the wire names of everything both define are
//! the same (see `docs/ahp-0.9.md`).

use std::borrow::Cow;

use serde_json::Value;

use super::{defines_action, defines_channel};

/// The chat status bits only 1.0 actions set (`chat/isReadChanged`,
/// `chat/isArchivedChanged`): `SessionStatus::IsRead | IsArchived`. A 0.9
/// chat channel never carries them, so its snapshots and its actions agree.
const CHAT_FLAGS_1_0: u64 = 32 | 64;

/// Action types 0.9 defines whose payload may carry 1.0-only fields or
/// values. Every other type 0.9 defines is sent unchanged (not even parsed).
const RESHAPED: &[&str] = &[
    "session/chatAdded",
    "session/chatUpdated",
    "session/activeClientSet",
    "session/customizationsChanged",
    "session/customizationUpdated",
    "session/mcpServerStateChanged",
    "changeset/statusChanged",
    "automation/set",
];

/// An `ActionEnvelope` (JSON) for a 0.9 client, `None` when 0.9 cannot
/// express its action. `action_type` is the envelope's action type.
pub fn envelope_json<'a>(envelope: &'a str, action_type: &str) -> Option<Cow<'a, str>> {
    if !defines_action(action_type) {
        return None;
    }
    if !RESHAPED.contains(&action_type) {
        return Some(Cow::Borrowed(envelope));
    }
    // The host wrote this envelope: it parses. Should it not, it goes as is.
    let Ok(mut value) = serde_json::from_str::<Value>(envelope) else {
        return Some(Cow::Borrowed(envelope));
    };
    if let Some(action) = value.get_mut("action") {
        reshape_action(action);
    }
    Some(Cow::Owned(value.to_string()))
}

/// The `action` notification frame for a 0.9 client carrying `envelope`
/// (already downgraded).
pub fn action_frame(envelope: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"action","params":{envelope}}}"#)
}

/// A rejection echo (an `action` notification frame) for a 0.9 client. The
/// action is the client's own, so it is echoed even if 0.9 lacks its type.
pub fn echo_frame(frame: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(frame) else {
        return frame.to_owned();
    };
    if let Some(action) = value.pointer_mut("/params/action") {
        reshape_action(action);
    }
    value.to_string()
}

/// Downgrade one action in place; false when 0.9 does not define its type.
pub fn action(action: &mut Value) -> bool {
    let defined = action.get("type").and_then(Value::as_str).is_none_or(defines_action);
    if defined {
        reshape_action(action);
    }
    defined
}

fn reshape_action(action: &mut Value) {
    let Some(kind) = action.get("type").and_then(Value::as_str) else {
        return;
    };
    let (field, reshape): (&str, fn(&mut Value)) = match kind {
        "session/chatAdded" => ("summary", chat_summary),
        "session/chatUpdated" => ("changes", chat_summary),
        "session/activeClientSet" => ("activeClient", active_client),
        "session/customizationsChanged" => ("customizations", |list| each(list, customization)),
        "session/customizationUpdated" => ("customization", customization),
        "session/mcpServerStateChanged" => ("state", mcp_server_state),
        "changeset/statusChanged" => ("status", changeset_status),
        "automation/set" => ("automation", automation_entry),
        _ => return,
    };
    if let Some(payload) = action.get_mut(field) {
        reshape(payload);
    }
}

/// Downgrade a `Snapshot` in place; false when 0.9 has no such channel.
pub fn snapshot(snapshot: &mut Value) -> bool {
    if snapshot.get("resource").and_then(Value::as_str).is_some_and(|uri| !defines_channel(uri)) {
        return false;
    }
    if let Some(state) = snapshot.get_mut("state") {
        snapshot_state(state);
    }
    true
}

/// Tell the state apart as `SnapshotState` does (by its required fields) and
/// downgrade it.
fn snapshot_state(state: &mut Value) {
    let has = |field: &str| state.get(field).is_some();
    if has("lifecycle") {
        session_state(state);
    } else if has("turns") {
        chat_state(state);
    } else if has("files") && has("status") {
        changeset_state(state);
    } else if has("entries") {
        if let Some(entries) = state.get_mut("entries") {
            each(entries, automation_entry);
        }
    }
}

/// Downgrade an `InitializeResult` in place: its snapshots, and the
/// automation capability 1.0 added.
pub fn initialize_result(result: &mut Value) {
    reconnect_result(result);
    remove(result.get_mut("automations"), &["customizations"]);
}

/// Downgrade a `reconnect` result that carries snapshots (a replay's
/// actions were downgraded by the hub).
pub fn reconnect_result(result: &mut Value) {
    if let Some(Value::Array(snapshots)) = result.get_mut("snapshots") {
        snapshots.retain_mut(snapshot);
    }
}

/// Downgrade a `SubscribeResult`.
pub fn subscribe_result(result: &mut Value) {
    if let Some(found) = result.get_mut("snapshot") {
        snapshot(found);
    }
}

/// Remove the 1.0-only `chats` / `defaultChat` fields from a `SessionSummary`
/// (or partial summary).
pub fn summary(summary: &mut Value) {
    remove(Some(summary), &["chats", "defaultChat"]);
}

/// Downgrade a `ResolveSessionConfigResult` (or a `SessionConfigState`):
/// its schema.
pub fn session_config(config: &mut Value) {
    if let Some(Value::Object(properties)) = config.pointer_mut("/schema/properties") {
        properties.values_mut().for_each(config_property_schema);
    }
}

fn session_state(state: &mut Value) {
    if let Some(chats) = state.get_mut("chats") {
        each(chats, chat_summary);
    }
    if let Some(customizations) = state.get_mut("customizations") {
        each(customizations, customization);
    }
    if let Some(clients) = state.get_mut("activeClients") {
        each(clients, active_client);
    }
    if let Some(config) = state.get_mut("config") {
        session_config(config);
    }
}

fn chat_state(state: &mut Value) {
    remove(Some(state), &["changes", "movable", "changesets", "backgroundWork", "canvases"]);
    if let Some(status) = state.get_mut("status") {
        if let Some(bits) = status.as_u64() {
            *status = Value::from(bits & !CHAT_FLAGS_1_0);
        }
    }
}

/// A `ChatSummary` or `PartialChatSummary`.
fn chat_summary(summary: &mut Value) {
    remove(Some(summary), &["changes", "movable"]);
}

fn active_client(client: &mut Value) {
    if let Some(plugins) = client.get_mut("customizations") {
        each(plugins, |plugin| remove(Some(plugin), &["type"]));
    }
}

/// A `Customization` or `ChildCustomization`: MCP servers' state, children.
fn customization(entry: &mut Value) {
    if entry.get("type").and_then(Value::as_str) == Some("mcpServer") {
        if let Some(state) = entry.get_mut("state") {
            mcp_server_state(state);
        }
    }
    if let Some(children) = entry.get_mut("children") {
        each(children, customization);
    }
}

fn mcp_server_state(state: &mut Value) {
    if state.get("status").and_then(Value::as_str) == Some("starting") {
        remove(Some(state), &["blocking"]);
    }
}

fn changeset_state(state: &mut Value) {
    if let Some(status) = state.get_mut("status") {
        changeset_status(status);
    }
}

/// 0.9 has no `recomputing`: the changeset is being computed.
fn changeset_status(status: &mut Value) {
    if status.as_str() == Some("recomputing") {
        *status = Value::from("computing");
    }
}

fn automation_entry(entry: &mut Value) {
    remove(Some(entry), &["runCount", "customizations"]);
    if let Some(definition) = entry.get_mut("definition") {
        remove(Some(definition), &["disableConditions"]);
        remove(definition.get_mut("session"), &["customizations"]);
    }
}

fn config_property_schema(schema: &mut Value) {
    remove(Some(schema), &["minItems", "maxItems"]);
    if let Some(items) = schema.get_mut("items") {
        config_property_schema(items);
    }
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.values_mut().for_each(config_property_schema);
    }
}

fn each(list: &mut Value, mut f: impl FnMut(&mut Value)) {
    if let Value::Array(items) = list {
        items.iter_mut().for_each(&mut f);
    }
}

fn remove(object: Option<&mut Value>, fields: &[&str]) {
    if let Some(Value::Object(map)) = object {
        for field in fields {
            map.remove(*field);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn actions_0_9_lacks_are_hidden_and_the_rest_pass_unparsed() {
        let delta = r#"{"channel":"ahp-chat:/c","action":{"type":"chat/delta","turnId":"t","partId":"p","content":"hi"},"serverSeq":3}"#;
        assert!(matches!(envelope_json(delta, "chat/delta"), Some(Cow::Borrowed(same)) if same == delta));
        let read = r#"{"channel":"ahp-chat:/c","action":{"type":"chat/isReadChanged","isRead":true},"serverSeq":4}"#;
        assert_eq!(envelope_json(read, "chat/isReadChanged"), None);
        assert!(!action(&mut json!({ "type": "session/chatsReordered", "chats": [] })));
        assert!(!action(&mut json!({ "type": "canvas/stateChanged", "canvas": {} })));
    }

    #[test]
    fn chat_catalogue_actions_lose_the_1_0_fields() {
        let envelope = json!({
            "channel": "ahp-session:/s",
            "action": { "type": "session/chatAdded", "summary": {
                "resource": "ahp-chat:/c", "title": "t", "status": 1, "modifiedAt": "2026-01-01T00:00:00.000Z",
                "movable": false, "changes": { "files": 1 }
            } },
            "serverSeq": 9
        })
        .to_string();
        let out: Value = serde_json::from_str(&envelope_json(&envelope, "session/chatAdded").unwrap()).unwrap();
        assert_eq!(
            out["action"]["summary"],
            json!({ "resource": "ahp-chat:/c", "title": "t", "status": 1, "modifiedAt": "2026-01-01T00:00:00.000Z" })
        );
        let mut updated = json!({ "type": "session/chatUpdated", "chat": "ahp-chat:/c", "changes": { "movable": true, "title": "u" } });
        assert!(action(&mut updated));
        assert_eq!(updated["changes"], json!({ "title": "u" }));
    }

    #[test]
    fn values_0_9_has_no_word_for_are_mapped_and_added_fields_dropped() {
        let mut status = json!({ "type": "changeset/statusChanged", "status": "recomputing" });
        action(&mut status);
        assert_eq!(status["status"], "computing");
        let mut mcp = json!({ "type": "session/mcpServerStateChanged", "id": "m", "state": { "status": "starting", "blocking": true } });
        action(&mut mcp);
        assert_eq!(mcp["state"], json!({ "status": "starting" }));
        let mut client = json!({ "type": "session/activeClientSet", "activeClient": {
            "clientId": "a", "tools": [], "customizations": [{ "type": "plugin", "id": "p", "uri": "virtual://p", "name": "P" }]
        } });
        action(&mut client);
        assert_eq!(client["activeClient"]["customizations"][0].get("type"), None);
    }

    #[test]
    fn snapshots_lose_what_0_9_does_not_define() {
        let mut chat = json!({
            "resource": "ahp-chat:/c",
            "fromSeq": 5,
            "state": {
                "resource": "ahp-chat:/c", "title": "t", "status": 1 | 32 | 64, "modifiedAt": "2026-01-01T00:00:00.000Z",
                "movable": false, "changesets": [], "backgroundWork": [], "canvases": [], "changes": {}, "turns": []
            }
        });
        assert!(snapshot(&mut chat));
        assert_eq!(
            chat["state"],
            json!({ "resource": "ahp-chat:/c", "title": "t", "status": 1, "modifiedAt": "2026-01-01T00:00:00.000Z", "turns": [] })
        );
        let mut session = json!({ "resource": "ahp-session:/s", "fromSeq": 5, "state": {
            "lifecycle": "ready",
            "chats": [{ "resource": "ahp-chat:/c", "movable": false }],
            "config": { "schema": { "type": "object", "properties": {
                "dirs": { "type": "array", "title": "Dirs", "minItems": 1, "maxItems": 3, "items": { "type": "string" } }
            } }, "values": {} }
        } });
        assert!(snapshot(&mut session));
        assert_eq!(session["state"]["chats"], json!([{ "resource": "ahp-chat:/c" }]));
        assert_eq!(
            session["state"]["config"]["schema"]["properties"]["dirs"],
            json!({ "type": "array", "title": "Dirs", "items": { "type": "string" } })
        );
        assert!(!snapshot(&mut json!({ "resource": "ahp-canvas:/x", "fromSeq": 1, "state": {} })));
    }

    #[test]
    fn initialize_results_keep_only_snapshots_0_9_can_read() {
        let mut result = json!({
            "protocolVersion": "0.9.0", "serverSeq": 1,
            "snapshots": [{ "resource": "ahp-canvas:/x", "fromSeq": 1, "state": {} }, { "resource": "ahp-root://", "fromSeq": 1, "state": { "agents": [] } }],
            "automations": { "customizations": {}, "runHistoryLimit": 5 }
        });
        initialize_result(&mut result);
        assert_eq!(result["snapshots"].as_array().map(Vec::len), Some(1));
        assert_eq!(result["automations"], json!({ "runHistoryLimit": 5 }));
    }

    #[test]
    fn rejection_echoes_keep_the_clients_own_action() {
        let frame = json!({ "jsonrpc": "2.0", "method": "action", "params": {
            "channel": "ahp-chat:/c", "serverSeq": 2, "rejectionReason": "no",
            "action": { "type": "chat/isReadChanged", "isRead": true }
        } })
        .to_string();
        let echoed: Value = serde_json::from_str(&echo_frame(&frame)).unwrap();
        assert_eq!(echoed["params"]["action"]["type"], "chat/isReadChanged");
    }
}
