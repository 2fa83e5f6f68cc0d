//! What an agent reports of a turn's usage, as AHP [`UsageInfo`]: ACP
//! `usage_update` (`{used, size, cost?}`: the context window used and its
//! size, the session's cost so far) and a prompt answer's `usage`
//! (`{inputTokens, outputTokens, cachedReadTokens, …}`), merged into one
//! report per turn. Qwen Code reports neither: it sends each model call's
//! tokens in an empty message chunk's `_meta.usage`, which are summed over
//! the turn ([`of_chunk_meta`], [`add_tokens`]).
//!
//! The AHP fields carry the tokens; everything, the context and the cost
//! too, is in the report's `_meta["hangar/usage"]` ([`USAGE_META`]):
//! `{"inputTokens"?, "outputTokens"?, "cachedTokens"?, "used"?, "size"?,
//! "cost"?: {"amount", "currency"}}`. Only what the agent sent is there:
//! an agent that reports nothing leaves no usage at all.

use ahp_types::state::UsageInfo;
use serde_json::{Map, Value};

/// The `_meta` key of Hangar's usage report (on a turn's usage, on the
/// session state, see docs/host.md).
pub const USAGE_META: &str = "hangar/usage";

/// `usage_update {used, size, cost?}` as a usage report without tokens;
/// `None` when it carries nothing usable.
pub fn of_usage_update(update: &Value) -> Option<UsageInfo> {
    let mut report = Map::new();
    for key in ["used", "size"] {
        if let Some(n) = update.get(key).and_then(Value::as_i64) {
            report.insert(key.to_owned(), n.into());
        }
    }
    if let Some(cost) = update.get("cost").and_then(cost) {
        report.insert("cost".to_owned(), cost);
    }
    (!report.is_empty()).then(|| UsageInfo { meta: Some(wrap(report)), ..Default::default() })
}

/// A prompt answer's `usage` (`PromptResponse.usage`) as a usage report.
pub fn of_prompt_result(result: &Value) -> Option<UsageInfo> {
    let u = result.get("usage")?;
    let input = u.get("inputTokens").and_then(Value::as_i64);
    let output = u.get("outputTokens").and_then(Value::as_i64);
    let cached = u.get("cachedReadTokens").and_then(Value::as_i64);
    let report = tokens_report(input, output, cached);
    if report.is_empty() {
        return None;
    }
    Some(UsageInfo {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: cached,
        model: None,
        meta: Some(wrap(report)),
    })
}

/// One model call's tokens in a message chunk's `_meta.usage` (Qwen Code:
/// `{inputTokens, outputTokens, totalTokens, thoughtTokens,
/// cachedReadTokens}`, the prompt answer's shape), as a usage report.
pub fn of_chunk_meta(update: &Value) -> Option<UsageInfo> {
    of_prompt_result(update.get("_meta")?)
}

/// The tokens of `call` added to `total` (the turn's earlier calls): each
/// count summed where either has it.
pub fn add_tokens(total: Option<&UsageInfo>, call: &UsageInfo) -> UsageInfo {
    let Some(total) = total else { return call.clone() };
    let sum = |a: Option<i64>, b: Option<i64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    };
    let input = sum(total.input_tokens, call.input_tokens);
    let output = sum(total.output_tokens, call.output_tokens);
    let cached = sum(total.cache_read_tokens, call.cache_read_tokens);
    let report = tokens_report(input, output, cached);
    UsageInfo {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: cached,
        model: call.model.clone().or_else(|| total.model.clone()),
        meta: (!report.is_empty()).then(|| wrap(report)),
    }
}

