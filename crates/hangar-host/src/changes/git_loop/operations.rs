//! The ids of the git operations on the session changeset and the `_meta`
//! keys they read and answer with (docs/changesets.md).

/// `commitDraft`: a drafted commit message, nothing changed.
pub const COMMIT_DRAFT: &str = "commitDraft";
/// `push`.
pub const PUSH: &str = "push";
/// `pullRequestDraft`: a drafted pull request, nothing changed.
pub const PULL_REQUEST_DRAFT: &str = "pullRequestDraft";
/// `pullRequest`.
pub const PULL_REQUEST: &str = "pullRequest";
/// `mergeBack`.
pub const MERGE_BACK: &str = "mergeBack";
/// Every one of them.
pub const ALL: [&str; 5] = [COMMIT_DRAFT, PUSH, PULL_REQUEST_DRAFT, PULL_REQUEST, MERGE_BACK];

/// The `group` of the read-only draft operations.
pub const DRAFT_GROUP: &str = "hangar/draft";

/// `_meta` key of a push's answer.
pub const PUSH_META: &str = "hangar/push";
/// `_meta` key of a pull request's request and answer.
pub const PULL_REQUEST_META: &str = "hangar/pullRequest";
/// `_meta` key of a merge back's request and answer.
pub const MERGE_BACK_META: &str = "hangar/mergeBack";
