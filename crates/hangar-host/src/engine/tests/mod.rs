//! Table tests of the engine's rules, one file per module under test
//! (`client_actions`, `input_requests`, `summaries`, `queue`, `terminals`; `fuzz`
//! mutates real client actions; `live_turns` checks the live tail against
//! the store): each is a list
//! of rows (name, starting state, action, expected outcome) and one loop that
//! names the failing row. This file is their fixture: an engine over a real
//! SQLite store holding one session ([`SESSION`]) and its default chat, with
//! every publication and side effect recorded, and the JSON builders of the
//! actions the rows use (actions are written as they travel on the wire).

mod client_actions;
mod fuzz;
mod input_requests;
mod live_turns;
mod queue;
mod summaries;
mod terminal_channels;

use std::path::Path;
use std::sync::mpsc;

use ahp_types::state::{ChatState, RootState, SessionState, SessionSummary};
use ahp_types::{StateAction, ROOT_RESOURCE_URI};
use serde_json::{json, Value};

use super::{CreateSession, Engine, Rejection, SideEffect};
use crate::hub::Publication;
use crate::store;

/// The session every row starts with.
const SESSION: &str = "ahp-session:/table";
/// The client that sends a row's action unless the row says otherwise.
const ME: &str = "client-me";
/// The turn rows start.
const TURN: &str = "turn-1";
/// When that turn started (after the session's creation, so it is the
/// newest time the summary knows).
const STARTED_AT: &str = "2099-01-01T00:00:00.000Z";

/// How the fixture's session starts.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// `session/ready`, no configuration.
    Ready,
    /// Still `creating`: the agent has not answered yet.
    Creating,
    /// Ready, with a `model` property whose values are `fast` and `slow`.
    ReadyWithConfig,
}

/// Who applies an action.
#[derive(Clone, Copy, Debug)]
enum By {
    Server,
    /// The client [`ME`].
    Client,
}

/// A channel of the fixture.
#[derive(Clone, Copy, Debug)]
enum On {
    Root,
    Session,
    Chat,
    /// A URI no channel has.
    Nowhere,
}

/// What the engine published: an action (its type, the action JSON, its
/// origin) or a notification (its method, the params for 1.x and for 0.9
/// clients).
#[derive(Debug)]
struct Published {
    kind: String,
    body: Value,
    body_v0_9: Value,
    origin: Value,
}

struct Fx {
    _dir: tempfile::TempDir,
    engine: Engine,
    chat: String,
    publications: mpsc::Receiver<Vec<Publication>>,
}

impl Fx {
    /// A session as `start` says, its effects and publications so far drained.
    fn new(start: Start) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (mut engine, publications) = engine_over_store(dir.path());
        let config = matches!(start, Start::ReadyWithConfig).then(|| {
            serde_json::from_value(json!({
                "schema": { "type": "object", "properties": {
                    "model": { "type": "string", "title": "Model", "enum": ["fast", "slow"] }
                } },
                "values": { "model": "fast" }
            }))
            .unwrap()
        });
        engine
            .create_session(CreateSession {
                uri: SESSION.to_owned(),
                provider: "mock".to_owned(),
                working_directories: None,
                active_client: None,
                config,
                fork: None,
                meta: None,
            })
            .unwrap();
        let chat = engine.session_state(SESSION).and_then(|s| s.default_chat.clone()).unwrap();
        let mut fx = Self { _dir: dir, engine, chat, publications };
        if !matches!(start, Start::Creating) {
            fx.server(On::Session, json!({ "type": "session/ready" }));
        }
        fx.engine.take_effects();
        fx.published();
        fx
    }

    /// The fixture a row starts from: `start`, then `setup`, with what they
    /// published and caused drained.
    fn for_row(start: Start, setup: fn(&mut Fx)) -> Self {
        let mut fx = Self::new(start);
        setup(&mut fx);
        fx.effects();
        fx.published();
        fx
    }

    fn uri(&self, on: On) -> String {
        match on {
            On::Root => ROOT_RESOURCE_URI.to_owned(),
            On::Session => SESSION.to_owned(),
            On::Chat => self.chat.clone(),
            On::Nowhere => "ahp-chat:/nowhere".to_owned(),
        }
    }

    /// Apply a server action; it must apply.
    fn server(&mut self, on: On, action: Value) {
        let uri = self.uri(on);
        let result = self.engine.emit_server(&uri, parse(&action));
        assert!(result.is_ok(), "setup action {action} on {on:?}: {result:?}");
    }

    /// Apply each of `actions` as the server.
    fn server_all(&mut self, on: On, actions: impl IntoIterator<Item = Value>) {
        for action in actions {
            self.server(on, action);
        }
    }

    /// Dispatch `action` as client `from`.
    fn client(&mut self, from: &str, on: On, action: &Value) -> Result<Option<u64>, Rejection> {
        let uri = self.uri(on);
        self.engine.dispatch_client(from, &uri, 7, parse(action))
    }

    /// Apply `action` as `by`: its seq, or why it was not applied.
    fn apply(&mut self, by: By, on: On, action: &Value) -> Result<u64, String> {
        match by {
            By::Server => {
                let uri = self.uri(on);
                self.engine.emit_server(&uri, parse(action)).map_err(|e| format!("{e:?}"))
            }
            By::Client => match self.client(ME, on, action) {
                Ok(Some(seq)) => Ok(seq),
                Ok(None) => Err("ignored".to_owned()),
                Err(rejection) => Err(rejection.reason),
            },
        }
    }

    /// The names of the side effects recorded since the last call.
    fn effects(&mut self) -> Vec<&'static str> {
        self.engine.take_effects().iter().map(effect_name).collect()
    }

    /// Everything published since the last call, in order.
    fn published(&mut self) -> Vec<Published> {
        self.engine.writer().flush();
        self.publications.try_iter().flatten().filter_map(published).collect()
    }

    fn chat_state(&self) -> &ChatState {
        self.engine.chat_state(&self.chat).unwrap()
    }

    fn session_state(&self) -> &SessionState {
        self.engine.session_state(SESSION).unwrap()
    }

    /// The session's summary as `listSessions` serves it.
    fn summary(&self) -> SessionSummary {
        let page = self.engine.list_sessions(None, None).unwrap();
        page.items.into_iter().find(|s| s.resource == SESSION).unwrap()
    }
}

