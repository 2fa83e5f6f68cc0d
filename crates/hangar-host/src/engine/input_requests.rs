//! Input requests (`chat/inputRequested` parts) in the engine.
//!
//! Map:
//! - [`Engine::sync_input_needed`] — mirrors what a chat's active turn waits
//!   on a person for into its session's `inputNeeded` list, as AHP 1.0.0
//!   asks of a host: open input requests (`chatInput`), tool calls pending a
//!   parameter or result confirmation (`toolConfirmation`) and tool calls
//!   blocked on authentication (`toolAuthentication`).
//!   `session/inputNeededSet` when one opens or changes, or its failed turn
//!   is resumed; `session/inputNeededRemoved` when it is answered,
//!   confirmed, denied, cancelled or its turn ends. So a client watching
//!   only the session sees that it needs a person. Entry ids are
//!   `{chat}#{requestId}` and `{chat}#tool:{toolCallId}`.
//! - [`check_input_action`] — preconditions of a client's
//!   `chat/inputAnswerChanged` / `chat/inputCompleted`: the request must be
//!   open in the active turn, answers must name its questions with a value
//!   of the question's kind, and an accept that answers anything must
//!   answer every required question (an accept that skips every question is
//!   allowed: it is the form's "Skip").

use std::collections::HashMap;

use ahp_types::actions::{SessionInputNeededRemovedAction, SessionInputNeededSetAction};
use ahp_types::state::{
    ChatInputAnswer, ChatInputAnswerValue, ChatInputQuestion, ChatInputRequest, ChatInputResponseKind, ChatState,
    ResponsePart, SessionChatInputRequest, SessionInputRequest, SessionToolAuthenticationRequest,
    SessionToolConfirmationRequest, ToolCallConfirmationState, ToolCallState,
};
use ahp_types::StateAction;

use super::Engine;

/// Whether `action` can open or close an entry of the session's
/// `inputNeeded`: an input request, or a tool call waiting for a
/// confirmation or for authentication (a resumed turn reopens what it still
/// had open when it failed).
pub(super) fn touches_input_requests(action: &StateAction) -> bool {
    matches!(
        action,
        StateAction::ChatInputRequested(_)
            | StateAction::ChatInputCompleted(_)
            | StateAction::ChatTruncated(_)
            | StateAction::ChatTurnResume(_)
            | StateAction::ChatToolCallStart(_)
            | StateAction::ChatToolCallReady(_)
            | StateAction::ChatToolCallConfirmed(_)
            | StateAction::ChatToolCallComplete(_)
            | StateAction::ChatToolCallResultConfirmed(_)
            | StateAction::ChatToolCallAuthRequired(_)
            | StateAction::ChatToolCallAuthResolved(_)
    ) || super::ends_turn(action)
}

fn entry_id(chat: &str, request_id: &str) -> String {
    format!("{chat}#{request_id}")
}

fn tool_entry_id(chat: &str, tool_call_id: &str) -> String {
    format!("{chat}#tool:{tool_call_id}")
}

/// The unanswered input requests of the chat's active turn.
fn open_requests(chat: &ChatState) -> Vec<&ChatInputRequest> {
    chat.active_turn
        .iter()
        .flat_map(|t| &t.response_parts)
        .filter_map(|p| match p {
            ResponsePart::InputRequest(i) if i.response.is_none() => Some(&i.request),
            _ => None,
        })
        .collect()
}

