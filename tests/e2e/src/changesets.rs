//! Reading a host's changesets in tests: a changeset's state once a
//! condition holds (the host reads a turn's changes just after the turn
//! ends, so a test polls fresh snapshots), and running its operations.

use std::path::Path;
use std::time::Duration;

use ahp::Client;
use ahp_types::state::{ChangesetState, SnapshotState};
use serde_json::{json, Value};

use crate::acp::file_uri;

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

/// `invokeChangesetOperation` of `op` on `channel`, at `target` (the whole
/// changeset when `None`).
pub async fn invoke(
    client: &Client,
    channel: &str,
    op: &str,
    target: Option<Value>,
) -> Result<Value, ahp::ClientError> {
    let mut params = json!({ "channel": channel, "operationId": op });
    if let Some(target) = target {
        params["target"] = target;
    }
    client.request("invokeChangesetOperation", params).await
}

/// A whole-file target.
pub fn resource(path: &Path) -> Value {
    json!({ "kind": "resource", "resource": file_uri(path) })
}

/// A target of zero-based lines `first..=last`.
pub fn lines(path: &Path, first: i64, last: i64) -> Value {
    json!({ "kind": "range", "resource": file_uri(path),
            "range": { "start": { "line": first, "character": 0 }, "end": { "line": last, "character": 0 } } })
}
