//! A recorded ACP transcript (`{t, dir: "c2a"|"a2c", msg}` lines, see
//! `tests/e2e/fixtures/acp-transcripts/README.md`) replayed in-process
//! through the turn mapping into a [`RecordingHost`], the way the session
//! task drives it — no agent process, no engine, no store:
//!
//! - the recorded `session/prompt` is a client's `chat/turnStarted` and a
//!   fresh [`Turn`];
//! - the agent's `session/update`s go to [`Turn::on_update`], its
//!   `session/request_permission`s to [`Turn::permission`];
//! - the recorded client's answer to a permission is replayed as the AHP
//!   client's `chat/toolCallConfirmed`: the option with the same id, picked
//!   from the confirmation the reduced chat shows; the host's answer to the
//!   agent is kept beside the recorded one;
//! - a recorded `session/cancel` is the client's `chat/turnCancelled`
//!   (open permissions get `cancelled`);
//! - the prompt's answer ends the turn ([`Ending::of_prompt`], usage).
//!
//! Requests the turn mapping does not see (`fs/*`, start-up) are skipped.

use std::collections::HashMap;
use std::path::Path;

use agent_client_protocol::v1::schema::{PermissionOption, RequestPermissionRequest};
use ahp_types::actions::{ChatToolCallConfirmedAction, ChatTurnCancelledAction};
use ahp_types::state::{
    ConfirmationOption, ConfirmationOptionKind, ResponsePart, ToolCallCancellationReason, ToolCallConfirmationReason,
    ToolCallState,
};
use ahp_types::StateAction;
use serde_json::Value;

use super::{RecordingHost, CHAT};
use crate::agents::acp::tools::permission_outcome;
use crate::agents::acp::turn::{Ending, Turn};
use crate::agents::acp::update::SessionUpdate;
use crate::agents::acp::usage::of_prompt_result as prompt_usage;

/// The turn id the replayed client uses.
pub const TURN: &str = "turn-1";
/// The prompt of every recorded transcript.
pub const PROMPT: &str = "In hello.txt, replace the word world with ACP.";

/// A permission request and how it was answered.
#[derive(Debug)]
pub struct Answer {
    /// The tool call the confirmation is for (`None`: the turn could not
    /// take the request, the host answered `cancelled` at once).
    pub tool_call_id: Option<String>,
    /// The ids of the options the confirmation showed.
    pub shown: Vec<String>,
    /// The recorded client's answer (`result`).
    pub recorded: Value,
    /// What the host answers the agent (`None`: it has not yet).
    pub host: Option<Value>,
}

/// The outcome of a replay.
pub struct Replayed {
    /// The double, holding the reduced chat and the emitted actions.
    pub host: RecordingHost,
    /// Every permission request the recorded client answered, in order.
    pub answers: Vec<Answer>,
}

/// A permission request of the agent.
struct Permission {
    tool_call_id: Option<String>,
    options: Vec<PermissionOption>,
    /// The options the chat showed for it.
    shown: Vec<ConfirmationOption>,
    /// The host's answer, once given.
    host: Option<Value>,
}

/// The state of a replay between lines.
struct Replay {
    host: RecordingHost,
    turn: Option<Turn>,
    prompt_id: Option<String>,
    /// Permission requests by JSON-RPC id (as JSON text).
    permissions: HashMap<String, Permission>,
    answers: Vec<Answer>,
}

/// Replay the transcript at `path`.
pub fn replay(path: &Path) -> Replayed {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut replay = Replay {
        host: RecordingHost::new(),
        turn: None,
        prompt_id: None,
        permissions: HashMap::new(),
        answers: Vec::new(),
    };
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
        let msg = &line["msg"];
        let method = msg.get("method").and_then(Value::as_str);
        let id = msg.get("id").map(Value::to_string);
        match (line["dir"].as_str(), method, id) {
            (Some("c2a"), Some("session/prompt"), Some(id)) => replay.prompt(id),
            (Some("c2a"), Some("session/cancel"), None) => replay.cancel(),
            (Some("c2a"), None, Some(id)) => replay.client_answer(&id, &msg["result"]),
            (Some("a2c"), Some("session/update"), None) => replay.update(&msg["params"]["update"]),
            (Some("a2c"), Some("session/request_permission"), Some(id)) => replay.permission(id, &msg["params"]),
            (Some("a2c"), None, Some(id)) if replay.prompt_id.as_ref() == Some(&id) => replay.prompt_answer(msg),
            _ => {}
        }
    }
    Replayed { host: replay.host, answers: replay.answers }
}

