//! One ACP `session/update`, decoded once into a typed [`SessionUpdate`]
//! (as zed's `acp_thread` matches one `SessionUpdate` enum in
//! `handle_session_update`): the session task (`session.rs`) routes it —
//! title, `/` commands, config options and mode to the session, the rest to
//! the running turn — and the turn (`turn.rs`) maps it onto AHP, both
//! reading the same value.
//!
//! The parts are read with the official `agent-client-protocol` v1 types,
//! one kind at a time, and not as that crate's whole `SessionUpdate`: an
//! update kind it does not know, or one odd content block in a tool call,
//! would fail the whole notification there. Here an unknown kind is
//! [`SessionUpdate::Other`] and a kind that does not parse is
//! [`SessionUpdate::Malformed`]; content blocks the schema does not know are
//! dropped from a tool call's `content` list, the rest of it kept.
//!
//! The reader's fast path (`chunk_lines.rs`) and the merging of queued
//! chunks (`coalesce.rs`) work on the raw text before this point.

use agent_client_protocol::v1::schema::{
    ContentBlock, CurrentModeUpdate, Plan, ToolCall, ToolCallContent, ToolCallUpdate,
};
use ahp_types::state::UsageInfo;
use serde_json::Value;

use super::tools;
use crate::customizations::slash_completions::AgentCommand;

/// One `session/update`, by kind.
#[derive(Debug)]
pub enum SessionUpdate<'a> {
    /// `agent_message_chunk`: text of the answer (not empty).
    MessageChunk(String),
    /// `agent_thought_chunk`: text of the agent's reasoning (not empty).
    ThoughtChunk(String),
    /// `tool_call`: a tool call seen (created, or all its fields again).
    ToolCall(Box<ToolCall>),
    /// `tool_call_update`: some fields of a tool call changed.
    ToolCallUpdate(Box<ToolCallUpdate>),
    /// `plan`: the whole plan, replacing the last.
    Plan(Plan),
    /// `usage_update`: context used and its size, cost.
    Usage(UsageInfo),
    /// An `agent_message_chunk` without text whose `_meta.usage` reports
    /// one model call's tokens (Qwen Code sends one after each call).
    ModelCallUsage(UsageInfo),
    /// `session_info_update`: the session's title, when it gives one.
    SessionInfo {
        /// The title (not empty).
        title: Option<String>,
    },
    /// `available_commands_update`: the agent's own `/` commands.
    AvailableCommands(Vec<AgentCommand>),
    /// `config_option_update`: the `update` object, read both as the
    /// model list and as the other options (`models.rs`,
    /// `config_options.rs`).
    ConfigOptions(&'a Value),
    /// `current_mode_update`.
    CurrentMode(CurrentModeUpdate),
    /// A kind this host does not map (`user_message_chunk`, newer kinds).
    Other(&'a str),
    /// A known kind that did not parse; already logged.
    Malformed(&'a str),
}

impl<'a> SessionUpdate<'a> {
    /// Decode `update` (the `update` object of the notification's params).
    pub fn decode(update: &'a Value) -> Self {
        let kind = update.get("sessionUpdate").and_then(Value::as_str).unwrap_or_default();
        let decoded = match kind {
            "agent_message_chunk" => chunk_text(update)
                .map(Self::MessageChunk)
                .or_else(|| super::usage::of_chunk_meta(update).map(Self::ModelCallUsage)),
            "agent_thought_chunk" => chunk_text(update).map(Self::ThoughtChunk),
            "tool_call" => parse::<ToolCall>(kind, salvage(update)).map(|t| Self::ToolCall(Box::new(t))),
            "tool_call_update" => {
                parse::<ToolCallUpdate>(kind, salvage(update)).map(|t| Self::ToolCallUpdate(Box::new(t)))
            }
            "plan" => parse::<Plan>(kind, update.clone()).map(Self::Plan),
            "usage_update" => super::usage::of_usage_update(update).map(Self::Usage),
            "session_info_update" => Some(Self::SessionInfo {
                title: update.get("title").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_owned),
            }),
            "available_commands_update" => super::commands::from_update(update).map(Self::AvailableCommands),
            "config_option_update" => Some(Self::ConfigOptions(update)),
            "current_mode_update" => parse::<CurrentModeUpdate>(kind, update.clone()).map(Self::CurrentMode),
            other => return Self::Other(other),
        };
        decoded.unwrap_or(Self::Malformed(kind))
    }

    /// Whether it is about a tool call (the agent's terminals read its
    /// `_meta` too), also when it did not parse.
    pub fn is_tool_call(&self) -> bool {
        matches!(self, Self::ToolCall(_) | Self::ToolCallUpdate(_) | Self::Malformed("tool_call" | "tool_call_update"))
    }
}

fn parse<T: serde::de::DeserializeOwned>(kind: &str, value: Value) -> Option<T> {
    serde_json::from_value(value).map_err(|e| tracing::debug!("ignored a malformed {kind}: {e}")).ok()
}

/// A chunk's text, when it has any.
fn chunk_text(update: &Value) -> Option<String> {
    let block: ContentBlock = serde_json::from_value(update.get("content")?.clone()).ok()?;
    tools::block_text(&block).filter(|t| !t.is_empty())
}

/// A tool call update with content the schema does not know dropped from
/// its `content` list (so one odd block does not lose the whole update).
fn salvage(update: &Value) -> Value {
    let mut v = update.clone();
    if let Some(list) = v.get_mut("content").and_then(Value::as_array_mut) {
        list.retain(|c| serde_json::from_value::<ToolCallContent>(c.clone()).is_ok());
    }
    v
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_kind_is_decoded_once_unknown_and_malformed_ones_say_so() {
        let chunk = json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}});
        assert!(matches!(SessionUpdate::decode(&chunk), SessionUpdate::MessageChunk(t) if t == "hi"));
        let empty = json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": ""}});
        assert!(matches!(SessionUpdate::decode(&empty), SessionUpdate::Malformed("agent_thought_chunk")));
        let call = json!({"sessionUpdate": "tool_call", "toolCallId": "a", "title": "Run",
            "content": [{"type": "no-such-block"}, {"type": "content", "content": {"type": "text", "text": "x"}}]});
        let SessionUpdate::ToolCall(tc) = SessionUpdate::decode(&call) else { panic!("not a tool call") };
        assert_eq!(tc.content.len(), 1, "the unknown block is dropped, the call kept");
        let bad = json!({"sessionUpdate": "tool_call_update"});
        assert!(SessionUpdate::decode(&bad).is_tool_call());
        let info = json!({"sessionUpdate": "session_info_update", "title": ""});
        assert!(matches!(SessionUpdate::decode(&info), SessionUpdate::SessionInfo { title: None }));
        let new = json!({"sessionUpdate": "some_future_kind"});
        assert!(matches!(SessionUpdate::decode(&new), SessionUpdate::Other("some_future_kind")));
        let usage = json!({"sessionUpdate": "usage_update", "used": 5, "size": 100});
        assert!(
            matches!(SessionUpdate::decode(&usage), SessionUpdate::Usage(u) if super::super::usage::context_of(&u).is_some())
        );
        let empty = json!({"sessionUpdate": "usage_update"});
        assert!(matches!(SessionUpdate::decode(&empty), SessionUpdate::Malformed("usage_update")));
    }
}
