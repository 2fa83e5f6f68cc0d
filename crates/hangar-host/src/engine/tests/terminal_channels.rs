//! Terminal channels: opened for a session, listed on the root while they
//! run, read-only for clients, capped, gone with their session; a client's
//! own terminal: typed into and resized only by the client holding its
//! claim, disposed by it.

use ahp_types::state::{SnapshotState, TerminalLifecycleState, TerminalState};
use serde_json::json;

use super::{Fx, Start, ME, SESSION};
use crate::engine::{terminal_uri, SideEffect, MAX_TERMINAL_CONTENT};

const OTHER: &str = "someone-else";

fn client_terminal(client: &str) -> TerminalState {
    serde_json::from_value(json!({
        "title": "sh",
        "content": [],
        "lifecycle": { "status": "running" },
        "claim": { "kind": "client", "clientId": client },
        "isPty": true,
    }))
    .unwrap()
}

fn running_terminal(chat: &str) -> TerminalState {
    serde_json::from_value(json!({
        "title": "make test",
        "content": [],
        "lifecycle": { "status": "running" },
        "claim": { "kind": "session", "session": SESSION, "chat": chat },
        "isPty": false,
    }))
    .unwrap()
}

fn root_terminals(fx: &Fx) -> Vec<String> {
    fx.engine.root().terminals.iter().flatten().map(|t| t.resource.clone()).collect()
}

#[test]
fn a_terminal_is_listed_while_it_runs_and_readable_after() {
    let mut fx = Fx::new(Start::Ready);
    let uri = terminal_uri(SESSION, "t1");
    assert!(fx.engine.open_terminal(&uri, SESSION, running_terminal(&fx.chat.clone())));
    assert!(!fx.engine.open_terminal(&uri, SESSION, running_terminal(&fx.chat.clone())), "a URI is opened once");
    assert!(!fx.engine.open_terminal("x/terminals/t2", "ahp-session:/gone", running_terminal("c")), "no session");
    assert_eq!(root_terminals(&fx), vec![uri.clone()]);

    fx.engine
        .emit_server(&uri, serde_json::from_value(json!({ "type": "terminal/data", "data": "ok\n" })).unwrap())
        .unwrap();
    fx.engine
        .emit_server(&uri, serde_json::from_value(json!({ "type": "terminal/exited", "exitCode": 2 })).unwrap())
        .unwrap();
    assert!(root_terminals(&fx).is_empty(), "an ended terminal leaves the root list");
    let Some(SnapshotState::Terminal(state)) = fx.engine.snapshot(&uri).map(|s| s.state) else { panic!("no terminal") };
    assert!(matches!(state.lifecycle, TerminalLifecycleState::Exited(ref e) if e.exit_code == Some(2)));
    let kinds: Vec<String> = fx.published().into_iter().map(|p| p.kind).collect();
    assert!(kinds.iter().filter(|k| *k == "root/terminalsChanged").count() == 2, "{kinds:?}");
    assert!(kinds.contains(&"terminal/data".to_owned()) && kinds.contains(&"terminal/exited".to_owned()), "{kinds:?}");

    fx.engine.dispose_session(SESSION).unwrap();
    assert!(fx.engine.snapshot(&uri).is_none(), "gone with its session");
}

#[test]
fn clients_cannot_change_an_agents_terminal() {
    let mut fx = Fx::new(Start::Ready);
    let uri = terminal_uri(SESSION, "t1");
    fx.engine.open_terminal(&uri, SESSION, running_terminal(&fx.chat.clone()));
    for action in [
        json!({ "type": "terminal/cleared" }),
        json!({ "type": "terminal/titleChanged", "title": "mine" }),
        json!({ "type": "terminal/claimed", "claim": { "kind": "client", "clientId": ME } }),
    ] {
        let result = fx.engine.dispatch_client(ME, &uri, 1, serde_json::from_value(action.clone()).unwrap());
        let reason = result.err().map(|r| r.reason).unwrap_or_default();
        assert!(reason.contains("read-only"), "{action}: {reason}");
    }
    assert_eq!(fx.engine.terminal_state(&uri).unwrap().title, "make test");
}

#[test]
fn output_past_the_cap_is_not_shown() {
    let mut fx = Fx::new(Start::Ready);
    let uri = terminal_uri(SESSION, "t1");
    fx.engine.open_terminal(&uri, SESSION, running_terminal(&fx.chat.clone()));
    let chunk = "x".repeat(64 * 1024);
    let data = || serde_json::from_value(json!({ "type": "terminal/data", "data": chunk })).unwrap();
    let mut applied = 0;
    while fx.engine.emit_server(&uri, data()).is_ok() {
        applied += 1;
        assert!(applied <= MAX_TERMINAL_CONTENT / chunk.len() + 1, "the cap holds");
    }
    assert_eq!(applied, MAX_TERMINAL_CONTENT / chunk.len());
    let exited = serde_json::from_value(json!({ "type": "terminal/exited", "exitCode": 0 })).unwrap();
    assert!(fx.engine.emit_server(&uri, exited).is_ok(), "the exit still reaches everyone");
}

