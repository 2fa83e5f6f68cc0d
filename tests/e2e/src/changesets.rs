//! Reading a host's changesets in tests: a changeset's state once a
//! condition holds (the host reads a turn's changes just after the turn
//! ends, so a test polls fresh snapshots).

use std::time::Duration;

use ahp::Client;
use ahp_types::state::{ChangesetState, SnapshotState};

/// The session changeset's URI (as this host advertises it).
pub fn session_changeset(session: &str) -> String {
    format!("{session}/changesets/session")
}

/// The changeset's state once `done` holds, or after 60 s whatever it is.
pub async fn changeset_when(client: &Client, uri: &str, done: impl Fn(&ChangesetState) -> bool) -> ChangesetState {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (res, _) = client.subscribe(uri.to_owned()).await.unwrap();
        let SnapshotState::Changeset(state) = res.snapshot.unwrap().state else { panic!("not a changeset") };
        client.unsubscribe(uri.to_owned()).await.unwrap();
        if done(&state) || tokio::time::Instant::now() > deadline {
            return *state;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The file names of a changeset, sorted.
pub fn names(state: &ChangesetState) -> Vec<String> {
    let mut names: Vec<String> = state.files.iter().map(|f| f.id.rsplit('/').next().unwrap().to_owned()).collect();
    names.sort();
    names
}
