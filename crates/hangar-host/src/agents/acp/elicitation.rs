//! ACP elicitation (`elicitation/create`) in AHP terms: the agent's form
//! becomes a `ChatInputRequest` (one question per schema property), the
//! user's `chat/inputCompleted` becomes the agent's `CreateElicitationResponse`.
//!
//! Map:
//! - [`Elicitations`]  — the open requests of a session: opened on
//!   `elicitation/create`, answered on `chat/inputCompleted`, closed with
//!   `cancel` when the turn ends, is cancelled or the agent goes away.
//! - [`Elicitation`]   — an open request: the agent's JSON-RPC id and schema.
//! - [`input_request`] — `CreateElicitationRequest` → `ChatInputRequest`
//!   (form mode: questions; url mode: the URL, no questions).
//! - [`question`]      — one schema property → one AHP question.
//! - [`response`]      — the user's answer → the agent's response JSON.
//! - [`cancelled`]     — the response for a request that can no longer be answered.
//!
//! Mapping rules (also in docs/agents.md):
//! - string → `text` (title, description as the message — or the title
//!   when there is no description —, `minLength` /
//!   `maxLength` as min/max, `format`, default); `pattern` has no AHP field
//!   and is dropped (the agent still validates).
//! - string with `enum` / `oneOf` → `single-select` (option ids are the enum
//!   values, labels the `oneOf` titles; the default is the recommended option
//!   and a draft answer).
//! - number / integer → `number` / `integer` (minimum, maximum, default).
//! - boolean → `boolean` (default).
//! - array of enum strings → `multi-select` (`minItems` / `maxItems`; the
//!   default list becomes a draft answer).
//! - `required` lists set `required: true`; other properties are optional.
//! - Questions come in property-name order (the schema's properties are a
//!   sorted map in the official types).
//! - Answers: accept → `{action: accept, content}` with each submitted or
//!   drafted answer typed per the property (string, integer, number,
//!   boolean, string array; skipped questions are left out); an accept in
//!   which every question was skipped is the user dismissing the form →
//!   `cancel`; decline → `decline`; cancel → `cancel`.
//! - Outside a turn (nothing to attach the question to), in an unknown mode
//!   or with malformed params the agent gets `cancel` (or an invalid-params
//!   error) at once: it never waits. `elicitation/complete` is ignored (the
//!   url-mode request is closed by the user's answer).

use std::collections::{BTreeMap, HashMap};

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, CreateElicitationResponse, ElicitationAcceptAction, ElicitationAction,
    ElicitationContentValue, ElicitationMode, ElicitationPropertySchema, ElicitationSchema, EnumOption,
    MultiSelectItems,
};
use ahp_types::actions::ChatInputCompletedAction;
use ahp_types::state::ResponsePart;
use ahp_types::state::{
    ChatInputAnswer, ChatInputAnswerValue, ChatInputAnswered, ChatInputBooleanQuestion, ChatInputMultiSelectQuestion,
    ChatInputNumberQuestion, ChatInputOption, ChatInputQuestion, ChatInputRequest, ChatInputResponseKind,
    ChatInputSelectedAnswerValue, ChatInputSelectedManyAnswerValue, ChatInputSingleSelectQuestion,
    ChatInputTextQuestion,
};
use serde_json::{json, Value};

use super::rpc::Connection;
use super::turn::Turn;
use super::AgentHost;

/// The open elicitations of one session, by AHP request id.
#[derive(Default)]
pub struct Elicitations {
    open: HashMap<String, Elicitation>,
}

impl Elicitations {
    /// Whether any request waits for the user.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// The agent's `elicitation/create` (JSON-RPC id `rpc_id`): an input
    /// request in `turn`, or `cancel` at once when there is no running turn.
    pub fn on_request(
        &mut self,
        host: &dyn AgentHost,
        conn: &Connection,
        turn: Option<&mut Turn>,
        rpc_id: Value,
        params: Value,
    ) {
        let request: CreateElicitationRequest = match serde_json::from_value(params) {
            Ok(r) => r,
            Err(e) => {
                conn.respond(&rpc_id, Err((-32602, format!("invalid params: {e}"))));
                return;
            }
        };
        let mut schema = None;
        let opened = turn.and_then(|t| {
            t.input_request(host, |id| {
                let (request, s) = input_request(id, &request)?;
                schema = s;
                Some(request)
            })
        });
        match opened {
            Some(id) => {
                self.open.insert(id, Elicitation { rpc_id, schema });
            }
            None => conn.respond(&rpc_id, Ok(cancelled())),
        }
    }