/// `later` over `earlier`: each field and each key of the report from the
/// later one when it has it, else from the earlier one.
pub fn merge(earlier: Option<&UsageInfo>, later: UsageInfo) -> UsageInfo {
    let Some(earlier) = earlier else { return later };
    let mut report = report_of(earlier).cloned().unwrap_or_default();
    if let Some(newer) = report_of(&later) {
        report.extend(newer.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    UsageInfo {
        input_tokens: later.input_tokens.or(earlier.input_tokens),
        output_tokens: later.output_tokens.or(earlier.output_tokens),
        cache_read_tokens: later.cache_read_tokens.or(earlier.cache_read_tokens),
        model: later.model.or_else(|| earlier.model.clone()),
        meta: (!report.is_empty()).then(|| wrap(report)),
    }
}

/// The `_meta["hangar/usage"]` report of a usage.
pub fn report_of(usage: &UsageInfo) -> Option<&Map<String, Value>> {
    usage.meta.as_ref()?.get(USAGE_META)?.as_object()
}

/// The session's context use from a turn's report: `{"used", "size",
/// "cost"?}`, `None` unless the agent reported both `used` and `size`.
pub fn context_of(usage: &UsageInfo) -> Option<Value> {
    let report = report_of(usage)?;
    let mut context = Map::new();
    for key in ["used", "size"] {
        context.insert(key.to_owned(), report.get(key)?.clone());
    }
    if let Some(cost) = report.get("cost") {
        context.insert("cost".to_owned(), cost.clone());
    }
    Some(Value::Object(context))
}

/// A cost `{amount: number, currency: string}`, as sent; anything else is
/// not a cost.
fn cost(v: &Value) -> Option<Value> {
    let amount = v.get("amount")?.as_f64()?;
    let currency = v.get("currency")?.as_str()?;
    Some(serde_json::json!({ "amount": amount, "currency": currency }))
}

/// The report's token counts, those there are.
fn tokens_report(input: Option<i64>, output: Option<i64>, cached: Option<i64>) -> Map<String, Value> {
    [("inputTokens", input), ("outputTokens", output), ("cachedTokens", cached)]
        .into_iter()
        .filter_map(|(key, value)| Some((key.to_owned(), value?.into())))
        .collect()
}

fn wrap(report: Map<String, Value>) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(USAGE_META.to_owned(), Value::Object(report));
    meta
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Qwen Code 0.15.10's turn (tests/e2e/fixtures/acp-transcripts/qwen.jsonl):
    /// three model calls, each reported in an empty message chunk's
    /// `_meta.usage`, and a prompt answer without usage. The turn's tokens
    /// are the three summed.
    #[test]
    fn qwens_model_calls_in_chunk_meta_are_summed_over_the_turn() {
        let transcript = include_str!("../../../../../tests/e2e/fixtures/acp-transcripts/qwen.jsonl");
        let mut total: Option<UsageInfo> = None;
        let mut calls = 0;
        for line in transcript.lines() {
            let msg: Value = serde_json::from_str(line).expect("a transcript line");
            let Some(update) = msg.pointer("/msg/params/update") else { continue };
            if update["sessionUpdate"] != "agent_message_chunk" {
                continue;
            }
            if let Some(call) = of_chunk_meta(update) {
                calls += 1;
                total = Some(add_tokens(total.as_ref(), &call));
            }
        }
        assert_eq!(calls, 3);
        let total = total.expect("usage");
        assert_eq!((total.input_tokens, total.output_tokens, total.cache_read_tokens), (Some(300), Some(60), Some(0)));
        assert_eq!(
            Value::Object(report_of(&total).cloned().expect("report")),
            json!({"inputTokens": 300, "outputTokens": 60, "cachedTokens": 0})
        );
        assert!(of_chunk_meta(
            &json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": ""}})
        )
        .is_none());
    }

    #[test]
    fn context_and_tokens_merge_into_one_report_and_nothing_is_invented() {
        let context = of_usage_update(
            &json!({"sessionUpdate": "usage_update", "used": 101, "size": 200000, "cost": {"amount": 0.0018, "currency": "USD"}}),
        )
        .expect("a report");
        assert_eq!(context.input_tokens, None, "context used is not input tokens");
        let tokens = of_prompt_result(
            &json!({"stopReason": "end_turn", "usage": {"inputTokens": 300, "outputTokens": 60, "cachedReadTokens": 5}}),
        )
        .expect("a report");
        let merged = merge(Some(&context), tokens);
        assert_eq!(
            (merged.input_tokens, merged.output_tokens, merged.cache_read_tokens),
            (Some(300), Some(60), Some(5))
        );
        assert_eq!(
            Value::Object(report_of(&merged).cloned().expect("report")),
            json!({"used": 101, "size": 200000, "cost": {"amount": 0.0018, "currency": "USD"},
                   "inputTokens": 300, "outputTokens": 60, "cachedTokens": 5})
        );
        assert_eq!(
            context_of(&merged),
            Some(json!({"used": 101, "size": 200000, "cost": {"amount": 0.0018, "currency": "USD"}}))
        );
        assert!(of_usage_update(&json!({"sessionUpdate": "usage_update", "cost": "a lot"})).is_none());
        assert!(of_prompt_result(&json!({"stopReason": "end_turn"})).is_none());
        let only_tokens = of_prompt_result(&json!({"usage": {"inputTokens": 1}})).expect("a report");
        assert_eq!(context_of(&only_tokens), None, "no context when the agent sent none");
    }
}
