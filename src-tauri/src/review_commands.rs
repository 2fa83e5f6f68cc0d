//! The `review.*` commands: a session's line comments, kept in the app's
//! data dir until sent ([`crate::review_store`]), and sent to the agent as
//! one message ([`crate::review_message`]): a new turn, or queued behind the
//! running one.

use ahp::hosts::HostId;
use ahp_types::state::PendingMessageKind;

use crate::commands::{default_chat, queue};
use crate::core::Core;
use crate::error::CoreError;
use crate::review_message::review_message;
use crate::review_store::ReviewStore;
use hangar_desktop_protocol::command::{Sent, SessionArgs};
use hangar_desktop_protocol::review::{ReviewComment, ReviewSaveArgs, ReviewSent};

fn bad(command: &str, message: impl Into<String>) -> CoreError {
    CoreError::BadArgs { command: command.to_owned(), message: message.into() }
}

/// The store in the app's data dir.
fn store(core: &Core) -> Result<ReviewStore, CoreError> {
    let (_, dir) = core.settings();
    dir.map(|d| ReviewStore::new(&d))
        .ok_or_else(|| CoreError::Refused("this app has no data dir to keep review comments in".to_owned()))
}

/// Why `comments` cannot be kept, if they cannot.
fn invalid(comments: &[ReviewComment]) -> Option<String> {
    for (i, c) in comments.iter().enumerate() {
        let at = |what: &str| format!("comments[{i}]: {what}");
        if c.body.trim().is_empty() {
            return Some(at("the comment is empty"));
        }
        if c.file.is_empty() || c.path.is_empty() {
            return Some(at("no file"));
        }
        if c.first_line == 0 || c.last_line < c.first_line {
            return Some(at("lines must be 1-based with firstLine <= lastLine"));
        }
        if comments[..i].iter().any(|o| o.id == c.id) {
            return Some(at("the id is used twice"));
        }
    }
    None
}

/// `review.get`.
pub fn get(core: &Core, a: &SessionArgs) -> Result<Vec<ReviewComment>, CoreError> {
    Ok(store(core)?.load(&a.host, &a.session))
}

/// `review.save`: the comments replace the kept ones (nothing is kept when
/// they do not fit).
pub fn save(core: &Core, a: ReviewSaveArgs) -> Result<Vec<ReviewComment>, CoreError> {
    if let Some(reason) = invalid(&a.comments) {
        return Err(bad("review.save", reason));
    }
    store(core)?.save(&a.host, &a.session, &a.comments)?;
    Ok(a.comments)
}

/// `review.send`: the kept comments as one message on the session's default
/// chat; they are dropped once the host took it (or the outbox kept it).
pub async fn send(core: &Core, a: SessionArgs) -> Result<ReviewSent, CoreError> {
    let store = store(core)?;
    let comments = store.load(&a.host, &a.session);
    if comments.is_empty() {
        return Err(bad("review.send", "there are no comments to send"));
    }
    let host = HostId::new(a.host.as_str());
    let chat = default_chat(core, &host, &a.session).await?;
    let message = review_message(&comments);
    let running = core.chat_state(&host, &chat).is_some_and(|c| c.active_turn.is_some());
    let (turn_id, queued) = if running {
        let q = queue(core, a.host.clone(), chat.clone(), PendingMessageKind::Queued, &message).await?;
        (None, Some(q.id))
    } else {
        match core.send(&host, &chat, message).await? {
            Sent::Started { turn_id, .. } => (Some(turn_id), None),
            Sent::Held { held } => (None, Some(held)),
        }
    };
    store.save(&a.host, &a.session, &[])?;
    Ok(ReviewSent { chat, comments: comments.len(), turn_id, queued })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hangar_desktop_protocol::review::ReviewSide;

    fn comment(id: &str, first: u32, last: u32, body: &str) -> ReviewComment {
        ReviewComment {
            id: id.into(),
            file: "file:///w/a.rs".into(),
            path: "a.rs".into(),
            first_line: first,
            last_line: last,
            side: ReviewSide::New,
            quote: vec![],
            body: body.into(),
        }
    }

    #[test]
    fn comments_that_do_not_fit_are_refused_with_a_reason() {
        assert_eq!(invalid(&[comment("1", 1, 2, "ok"), comment("2", 3, 3, "ok")]), None);
        assert_eq!(invalid(&[comment("1", 1, 1, "  ")]).as_deref(), Some("comments[0]: the comment is empty"));
        assert!(invalid(&[comment("1", 0, 1, "x")]).is_some_and(|r| r.contains("1-based")));
        assert!(invalid(&[comment("1", 3, 2, "x")]).is_some_and(|r| r.contains("firstLine")));
        assert!(invalid(&[comment("1", 1, 1, "x"), comment("1", 2, 2, "y")]).is_some_and(|r| r.contains("twice")));
    }
}