    /// The user completed request `action.request_id` in `chat`: answer
    /// the agent. Unknown or already answered ids are ignored.
    pub fn on_completed(
        &mut self,
        host: &dyn AgentHost,
        conn: Option<&Connection>,
        chat: &str,
        action: &ChatInputCompletedAction,
    ) {
        let Some(elicitation) = self.open.remove(&action.request_id) else {
            return;
        };
        let answers =
            final_answers(host, chat, &action.request_id).or_else(|| action.answers.clone()).unwrap_or_default();
        if let Some(conn) = conn {
            conn.respond(&elicitation.rpc_id, Ok(response(&elicitation, action.response, &answers)));
        }
    }

    /// Close every open request: the agent gets `cancel` (when it is still
    /// there) and the request part in a still running turn is completed
    /// with `cancel`.
    pub fn close(&mut self, host: &dyn AgentHost, conn: Option<&Connection>, turn: Option<&Turn>) {
        for (id, elicitation) in self.open.drain() {
            if let Some(conn) = conn {
                conn.respond(&elicitation.rpc_id, Ok(cancelled()));
            }
            if let Some(turn) = turn {
                turn.input_closed(host, &id);
            }
        }
    }
}

/// The answers the reducer recorded on request `request_id` of `chat`.
fn final_answers(host: &dyn AgentHost, chat: &str, request_id: &str) -> Option<HashMap<String, ChatInputAnswer>> {
    host.chat(chat, |state| {
        let parts = state
            .active_turn
            .iter()
            .map(|t| &t.response_parts)
            .chain(state.turns.iter().rev().map(|t| &t.response_parts));
        parts.flatten().find_map(|p| match p {
            ResponsePart::InputRequest(i) if i.request.id == request_id => {
                Some(i.request.answers.clone().unwrap_or_default())
            }
            _ => None,
        })
    })
    .flatten()
}

/// An elicitation waiting for the user.
pub struct Elicitation {
    /// The agent's JSON-RPC request id.
    pub rpc_id: Value,
    /// The form's schema (`None` in url mode).
    pub schema: Option<ElicitationSchema>,
}

/// The AHP input request for `request` under the id `id`, and its schema;
/// `None` for a mode this host does not know.
pub fn input_request(
    id: &str,
    request: &CreateElicitationRequest,
) -> Option<(ChatInputRequest, Option<ElicitationSchema>)> {
    let message = Some(request.message.clone()).filter(|m| !m.is_empty());
    match &request.mode {
        ElicitationMode::Form(form) => {
            let schema = &form.requested_schema;
            let required = schema.required.clone().unwrap_or_default();
            let mut answers = HashMap::new();
            let questions = schema
                .properties
                .iter()
                .filter_map(|(name, property)| {
                    let (question, default) = question(name, property, required.contains(name))?;
                    if let Some(value) = default {
                        answers.insert(name.clone(), ChatInputAnswer::Draft(ChatInputAnswered { value }));
                    }
                    Some(question)
                })
                .collect();
            let request = ChatInputRequest {
                id: id.to_owned(),
                message,
                url: None,
                questions: Some(questions),
                answers: Some(answers).filter(|a| !a.is_empty()),
            };
            Some((request, Some(schema.clone())))
        }
        ElicitationMode::Url(url) => {
            let request = ChatInputRequest {
                id: id.to_owned(),
                message,
                url: Some(url.url.clone()),
                questions: None,
                answers: None,
            };
            Some((request, None))
        }
        _ => None,
    }
}

fn option(o: &EnumOption, default: &[String]) -> ChatInputOption {
    ChatInputOption {
        id: o.value.clone(),
        label: o.title.clone(),
        description: o.description.clone(),
        recommended: default.contains(&o.value).then_some(true),
    }
}

