//! Structured fuzzing of the frame decoder (`proptest`): any text, JSON of
//! any shape, and well-formed JSON-RPC with random ids, methods and params.
//! The decoder never panics, every invalid frame gets a JSON-RPC error code,
//! and a well-formed request keeps its id exactly. `nesting_exceeds` agrees
//! with the real nesting depth.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::frames::{nesting_exceeds, parse, Incoming};

/// JSON values of any shape, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A JSON-RPC id as clients send them, valid or not.
fn any_id() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u64>().prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z0-9-]{0,16}".prop_map(Value::String),
        Just(json!(1.5)),
        Just(json!([1])),
        Just(json!({"id": 1})),
        Just(Value::Null),
    ]
}

fn assert_valid_error(incoming: &Incoming) {
    if let Incoming::Invalid { error, .. } = incoming {
        assert!([-32700, -32600].contains(&error.code), "{error:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_text_decodes_or_gets_an_error(text in ".{0,200}") {
        assert_valid_error(&parse(&text));
    }

    #[test]
    fn any_json_decodes_or_gets_an_error(value in any_json()) {
        assert_valid_error(&parse(&value.to_string()));
    }

    #[test]
    fn a_request_keeps_its_id_and_method(id in any_id(), method in ".{0,20}", params in any_json()) {
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        match parse(&frame) {
            Incoming::Request { id: got, method: m, params: p } => {
                prop_assert_eq!(&got, &id);
                prop_assert_eq!(m, method);
                prop_assert_eq!(p.get(), params.to_string(), "params are passed on byte for byte");
            }
            Incoming::Notification { .. } => prop_assert!(id.is_null(), "a request became a notification: {frame}"),
            Incoming::Invalid { error, .. } => {
                let integer = id.as_i64().is_some() || id.as_u64().is_some();
                prop_assert!(!(integer || id.is_string() || id.is_null()), "{frame} refused: {error:?}");
                prop_assert_eq!(error.code, -32600);
            }
            Incoming::Response { .. } => prop_assert!(false, "a request read as a response: {frame}"),
        }
    }

    #[test]
    fn truncated_and_spliced_frames_get_errors(value in any_json(), cut in 0usize..200, junk in ".{0,8}") {
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": value}).to_string();
        let cut = frame.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(frame.len());
        assert_valid_error(&parse(&format!("{}{junk}", &frame[..cut])));
    }

    #[test]
    fn nesting_is_measured_exactly(value in any_json(), max in 0usize..8) {
        prop_assert_eq!(nesting_exceeds(&value.to_string(), max), depth(&value) > max);
    }
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}
