//! A permission request the host's approval rules answer before any client
//! is asked: the tool call is mapped onto a rule request
//! ([`crate::rules::subject`]), the host finds the rule's verdict, the
//! agent gets its allow option (`allow_once`, else `allow_always`) or its
//! reject option (`reject_once`, else `reject_always`), the tool call's
//! `_meta["hangar/rule"]` names the rule, its hits are counted and the
//! session's audit log says which rule answered. When no rule answers, or
//! the agent offers no option of the verdict's kind, nothing happens here
//! and the person is asked as before.

use std::path::Path;

use agent_client_protocol::v1::schema::RequestPermissionRequest;
use serde_json::{json, Value};

use super::turn::Turn;
use super::{tools, AgentHost};
use crate::rules::{subject, suggest, Decision, Verdict};

/// The audit log entry of a rule's answer.
fn audit_entry(chat: &str, turn: &str, tool_call: &str, verdict: &Verdict, option: &str) -> Value {
    json!({
        "at": crate::engine::clock::now(),
        "kind": "toolCallRuleDecision",
        "chat": chat,
        "turn": turn,
        "toolCall": tool_call,
        "approved": verdict.decision == Decision::Allow,
        "option": option,
        "rule": verdict.rule,
        "rules": verdict.rules,
    })
}

/// What the rules made of a permission request.
#[derive(Debug, PartialEq)]
pub enum RuleOutcome {
    /// A rule answered: the answer for the agent (`RequestPermissionResponse`).
    Answered(Value),
    /// No rule answered: ask a person, with this `_meta` on the pending tool
    /// call (the rule to prefill, `hangar/ruleSuggestion`), if any.
    Ask(Option<ahp_types::common::JsonObject>),
}

/// Answer `request` by rule, if one answers it.
pub fn answer(
    host: &dyn AgentHost,
    session: &str,
    folder: &Path,
    turn: &mut Turn,
    request: &RequestPermissionRequest,
) -> RuleOutcome {
    let Some(tool_request) = turn.rule_facts(host, request).and_then(|f| subject::of_tool_call(&f)) else {
        return RuleOutcome::Ask(None);
    };
    let suggestion = || {
        let value = suggest::suggestion(&tool_request, folder)?;
        Some([(suggest::META_KEY.to_owned(), value)].into_iter().collect())
    };
    let Some(verdict) = host.rule_verdict(session, folder, &tool_request) else {
        return RuleOutcome::Ask(suggestion());
    };
    let approved = verdict.decision == Decision::Allow;
    let Some(option) = tools::pick_option(&request.options, approved, None) else {
        return RuleOutcome::Ask(suggestion());
    };
    if !turn.answer_by_rule(host, request, &verdict.rule, approved, &option) {
        return RuleOutcome::Ask(None);
    }
    host.rule_applied(&verdict);
    let tool_call = request.tool_call.tool_call_id.to_string();
    host.record_decision(session, audit_entry(&turn.chat, &turn.turn_id, &tool_call, &verdict, &option));
    tracing::info!(session, rule = %verdict.rule, approved, "a permission request answered by rule");
    RuleOutcome::Answered(tools::permission_outcome(Some(option)))
}

#[cfg(test)]
mod tests {
    use ahp_types::state::ToolCallState;

    use super::*;
    use crate::agents::acp::test_support::{RecordingHost, SESSION};
    use crate::rules::{Rule, Scope, ScopeKind, Tool};

    fn rule(id: &str, pattern: &str, decision: Decision) -> Rule {
        Rule {
            id: id.to_owned(),
            scope: Scope { kind: ScopeKind::Session, uri: Some(SESSION.to_owned()) },
            tool: Tool::Shell,
            pattern: pattern.to_owned(),
            decision,
            created_by: "test".into(),
            created_at: "2026-11-28T05:00:00.000Z".into(),
            hits: 0,
        }
    }