fn plain_options(values: &[String], default: &[String]) -> Vec<ChatInputOption> {
    values.iter().map(|v| option(&EnumOption::new(v.clone(), v.clone()), default)).collect()
}

/// One property as a question, with a default the question kind cannot
/// carry (select questions) as a draft answer value. `None` for a property
/// type this host does not know.
pub fn question(
    name: &str,
    property: &ElicitationPropertySchema,
    required: bool,
) -> Option<(ChatInputQuestion, Option<ChatInputAnswerValue>)> {
    let id = name.to_owned();
    let required = Some(required);
    // The description is the prompt under the title; a property with only
    // a title is prompted by it (no title repeated above the same text).
    let text = |title: &Option<String>, description: &Option<String>| match description {
        Some(d) => (title.clone(), d.clone()),
        None => (None, title.clone().unwrap_or_else(|| name.to_owned())),
    };
    Some(match property {
        ElicitationPropertySchema::String(s) => {
            let (title, message) = text(&s.title, &s.description);
            let default: Vec<String> = s.default.iter().cloned().collect();
            let options = match (&s.one_of, &s.enum_values) {
                (Some(one_of), _) => Some(one_of.iter().map(|o| option(o, &default)).collect::<Vec<_>>()),
                (None, Some(values)) => Some(plain_options(values, &default)),
                (None, None) => None,
            };
            match options {
                Some(options) => {
                    let draft = s.default.clone().map(|value| {
                        ChatInputAnswerValue::Selected(ChatInputSelectedAnswerValue { value, freeform_values: None })
                    });
                    let q = ChatInputSingleSelectQuestion {
                        id,
                        title,
                        message,
                        required,
                        options,
                        allow_freeform_input: None,
                    };
                    (ChatInputQuestion::SingleSelect(q), draft)
                }
                None => {
                    let format = s
                        .format
                        .as_ref()
                        .and_then(|f| serde_json::to_value(f).ok())
                        .and_then(|v| v.as_str().map(str::to_owned));
                    let q = ChatInputTextQuestion {
                        id,
                        title,
                        message,
                        required,
                        format,
                        min: s.min_length.map(i64::from),
                        max: s.max_length.map(i64::from),
                        default_value: s.default.clone(),
                    };
                    (ChatInputQuestion::Text(q), None)
                }
            }
        }
        ElicitationPropertySchema::Number(n) => {
            let (title, message) = text(&n.title, &n.description);
            let q = ChatInputNumberQuestion {
                id,
                title,
                message,
                required,
                min: n.minimum,
                max: n.maximum,
                default_value: n.default,
            };
            (ChatInputQuestion::Number(q), None)
        }
        ElicitationPropertySchema::Integer(n) => {
            let (title, message) = text(&n.title, &n.description);
            let f = |v: Option<i64>| v.map(|v| v as f64);
            let q = ChatInputNumberQuestion {
                id,
                title,
                message,
                required,
                min: f(n.minimum),
                max: f(n.maximum),
                default_value: f(n.default),
            };
            (ChatInputQuestion::Integer(q), None)
        }
        ElicitationPropertySchema::Boolean(b) => {
            let (title, message) = text(&b.title, &b.description);
            (
                ChatInputQuestion::Boolean(ChatInputBooleanQuestion {
                    id,
                    title,
                    message,
                    required,
                    default_value: b.default,
                }),
                None,
            )
        }
        ElicitationPropertySchema::Array(a) => {
            let (title, message) = text(&a.title, &a.description);
            let default = a.default.clone().unwrap_or_default();
            let options = match &a.items {
                MultiSelectItems::String(s) => plain_options(&s.values, &default),
                MultiSelectItems::Titled(t) => t.options.iter().map(|o| option(o, &default)).collect(),
                _ => return None,
            };
            let draft = a.default.clone().map(|value| {
                ChatInputAnswerValue::SelectedMany(ChatInputSelectedManyAnswerValue { value, freeform_values: None })
            });
            let q = ChatInputMultiSelectQuestion {
                id,
                title,
                message,
                required,
                options,
                allow_freeform_input: None,
                min: a.min_items.and_then(|v| i64::try_from(v).ok()),
                max: a.max_items.and_then(|v| i64::try_from(v).ok()),
            };
            (ChatInputQuestion::MultiSelect(q), draft)
        }
        _ => return None,
    })
}

