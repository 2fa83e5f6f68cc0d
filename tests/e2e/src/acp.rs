//! Support for the ACP suites: a host with one registered agent (the fake
//! agent `hangar-fake-agent` with a script or transcript, or any command),
//! a session on a temporary workspace, and helpers to run turns and read
//! the resulting chat state.

use std::path::{Path, PathBuf};

use ahp::{Client, SessionSubscription};
use ahp_types::actions::{ChatInputCompletedAction, ChatPendingMessageSetAction, ChatToolCallConfirmedAction};
use ahp_types::commands::CreateSessionParams;
use ahp_types::state::{
    ChatInputRequest, ChatInputResponseKind, ChatState, PendingMessageKind, ResponsePart, SessionLifecycle,
    SessionState, SnapshotState, ToolCallCancellationReason, ToolCallConfirmationReason, ToolCallState, Turn,
};
use ahp_types::{ActionEnvelope, StateAction};
use serde_json::Value;

use crate::actions::{turn_started, user_message};
use crate::{action_type, initialized, wait_for_action, Launch, TestHost};

/// The fake agent binary (next to `hangar`).
pub fn fake_agent_bin() -> PathBuf {
    let bin = crate::hangar_bin().with_file_name("hangar-fake-agent");
    assert!(bin.exists(), "{} is missing: run `cargo build -p hangar-fake-agent` first", bin.display());
    bin
}

/// The `file:` URI of an absolute path, every byte but unreserved ones and
/// `/` percent-encoded (written out here, independent of the host's encoder).
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The shared transcripts folder.
pub fn transcripts() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.join("fixtures/acp-transcripts")
}

/// A host running one agent, a session on a temporary workspace, and a
/// client subscribed to the session and its chat.
pub struct Rig {
    /// The host.
    pub host: TestHost,
    /// Client.
    pub client: Client,
    /// Session URI.
    pub session: String,
    /// Default chat URI.
    pub chat: String,
    /// Chat subscription.
    pub chat_sub: SessionSubscription,
    /// Session subscription.
    pub session_sub: SessionSubscription,
    /// Workspace (contains `hello.txt` = `hello world\n`).
    pub workspace: PathBuf,
    /// Lifecycle after creation: `session/ready` or `session/creationFailed`.
    pub created: String,
    /// The agent's provider id (`agent` unless started with [`Rig::start_as`]).
    pub provider: String,
    _tmp: tempfile::TempDir,
    turns: usize,
}

/// How to run the agent.
pub enum AgentCmd<'a> {
    /// `hangar-fake-agent --script FILE` with this script.
    Script(Value),
    /// `hangar-fake-agent --transcript FILE`.
    Transcript(&'a str),
    /// Any command line.
    Command(String),
}

impl Rig {
    /// Start everything, the host as `launch` says.
    pub async fn start(agent: AgentCmd<'_>, launch: Launch<'_>) -> Rig {
        let tmp = tempfile::tempdir().unwrap();
        Self::start_with(tmp, agent, launch, None).await
    }

    /// Start on an existing data dir.
    pub async fn start_with(
        tmp: tempfile::TempDir,
        agent: AgentCmd<'_>,
        launch: Launch<'_>,
        data: Option<&Path>,
    ) -> Rig {
        Self::start_at(tmp, "ws", "agent", agent, launch, data).await
    }

    /// Start with the agent registered as `provider` (the host tells agents
    /// apart by id, e.g. `claude` for what Claude reads itself).
    pub async fn start_as(provider: &str, tmp: tempfile::TempDir, agent: AgentCmd<'_>, launch: Launch<'_>) -> Rig {
        Self::start_at(tmp, "ws", provider, agent, launch, None).await
    }

    /// Start with the workspace folder named `name` (e.g. with spaces).
    pub async fn start_in_workspace(name: &str, agent: AgentCmd<'_>, launch: Launch<'_>) -> Rig {
        let tmp = tempfile::tempdir().unwrap();
        Self::start_at(tmp, name, "agent", agent, launch, None).await
    }

