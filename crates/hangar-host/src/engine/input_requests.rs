//! Input requests (`chat/inputRequested` parts) in the engine.
//!
//! Map:
//! - [`Engine::sync_input_needed`] — mirrors a chat's open input requests
//!   into its session's `inputNeeded` list (`session/inputNeededSet` when
//!   one opens or its failed turn is resumed, `session/inputNeededRemoved`
//!   when it is answered, closed or its turn ends), so a client watching only the session sees that it
//!   needs input. Entry ids are `{chat}#{requestId}`.
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
    ResponsePart, SessionChatInputRequest, SessionInputRequest,
};
use ahp_types::StateAction;

use super::Engine;

/// Whether `action` can open or close an input request (a resumed turn
/// reopens the requests it still had open when it failed).
pub(super) fn touches_input_requests(action: &StateAction) -> bool {
    matches!(
        action,
        StateAction::ChatInputRequested(_)
            | StateAction::ChatInputCompleted(_)
            | StateAction::ChatTruncated(_)
            | StateAction::ChatTurnResume(_)
    ) || super::ends_turn(action)
}

fn entry_id(chat: &str, request_id: &str) -> String {
    format!("{chat}#{request_id}")
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

impl Engine {
    /// Bring the session's `inputNeeded` entries for `chat` in line with the
    /// chat's open input requests.
    pub(super) fn sync_input_needed(&mut self, session: &str, chat: &str) {
        let (Some(chat_entry), Some(session_entry)) = (self.chats.get(chat), self.sessions.get(session)) else {
            return;
        };
        let open: Vec<SessionChatInputRequest> = open_requests(&chat_entry.state)
            .into_iter()
            .map(|r| SessionChatInputRequest { id: entry_id(chat, &r.id), chat: chat.to_owned(), request: r.clone() })
            .collect();
        let listed: Vec<String> = session_entry
            .state
            .input_needed
            .iter()
            .flatten()
            .filter_map(|r| match r {
                SessionInputRequest::ChatInput(c) if c.chat == chat => Some(c.id.clone()),
                _ => None,
            })
            .collect();
        let open_ids: Vec<String> = open.iter().map(|r| r.id.clone()).collect();
        let mut actions: Vec<StateAction> = open
            .into_iter()
            .filter(|r| !listed.contains(&r.id))
            .map(|r| {
                StateAction::SessionInputNeededSet(Box::new(SessionInputNeededSetAction {
                    request: SessionInputRequest::ChatInput(r),
                }))
            })
            .collect();
        actions.extend(
            listed
                .into_iter()
                .filter(|id| !open_ids.contains(id))
                .map(|id| StateAction::SessionInputNeededRemoved(SessionInputNeededRemovedAction { id })),
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