/// One answer value typed for its property; `None` when it does not fit.
fn content_value(
    property: &ElicitationPropertySchema,
    value: &ChatInputAnswerValue,
) -> Option<ElicitationContentValue> {
    use ChatInputAnswerValue as A;
    use ElicitationContentValue as C;
    Some(match (property, value) {
        (ElicitationPropertySchema::String(_), A::Text(t)) => C::String(t.value.clone()),
        (ElicitationPropertySchema::String(_), A::Selected(s)) => C::String(s.value.clone()),
        (ElicitationPropertySchema::Integer(_), A::Number(n)) if n.value.fract() == 0.0 => C::Integer(n.value as i64),
        (ElicitationPropertySchema::Number(_), A::Number(n)) => C::Number(n.value),
        (ElicitationPropertySchema::Boolean(_), A::Boolean(b)) => C::Boolean(b.value),
        (ElicitationPropertySchema::Array(_), A::SelectedMany(m)) => {
            C::StringArray(m.value.iter().chain(m.freeform_values.iter().flatten()).cloned().collect())
        }
        _ => return None,
    })
}

/// The agent's response to the user's answer: `answers` are the request's
/// final answers (the reducer merged the completion's into the drafts).
pub fn response(
    elicitation: &Elicitation,
    kind: ChatInputResponseKind,
    answers: &HashMap<String, ChatInputAnswer>,
) -> Value {
    let action = match kind {
        ChatInputResponseKind::Accept => accept(elicitation, answers),
        ChatInputResponseKind::Decline => ElicitationAction::Decline,
        ChatInputResponseKind::Cancel => ElicitationAction::Cancel,
    };
    serde_json::to_value(CreateElicitationResponse::new(action)).unwrap_or_else(|_| cancelled())
}

fn accept(elicitation: &Elicitation, answers: &HashMap<String, ChatInputAnswer>) -> ElicitationAction {
    let Some(schema) = &elicitation.schema else {
        return ElicitationAcceptAction::new().into();
    };
    let all_skipped = !schema.properties.is_empty()
        && schema.properties.keys().all(|name| matches!(answers.get(name), Some(ChatInputAnswer::Skipped(_))));
    if all_skipped {
        return ElicitationAction::Cancel;
    }
    let content: BTreeMap<String, ElicitationContentValue> = schema
        .properties
        .iter()
        .filter_map(|(name, property)| {
            let value = match answers.get(name)? {
                ChatInputAnswer::Submitted(a) | ChatInputAnswer::Draft(a) => &a.value,
                ChatInputAnswer::Skipped(_) => return None,
            };
            Some((name.clone(), content_value(property, value)?))
        })
        .collect();
    ElicitationAcceptAction::new().content(content).into()
}

