//! `chat.reply`: the agent's answer to one turn, once that turn has ended
//! (the text of its Markdown parts, in order). "Ask the agent to write it"
//! sends a prompt and fills the commit message with this answer. The
//! chat's state is the core's mirror (the chat is open, so subscribed);
//! the wait wakes on every event of the chat and looks again at least
//! every [`RECHECK`], as the pump may apply an event after this wait sees
//! it.

use std::time::{Duration, Instant};

use ahp::hosts::HostId;
use ahp_types::state::{ResponsePart, Turn, TurnState};

use crate::core::Core;
use crate::error::CoreError;

/// How long a turn may run before the wait gives up.
const LONGEST_TURN: Duration = Duration::from_secs(30 * 60);

/// The longest the wait goes without looking at the mirror.
const RECHECK: Duration = Duration::from_millis(250);

/// The Markdown text of `turn`'s response, parts joined by blank lines.
pub fn reply_text(turn: &Turn) -> String {
    let parts = turn.response_parts.iter().filter_map(|p| match p {
        ResponsePart::Markdown(m) => Some(m.content.trim()),
        _ => None,
    });
    parts.filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n\n")
}

/// Wait for turn `turn_id` of `chat` to end; its reply, or why there is none.
pub async fn reply(core: &Core, host: &HostId, chat: &str, turn_id: &str) -> Result<String, CoreError> {
    let mut events = core.multi().events();
    let deadline = Instant::now() + LONGEST_TURN;
    loop {
        let state =
            core.chat_state(host, chat).ok_or_else(|| CoreError::NotFound(format!("chat {chat} is not open")))?;
        if let Some(turn) = state.turns.iter().find(|t| t.id == turn_id) {
            return match turn.state {
                TurnState::Complete => Ok(reply_text(turn)),
                TurnState::Cancelled => {
                    Err(CoreError::Refused("the turn was cancelled before the agent answered".into()))
                }
                TurnState::Error => Err(CoreError::Refused("the agent's turn failed".into())),
            };
        }
        if Instant::now() >= deadline {
            return Err(CoreError::Refused("the agent did not answer in 30 minutes".into()));
        }
        // Woken by an event of this chat, or after RECHECK at the latest.
        let _ = tokio::time::timeout(RECHECK, async {
            while let Some(ev) = events.recv().await {
                if &ev.host_id == host && ev.channel == chat {
                    break;
                }
            }
        })
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_reply_is_the_markdown_parts_without_tool_calls() {
        let turn: Turn = serde_json::from_value(json!({
            "id": "t1", "message": {"text": "write it", "origin": {"kind": "user"}}, "state": "complete",
            "responseParts": [
                {"kind": "markdown", "id": "p1", "content": "Fix the notes\n"},
                {"kind": "reasoning", "id": "p2", "content": "thinking"},
                {"kind": "markdown", "id": "p3", "content": " Line 2 was wrong. "}
            ]
        }))
        .unwrap();
        assert_eq!(reply_text(&turn), "Fix the notes\n\nLine 2 was wrong.");
    }
}
