//! Response parts (`ahp-types`) → [`PartView`]s: markdown and reasoning
//! rendered to sanitized HTML, tool calls flattened to the fields the UI
//! shows (messages as plain text, the result as text) with their file
//! edits pre-diffed, input requests, errors and notes. Everything but the
//! markdown HTML is data the UI shows as text.

use ahp_types::common::StringOrMarkdown;
use ahp_types::state::{ChatInputResponseKind, ResponsePart, ToolCallState, ToolInput, ToolResultContent};
use serde_json::Value;

use crate::file_diff::file_edit_view;
use crate::markdown;
use hangar_desktop_protocol::part::{
    ConfirmOptionView, ContentRefPart, DiffView, ErrorPart, ErrorView, HtmlPart, InputRequestPart, InputResponse,
    NotificationPart, PartView, TerminalLinkView, ToolCallPart, ToolCallStatus, ToolCallView,
};
use hangar_desktop_protocol::rules::RuleSuggestion;

/// A response part as the UI shows it.
pub fn part_view(part: &ResponsePart) -> PartView {
    match part {
        ResponsePart::Markdown(p) => {
            PartView::Markdown(HtmlPart { id: p.id.clone(), blocks: markdown::render_blocks(&p.content) })
        }
        ResponsePart::Reasoning(p) => {
            PartView::Reasoning(HtmlPart { id: p.id.clone(), blocks: markdown::render_blocks(&p.content) })
        }
        ResponsePart::ToolCall(tc) => PartView::ToolCall(ToolCallPart {
            tool_call: Box::new(tool_call_view(&tc.tool_call)),
            diffs: tool_call_diffs(&tc.tool_call),
            terminals: tool_call_terminals(&tc.tool_call),
        }),
        ResponsePart::InputRequest(p) => PartView::InputRequest(InputRequestPart {
            request: (&p.request).into(),
            response: p.response.as_ref().map(|r| match r {
                ChatInputResponseKind::Accept => InputResponse::Accept,
                ChatInputResponseKind::Decline => InputResponse::Decline,
                ChatInputResponseKind::Cancel => InputResponse::Cancel,
            }),
        }),
        ResponsePart::Error(p) => PartView::Error(ErrorPart {
            error: ErrorView { error_type: p.error.error_type.clone(), message: p.error.message.clone() },
            resumable: p.resumable,
            sign_in: hangar_desktop_protocol::sign_in::SignInView::from_error(&p.error),
        }),
        ResponsePart::SystemNotification(p) => {
            PartView::SystemNotification(NotificationPart { content: string_or_markdown(&p.content) })
        }
        ResponsePart::ContentRef(p) => PartView::ContentRef(ContentRefPart { uri: p.uri.clone() }),
        ResponsePart::Unknown(_) => PartView::Unknown,
    }
}

/// Plain text of a `StringOrMarkdown`.
pub fn string_or_markdown(v: &StringOrMarkdown) -> String {
    match v {
        StringOrMarkdown::Plain(s) => s.clone(),
        StringOrMarkdown::Markdown { markdown } => markdown.clone(),
    }
}

/// A value's wire word (`approve`, `denied`, …), for enums of a newer
/// protocol's values too.
fn wire_word<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// The fields every tool-call state has.
fn base(
    status: ToolCallStatus,
    (id, name, display): (&str, &str, &str),
    intention: &Option<String>,
    invocation: Option<&StringOrMarkdown>,
    input: Option<&ToolInput>,
) -> ToolCallView {
    let (input, input_uri) = match input {
        Some(ToolInput::Inline(text)) => (Some(text.clone()), None),
        Some(ToolInput::ContentRef(r)) => (None, Some(r.uri.clone())),
        None => (None, None),
    };
    ToolCallView {
        status,
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        display_name: display.to_owned(),
        intention: intention.clone(),
        invocation_message: invocation.map(string_or_markdown),
        confirmation_title: None,
        past_tense_message: None,
        input,
        input_uri,
        options: Vec::new(),
        success: None,
        result: String::new(),
        reason: None,
        rule: None,
        rule_suggestion: None,
    }
}