impl Replay {
    fn prompt(&mut self, id: String) {
        self.prompt_id = Some(id);
        self.turn = Some(self.host.start_turn(TURN, PROMPT));
    }

    fn update(&mut self, update: &Value) {
        if let Some(turn) = self.turn.as_mut().filter(|t| !t.ended) {
            turn.on_update(&self.host, SessionUpdate::decode(update));
        }
    }

    fn permission(&mut self, id: String, params: &Value) {
        let request: RequestPermissionRequest = serde_json::from_value(params.clone()).unwrap();
        let host = &self.host;
        let tool_call_id = self.turn.as_mut().filter(|t| !t.ended).and_then(|t| t.permission(host, &request, None));
        let shown = tool_call_id.as_deref().map(|tc| self.shown_options(tc)).unwrap_or_default();
        let answer = tool_call_id.is_none().then(|| permission_outcome(None));
        self.permissions.insert(id, Permission { tool_call_id, options: request.options, shown, host: answer });
    }

    /// The recorded client answered request `id` with `result`.
    fn client_answer(&mut self, id: &str, result: &Value) {
        let Some(p) = self.permissions.get_mut(id) else {
            return;
        };
        let selected = result.pointer("/outcome/optionId").and_then(Value::as_str);
        if let (None, Some(selected), Some(tool_call_id)) = (&p.host, selected, &p.tool_call_id) {
            // As an AHP client: the option shown with that id, sent the
            // way a client sends it (and the engine checks it).
            let approved = p.shown.iter().any(|o| o.id == selected && o.kind == ConfirmationOptionKind::Approve);
            let confirmed = ChatToolCallConfirmedAction {
                turn_id: TURN.to_owned(),
                tool_call_id: tool_call_id.clone(),
                meta: None,
                approved,
                confirmed: approved.then_some(ToolCallConfirmationReason::UserAction),
                reason: (!approved).then_some(ToolCallCancellationReason::Denied),
                edited_tool_input: None,
                user_suggestion: None,
                reason_message: None,
                selected_option_id: Some(selected.to_owned()),
            };
            // The session task's part once the engine applied it.
            if let Some(turn) = self.turn.as_mut().filter(|t| !t.ended) {
                if self.host.dispatch(CHAT, StateAction::ChatToolCallConfirmed(confirmed.clone())).is_ok() {
                    p.host = Some(turn.answer_permission(&confirmed, &p.options));
                }
            }
        }
        self.answers.push(Answer {
            tool_call_id: p.tool_call_id.clone(),
            shown: p.shown.iter().map(|o| o.id.clone()).collect(),
            recorded: result.clone(),
            host: p.host.clone(),
        });
    }

    /// The options the chat shows for the pending confirmation of `tool_call_id`.
    fn shown_options(&self, tool_call_id: &str) -> Vec<ConfirmationOption> {
        let chat = self.host.chat_state();
        let parts = chat.active_turn.iter().flat_map(|t| &t.response_parts);
        parts
            .into_iter()
            .find_map(|p| match p {
                ResponsePart::ToolCall(tc) => match &tc.tool_call {
                    ToolCallState::PendingConfirmation(p) if p.tool_call_id == tool_call_id => p.options.clone(),
                    _ => None,
                },
                _ => None,
            })
            .unwrap_or_default()
    }

    fn cancel(&mut self) {
        let cancelled = StateAction::ChatTurnCancelled(ChatTurnCancelledAction {
            turn_id: TURN.to_owned(),
            duration: 0,
            meta: None,
        });
        if self.host.dispatch(CHAT, cancelled).is_ok() {
            if let Some(turn) = self.turn.as_mut() {
                turn.ended = true;
            }
            self.drop_requests();
        }
    }

    /// Every open permission gets `cancelled`.
    fn drop_requests(&mut self) {
        for p in self.permissions.values_mut().filter(|p| p.host.is_none()) {
            p.host = Some(permission_outcome(None));
        }
    }

    fn prompt_answer(&mut self, msg: &Value) {
        self.drop_requests();
        let Some(turn) = self.turn.as_mut().filter(|t| !t.ended) else {
            return;
        };
        match msg.get("result") {
            Some(result) => turn.finish(&self.host, Ending::of_prompt(result), prompt_usage(result)),
            None => {
                let message = msg["error"]["message"].as_str().unwrap_or_default().to_owned();
                turn.finish(&self.host, Ending::Error { kind: "agentError", message }, None);
            }
        }
    }
}