/// What the chat's active turn waits on a person for, as the session's
/// `inputNeeded` entries: open input requests, tool calls pending a
/// (parameter or result) confirmation, tool calls blocked on authentication.
fn waiting_on_person(chat_uri: &str, chat: &ChatState) -> Vec<SessionInputRequest> {
    let Some(turn) = chat.active_turn.as_ref() else { return Vec::new() };
    let mut entries: Vec<SessionInputRequest> = open_requests(chat)
        .into_iter()
        .map(|r| {
            SessionInputRequest::ChatInput(SessionChatInputRequest {
                id: entry_id(chat_uri, &r.id),
                chat: chat_uri.to_owned(),
                request: r.clone(),
            })
        })
        .collect();
    for part in &turn.response_parts {
        let ResponsePart::ToolCall(part) = part else { continue };
        let confirmation = match &part.tool_call {
            ToolCallState::PendingConfirmation(t) => {
                (t.tool_call_id.clone(), ToolCallConfirmationState::PendingConfirmation(t.clone()))
            }
            ToolCallState::PendingResultConfirmation(t) => {
                (t.tool_call_id.clone(), ToolCallConfirmationState::PendingResultConfirmation(t.clone()))
            }
            ToolCallState::AuthRequired(t) => {
                entries.push(SessionInputRequest::ToolAuthentication(Box::new(SessionToolAuthenticationRequest {
                    id: tool_entry_id(chat_uri, &t.tool_call_id),
                    chat: chat_uri.to_owned(),
                    turn_id: turn.id.clone(),
                    tool_call: (**t).clone(),
                })));
                continue;
            }
            _ => continue,
        };
        entries.push(SessionInputRequest::ToolConfirmation(SessionToolConfirmationRequest {
            id: tool_entry_id(chat_uri, &confirmation.0),
            chat: chat_uri.to_owned(),
            turn_id: turn.id.clone(),
            tool_call: confirmation.1,
        }));
    }
    entries
}

/// The id and chat of a session `inputNeeded` entry this host writes.
fn entry_key(entry: &SessionInputRequest) -> Option<(&str, &str)> {
    match entry {
        SessionInputRequest::ChatInput(c) => Some((&c.id, &c.chat)),
        SessionInputRequest::ToolConfirmation(t) => Some((&t.id, &t.chat)),
        SessionInputRequest::ToolAuthentication(t) => Some((&t.id, &t.chat)),
        SessionInputRequest::ToolClientExecution(_) | SessionInputRequest::Unknown(_) => None,
    }
}

impl Engine {
    /// Bring the session's `inputNeeded` entries for `chat` in line with
    /// what the chat's active turn waits on a person for: an entry that
    /// opens or changes is set (upsert), one that closed is removed.
    pub(super) fn sync_input_needed(&mut self, session: &str, chat: &str) {
        let (Some(chat_entry), Some(session_entry)) = (self.chats.get(chat), self.sessions.get(session)) else {
            return;
        };
        let wanted = waiting_on_person(chat, &chat_entry.state);
        let listed: Vec<&SessionInputRequest> = session_entry
            .state
            .input_needed
            .iter()
            .flatten()
            .filter(|r| entry_key(r).is_some_and(|(_, c)| c == chat))
            .collect();
        let mut actions: Vec<StateAction> = wanted
            .iter()
            .filter(|w| !listed.contains(w))
            .map(|w| StateAction::SessionInputNeededSet(Box::new(SessionInputNeededSetAction { request: w.clone() })))
            .collect();
        let wanted_ids: Vec<&str> = wanted.iter().filter_map(|w| entry_key(w).map(|(id, _)| id)).collect();
        actions.extend(
            listed.iter().filter_map(|r| entry_key(r).map(|(id, _)| id)).filter(|id| !wanted_ids.contains(id)).map(
                |id| StateAction::SessionInputNeededRemoved(SessionInputNeededRemovedAction { id: id.to_owned() }),
            ),
        );
        for action in actions {
            let _ = self.emit_server(session, action);
        }
    }
}