/// An engine over a real store in `dir` whose committed batches come out of
/// the receiver instead of going to a hub (a test reads them, or holds them
/// back).
pub(super) fn engine_over_store(dir: &Path) -> (Engine, mpsc::Receiver<Vec<Publication>>) {
    let conn = store::open(&dir.join("hangar.db")).unwrap();
    let (tx, publications) = mpsc::channel();
    let (writer, _thread) = store::spawn_writer(conn, None, move |batch: Vec<Publication>| {
        let _ = tx.send(batch);
    })
    .unwrap();
    let root = RootState { agents: Vec::new(), active_sessions: Some(0), terminals: None, config: None, meta: None };
    (Engine::new(0, root, writer, 50), publications)
}

fn published(p: Publication) -> Option<Published> {
    match p {
        Publication::Envelope { action_type, envelope, .. } => {
            let envelope: Value = serde_json::from_str(&envelope).unwrap();
            let body = envelope["action"].clone();
            let origin = envelope["origin"].clone();
            Some(Published { kind: action_type.to_string(), body: body.clone(), body_v0_9: body, origin })
        }
        Publication::Notification { frame, frame_v0_9, .. } => {
            let frame: Value = serde_json::from_str(&frame).unwrap();
            let frame_v0_9: Value = serde_json::from_str(&frame_v0_9).unwrap();
            Some(Published {
                kind: frame["method"].as_str().unwrap_or_default().to_owned(),
                body: frame["params"].clone(),
                body_v0_9: frame_v0_9["params"].clone(),
                origin: Value::Null,
            })
        }
        Publication::Reply { .. } => None,
    }
}

fn effect_name(effect: &SideEffect) -> &'static str {
    match effect {
        SideEffect::SessionCreated { .. } => "SessionCreated",
        SideEffect::SessionDisposed { .. } => "SessionDisposed",
        SideEffect::TurnStarted { .. } => "TurnStarted",
        SideEffect::TurnCancelled { .. } => "TurnCancelled",
        SideEffect::ToolCallConfirmed { .. } => "ToolCallConfirmed",
        SideEffect::InputCompleted { .. } => "InputCompleted",
        SideEffect::SteeringSet { .. } => "SteeringSet",
        SideEffect::ConfigChanged { .. } => "ConfigChanged",
        SideEffect::CustomizationToggled { .. } => "CustomizationToggled",
        SideEffect::TurnEnded { .. } => "TurnEnded",
        SideEffect::ChangesetReviewed { .. } => "ChangesetReviewed",
        SideEffect::TerminalInput { .. } => "TerminalInput",
        SideEffect::TerminalResized { .. } => "TerminalResized",
    }
}

/// A wire action as the typed `StateAction`.
fn parse(action: &Value) -> StateAction {
    serde_json::from_value(action.clone()).unwrap_or_else(|e| panic!("not an action: {action}: {e}"))
}

/// A row's setup that leaves the fixture as it is.
fn idle(_: &mut Fx) {}

/// A row's setup that starts [`TURN`].
fn running(f: &mut Fx) {
    f.server(On::Chat, turn_started(TURN));
}

fn user_message(text: &str) -> Value {
    json!({ "text": text, "origin": { "kind": "user" } })
}

fn turn_started(turn: &str) -> Value {
    json!({ "type": "chat/turnStarted", "turnId": turn, "startedAt": STARTED_AT, "message": user_message("hi") })
}

fn turn_complete(turn: &str) -> Value {
    json!({ "type": "chat/turnComplete", "turnId": turn, "duration": 5 })
}

fn turn_cancelled(turn: &str) -> Value {
    json!({ "type": "chat/turnCancelled", "turnId": turn, "duration": 5 })
}

/// A resumable `chat/error` ending `turn`.
fn turn_error(turn: &str) -> Value {
    json!({ "type": "chat/error", "turnId": turn, "duration": 5,
        "part": { "error": { "errorType": "agentCrashed", "message": "gone" }, "resumable": true } })
}

/// `chat/toolCallStart` and a `chat/toolCallReady` that waits for the user.
fn tool_call_pending(turn: &str, tool_call: &str) -> [Value; 2] {
    [
        json!({ "type": "chat/toolCallStart", "turnId": turn, "toolCallId": tool_call,
            "toolName": "shell", "displayName": "Shell" }),
        json!({ "type": "chat/toolCallReady", "turnId": turn, "toolCallId": tool_call,
            "invocationMessage": "run ls" }),
    ]
}

fn pending_message(kind: &str, id: &str, text: &str) -> Value {
    json!({ "type": "chat/pendingMessageSet", "kind": kind, "id": id, "message": user_message(text) })
}
