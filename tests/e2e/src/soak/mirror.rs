//! A client's copy of the channels it follows, kept with the official
//! reducers (`ahp::reducers`): the oracle the soak compares with the host.
//! Sessions and chats are mirrored; other channels are not followed.

use std::collections::BTreeMap;

use ahp::reducers::{apply_action_to_chat, apply_action_to_session, ReduceOutcome};
use ahp_types::state::{ChatState, SessionState};
use ahp_types::ActionEnvelope;
use serde_json::Value;

/// One mirrored channel.
#[derive(Clone, Debug)]
pub enum Mirrored {
    /// `ahp-session:` channels.
    Session(Box<SessionState>),
    /// `ahp-chat:` channels.
    Chat(Box<ChatState>),
}

/// Every channel one client follows, by URI.
#[derive(Default, Clone, Debug)]
pub struct Mirror {
    channels: BTreeMap<String, Mirrored>,
}

impl Mirror {
    /// Replace `uri`'s state with a snapshot's `state` (JSON as sent).
    pub fn snapshot(&mut self, uri: &str, state: &Value) -> Result<(), String> {
        let decoded = if uri.starts_with("ahp-session:") {
            Mirrored::Session(Box::new(decode(uri, state)?))
        } else if uri.starts_with("ahp-chat:") {
            Mirrored::Chat(Box::new(decode(uri, state)?))
        } else {
            return Ok(());
        };
        self.channels.insert(uri.to_owned(), decoded);
        Ok(())
    }

    /// Apply an envelope with the official reducer; `Err` when the reducer
    /// found it invalid for the mirrored state.
    pub fn apply(&mut self, envelope: &ActionEnvelope) -> Result<(), String> {
        let outcome = match self.channels.get_mut(&envelope.channel) {
            Some(Mirrored::Session(s)) => apply_action_to_session(s, &envelope.action),
            Some(Mirrored::Chat(c)) => apply_action_to_chat(c, &envelope.action),
            None => return Ok(()),
        };
        match outcome {
            ReduceOutcome::Invalid(e) => Err(format!("{} on {}: {e}", envelope.server_seq, envelope.channel)),
            _ => Ok(()),
        }
    }

    /// The channels followed.
    pub fn uris(&self) -> impl Iterator<Item = &String> {
        self.channels.keys()
    }

    /// How `uri` differs from `fresh` (a new snapshot's state), or `None`
    /// when equal. A mirror holds the turns it was sent (a snapshot's tail,
    /// then every turn after it) and a snapshot holds a tail, so turns are
    /// compared over the shorter of the two, from the end.
    pub fn differs(&self, uri: &str, fresh: &Value) -> Option<String> {
        let mine = match self.channels.get(uri)? {
            Mirrored::Session(s) => serde_json::to_value(s),
            Mirrored::Chat(c) => serde_json::to_value(c),
        };
        let (mut mine, mut fresh) = (mine.ok()?, fresh.clone());
        let mine_turns = take_turns(&mut mine);
        let fresh_turns = take_turns(&mut fresh);
        if mine != fresh {
            return Some(first_difference("", &mine, &fresh));
        }
        let n = mine_turns.len().min(fresh_turns.len());
        let (mine_tail, fresh_tail) = (&mine_turns[mine_turns.len() - n..], &fresh_turns[fresh_turns.len() - n..]);
        mine_tail.iter().zip(fresh_tail).find(|(a, b)| a != b).map(|(a, b)| first_difference("turns[]", a, b))
    }
}

fn decode<T: serde::de::DeserializeOwned>(uri: &str, state: &Value) -> Result<T, String> {
    serde_json::from_value(state.clone()).map_err(|e| format!("snapshot of {uri} did not decode: {e}"))
}

fn take_turns(v: &mut Value) -> Vec<Value> {
    match v.as_object_mut().and_then(|o| o.remove("turns")) {
        Some(Value::Array(turns)) => turns,
        _ => Vec::new(),
    }
}

/// The path and both values of the first difference, for the report.
fn first_difference(path: &str, a: &Value, b: &Value) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                let (xa, yb) = (x.get(key).unwrap_or(&Value::Null), y.get(key).unwrap_or(&Value::Null));
                if xa != yb {
                    return first_difference(&format!("{path}.{key}"), xa, yb);
                }
            }
            format!("{path}: objects differ")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => match x.iter().zip(y).position(|(p, q)| p != q) {
            Some(i) => first_difference(&format!("{path}[{i}]"), &x[i], &y[i]),
            None => format!("{path}: arrays differ"),
        },
        _ => {
            let short = |v: &Value| v.to_string().chars().take(200).collect::<String>();
            format!("{path}: mirror {} / host {}", short(a), short(b))
        }
    }
}