/// A tool result as text: its text content, else its error.
fn result_text(content: &Option<Vec<ToolResultContent>>, error: &Option<Value>) -> String {
    let texts: Vec<&str> = content
        .iter()
        .flatten()
        .filter_map(|c| match c {
            ToolResultContent::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    if !texts.is_empty() {
        return texts.join("\n");
    }
    match error {
        Some(Value::String(s)) => s.clone(),
        Some(e) => e.to_string(),
        None => String::new(),
    }
}

/// [`base`] for a tool-call state `s` that has an invocation message and
/// an input.
macro_rules! base {
    ($status:expr, $s:expr) => {
        base(
            $status,
            (&$s.tool_call_id, &$s.tool_name, &$s.display_name),
            &$s.intention,
            Some(&$s.invocation_message),
            $s.tool_input.as_ref(),
        )
    };
}

/// A tool call's state as the card shows it, with the approval rule that
/// answered it or the one to offer (docs/host.md, "Approval rules").
pub fn tool_call_view(state: &ToolCallState) -> ToolCallView {
    let meta = tool_call_meta(state);
    let rule = meta.and_then(|m| m.get("hangar/rule")).and_then(Value::as_str).map(str::to_owned);
    let rule_suggestion = meta
        .and_then(|m| m.get("hangar/ruleSuggestion"))
        .and_then(|v| serde_json::from_value::<RuleSuggestion>(v.clone()).ok());
    ToolCallView { rule, rule_suggestion, ..state_view(state) }
}

/// A tool call's `_meta`, whatever its state.
fn tool_call_meta(state: &ToolCallState) -> Option<&serde_json::Map<String, Value>> {
    match state {
        ToolCallState::Streaming(s) => s.meta.as_ref(),
        ToolCallState::PendingConfirmation(s) => s.meta.as_ref(),
        ToolCallState::Running(s) => s.meta.as_ref(),
        ToolCallState::AuthRequired(s) => s.meta.as_ref(),
        ToolCallState::PendingResultConfirmation(s) => s.meta.as_ref(),
        ToolCallState::Completed(s) => s.meta.as_ref(),
        ToolCallState::Cancelled(s) => s.meta.as_ref(),
        ToolCallState::Unknown(v) => v.get("_meta").and_then(Value::as_object),
    }
}

/// The fields of each tool-call state.
fn state_view(state: &ToolCallState) -> ToolCallView {
    use ToolCallStatus as St;
    match state {
        ToolCallState::Streaming(s) => ToolCallView {
            input: s.partial_input.clone(),
            ..base(
                St::Streaming,
                (&s.tool_call_id, &s.tool_name, &s.display_name),
                &s.intention,
                s.invocation_message.as_ref(),
                None,
            )
        },
        ToolCallState::PendingConfirmation(s) => ToolCallView {
            confirmation_title: s.confirmation_title.as_ref().map(string_or_markdown),
            options: s
                .options
                .iter()
                .flatten()
                .map(|o| ConfirmOptionView { id: o.id.clone(), label: o.label.clone(), kind: wire_word(&o.kind) })
                .collect(),
            ..base!(St::PendingConfirmation, s)
        },
        ToolCallState::Running(s) => ToolCallView { result: result_text(&s.content, &None), ..base!(St::Running, s) },
        ToolCallState::AuthRequired(s) => {
            ToolCallView { result: result_text(&s.content, &None), ..base!(St::AuthRequired, s) }
        }
        ToolCallState::PendingResultConfirmation(s) => ToolCallView {
            success: Some(s.success),
            past_tense_message: Some(string_or_markdown(&s.past_tense_message)),
            result: result_text(&s.content, &s.error),
            ..base!(St::PendingResultConfirmation, s)
        },
        ToolCallState::Completed(s) => ToolCallView {
            success: Some(s.success),
            past_tense_message: Some(string_or_markdown(&s.past_tense_message)),
            result: result_text(&s.content, &s.error),
            ..base!(St::Completed, s)
        },
        ToolCallState::Cancelled(s) => ToolCallView { reason: Some(wire_word(&s.reason)), ..base!(St::Cancelled, s) },
        ToolCallState::Unknown(v) => {
            let field = |name: &str| v[name].as_str().unwrap_or_default();
            let ids = (field("toolCallId"), field("toolName"), field("displayName"));
            base(St::Unknown, ids, &None, None, None)
        }
    }
}

/// The file edits of a tool call as diffs: the edits awaiting confirmation,
/// else the `fileEdit` items of its result.
fn tool_call_diffs(state: &ToolCallState) -> Vec<DiffView> {
    if let ToolCallState::PendingConfirmation(s) = state {
        let edits = s.edits.iter().flat_map(|e| e.items.iter());
        let diffs: Vec<DiffView> =
            edits.map(|e| file_edit_view(e.before.as_ref(), e.after.as_ref(), e.diff.as_ref())).collect();
        if !diffs.is_empty() {
            return diffs;
        }
    }
    result_content(state)
        .iter()
        .filter_map(|c| match c {
            ToolResultContent::FileEdit(e) => {
                Some(file_edit_view(e.before.as_ref(), e.after.as_ref(), e.diff.as_ref()))
            }
            _ => None,
        })
        .collect()
}

/// The terminals a tool call shows: the channel to watch, and once the
/// command has ended its exit and the end of its output.
fn tool_call_terminals(state: &ToolCallState) -> Vec<TerminalLinkView> {
    result_content(state)
        .iter()
        .filter_map(|c| match c {
            ToolResultContent::Terminal(t) => Some(TerminalLinkView {
                uri: t.resource.clone(),
                title: t.title.clone(),
                ended: t.result.is_some(),
                exit_code: t.result.as_ref().and_then(|r| r.exit_code),
                preview: t.result.as_ref().and_then(|r| r.preview.clone()),
                truncated: t.result.as_ref().and_then(|r| r.truncated).unwrap_or(false),
            }),
            _ => None,
        })
        .collect()
}

/// The content of a tool call's result so far (none before it runs).
fn result_content(state: &ToolCallState) -> &[ToolResultContent] {
    let content = match state {
        ToolCallState::Running(s) => &s.content,
        ToolCallState::AuthRequired(s) => &s.content,
        ToolCallState::PendingResultConfirmation(s) => &s.content,
        ToolCallState::Completed(s) => &s.content,
        _ => return &[],
    };
    content.as_deref().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hangar_desktop_protocol::rules::RuleTool;
    use serde_json::json;

    fn part(v: Value) -> ResponsePart {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_pending_tool_call_shows_its_options_input_and_edits() {
        let p = part(json!({"kind": "toolCall", "toolCall": {"status": "pending-confirmation", "toolCallId": "tc",
            "toolName": "edit", "displayName": "Edit", "invocationMessage": {"markdown": "Edit **a**"},
            "toolInput": "{\"path\":\"a\"}", "confirmationTitle": "Edit a.txt",
            "options": [{"id": "allow", "label": "Allow", "kind": "approve"}, {"id": "no", "label": "No", "kind": "deny"}],
            "edits": {"items": [{"after": {"uri": "file:///w/a.txt", "content": {"uri": "data:text/plain,hi%0A"}}}]}}}));
        let PartView::ToolCall(v) = part_view(&p) else { panic!("a tool call") };
        assert_eq!(v.tool_call.status, ToolCallStatus::PendingConfirmation);
        assert_eq!(v.tool_call.invocation_message.as_deref(), Some("Edit **a**"));
        assert_eq!(v.tool_call.input.as_deref(), Some("{\"path\":\"a\"}"));
        assert_eq!(v.tool_call.options[1].kind, "deny");
        assert_eq!(v.diffs.len(), 1);
        assert_eq!(v.diffs[0].path, "file:///w/a.txt");
    }

    #[test]
    fn a_tool_call_names_the_rule_that_answered_it_or_the_rule_to_offer() {
        let view = |status: &str, meta: Value| {
            let p = part(json!({"kind": "toolCall", "toolCall": {"status": status, "toolCallId": "tc",
                "toolName": "Bash", "displayName": "Bash", "invocationMessage": "npm test", "reason": "denied",
                "options": [], "_meta": meta}}));
            let PartView::ToolCall(v) = part_view(&p) else { panic!("a tool call") };
            *v.tool_call
        };
        let denied = view("cancelled", json!({"hangar/rule": "r1"}));
        assert_eq!((denied.rule.as_deref(), denied.rule_suggestion), (Some("r1"), None));
        let pending =
            view("pending-confirmation", json!({"hangar/ruleSuggestion": {"tool": "shell", "pattern": "npm test"}}));
        let suggestion = pending.rule_suggestion.unwrap();
        assert_eq!((suggestion.tool, suggestion.pattern.as_str()), (RuleTool::Shell, "npm test"));
        // A suggestion of a tool this app does not know is not offered.
        let newer =
            view("pending-confirmation", json!({"hangar/ruleSuggestion": {"tool": "teleport", "pattern": "x"}}));
        assert_eq!((newer.rule, newer.rule_suggestion), (None, None));
    }

    #[test]
    fn a_completed_tool_call_shows_its_result_as_text() {
        let done = |content: Value, error: Value| {
            let p = part(json!({"kind": "toolCall", "toolCall": {"status": "completed", "toolCallId": "tc",
                "toolName": "run", "displayName": "Run", "invocationMessage": "Run it", "success": false,
                "pastTenseMessage": "Ran it", "confirmed": "not-needed", "content": content, "error": error}}));
            match part_view(&p) {
                PartView::ToolCall(v) => v.tool_call,
                other => panic!("{other:?}"),
            }
        };
        let v = done(json!([{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]), Value::Null);
        assert_eq!((v.result.as_str(), v.success), ("one\ntwo", Some(false)));
        assert_eq!(done(json!([]), json!("boom")).result, "boom");
        assert_eq!(done(json!([]), json!({"code": 1})).result, "{\"code\":1}");
    }

    #[test]
    fn a_tool_call_shows_its_terminal_and_once_ended_its_outcome() {
        let view = |result: Value| {
            let p = part(json!({"kind": "toolCall", "toolCall": {"status": "running", "toolCallId": "tc",
                "toolName": "execute", "displayName": "Run", "invocationMessage": "make", "confirmed": "not-needed",
                "content": [{"type": "terminal", "resource": "ahp-session:/s/terminals/t", "title": "make", "result": result}]}}));
            let PartView::ToolCall(v) = part_view(&p) else { panic!("a tool call") };
            v.terminals
        };
        let running = view(Value::Null);
        assert_eq!(running.len(), 1);
        assert_eq!((running[0].uri.as_str(), running[0].ended), ("ahp-session:/s/terminals/t", false));
        let ended = view(json!({"exitCode": 2, "preview": "boom\n", "truncated": true}));
        assert_eq!((ended[0].ended, ended[0].exit_code, ended[0].truncated), (true, Some(2), true));
        assert_eq!(ended[0].preview.as_deref(), Some("boom\n"));
    }

    #[test]
    fn parts_of_unknown_kinds_keep_their_place() {
        let v = serde_json::to_value(part_view(&part(json!({"kind": "hologram", "id": "h"})))).unwrap();
        assert_eq!(v, json!({"kind": "unknown"}));
    }
}