    async fn start_at(
        tmp: tempfile::TempDir,
        name: &str,
        provider: &str,
        agent: AgentCmd<'_>,
        launch: Launch<'_>,
        data: Option<&Path>,
    ) -> Rig {
        let workspace = tmp.path().join(name);
        std::fs::create_dir_all(&workspace).unwrap();
        let workspace = workspace.canonicalize().unwrap();
        if !workspace.join("hello.txt").exists() {
            std::fs::write(workspace.join("hello.txt"), "hello world\n").unwrap();
        }
        let command = agent_command(&agent, tmp.path());
        let data_dir = data.map(Path::to_path_buf).unwrap_or_else(|| tmp.path().join("data"));
        let spec = format!("{provider}={command}");
        // The workspace lives in a temp dir, outside HOME: let sessions use it.
        let browse = tmp.path().display().to_string();
        let host = TestHost::try_start_in(launch, &data_dir, &["--agent", &spec, "--browse-root", &browse]).unwrap();
        // A deep subscription buffer: a streaming turn must not lag the
        // client's broadcast ring (the default 256 drops envelopes).
        let transport = ahp_ws::WebSocketTransport::connect(&host.authed_url()).await.unwrap();
        let config = ahp::ClientConfig { subscription_buffer: 1 << 17, ..Default::default() };
        let client = Client::connect(transport, config).await.unwrap();
        client
            .initialize("acp-tests".to_owned(), vec!["1.0.0".into()], vec![ahp_types::ROOT_RESOURCE_URI.into()])
            .await
            .unwrap();
        let OpenedSession { session, chat, session_sub, chat_sub, created } =
            open_session(&client, &workspace, provider).await;
        let provider = provider.to_owned();
        Rig { host, client, session, chat, chat_sub, session_sub, workspace, created, provider, _tmp: tmp, turns: 0 }
    }

    /// Create another session of the same agent in the same workspace and
    /// make it the rig's session (its chat, its subscriptions); returns its
    /// lifecycle after creation, as [`Rig::created`].
    pub async fn new_session(&mut self) -> String {
        let opened = open_session(&self.client, &self.workspace, &self.provider).await;
        (self.session, self.chat, self.session_sub, self.chat_sub, self.created) =
            (opened.session, opened.chat, opened.session_sub, opened.chat_sub, opened.created);
        self.created.clone()
    }

    /// Fork the rig's chat at `turn_id` (`createSession` with
    /// `_meta["hangar/fork"]`) and make the fork the rig's session.
    pub async fn fork(&mut self, turn_id: &str) -> String {
        let session = format!("ahp-session:/{}", std::process::id() as u64 * 1000 + rand_suffix());
        let meta = serde_json::json!({ "hangar/fork": { "chat": self.chat, "turnId": turn_id } });
        let params = CreateSessionParams {
            channel: session,
            meta: meta.as_object().cloned(),
            provider: None,
            working_directories: None,
            config: None,
            active_client: None,
            progress_token: None,
        };
        self.open(params).await
    }

    /// `createSession` with `params` and make that session the rig's (its
    /// chat, its subscriptions); returns its lifecycle after creation.
    pub async fn open(&mut self, params: CreateSessionParams) -> String {
        let opened = create_and_open(&self.client, params).await;
        (self.session, self.chat, self.session_sub, self.chat_sub, self.created) =
            (opened.session, opened.chat, opened.session_sub, opened.chat_sub, opened.created);
        self.created.clone()
    }

    /// Start a turn with `text`; returns its id.
    pub async fn send(&mut self, text: &str) -> String {
        self.turns += 1;
        let id = format!("t{}-{}", self.turns, rand_suffix());
        self.client.dispatch(self.chat.clone(), turn_started(&id, text)).await.unwrap();
        id
    }

    /// Start a turn with a full message (attachments, model); returns its id.
    pub async fn send_message(&mut self, message: ahp_types::state::Message) -> String {
        self.turns += 1;
        let id = format!("t{}-{}", self.turns, rand_suffix());
        let action = ahp_types::actions::ChatTurnStartedAction {
            turn_id: id.clone(),
            started_at: crate::actions::now(),
            message,
            queued_message_id: None,
            meta: None,
        };
        self.dispatch(StateAction::ChatTurnStarted(action)).await;
        id
    }

