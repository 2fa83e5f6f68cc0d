//! Which desktop notification a session's status change calls for, in
//! words, and whether Settings lets it through. Pure: the core tracks each
//! session's last status bits and asks [`change`] on every new summary; a
//! session seen for the first time (as when the app starts while it
//! already waits) has nothing to compare with and never notifies.

use ahp_types::state::SessionStatus as Bits;

use hangar_desktop_protocol::settings::NotifySettings;

/// What a notification is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A tool call waits for approval.
    Approval,
    /// The agent asks a question.
    Question,
    /// A turn finished.
    FinishedTurn,
    /// A turn failed.
    Failure,
}

/// What a status change means, before the chat says whether a wait is an
/// approval or a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The session started waiting for the person.
    StartedWaiting,
    /// Its turn ended: finished, or failed.
    Ended(Kind),
}

/// The change from `before` to `now` (status bits) worth a notification.
pub fn change(before: u32, now: u32) -> Option<Change> {
    let (b, n) = (Bits::from_bits(before), Bits::from_bits(now));
    if n.contains(Bits::InputNeeded) {
        return (!b.contains(Bits::InputNeeded)).then_some(Change::StartedWaiting);
    }
    let ended = b.contains(Bits::InProgress) && !n.contains(Bits::InProgress);
    let failed = n.contains(Bits::Error) && !b.contains(Bits::Error);
    if failed {
        Some(Change::Ended(Kind::Failure))
    } else {
        ended.then_some(Change::Ended(Kind::FinishedTurn))
    }
}

/// Whether Settings shows notifications of `kind`.
pub fn allowed(settings: &NotifySettings, kind: Kind) -> bool {
    match kind {
        Kind::Approval => settings.approvals,
        Kind::Question => settings.questions,
        Kind::FinishedTurn => settings.finished_turns,
        Kind::Failure => settings.failures,
    }
}

/// The notification's title and body.
pub fn text(kind: Kind, session_title: &str, host_label: &str) -> (String, String) {
    let (title, what) = match kind {
        Kind::Approval => ("Hangar: approval needed", "is waiting for your approval"),
        Kind::Question => ("Hangar: question", "has a question for you"),
        Kind::FinishedTurn => ("Hangar: turn finished", "finished its turn"),
        Kind::Failure => ("Hangar: turn failed", "failed"),
    };
    (title.to_owned(), format!("{session_title} ({host_label}) {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: u32 = Bits::Idle.bits();
    fn bits(b: &[Bits]) -> u32 {
        b.iter().fold(0, |acc, x| acc | x.bits())
    }

    #[test]
    fn waits_ends_and_failures_are_told_apart() {
        let working = bits(&[Bits::InProgress]);
        let waiting = bits(&[Bits::InProgress, Bits::InputNeeded]);
        assert_eq!(change(working, waiting), Some(Change::StartedWaiting));
        assert_eq!(change(waiting, waiting), None, "still waiting: once");
        assert_eq!(change(waiting, working), None, "answered, still working");
        assert_eq!(change(working, IDLE), Some(Change::Ended(Kind::FinishedTurn)));
        assert_eq!(change(working, bits(&[Bits::Idle, Bits::Error])), Some(Change::Ended(Kind::Failure)));
        assert_eq!(change(IDLE, IDLE), None);
        assert_eq!(change(IDLE, working), None, "a turn starting is not news");
    }

    #[test]
    fn each_kind_has_its_own_switch() {
        let mut s = NotifySettings::default();
        assert!(allowed(&s, Kind::Approval) && allowed(&s, Kind::FinishedTurn));
        s.approvals = false;
        assert!(!allowed(&s, Kind::Approval) && allowed(&s, Kind::Question));
        s.finished_turns = false;
        assert!(!allowed(&s, Kind::FinishedTurn) && allowed(&s, Kind::Failure));
    }
}
