//! `changes.commitDraft`: a commit message for the kept changes, for the
//! person to edit before *Commit*. The host's own draft (its `commitDraft`
//! changeset operation, docs/changesets.md) when it offers one; otherwise
//! drafted here the same way: the session's title as the first line, then
//! one `- <first line of the prompt>` per turn (at most 20, oldest first).

use ahp::hosts::HostId;
use ahp_types::commands::InvokeChangesetOperationParams;
use serde_json::Value;

use crate::changes_view::{client, offers, COMMIT_META};
use crate::commands::default_chat;
use crate::core::Core;
use crate::error::CoreError;
use hangar_desktop_protocol::command::SessionArgs;

/// The host's operation that drafts a commit message.
const DRAFT_OPERATION: &str = "commitDraft";
/// Prompts listed at most.
const MAX_PROMPTS: usize = 20;

/// A draft from `title` (or the session's id) and the turns' prompts.
fn draft(title: &str, session: &str, prompts: &[String]) -> String {
    let title = title.trim();
    let mut out = if title.is_empty() {
        format!("Changes from {}", session.rsplit('/').next().unwrap_or(session))
    } else {
        title.to_owned()
    };
    let lines: Vec<&str> =
        prompts.iter().filter_map(|p| p.lines().map(str::trim).find(|l| !l.is_empty())).take(MAX_PROMPTS).collect();
    if !lines.is_empty() {
        out.push_str("\n\n");
        out.push_str(&lines.iter().map(|l| format!("- {l}")).collect::<Vec<_>>().join("\n"));
    }
    out
}

/// `changes.commitDraft`.
pub async fn commit_draft(core: &Core, a: SessionArgs) -> Result<String, CoreError> {
    let host = HostId::new(a.host.as_str());
    let (uri, offered) = offers(core, &host, &a.session, DRAFT_OPERATION).await?;
    if offered {
        let params = InvokeChangesetOperationParams {
            channel: uri,
            meta: None,
            operation_id: DRAFT_OPERATION.into(),
            target: None,
        };
        let raw: Value = client(core, &host).await?.request("invokeChangesetOperation", params).await?;
        let pointer = format!("/_meta/{}/message", COMMIT_META.replace('/', "~1"));
        if let Some(message) = raw.pointer(&pointer).and_then(Value::as_str) {
            return Ok(message.to_owned());
        }
    }
    let state = core.session_state(&host, &a.session).await?;
    let chat = default_chat(core, &host, &a.session).await?;
    let prompts: Vec<String> = core
        .chat_state(&host, &chat)
        .map(|c| c.turns.iter().map(|t| t.message.text.clone()).collect())
        .unwrap_or_default();
    Ok(draft(&state.title, &a.session, &prompts))
}

#[cfg(test)]
mod tests {
    use super::draft;

    #[test]
    fn a_draft_is_the_title_then_each_prompts_first_line() {
        let prompts = ["\nImprove lines 2 and 11\nand more".to_owned(), "Add a test".to_owned()];
        assert_eq!(draft("Notes", "ahp-session:/abc", &prompts), "Notes\n\n- Improve lines 2 and 11\n- Add a test");
        assert_eq!(draft(" ", "ahp-session:/abc", &[]), "Changes from abc");
        let many: Vec<String> = (0..30).map(|i| format!("p{i}")).collect();
        assert_eq!(draft("T", "s", &many).lines().count(), 2 + 20);
    }
}
