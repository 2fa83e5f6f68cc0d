//! Session titles: who set one, and whether a new title may replace it —
//! the one place that decides.
//!
//! - A person's rename (a client's `session/titleChanged`) always applies
//!   and is never overwritten.
//! - An agent's title (`session_info_update`, emitted by the agent layer)
//!   replaces anything but a person's rename.
//! - The automatic title (the first line of the first message, at most
//!   [`AUTO_TITLE_MAX`] characters, cut at a word) is set when the first turn
//!   starts in a session with no title.
//!
//! Who set the title is kept in the session summary's
//! `_meta["hangar/titleSource"]` (`auto`, `agent`, `person`), so a restart
//! keeps the rules.

use ahp_types::actions::SessionTitleChangedAction;
use ahp_types::StateAction;
use serde_json::Value;

use super::{EmitError, Engine};

/// The `_meta` key of a session summary naming who set the title.
pub const TITLE_SOURCE_META: &str = "hangar/titleSource";

/// The longest automatic title, in characters.
pub const AUTO_TITLE_MAX: usize = 80;

/// Who set a session's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TitleSource {
    /// Nobody (empty, or given at creation).
    #[default]
    Unset,
    /// The host, from the first message.
    Auto,
    /// The session's agent.
    Agent,
    /// A person, through a client.
    Person,
}

impl TitleSource {
    /// The `_meta` value.
    pub fn as_str(self) -> Option<&'static str> {
        match self {
            Self::Unset => None,
            Self::Auto => Some("auto"),
            Self::Agent => Some("agent"),
            Self::Person => Some("person"),
        }
    }

    /// Read back from a summary's `_meta`.
    pub fn from_meta(meta: Option<&serde_json::Map<String, Value>>) -> Self {
        match meta.and_then(|m| m.get(TITLE_SOURCE_META)).and_then(Value::as_str) {
            Some("auto") => Self::Auto,
            Some("agent") => Self::Agent,
            Some("person") => Self::Person,
            _ => Self::Unset,
        }
    }

    /// Whether a title from `incoming` may replace one set by `self`.
    pub fn may_be_replaced_by(self, incoming: TitleSource) -> bool {
        match incoming {
            Self::Person => true,
            Self::Agent => self != Self::Person,
            Self::Auto => self == Self::Unset,
            Self::Unset => false,
        }
    }
}

/// The automatic title for a first message: its first non-empty line,
/// trimmed, at most [`AUTO_TITLE_MAX`] characters, cut at the last word that
/// fits (a single longer word is cut at the limit). `None` for a message
/// without text.
pub fn auto_title(message: &str) -> Option<String> {
    let line = message.lines().map(str::trim).find(|l| !l.is_empty())?;
    if line.chars().count() <= AUTO_TITLE_MAX {
        return Some(line.to_owned());
    }
    let cut: String = line.chars().take(AUTO_TITLE_MAX + 1).collect();
    let at_word = match cut.rfind(char::is_whitespace) {
        Some(space) if space > 0 => cut.get(..space).unwrap_or(&cut).trim_end().to_owned(),
        _ => cut.chars().take(AUTO_TITLE_MAX).collect(),
    };
    Some(at_word)
}

impl Engine {
    /// Who a `session/titleChanged` comes from: a client's is a person's; one
    /// the host emits is the agent's, unless the host is titling it itself.
    pub(super) fn title_source_of(&self, from_client: bool) -> TitleSource {
        if from_client {
            TitleSource::Person
        } else {
            self.titling.unwrap_or(TitleSource::Agent)
        }
    }

    /// Refuse a title its source may not set over the current one.
    pub(super) fn check_title(&self, session: &str, action: &StateAction, from_client: bool) -> Result<(), EmitError> {
        if !matches!(action, StateAction::SessionTitleChanged(_)) {
            return Ok(());
        }
        let Some(entry) = self.sessions.get(session) else { return Ok(()) };
        if entry.title_source.may_be_replaced_by(self.title_source_of(from_client)) {
            Ok(())
        } else {
            Err(EmitError::NotApplied("the session's title was set by a person and is kept".to_owned()))
        }
    }

    /// After an applied `session/titleChanged`: remember who set it.
    pub(super) fn title_applied(&mut self, session: &str, from_client: bool) {
        let source = self.title_source_of(from_client);
        if let Some(entry) = self.sessions.get_mut(session) {
            entry.title_source = source;
        }
    }

    /// A turn started in `session`: title an untitled session from its message.
    pub(super) fn auto_title_on_turn(&mut self, session: &str, action: &StateAction) {
        let StateAction::ChatTurnStarted(started) = action else { return };
        let untitled = self
            .sessions
            .get(session)
            .is_some_and(|s| s.title_source == TitleSource::Unset && s.state.title.trim().is_empty());
        let Some(title) = untitled.then(|| auto_title(&started.message.text)).flatten() else { return };
        self.titling = Some(TitleSource::Auto);
        let _ = self.emit_server(session, StateAction::SessionTitleChanged(SessionTitleChangedAction { title }));
        self.titling = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_title_is_the_first_line_cut_at_a_word() {
        assert_eq!(auto_title("\n  Fix the parser  \nmore text").as_deref(), Some("Fix the parser"));
        assert_eq!(auto_title("   \n "), None);
        let long = "word ".repeat(30);
        let title = auto_title(&long).unwrap_or_default();
        assert!(title.chars().count() <= AUTO_TITLE_MAX, "{title:?}");
        assert!(title.ends_with("word") && !title.ends_with(' '), "{title:?}");
        let one = "x".repeat(200);
        assert_eq!(auto_title(&one).map(|t| t.chars().count()), Some(AUTO_TITLE_MAX));
        let accents = format!("{} déjà", "é".repeat(78));
        assert_eq!(auto_title(&accents).as_deref(), Some("é".repeat(78).as_str()));
    }

    #[test]
    fn a_persons_title_is_never_replaced() {
        use TitleSource::*;
        assert!(Unset.may_be_replaced_by(Auto));
        assert!(!Agent.may_be_replaced_by(Auto));
        assert!(Auto.may_be_replaced_by(Agent));
        assert!(!Person.may_be_replaced_by(Agent));
        assert!(!Person.may_be_replaced_by(Auto));
        assert!(Person.may_be_replaced_by(Person));
    }
}