/// The response for a request that can no longer be answered.
pub fn cancelled() -> Value {
    json!({ "action": "cancel" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> CreateElicitationRequest {
        serde_json::from_value(json!({
            "sessionId": "s", "mode": "form", "message": "Tell me",
            "requestedSchema": { "type": "object", "required": ["name", "count"], "properties": {
                "name": { "type": "string", "title": "Name", "minLength": 2, "format": "email", "default": "a@b" },
                "count": { "type": "integer", "minimum": 1, "maximum": 9, "default": 3 },
                "ratio": { "type": "number", "description": "A ratio" },
                "ok": { "type": "boolean", "default": true },
                "color": { "type": "string", "oneOf": [{ "const": "r", "title": "Red" }, { "const": "g", "title": "Green" }], "default": "g" },
                "size": { "type": "string", "enum": ["s", "m"] },
                "tags": { "type": "array", "items": { "type": "string", "enum": ["x", "y", "z"] }, "minItems": 1, "default": ["x"] }
            } }
        }))
        .unwrap()
    }

    fn kinds(r: &ChatInputRequest) -> Vec<String> {
        let qs = serde_json::to_value(r.questions.as_ref().unwrap()).unwrap();
        qs.as_array()
            .unwrap()
            .iter()
            .map(|q| format!("{}:{}", q["id"].as_str().unwrap(), q["kind"].as_str().unwrap()))
            .collect()
    }

    #[test]
    fn maps_every_property_kind() {
        let (r, schema) = input_request("req-1", &form()).unwrap();
        assert!(schema.is_some());
        assert_eq!(r.message.as_deref(), Some("Tell me"));
        assert_eq!(
            kinds(&r),
            [
                "color:single-select",
                "count:integer",
                "name:text",
                "ok:boolean",
                "ratio:number",
                "size:single-select",
                "tags:multi-select"
            ]
        );
        let qs = serde_json::to_value(r.questions.as_ref().unwrap()).unwrap();
        assert_eq!(qs[0]["options"][1], json!({ "id": "g", "label": "Green", "recommended": true }));
        assert_eq!(qs[1]["required"], true);
        assert_eq!((qs[1]["min"].as_f64(), qs[1]["defaultValue"].as_f64()), (Some(1.0), Some(3.0)));
        assert_eq!((qs[2]["title"].is_null(), &qs[2]["message"]), (true, &json!("Name")));
        assert_eq!(qs[2]["format"], "email");
        assert_eq!(qs[2]["min"], 2);
        assert_eq!(qs[4]["message"], "A ratio");
        assert_eq!(qs[5]["options"][0]["label"], "s");
        let answers = serde_json::to_value(r.answers.as_ref().unwrap()).unwrap();
        assert_eq!(answers["color"]["value"]["value"], "g");
        assert_eq!(answers["tags"]["value"]["value"], json!(["x"]));
    }

    #[test]
    fn url_mode_carries_the_url() {
        let req: CreateElicitationRequest = serde_json::from_value(json!({
            "sessionId": "s", "mode": "url", "message": "Sign in", "elicitationId": "e1", "url": "https://example.com/auth"
        }))
        .unwrap();
        let (r, schema) = input_request("req-2", &req).unwrap();
        assert!(schema.is_none() && r.questions.is_none());
        assert_eq!(r.url.as_deref(), Some("https://example.com/auth"));
        let e = Elicitation { rpc_id: json!(1), schema };
        assert_eq!(response(&e, ChatInputResponseKind::Accept, &HashMap::new()), json!({ "action": "accept" }));
    }

    fn submitted(v: Value) -> ChatInputAnswer {
        serde_json::from_value(json!({ "state": "submitted", "value": v })).unwrap()
    }

    #[test]
    fn answers_are_typed_per_property() {
        let (_, schema) = input_request("r", &form()).unwrap();
        let e = Elicitation { rpc_id: json!(1), schema };
        let answers: HashMap<String, ChatInputAnswer> = [
            ("name", submitted(json!({ "kind": "text", "value": "me@x" }))),
            ("count", submitted(json!({ "kind": "number", "value": 4.0 }))),
            ("ratio", submitted(json!({ "kind": "number", "value": 0.5 }))),
            ("ok", submitted(json!({ "kind": "boolean", "value": false }))),
            ("color", submitted(json!({ "kind": "selected", "value": "r" }))),
            ("tags", submitted(json!({ "kind": "selected-many", "value": ["x", "z"] }))),
            ("size", ChatInputAnswer::Skipped(Default::default())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let r = response(&e, ChatInputResponseKind::Accept, &answers);
        assert_eq!(
            r,
            json!({ "action": "accept", "content": {
                "name": "me@x", "count": 4, "ratio": 0.5, "ok": false, "color": "r", "tags": ["x", "z"]
            } })
        );
        assert_eq!(response(&e, ChatInputResponseKind::Decline, &answers), json!({ "action": "decline" }));
        assert_eq!(response(&e, ChatInputResponseKind::Cancel, &answers), json!({ "action": "cancel" }));
        let skipped: HashMap<String, ChatInputAnswer> = e
            .schema
            .as_ref()
            .unwrap()
            .properties
            .keys()
            .map(|k| (k.clone(), ChatInputAnswer::Skipped(Default::default())))
            .collect();
        assert_eq!(response(&e, ChatInputResponseKind::Accept, &skipped), cancelled());
    }
}
