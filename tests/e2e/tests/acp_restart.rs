//! A session across host restarts with the fake agent: `session/resume`
//! when the agent offers it, else a new ACP session with a visible notice
//! that the agent's memory was reset; the turns completed before the restart
//! stay whole. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

#![allow(clippy::unwrap_used)]

use ahp_types::state::{ResponsePart, Turn};
use hangar_e2e::acp::{chat_state, fake_agent_bin, markdown, session_state, AgentCmd, Rig};
use hangar_e2e::{action_type, initialized, wait_for_action, HostProcess};
use serde_json::{json, Value};

/// What a restart left: the turn after it and the one before it, and the
/// ACP session id before and after.
struct Restarted {
    before: Turn,
    after: Turn,
    sid_before: String,
    sid_after: String,
}

/// One turn (`one`), the host stopped (`kill -9` or SIGTERM), a new host
/// on the same data dir, one more turn (`two`).
async fn turn_restart_turn(script: Value, kill9: bool) -> Restarted {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let script_path = tmp.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let cmd = format!(
        "{} --script {}",
        fake_agent_bin().display(),
        script_path.display()
    );
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), &[], Some(&data)).await;
    let first = rig.send("one").await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");
    let sid_before = rig.session_state().await.meta.unwrap()["hangar.acp"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (session, chat) = (rig.session.clone(), rig.chat.clone());
    if kill9 {
        rig.host.kill9();
    } else {
        assert!(rig.host.sigterm().success());
    }

    let spec = format!("agent={cmd}");
    let host = HostProcess::start_in(&data, &["--agent", &spec]);
    let (client, _) = initialized(&host, "after-restart").await;
    let (_, mut chat_sub) = client.subscribe(chat.clone()).await.unwrap();
    client
        .dispatch(
            chat.clone(),
            hangar_e2e::actions::turn_started("after", "two"),
        )
        .await
        .unwrap();
    wait_for_action(&mut chat_sub, |e| action_type(e) == "chat/turnComplete").await;
    let state = chat_state(&host, &chat).await;
    let find = |id: &str| {
        state
            .turns
            .iter()
            .find(|t| t.id == id)
            .cloned()
            .unwrap_or_else(|| panic!("no turn {id}"))
    };
    let sid_after = session_state(&host, &session).await.meta.unwrap()["hangar.acp"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    Restarted {
        before: find(&first),
        after: find("after"),
        sid_before,
        sid_after,
    }
}

fn notices(turn: &Turn) -> Vec<String> {
    turn.response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::SystemNotification(n) => Some(
                serde_json::to_value(&n.content)
                    .unwrap()
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            ),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn restart_resumes_the_acp_session_when_the_agent_cannot_load() {
    let script = json!({ "capabilities": { "sessionCapabilities": { "resume": {} } }, "turns": [[{ "echo": true }]] });
    let r = turn_restart_turn(script, false).await;
    assert_eq!(markdown(&r.after), "echo: two [restored by session/resume]");
    assert!(notices(&r.after).is_empty(), "resumed: no reset notice");
    assert_eq!(r.sid_after, r.sid_before);
    assert_eq!(
        markdown(&r.before),
        "echo: one",
        "the turn before the restart is whole"
    );
}

#[tokio::test]
async fn restart_without_load_or_resume_starts_a_new_acp_session_and_says_so() {
    let script =
        json!({ "turns": [[{ "chunk": "part 1, " }, { "chunk": "part 2" }, { "echo": true }]] });
    let r = turn_restart_turn(script, true).await;
    assert_eq!(
        markdown(&r.after),
        "part 1, part 2echo: two",
        "a fresh session: nothing restored"
    );
    let notices = notices(&r.after);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains("no memory of the earlier turns"),
        "{notices:?}"
    );
    assert_ne!(
        r.sid_after, r.sid_before,
        "the new ACP session is remembered"
    );
    assert_eq!(
        markdown(&r.before),
        "part 1, part 2echo: one",
        "the turn before kill -9 is whole"
    );
}
