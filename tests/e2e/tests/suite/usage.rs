//! Usage against a real `hangar serve` with the fake agent sending ACP
//! `usage_update`s (context used and size, the session's cost so far) and
//! prompt answers with `usage` (tokens): each turn keeps what was reported
//! (`usage._meta["hangar/usage"]`), the session's snapshot shows its context
//! use, `x-hangar/usage` aggregates per day and agent and lists the
//! costliest sessions, refuses bad params with `-32602`, and all of it
//! survives `kill -9`. A turn whose agent reports nothing has no usage.
//! Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use hangar_e2e::acp::{fake_agent_bin, session_state, AgentCmd, Rig};
use hangar_e2e::{Launch, RawClient, TestHost};
use serde_json::{json, Value};

fn usage_update(used: i64, amount: f64) -> Value {
    json!({ "update": { "sessionUpdate": "usage_update", "used": used, "size": 200000,
                        "cost": { "amount": amount, "currency": "USD" } } })
}

async fn usage(raw: &mut RawClient, params: Value) -> Value {
    raw.request(json!("u"), "x-hangar/usage", params).await
}

#[tokio::test]
async fn turns_keep_usage_sessions_show_context_and_the_aggregate_survives_kill_9() {
    let script = json!({ "turns": [
        [ { "chunk": "one" }, usage_update(1200, 0.25),
          { "end": "end_turn", "usage": { "inputTokens": 100, "outputTokens": 10, "totalTokens": 110 } } ],
        [ { "chunk": "two" }, usage_update(2500, 0.75),
          { "end": "end_turn", "usage": { "inputTokens": 200, "outputTokens": 20, "totalTokens": 220 } } ],
        [ { "chunk": "nothing reported" }, { "end": "end_turn" } ],
    ]});
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let script_path = tmp.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let cmd = format!("{} --script {}", fake_agent_bin().display(), script_path.display());
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), Launch::Process(&[]), Some(&data)).await;

    let first = rig.send("one").await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");
    let t = rig.turn(&first).await;
    let u = serde_json::to_value(t.usage.as_ref().expect("usage kept")).unwrap();
    assert_eq!(
        u,
        json!({ "inputTokens": 100, "outputTokens": 10, "_meta": { "hangar/usage": {
            "used": 1200, "size": 200000, "cost": { "amount": 0.25, "currency": "USD" },
            "inputTokens": 100, "outputTokens": 10 } } }),
        "context and cost from usage_update, tokens from the prompt answer, nothing else"
    );
    let day = t.started_at.as_deref().expect("started")[..10].to_owned();

    let second = rig.send("two").await;
    assert_eq!(rig.wait_end(&second).await, "chat/turnComplete");
    let context = json!({ "used": 2500, "size": 200000, "cost": { "amount": 0.75, "currency": "USD" } });
    let meta = rig.session_state().await.meta.unwrap_or_default();
    assert_eq!(meta.get("hangar/usage"), Some(&context), "the session shows its latest context use");

    let silent = rig.send("three").await;
    assert_eq!(rig.wait_end(&silent).await, "chat/turnComplete");
    assert_eq!(rig.turn(&silent).await.usage, None, "an agent that reports nothing shows nothing");

    let expected = json!({
        "days": [{ "day": day, "agent": "agent", "inputTokens": 300, "outputTokens": 30,
                   "cost": { "amount": 0.75, "currency": "USD" } }],
        "sessions": [{ "session": rig.session, "title": rig.session_state().await.title, "agent": "agent",
                       "tokens": 330, "cost": { "amount": 0.75, "currency": "USD" } }],
    });
    let mut raw = RawClient::initialized(&rig.host, "usage-page").await;
    assert_eq!(usage(&mut raw, json!({})).await["result"], expected);
    assert_eq!(usage(&mut raw, json!({ "from": day, "to": day, "groupBy": "day" })).await["result"], expected);
    let later = usage(&mut raw, json!({ "from": "2999-01-01" })).await;
    assert_eq!(later["result"], json!({ "days": [], "sessions": [] }));

    for (params, field) in [
        (json!({ "from": "last week" }), "from"),
        (json!({ "to": "2026-02-30" }), "to"),
        (json!({ "from": "2026-03-02", "to": "2026-03-01" }), "from"),
        (json!({ "groupBy": "month" }), "groupBy"),
        (json!({ "from": 20260301 }), "from"),
    ] {
        let r = usage(&mut raw, params.clone()).await;
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
        assert!(r["error"]["message"].as_str().unwrap_or_default().contains(field), "{params}: {r}");
    }

    let (session, title) = (rig.session.clone(), rig.session_state().await.title);
    rig.host.kill9();
    let spec = format!("agent={cmd}");
    let host = TestHost::start_in(Launch::Process(&[]), &data, &["--agent", &spec]);
    let mut raw = RawClient::initialized(&host, "after-kill").await;
    let mut again = expected.clone();
    again["sessions"][0]["title"] = json!(title);
    assert_eq!(usage(&mut raw, json!({})).await["result"], again, "the aggregate survives kill -9");
    let meta = session_state(&host, &session).await.meta.unwrap_or_default();
    assert_eq!(meta.get("hangar/usage"), Some(&context), "and the session's context use");
}