    /// Start a turn with a full action.
    pub async fn dispatch(&self, action: StateAction) {
        self.client.dispatch(self.chat.clone(), action).await.unwrap();
    }

    /// Wait for an action on the chat.
    pub async fn wait(&mut self, pred: impl Fn(&ActionEnvelope) -> bool) -> ActionEnvelope {
        wait_for_action(&mut self.chat_sub, pred).await
    }

    /// Wait for the action of type `kind` on the chat.
    pub async fn wait_type(&mut self, kind: &str) -> ActionEnvelope {
        let kind = kind.to_owned();
        self.wait(move |e| action_type(e) == kind).await
    }

    /// Wait until turn `turn_id` ends; returns the ending action's type.
    pub async fn wait_end(&mut self, turn_id: &str) -> String {
        let id = turn_id.to_owned();
        let env = self
            .wait(move |e| {
                let v = serde_json::to_value(&e.action).unwrap();
                matches!(v["type"].as_str(), Some("chat/turnComplete" | "chat/turnCancelled" | "chat/error"))
                    && v["turnId"] == id.as_str()
            })
            .await;
        action_type(&env)
    }

    /// Let turn `turn_id` run to its end, approving every tool call that
    /// asks for confirmation; returns the ending action's type and how many
    /// confirmations were approved.
    pub async fn finish_approving(&mut self, turn_id: &str) -> (String, usize) {
        let mut approved = 0;
        loop {
            let id = turn_id.to_owned();
            let env = self
                .wait(move |e| {
                    let v = serde_json::to_value(&e.action).unwrap();
                    let end =
                        matches!(v["type"].as_str(), Some("chat/turnComplete" | "chat/turnCancelled" | "chat/error"));
                    let asks = v["type"] == "chat/toolCallReady" && v.get("confirmed").is_none();
                    (end || asks) && v["turnId"] == id.as_str()
                })
                .await;
            let v = serde_json::to_value(&env.action).unwrap();
            if v["type"] != "chat/toolCallReady" {
                return (action_type(&env), approved);
            }
            self.confirm(turn_id, v["toolCallId"].as_str().unwrap(), true, None).await;
            approved += 1;
        }
    }

    /// Wait for a tool call to become pending-confirmation; returns the
    /// `chat/toolCallReady` action as JSON.
    pub async fn wait_confirmation(&mut self) -> Value {
        let env = self
            .wait(|e| {
                let v = serde_json::to_value(&e.action).unwrap();
                v["type"] == "chat/toolCallReady" && v.get("confirmed").is_none()
            })
            .await;
        serde_json::to_value(&env.action).unwrap()
    }

    /// Wait, on the session channel alone, until the session's
    /// `inputNeeded` lists the tool call `tool_call_id` as a
    /// `toolConfirmation`; returns the entry's id. A client that follows
    /// only the session (a session list) sees this and nothing of the chat.
    pub async fn wait_confirmation_on_session(&mut self, tool_call_id: &str) -> String {
        let wanted = tool_call_id.to_owned();
        let env = wait_for_action(&mut self.session_sub, move |e| {
            let v = serde_json::to_value(&e.action).unwrap();
            v["type"] == "session/inputNeededSet"
                && v["request"]["kind"] == "toolConfirmation"
                && v["request"]["toolCall"]["toolCallId"] == wanted.as_str()
        })
        .await;
        let v = serde_json::to_value(&env.action).unwrap();
        v["request"]["id"].as_str().unwrap().to_owned()
    }

    /// Wait, on the session channel alone, until entry `id` leaves the
    /// session's `inputNeeded`.
    pub async fn wait_input_needed_removed(&mut self, id: &str) {
        let id = id.to_owned();
        wait_for_action(&mut self.session_sub, move |e| {
            let v = serde_json::to_value(&e.action).unwrap();
            v["type"] == "session/inputNeededRemoved" && v["id"] == id.as_str()
        })
        .await;
    }