/// Preconditions of a client's input action on `chat` (`None`: not a chat).
pub(super) fn check_input_action(chat: Option<&ChatState>, action: &StateAction) -> Result<(), String> {
    let (request_id, answers): (&str, Vec<(&String, Option<&ChatInputAnswer>)>) = match action {
        StateAction::ChatInputAnswerChanged(a) => (&a.request_id, vec![(&a.question_id, a.answer.as_ref())]),
        StateAction::ChatInputCompleted(a) => {
            (&a.request_id, a.answers.iter().flatten().map(|(k, v)| (k, Some(v))).collect())
        }
        _ => return Ok(()),
    };
    let request = chat
        .map(open_requests)
        .unwrap_or_default()
        .into_iter()
        .find(|r| r.id == request_id)
        .ok_or_else(|| format!("no open input request {request_id} in the active turn"))?;
    let questions: HashMap<&str, &ChatInputQuestion> =
        request.questions.iter().flatten().filter_map(|q| Some((question_id(q)?, q))).collect();
    for (question, answer) in &answers {
        let q = questions.get(question.as_str()).ok_or_else(|| format!("the request has no question {question}"))?;
        if let Some(ChatInputAnswer::Draft(a) | ChatInputAnswer::Submitted(a)) = answer {
            if !fits(q, &a.value) {
                return Err(format!("the answer to {question} does not fit the question's kind"));
            }
        }
    }
    if let StateAction::ChatInputCompleted(a) = action {
        if a.response == ChatInputResponseKind::Accept {
            let mut merged = request.answers.clone().unwrap_or_default();
            merged.extend(a.answers.clone().unwrap_or_default());
            let answered =
                |id: &str| matches!(merged.get(id), Some(ChatInputAnswer::Draft(_) | ChatInputAnswer::Submitted(_)));
            let any_answered = questions.keys().any(|id| answered(id));
            let missing = questions.iter().find(|(id, q)| any_answered && is_required(q) && !answered(id));
            if let Some((id, _)) = missing {
                return Err(format!("question {id} is required"));
            }
        }
    }
    Ok(())
}

fn question_id(q: &ChatInputQuestion) -> Option<&str> {
    Some(match q {
        ChatInputQuestion::Text(q) => &q.id,
        ChatInputQuestion::Number(q) | ChatInputQuestion::Integer(q) => &q.id,
        ChatInputQuestion::Boolean(q) => &q.id,
        ChatInputQuestion::SingleSelect(q) => &q.id,
        ChatInputQuestion::MultiSelect(q) => &q.id,
        ChatInputQuestion::Unknown(v) => v.get("id")?.as_str()?,
    })
}

fn is_required(q: &ChatInputQuestion) -> bool {
    let required = match q {
        ChatInputQuestion::Text(q) => q.required,
        ChatInputQuestion::Number(q) | ChatInputQuestion::Integer(q) => q.required,
        ChatInputQuestion::Boolean(q) => q.required,
        ChatInputQuestion::SingleSelect(q) => q.required,
        ChatInputQuestion::MultiSelect(q) => q.required,
        ChatInputQuestion::Unknown(_) => None,
    };
    required == Some(true)
}

/// Whether an answer value has the question's kind.
fn fits(q: &ChatInputQuestion, value: &ChatInputAnswerValue) -> bool {
    use ChatInputAnswerValue as V;
    match (q, value) {
        (ChatInputQuestion::Text(_), V::Text(_)) | (ChatInputQuestion::Number(_), V::Number(_)) => true,
        (ChatInputQuestion::Integer(_), V::Number(n)) => n.value.fract() == 0.0,
        (ChatInputQuestion::Boolean(_), V::Boolean(_)) => true,
        (ChatInputQuestion::SingleSelect(q), V::Selected(s)) => {
            q.allow_freeform_input == Some(true) || q.options.iter().any(|o| o.id == s.value)
        }
        (ChatInputQuestion::MultiSelect(q), V::SelectedMany(m)) => {
            let known = m.value.iter().all(|v| q.options.iter().any(|o| &o.id == v));
            (known || q.allow_freeform_input == Some(true))
                && (m.freeform_values.is_none() || q.allow_freeform_input == Some(true))
        }
        (ChatInputQuestion::Unknown(_), _) => true,
        _ => false,
    }
}
