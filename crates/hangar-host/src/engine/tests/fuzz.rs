//! Structured fuzzing of [`Engine::dispatch_client`] (`proptest`): real
//! client actions (the seeds), mutated (a field removed or replaced with
//! any JSON), dispatched in random order on the session, its chat, or a
//! channel that does not exist, from an idle, running or confirming
//! session. Whatever decodes as an action is applied, ignored or rejected,
//! never a panic; a rejected or ignored action changes nothing; the state
//! always serializes and the session list is always served.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::*;

fn seeds() -> Vec<Value> {
    let [tool_start, tool_ready] = tool_call_pending(TURN, "tc-1");
    vec![
        turn_started(TURN),
        turn_started("t-2"),
        turn_complete(TURN),
        turn_cancelled(TURN),
        turn_error(TURN),
        tool_start,
        tool_ready,
        pending_message("queued", "q-1", "later"),
        pending_message("steering", "s-1", "now"),
        json!({ "type": "chat/pendingMessageRemoved", "kind": "queued", "id": "q-1" }),
        json!({ "type": "chat/toolCallConfirmed", "turnId": TURN, "toolCallId": "tc-1", "approved": true }),
        json!({ "type": "session/titleChanged", "title": "a title" }),
        json!({ "type": "session/isReadChanged", "isRead": true }),
        json!({ "type": "session/isArchivedChanged", "isArchived": true }),
        json!({ "type": "chat/draftChanged", "draft": user_message("a draft") }),
        json!({ "type": "session/activeClientSet", "activeClient": { "clientId": ME, "tools": [] } }),
        json!({ "type": "session/configChanged", "config": { "model": "slow" } }),
    ]
}

/// Any JSON, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        ".{0,10}".prop_map(Value::String),
        Just(json!(TURN)),
        Just(json!("tc-1")),
        Just(json!(ME)),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z]{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// One change to a seed: remove the n-th node, or replace it.
#[derive(Debug, Clone)]
enum Mutation {
    Remove(usize),
    Replace(usize, Value),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Remove),
        (any::<usize>(), any_json()).prop_map(|(n, v)| Mutation::Replace(n, v)),
    ]
}

/// Apply `m` to the node at its index (pre-order, the root excluded).
fn mutate(value: &mut Value, m: &Mutation) {
    let count = nodes(value);
    if count == 0 {
        return;
    }
    let target = match m {
        Mutation::Remove(n) | Mutation::Replace(n, _) => n % count,
    };
    let mut seen = 0;
    edit(value, target, &mut seen, m);
}

fn nodes(v: &Value) -> usize {
    match v {
        Value::Array(a) => a.iter().map(|c| 1 + nodes(c)).sum(),
        Value::Object(o) => o.values().map(|c| 1 + nodes(c)).sum(),
        _ => 0,
    }
}

/// Find the `target`-th child node under `v` and change it; true once done.
fn edit(v: &mut Value, target: usize, seen: &mut usize, m: &Mutation) -> bool {
    let keys: Vec<Value> = match v {
        Value::Array(a) => (0..a.len()).map(|i| json!(i)).collect(),
        Value::Object(o) => o.keys().map(|k| json!(k)).collect(),
        _ => return false,
    };
    for key in keys {
        if *seen == target {
            match (v, &key, m) {
                (Value::Array(a), Value::Number(i), Mutation::Remove(_)) => {
                    a.remove(i.as_u64().unwrap_or(0) as usize);
                }
                (Value::Object(o), Value::String(k), Mutation::Remove(_)) => {
                    o.remove(k);
                }
                (Value::Array(a), Value::Number(i), Mutation::Replace(_, new)) => {
                    a[i.as_u64().unwrap_or(0) as usize] = new.clone();
                }
                (Value::Object(o), Value::String(k), Mutation::Replace(_, new)) => {
                    o.insert(k.clone(), new.clone());
                }
                _ => {}
            }
            return true;
        }
        *seen += 1;
        let child = match (&mut *v, &key) {
            (Value::Array(a), Value::Number(i)) => a.get_mut(i.as_u64().unwrap_or(0) as usize),
            (Value::Object(o), Value::String(k)) => o.get_mut(k),
            _ => None,
        };
        if let Some(child) = child {
            if edit(child, target, seen, m) {
                return true;
            }
        }
    }
    false
}

fn setup(n: u8) -> fn(&mut Fx) {
    match n % 3 {
        0 => idle,
        1 => running,
        _ => |f: &mut Fx| {
            running(f);
            f.server_all(On::Chat, tool_call_pending(TURN, "tc-1"));
        },
    }
}

fn on(n: u8) -> On {
    match n % 3 {
        0 => On::Session,
        1 => On::Chat,
        _ => On::Nowhere,
    }
}

fn states(f: &Fx) -> (Value, Value) {
    (serde_json::to_value(f.session_state()).unwrap(), serde_json::to_value(f.chat_state()).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_actions_are_applied_ignored_or_rejected_never_a_panic(
        start in any::<u8>(),
        steps in prop::collection::vec((any::<u8>(), any::<usize>(), prop::collection::vec(mutation(), 0..3)), 1..8),
    ) {
        let mut f = Fx::for_row(Start::Ready, setup(start));
        let seeds = seeds();
        for (target, seed, mutations) in steps {
            let mut action = seeds[seed % seeds.len()].clone();
            for m in &mutations {
                mutate(&mut action, m);
            }
            let Ok(typed) = serde_json::from_value::<StateAction>(action) else { continue };
            let uri = f.uri(on(target));
            let before = states(&f);
            match f.engine.dispatch_client(ME, &uri, 7, typed) {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => prop_assert_eq!(states(&f), before, "an action that was not applied changed the state"),
            }
            f.effects();
            let _ = f.summary();
        }
    }
}