    /// Answer a confirmation.
    pub async fn confirm(&self, turn_id: &str, tool_call_id: &str, approved: bool, option: Option<&str>) {
        let action = ChatToolCallConfirmedAction {
            turn_id: turn_id.to_owned(),
            tool_call_id: tool_call_id.to_owned(),
            meta: None,
            approved,
            confirmed: approved.then_some(ToolCallConfirmationReason::UserAction),
            reason: (!approved).then_some(ToolCallCancellationReason::Denied),
            edited_tool_input: None,
            user_suggestion: None,
            reason_message: None,
            selected_option_id: option.map(str::to_owned),
        };
        self.dispatch(StateAction::ChatToolCallConfirmed(action)).await;
    }

    /// Wait for the agent's next input request (`chat/inputRequested`).
    pub async fn wait_input_request(&mut self) -> ChatInputRequest {
        let env = self.wait_type("chat/inputRequested").await;
        let StateAction::ChatInputRequested(a) = env.action else { unreachable!() };
        a.request
    }

    /// Complete input request `id`; `answers` is a JSON object of
    /// `ChatInputAnswer`s by question id.
    pub async fn complete_input(&self, id: &str, response: ChatInputResponseKind, answers: Option<Value>) {
        let answers = answers.map(|a| serde_json::from_value(a).unwrap());
        let action = ChatInputCompletedAction { request_id: id.to_owned(), response, answers };
        self.dispatch(StateAction::ChatInputCompleted(action)).await;
    }

    /// Queue or steer a message.
    pub async fn pending(&self, kind: PendingMessageKind, id: &str, text: &str) {
        let action = ChatPendingMessageSetAction { kind, id: id.to_owned(), message: user_message(text) };
        self.dispatch(StateAction::ChatPendingMessageSet(action)).await;
    }

    /// The chat state now (fresh snapshot on a second connection).
    pub async fn chat_state(&self) -> ChatState {
        chat_state(&self.host, &self.chat).await
    }

    /// The session state now.
    pub async fn session_state(&self) -> SessionState {
        session_state(&self.host, &self.session).await
    }

    /// The completed turn `id`.
    pub async fn turn(&self, id: &str) -> Turn {
        self.chat_state().await.turns.into_iter().find(|t| t.id == id).unwrap_or_else(|| panic!("no turn {id}"))
    }
}

/// A session just created, subscribed, past its creation.
pub struct OpenedSession {
    /// Session URI.
    pub session: String,
    /// Default chat URI.
    pub chat: String,
    /// Session subscription.
    pub session_sub: SessionSubscription,
    /// Chat subscription.
    pub chat_sub: SessionSubscription,
    /// `session/ready` or `session/creationFailed`.
    pub created: String,
}

/// `createSession` of `provider`'s agent on `workspace`, subscribe to it
/// and its default chat, and wait for `session/ready` or `creationFailed`.
pub async fn open_session(client: &Client, workspace: &Path, provider: &str) -> OpenedSession {
    let session = format!("ahp-session:/{}", std::process::id() as u64 * 1000 + rand_suffix());
    let params = CreateSessionParams {
        channel: session.clone(),
        meta: None,
        provider: Some(provider.to_owned()),
        working_directories: Some(vec![file_uri(workspace)]),
        config: None,
        active_client: None,
        progress_token: None,
    };
    create_and_open(client, params).await
}

/// `createSession` with `params`, subscribe to the session and its default
/// chat, and wait for `session/ready` or `creationFailed`.
pub async fn create_and_open(client: &Client, params: CreateSessionParams) -> OpenedSession {
    let session = params.channel.clone();
    let _: Value = client.request("createSession", params).await.unwrap();
    let (res, mut session_sub) = client.subscribe(session.clone()).await.unwrap();
    let SnapshotState::Session(state) = res.snapshot.unwrap().state else { panic!("not a session") };
    let chat = state.default_chat.clone().unwrap();
    let created = match state.lifecycle {
        SessionLifecycle::Ready => "session/ready".to_owned(),
        SessionLifecycle::Failed => "session/creationFailed".to_owned(),
        _ => action_type(
            &wait_for_action(&mut session_sub, |e| {
                matches!(action_type(e).as_str(), "session/ready" | "session/creationFailed")
            })
            .await,
        ),
    };
    let (_, chat_sub) = client.subscribe(chat.clone()).await.unwrap();
    OpenedSession { session, chat, session_sub, chat_sub, created }
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as u64;
    nanos % 100_000 * 100 + N.fetch_add(1, Ordering::Relaxed)
}

