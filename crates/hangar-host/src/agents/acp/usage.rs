//! What an agent reports of a turn's usage, as AHP [`UsageInfo`]: ACP
//! `usage_update` (`{used, size, cost?}`: the context window used and its
//! size, the session's cost so far) and a prompt answer's `usage`
//! (`{inputTokens, outputTokens, cachedReadTokens, …}`), merged into one
//! report per turn.
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
    let mut report = Map::new();
    for (key, value) in [("inputTokens", input), ("outputTokens", output), ("cachedTokens", cached)] {
        if let Some(n) = value {
            report.insert(key.to_owned(), n.into());
        }
    }
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

fn wrap(report: Map<String, Value>) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(USAGE_META.to_owned(), Value::Object(report));
    meta
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
