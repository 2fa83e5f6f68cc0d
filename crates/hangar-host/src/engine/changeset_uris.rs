//! Changeset URIs (`<session>/changesets/session`, `…/turn/<id>`,
//! `…/uncommitted`) and the session's changeset catalogue
//! (`SessionState.changesets`): protocol state the engine sets when it
//! creates a session, so it sits here, below the change tracker
//! (`crate::changes`), which reads and serves these changesets.

use ahp_types::state::{Changeset, ChangesetCapabilities};

/// What separates a session's URI from its changesets' names.
pub const INFIX: &str = "/changesets/";

/// The session's pending changes.
pub fn session_uri(session: &str) -> String {
    format!("{session}{INFIX}session")
}

/// One turn's changes.
pub fn turn_uri(session: &str, turn: &str) -> String {
    format!("{session}{INFIX}turn/{turn}")
}

/// What differs from `HEAD` in the session's git repository.
pub fn uncommitted_uri(session: &str) -> String {
    format!("{session}{INFIX}uncommitted")
}

/// `SessionState.changesets`.
pub fn catalogue(session: &str) -> Vec<Changeset> {
    vec![
        Changeset {
            label: "Session changes".to_owned(),
            uri_template: session_uri(session),
            description: Some("What the agent changed in this session and nobody has kept or undone yet".to_owned()),
            change_kind: "session".to_owned(),
            capabilities: Some(ChangesetCapabilities { review: Some(Default::default()) }),
        },
        Changeset {
            label: "Turn changes".to_owned(),
            uri_template: format!("{session}{INFIX}turn/{{turnId}}"),
            description: Some("What one turn changed".to_owned()),
            change_kind: "turn".to_owned(),
            capabilities: None,
        },
    ]
}

/// The catalogue entry of the `uncommitted` changeset (a session whose
/// folder is in a git repository).
pub fn uncommitted_entry(session: &str) -> Changeset {
    Changeset {
        label: "Uncommitted changes".to_owned(),
        uri_template: uncommitted_uri(session),
        description: Some("What differs from the repository's last commit (HEAD), whoever changed it".to_owned()),
        change_kind: "uncommitted".to_owned(),
        capabilities: None,
    }
}
