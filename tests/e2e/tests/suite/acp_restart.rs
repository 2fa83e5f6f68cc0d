//! A session across host restarts with the fake agent: `session/resume`
//! when the agent offers it, else a new ACP session with a visible notice
//! that the agent's memory was reset; the turns completed before the restart
//! stay whole. Needs `cargo build -p hangar-cli -p hangar-fake-agent`.

use ahp_types::state::{ResponsePart, Turn};
use hangar_e2e::acp::{chat_state, fake_agent_bin, gone, markdown, processes_with, session_state, AgentCmd, Rig};
use hangar_e2e::{action_type, initialized, wait_for_action, Launch, TestHost};
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
    let cmd = format!("{} --script {}", fake_agent_bin().display(), script_path.display());
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), Launch::Process(&[]), Some(&data)).await;
    let first = rig.send("one").await;
    assert_eq!(rig.wait_end(&first).await, "chat/turnComplete");
    let sid_before = rig.session_state().await.meta.unwrap()["hangar.acp"]["sessionId"].as_str().unwrap().to_owned();
    let (session, chat) = (rig.session.clone(), rig.chat.clone());
    if kill9 {
        rig.host.kill9();
    } else {
        assert!(rig.host.sigterm().success());
    }

    let spec = format!("agent={cmd}");
    let host = TestHost::start_in(Launch::Process(&[]), &data, &["--agent", &spec]);
    let (client, _) = initialized(&host, "after-restart").await;
    let (_, mut chat_sub) = client.subscribe(chat.clone()).await.unwrap();
    client.dispatch(chat.clone(), hangar_e2e::actions::turn_started("after", "two")).await.unwrap();
    wait_for_action(&mut chat_sub, |e| action_type(e) == "chat/turnComplete").await;
    let state = chat_state(&host, &chat).await;
    let find = |id: &str| state.turns.iter().find(|t| t.id == id).cloned().unwrap_or_else(|| panic!("no turn {id}"));
    let sid_after =
        session_state(&host, &session).await.meta.unwrap()["hangar.acp"]["sessionId"].as_str().unwrap().to_owned();
    Restarted { before: find(&first), after: find("after"), sid_before, sid_after }
}

fn notices(turn: &Turn) -> Vec<String> {
    turn.response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::SystemNotification(n) => {
                Some(serde_json::to_value(&n.content).unwrap().as_str().unwrap_or_default().to_owned())
            }
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
    assert_eq!(markdown(&r.before), "echo: one", "the turn before the restart is whole");
}

#[tokio::test]
async fn restart_without_load_or_resume_starts_a_new_acp_session_and_says_so() {
    let script = json!({ "turns": [[{ "chunk": "part 1, " }, { "chunk": "part 2" }, { "echo": true }]] });
    let r = turn_restart_turn(script, true).await;
    assert_eq!(markdown(&r.after), "part 1, part 2echo: two", "a fresh session: nothing restored");
    let notices = notices(&r.after);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("no memory of the earlier turns"), "{notices:?}");
    assert_ne!(r.sid_after, r.sid_before, "the new ACP session is remembered");
    assert_eq!(markdown(&r.before), "part 1, part 2echo: one", "the turn before kill -9 is whole");
}

/// A wrapper agent that leaves a grandchild (`sh -c "sleep 600; echo TAG"`)
/// in its process group, then runs the fake agent; returns (command, tag,
/// script path).
fn agent_with_grandchild(dir: &std::path::Path) -> (String, String, String) {
    let tag = format!("grandchild-{}-{}", std::process::id(), dir.file_name().unwrap().to_string_lossy());
    let script = dir.join("script.json");
    std::fs::write(&script, json!({ "turns": [[{ "echo": true }]] }).to_string()).unwrap();
    let wrapper = dir.join("agent.sh");
    let body = format!(
        "#!/bin/sh\nsh -c 'sleep 600; echo {tag}' &\nexec {} --script {}\n",
        fake_agent_bin().display(),
        script.display()
    );
    std::fs::write(&wrapper, body).unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&wrapper).status().unwrap();
    (wrapper.display().to_string(), tag, script.display().to_string())
}

#[tokio::test]
async fn the_agent_runs_in_the_working_directory_and_dispose_ends_its_whole_group() {
    let tmp = tempfile::tempdir().unwrap();
    let (cmd, tag, script) = agent_with_grandchild(tmp.path());
    let mut rig = Rig::start(AgentCmd::Command(cmd), Launch::InProcess).await;
    let turn = rig.send("hi").await;
    assert_eq!(rig.wait_end(&turn).await, "chat/turnComplete");
    let agents = processes_with(&script);
    assert_eq!(agents.len(), 1, "{agents:?}");
    let cwd = std::fs::read_link(format!("/proc/{}/cwd", agents[0])).unwrap();
    assert_eq!(cwd, rig.workspace, "the agent's cwd is the session's working directory");
    assert_eq!(processes_with(&tag).len(), 1, "the grandchild runs");
    let _: Value = rig.client.request("disposeSession", json!({ "channel": rig.session })).await.unwrap();
    assert!(gone(&tag).await, "dispose ended the agent's grandchild");
    assert!(gone(&script).await, "dispose ended the agent");
}

#[tokio::test]
async fn agents_left_by_a_killed_host_are_ended_at_the_next_start() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let agent_dir = tempfile::tempdir().unwrap();
    let (cmd, tag, _) = agent_with_grandchild(agent_dir.path());
    let mut rig = Rig::start_with(tmp, AgentCmd::Command(cmd.clone()), Launch::Process(&[]), Some(&data)).await;
    assert_eq!(rig.created, "session/ready");
    assert_eq!(processes_with(&tag).len(), 1);
    let records = std::fs::read_dir(data.join("agent-groups")).unwrap().count();
    assert_eq!(records, 1, "the agent's group is recorded");
    rig.host.kill9();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(processes_with(&tag).len(), 1, "kill -9 leaves the grandchild running");
    let spec = format!("agent={cmd}");
    let _host = TestHost::start_in(Launch::Process(&[]), &data, &["--agent", &spec]);
    assert!(gone(&tag).await, "the restarted host ended the leftover group");
}