    /// Claude's `Bash` permission request for `command`.
    fn bash(id: &str, command: &str) -> RequestPermissionRequest {
        serde_json::from_value(json!({ "sessionId": "s",
            "toolCall": { "toolCallId": id, "title": command, "kind": "execute",
                "rawInput": { "command": command, "description": "Run it" } },
            "options": [
                { "optionId": "allow_always", "name": "Always Allow", "kind": "allow_always" },
                { "optionId": "allow", "name": "Allow", "kind": "allow_once" },
                { "optionId": "reject", "name": "Reject", "kind": "reject_once" }
            ] }))
        .unwrap()
    }

    fn tool_state(host: &RecordingHost, id: &str) -> Value {
        let chat = host.chat_state();
        let turn = chat.active_turn.unwrap();
        let call: Vec<ToolCallState> = turn
            .response_parts
            .iter()
            .filter_map(|p| match p {
                ahp_types::state::ResponsePart::ToolCall(t) => Some(t.tool_call.clone()),
                _ => None,
            })
            .collect();
        let found = call.iter().map(|c| serde_json::to_value(c).unwrap()).find(|v| v["toolCallId"] == id);
        found.unwrap_or_else(|| panic!("no tool call {id}"))
    }

    #[test]
    fn a_matching_rule_answers_with_the_agents_option_and_names_itself() {
        let host = RecordingHost::new();
        host.set_rules(vec![rule("ok", "npm test", Decision::Allow), rule("no", "rm", Decision::Deny)]);
        let mut turn = host.start_turn("t1", "go");
        let folder = Path::new("/workspace");

        let allowed = answer(&host, SESSION, folder, &mut turn, &bash("c1", "npm test -- --watch"));
        let picked = |o: &str| RuleOutcome::Answered(tools::permission_outcome(Some(o.to_owned())));
        assert_eq!(allowed, picked("allow"), "allow_once preferred");
        let state = tool_state(&host, "c1");
        assert_eq!((state["status"].as_str(), state["confirmed"].as_str()), (Some("running"), Some("setting")));
        assert_eq!(state["_meta"][crate::rules::META_KEY], "ok");

        let denied = answer(&host, SESSION, folder, &mut turn, &bash("c2", "npm test && rm -rf /"));
        assert_eq!(denied, picked("reject"));
        let state = tool_state(&host, "c2");
        assert_eq!((state["status"].as_str(), state["reason"].as_str()), (Some("cancelled"), Some("denied")));
        assert_eq!(state["_meta"][crate::rules::META_KEY], "no");

        // A chained command with a part no rule allows: the person is asked.
        // A chained command with a part no rule allows: the person is asked,
        // with the rule to prefill.
        let RuleOutcome::Ask(meta) = answer(&host, SESSION, folder, &mut turn, &bash("c3", "npm test; curl x")) else {
            panic!("answered")
        };
        let suggested = meta.as_ref().and_then(|m| m.get(suggest::META_KEY)).cloned();
        assert_eq!(suggested, Some(json!({"tool": "shell", "pattern": "npm test"})));
        assert_eq!(turn.permission(&host, &bash("c3", "npm test; curl x"), meta).as_deref(), Some("c3"));
        let state = tool_state(&host, "c3");
        assert_eq!(state["status"], "pending-confirmation");
        assert_eq!(state["_meta"][suggest::META_KEY]["pattern"], "npm test");

        let (hits, audit) = host.rule_log();
        assert_eq!(hits, ["ok", "no"]);
        assert_eq!(audit.len(), 2);
        assert_eq!((audit[0]["kind"].as_str(), audit[0]["rule"].as_str()), (Some("toolCallRuleDecision"), Some("ok")));
        assert_eq!((audit[1]["approved"].as_bool(), audit[1]["option"].as_str()), (Some(false), Some("reject")));
    }

    #[test]
    fn no_option_of_the_verdicts_kind_means_the_person_is_asked() {
        let host = RecordingHost::new();
        host.set_rules(vec![rule("ok", "npm test", Decision::Allow)]);
        let mut turn = host.start_turn("t1", "go");
        let mut request = bash("c1", "npm test");
        request.options.retain(|o| o.option_id.to_string() == "reject");
        assert!(matches!(
            answer(&host, SESSION, Path::new("/workspace"), &mut turn, &request),
            RuleOutcome::Ask(Some(_))
        ));
        assert!(host.rule_log().0.is_empty());
    }
}