fn agent_command(agent: &AgentCmd<'_>, dir: &Path) -> String {
    let fake = fake_agent_bin();
    match agent {
        AgentCmd::Script(script) => {
            let path = dir.join(format!("script-{}.json", rand_suffix()));
            std::fs::write(&path, script.to_string()).unwrap();
            format!("{} --script {}", fake.display(), path.display())
        }
        AgentCmd::Transcript(name) => format!("{} --transcript {}", fake.display(), transcripts().join(name).display()),
        AgentCmd::Command(c) => c.clone(),
    }
}

/// Snapshot of a chat on a fresh connection.
pub async fn chat_state(host: &TestHost, chat: &str) -> ChatState {
    let (c, _) = initialized(host, &format!("snap-{}", rand_suffix())).await;
    let (res, _) = c.subscribe(chat.to_owned()).await.unwrap();
    let state = match res.snapshot.unwrap().state {
        SnapshotState::Chat(s) => *s,
        other => panic!("not a chat: {other:?}"),
    };
    c.shutdown().await;
    state
}

/// Snapshot of a session on a fresh connection.
pub async fn session_state(host: &TestHost, session: &str) -> SessionState {
    let (c, _) = initialized(host, &format!("snap-{}", rand_suffix())).await;
    let (res, _) = c.subscribe(session.to_owned()).await.unwrap();
    let state = match res.snapshot.unwrap().state {
        SnapshotState::Session(s) => *s,
        other => panic!("not a session: {other:?}"),
    };
    c.shutdown().await;
    state
}

/// All markdown text of a turn.
pub fn markdown(turn: &Turn) -> String {
    turn.response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::Markdown(m) => Some(m.content.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// The tool calls of a turn.
pub fn tool_calls(turn: &Turn) -> Vec<ToolCallState> {
    turn.response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::ToolCall(t) => Some(t.tool_call.clone()),
            _ => None,
        })
        .collect()
}

/// Status name and id of a tool call.
pub fn tool_status(tc: &ToolCallState) -> (String, String) {
    let v = serde_json::to_value(tc).unwrap();
    (v["status"].as_str().unwrap_or_default().to_owned(), v["toolCallId"].as_str().unwrap_or_default().to_owned())
}

/// The turn's error part message, if any.
pub fn error_message(turn: &Turn) -> Option<String> {
    turn.response_parts.iter().find_map(|p| match p {
        ResponsePart::Error(e) => Some(e.error.message.clone()),
        _ => None,
    })
}

/// Wait (up to [`crate::WAIT`]) until no process matches `needle` (see
/// [`processes_with`]); whether none is left. Processes take their time to
/// end on a busy machine: poll, never sleep and look once.
pub async fn gone(needle: &str) -> bool {
    let deadline = tokio::time::Instant::now() + crate::WAIT;
    while !processes_with(needle).is_empty() {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    true
}

/// Processes whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) && !cmdline.contains(" serve ") && pid != std::process::id() {
            out.push(pid);
        }
    }
    out
}

/// The terminal a tool call shows (its first `terminal` content), if any.
pub fn terminal_link(tc: &ToolCallState) -> Option<ahp_types::state::ToolResultTerminalContent> {
    let content = match tc {
        ToolCallState::Running(r) => r.content.clone(),
        ToolCallState::Completed(c) => c.content.clone(),
        _ => None,
    };
    content.into_iter().flatten().find_map(|c| match c {
        ahp_types::state::ToolResultContent::Terminal(t) => Some(t),
        _ => None,
    })
}

/// The raw output a terminal's state holds.
pub use hangar_host::terminals::terminal_text;

/// The first file under `dir` (at any depth) whose bytes hold `needle`: a
/// secret written where it must not be.
pub fn file_holding(dir: &Path, needle: &str) -> Option<PathBuf> {
    files_under(dir)
        .into_iter()
        .find(|entry| std::fs::read(entry).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes())))
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}
