//! Builders for the actions tests dispatch.

use ahp_types::actions::{
    ChatPendingMessageSetAction, ChatTurnCancelledAction, ChatTurnStartedAction, SessionIsArchivedChangedAction,
    SessionIsReadChangedAction, SessionTitleChangedAction,
};
use ahp_types::state::{Message, MessageKind, MessageOrigin, PendingMessageKind};
use ahp_types::StateAction;

/// A user message.
pub fn user_message(text: &str) -> Message {
    Message {
        text: text.to_owned(),
        origin: MessageOrigin { kind: MessageKind::User },
        attachments: None,
        model: None,
        agent: None,
        meta: None,
    }
}

/// Now, RFC 3339.
pub fn now() -> String {
    // Milliseconds since the epoch, formatted by the reducers' own parser's rules.
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, dd) = civil_from_days(days);
    format!("{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem / 60 % 60, rem % 60, d.subsec_millis())
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `chat/turnStarted`.
pub fn turn_started(turn_id: &str, text: &str) -> StateAction {
    StateAction::ChatTurnStarted(ChatTurnStartedAction {
        turn_id: turn_id.to_owned(),
        started_at: now(),
        message: user_message(text),
        queued_message_id: None,
        meta: None,
    })
}

/// `chat/turnCancelled`.
pub fn turn_cancelled(turn_id: &str) -> StateAction {
    StateAction::ChatTurnCancelled(ChatTurnCancelledAction { turn_id: turn_id.to_owned(), duration: 5, meta: None })
}

/// `session/titleChanged`.
pub fn title(title: &str) -> StateAction {
    StateAction::SessionTitleChanged(SessionTitleChangedAction { title: title.to_owned() })
}

/// `session/isReadChanged`.
pub fn is_read(is_read: bool) -> StateAction {
    StateAction::SessionIsReadChanged(SessionIsReadChangedAction { is_read })
}

/// `session/isArchivedChanged`.
pub fn is_archived(is_archived: bool) -> StateAction {
    StateAction::SessionIsArchivedChanged(SessionIsArchivedChangedAction { is_archived })
}

/// `chat/pendingMessageSet` (queued).
pub fn queue(id: &str, text: &str) -> StateAction {
    StateAction::ChatPendingMessageSet(ChatPendingMessageSetAction {
        kind: PendingMessageKind::Queued,
        id: id.to_owned(),
        message: user_message(text),
    })
}
