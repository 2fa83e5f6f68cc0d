//! Terminal channels: opened for a session, listed on the root while they
//! run, read-only for clients, capped, gone with their session.

use ahp_types::state::{SnapshotState, TerminalLifecycleState, TerminalState};
use serde_json::json;

use super::{Fx, Start, ME, SESSION};
use crate::engine::{terminal_uri, MAX_TERMINAL_CONTENT};

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