#[test]
fn only_the_claiming_client_types_into_its_terminal() {
    let mut fx = Fx::new(Start::Ready);
    let uri = "ahp-terminal:/mine";
    fx.engine.create_terminal(uri, client_terminal(ME)).unwrap();
    assert_eq!(fx.engine.create_terminal(uri, client_terminal(ME)).unwrap_err().code, -32010, "a URI is taken once");
    assert_eq!(root_terminals(&fx), vec![uri.to_owned()]);
    fx.engine.take_effects();

    let input = || serde_json::from_value(json!({ "type": "terminal/input", "data": "ls\r" })).unwrap();
    let resized = |cols: i64| serde_json::from_value(json!({ "type": "terminal/resized", "cols": cols, "rows": 40 }));
    assert!(fx.engine.dispatch_client(ME, uri, 1, input()).unwrap().is_some(), "input is accepted and echoed");
    assert!(fx.engine.dispatch_client(ME, uri, 2, resized(120).unwrap()).unwrap().is_some());
    let effects = fx.engine.take_effects();
    assert!(matches!(&effects[0], SideEffect::TerminalInput { terminal, data } if terminal == uri && data == "ls\r"));
    assert!(
        matches!(&effects[1], SideEffect::TerminalResized { terminal, size } if terminal == uri && size.cols == 120)
    );
    assert_eq!(fx.engine.terminal_state(uri).unwrap().cols, Some(120));
    // What was typed reaches the process only: the echo every client gets
    // (the sender's confirmation) carries no text.
    let typed: Vec<_> = fx.published().into_iter().filter(|p| p.kind == "terminal/input").collect();
    assert_eq!(typed.len(), 1);
    assert_eq!(typed[0].body["data"], "", "{:?}", typed[0].body);
    assert_eq!(typed[0].origin["clientSeq"], 1);

    let refused = fx.engine.dispatch_client(OTHER, uri, 1, input()).err().map(|r| r.reason).unwrap_or_default();
    assert!(refused.contains("claim"), "{refused}");
    let refused =
        fx.engine.dispatch_client(ME, uri, 3, resized(0).unwrap()).err().map(|r| r.reason).unwrap_or_default();
    assert!(refused.contains("cells"), "{refused}");
    assert!(fx.engine.take_effects().is_empty(), "nothing refused reaches the process");

    let exited = serde_json::from_value(json!({ "type": "terminal/exited", "exitCode": 0 })).unwrap();
    fx.engine.emit_server(uri, exited).unwrap();
    let refused = fx.engine.dispatch_client(ME, uri, 4, input()).err().map(|r| r.reason).unwrap_or_default();
    assert!(refused.contains("exited"), "{refused}");
}

#[test]
fn a_client_disposes_its_own_terminals_never_an_agents() {
    let mut fx = Fx::new(Start::Ready);
    let agents = terminal_uri(SESSION, "t1");
    fx.engine.open_terminal(&agents, SESSION, running_terminal(&fx.chat.clone()));
    assert_eq!(fx.engine.dispose_terminal(ME, &agents).unwrap_err().code, -32009);
    assert_eq!(fx.engine.dispose_terminal(ME, "ahp-terminal:/none").unwrap_err().code, -32008);

    // A login: opened for a session, claimed by the client that asked.
    let login = terminal_uri(SESSION, "login-1");
    fx.engine.open_terminal(&login, SESSION, client_terminal(ME));
    assert_eq!(fx.engine.dispose_terminal(OTHER, &login).unwrap_err().code, -32009);
    fx.engine.dispose_terminal(ME, &login).unwrap();
    assert!(fx.engine.snapshot(&login).is_none());

    // A client's own terminal tied to the session goes with it.
    let mut tied = running_terminal(&fx.chat.clone());
    tied.is_pty = Some(true);
    fx.engine.create_terminal("ahp-terminal:/tied", tied).unwrap();
    assert!(fx.engine.snapshot("ahp-terminal:/tied").is_some());
    let mut unknown = running_terminal("ahp-chat:/nope");
    unknown.claim =
        serde_json::from_value(json!({ "kind": "session", "session": "ahp-session:/gone", "chat": "c" })).unwrap();
    assert_eq!(fx.engine.create_terminal("ahp-terminal:/x", unknown).unwrap_err().code, -32001);
    fx.engine.dispose_session(SESSION).unwrap();
    assert!(fx.engine.snapshot("ahp-terminal:/tied").is_none(), "gone with its session");
    assert!(root_terminals(&fx).is_empty());
}
