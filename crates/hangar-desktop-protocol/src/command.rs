//! Every command the UI sends, from one table: its wire name, its argument
//! struct and its result type (and, for the two that open a stream, the
//! events the stream carries). The table makes [`Command`] (serde:
//! `{cmd, args}`), [`Reply`] (the result, serialized bare), [`COMMANDS`]
//! and the TypeScript maps `CommandResults` / `CommandEvents` the UI's
//! `call()` and `stream()` are typed with. A command is added in one place.
//!
//! Why a `macro_rules!` table and not `strum`: the wire names
//! (`session.markRead`) follow no case rule, so `strum` would repeat each
//! name beside serde's `rename`, and it knows nothing of results; the table
//! names each command once.

use std::collections::BTreeMap;

use ahp_types::state::{MessageAttachment, PendingMessageKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::agents::{AgentIdArgs, AgentInstallArgs, AgentsView, CustomAgentSaveArgs};
use super::app::AppOp;
use super::changes::{
    ChangesArgs, ChangesFileArgs, ChangesInvokeArgs, ChangesInvoked, ChangesReviewArgs, ChangesView, FileDiffView,
    TurnCounts, TurnCountsArgs,
};
use super::chat::ChatOp;
use super::customization::{
    CustomizationDeleteArgs, CustomizationFile, CustomizationFileArgs, CustomizationSaveArgs,
    CustomizationTransferArgs, HookRan, HookTestArgs, HostCustomizations, MarkdownArgs, McpTestArgs, McpTested,
    SaveOutcome, ToggleScope,
};
use super::devices::{DevicePairArgs, DeviceRevokeArgs, DevicesView, PairingLink};
use super::git::{
    MergeBackArgs, MergedBack, PullRequestArgs, PullRequestDraft, PullRequestOpened, Pushed, WorktreeInfo,
    WorktreeRemoval,
};
use super::host::{HostAddArgs, HostAdded, HostArgs, HostProbe, HostProbeArgs, HostRenameArgs};
use super::input::AnswerView;
use super::part::InputResponse;
use super::past_sessions::{PastSessionsArgs, PastSessionsView};
use super::review::{ReviewComment, ReviewSaveArgs, ReviewSent};
use super::rules::{RuleDeleteArgs, RuleSaveArgs, RuleSaved, RulesListArgs, RulesView};
use super::search::{SearchArgs, SearchResults};
use super::settings::{AboutView, OpenArgs, Settings, SettingsView};
use super::sign_in::{AgentSignInArgs, SignedIn};
use super::terminal::{TerminalArgs, TerminalInputArgs, TerminalRead};
use super::usage::{UsageArgs, UsageReport};

/// Why a wire command did not parse: its name is not in the table, or its
/// arguments do not fit (the core reports both as its own errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The command name is not in the table.
    #[error("unknown command {0}")]
    UnknownCommand(String),
    /// The arguments did not fit the command.
    #[error("bad arguments for {command}: {message}")]
    BadArgs {
        /// Command.
        command: String,
        /// What was wrong.
        message: String,
    },
}

/// The events of a command that opens no stream (`never` in TypeScript).
#[derive(Debug, Clone, Copy, PartialEq, Eq, TS)]
#[ts(type = "never")]
pub struct NoEvents;

macro_rules! commands {
    ($(
        $(#[doc = $doc:literal])*
        $name:literal => $variant:ident($args:ty) -> $result:ty $(, streams $event:ty)?;
    )*) => {
        /// A command from the UI: `{"cmd": NAME, "args": {...}}`.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
        #[serde(tag = "cmd", content = "args")]
        pub enum Command {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant($args), )*
        }

        /// Every command name, in table order.
        pub const COMMANDS: &[&str] = &[$($name),*];

        impl Command {
            /// The command's wire name.
            pub fn name(&self) -> &'static str {
                match self { $(Self::$variant(_) => $name,)* }
            }

            /// The command named `name` with the wire `args` (`null` counts
            /// as `{}`): an unknown name or arguments that do not fit are
            /// errors, never a panic.
            pub fn from_wire(name: &str, args: Value) -> Result<Self, WireError> {
                let args = if args.is_null() { Value::Object(Default::default()) } else { args };
                let bad = |e: serde_json::Error| WireError::BadArgs { command: name.to_owned(), message: e.to_string() };
                match name {
                    $( $name => Ok(Self::$variant(serde_json::from_value(args).map_err(bad)?)), )*
                    other => Err(WireError::UnknownCommand(other.to_owned())),
                }
            }
        }

        /// A command's result, serialized bare (as its own type).
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Reply {
            $( $(#[doc = $doc])* $variant($result), )*
        }

        /// Each command's result type, by name (TypeScript only).
        #[derive(TS)]
        #[allow(dead_code, non_snake_case)]
        pub(crate) struct CommandResults {
            $( #[ts(rename = $name)] $variant: $result, )*
        }

        /// The events of each command's stream, by name (TypeScript only).
        #[derive(TS)]
        #[allow(dead_code, non_snake_case)]
        pub(crate) struct CommandEvents {
            $( #[ts(rename = $name)] $variant: commands!(@event $($event)?), )*
        }
    };
    (@event) => { NoEvents };
    (@event $event:ty) => { $event };
}

commands! {
    /// Watch hosts, session rows and the inbox: a snapshot, then ops.
    "app.watch" => AppWatch(NoArgs) -> StreamOpened, streams AppOp;
    /// Stop a stream's events.
    "stream.close" => StreamClose(StreamCloseArgs) -> ();
    /// The Settings page: the settings, the data dir and the log file.
    "settings.get" => SettingsGet(NoArgs) -> SettingsView;
    /// Keep new settings (written to `settings.json` at once).
    "settings.save" => SettingsSave(Settings) -> SettingsView;
    /// Open the data dir or the log file with the desktop's own app.
    "settings.open" => SettingsOpen(OpenArgs) -> ();
    /// The About box: the app's version, each host's and the AHP version.
    "app.about" => AppAbout(NoArgs) -> AboutView;
    /// *Open from other devices*: its address, fingerprint and paired devices.
    "devices.get" => DevicesGet(NoArgs) -> DevicesView;
    /// Mint a 10-minute, single-use pairing link (and its QR code) for a device.
    "devices.pair" => DevicesPair(DevicePairArgs) -> PairingLink;
    /// Sign a paired device out at once (its open pages are closed).
    "devices.revoke" => DevicesRevoke(DeviceRevokeArgs) -> DevicesView;
    /// "Add host", step one: a `wss://` host's certificate fingerprint, to trust.
    "host.probe" => HostProbe(HostProbeArgs) -> HostProbe;
    /// "Add host": prove the token, save the host (token in the OS keyring), connect.
    "host.add" => HostAdd(HostAddArgs) -> HostAdded;
    /// Rename a saved host.
    "host.rename" => HostRename(HostRenameArgs) -> ();
    /// Forget a saved host and its token.
    "host.remove" => HostRemove(HostArgs) -> ();
    /// Try a host again now ("Retry now", "Reconnect").
    "host.reconnect" => HostReconnect(HostArgs) -> ();
    /// The person read a host's return report ("Dismiss").
    "host.dismissReport" => HostDismissReport(HostArgs) -> ();
    /// A host's user-level customizations, per agent (no session needed).
    "host.customizations" => HostCustomizationsOf(HostArgs) -> HostCustomizations;
    /// Start a session on a host.
    "session.create" => SessionCreate(SessionCreateArgs) -> SessionCreated;
    /// Fork a chat at a completed turn: a new session with the transcript
    /// through that turn, in a copy of the folders as that turn left them.
    "session.fork" => SessionFork(ChatTurnArgs) -> SessionCreated;
    /// Rename a session.
    "session.rename" => SessionRename(SessionRenameArgs) -> Dispatched;
    /// Archive or unarchive a session.
    "session.archive" => SessionArchive(SessionArchiveArgs) -> Dispatched;
    /// Mark a session read or unread.
    "session.markRead" => SessionMarkRead(SessionMarkReadArgs) -> Dispatched;
    /// Set one of the agent's settings (its mode, …) for a session.
    "session.setting" => SessionSetting(SessionSettingArgs) -> Dispatched;
    /// Stop the session's agent, to start afresh at its next turn (a
    /// pending customization change taken); refused while a turn runs.
    "session.restartAgent" => SessionRestartAgent(SessionArgs) -> AgentRestarted;
    /// Dispose a session (its history is deleted on the host).
    "session.dispose" => SessionDispose(SessionDisposeArgs) -> ();
    /// The git worktree a session works in, if it has one of its own.
    "session.worktree" => SessionWorktree(SessionArgs) -> Option<WorktreeInfo>;
    /// List a folder for the folder picker.
    "folder.list" => FolderList(FolderListArgs) -> FolderListing;
    /// Open a session's default chat: a snapshot, then ops.
    "chat.open" => ChatOpen(SessionArgs) -> ChatOpened, streams ChatOp;
    /// Send a message (a new turn; held while the agent starts).
    "chat.send" => ChatSend(ChatSendArgs) -> Sent;
    /// Queue a message behind the running turn, or steer it.
    "chat.queue" => ChatQueue(ChatQueueArgs) -> Queued;
    /// Remove a queued message.
    "chat.removeQueued" => ChatRemoveQueued(ChatRemoveQueuedArgs) -> Dispatched;
    /// Reorder the queued messages.
    "chat.reorderQueued" => ChatReorderQueued(ChatReorderQueuedArgs) -> Dispatched;
    /// Cancel the running turn.
    "chat.cancel" => ChatCancel(ChatArgs) -> Dispatched;
    /// Answer a tool call's confirmation.
    "chat.confirm" => ChatConfirm(ChatConfirmArgs) -> Dispatched;
    /// Sync the composer's draft.
    "chat.draft" => ChatDraft(ChatDraftArgs) -> Dispatched;
    /// Sync a draft answer to an input request's question.
    "chat.inputAnswer" => ChatInputAnswer(ChatInputAnswerArgs) -> Dispatched;
    /// Answer (or decline) an input request.
    "chat.inputComplete" => ChatInputComplete(ChatInputCompleteArgs) -> Dispatched;
    /// Resume a turn that failed.
    "chat.retry" => ChatRetry(ChatTurnArgs) -> Dispatched;
    /// Wait for a turn to end: the agent's reply (its Markdown text).
    "chat.reply" => ChatReply(ChatTurnArgs) -> String;
    /// Send the chat's streams the next older page of turns.
    "chat.fetchOlder" => ChatFetchOlder(ChatArgs) -> OlderFetched;
    /// Find sessions and turns on every connected host at once
    /// (`x-hangar/search`), merged best first; hosts that did not answer say so.
    "search" => Search(SearchArgs) -> SearchResults;
    /// `@` mention completions for the text being typed.
    "chat.completions" => ChatCompletions(ChatCompletionsArgs) -> Completions;
    /// Turn a customization on or off (or clear a scope's decision).
    "customizations.toggle" => CustomizationsToggle(CustomizationsToggleArgs) -> Dispatched;
    /// Read a customization's file (text and version) for an editor.
    "customizations.read" => CustomizationsRead(CustomizationFileArgs) -> CustomizationFile;
    /// A customization's file's version (etag) alone: an open editor's
    /// check for a change on disk, without reading the text.
    "customizations.version" => CustomizationsVersion(CustomizationFileArgs) -> Option<String>;
    /// Save a customization's file over the version read, or create it.
    "customizations.save" => CustomizationsSave(CustomizationSaveArgs) -> SaveOutcome;
    /// Duplicate or rename a customization's file (or a skill's folder).
    "customizations.transfer" => CustomizationsTransfer(CustomizationTransferArgs) -> SaveOutcome;
    /// Delete a customization's file (or a skill's folder).
    "customizations.delete" => CustomizationsDelete(CustomizationDeleteArgs) -> ();
    /// Start an MCP server on the session's host and list its tools (Test).
    "customizations.testMcp" => CustomizationsTestMcp(McpTestArgs) -> McpTested;
    /// Run a hook's command on the session's host with a tool event (test bench).
    "customizations.testHook" => CustomizationsTestHook(HookTestArgs) -> HookRan;
    /// Markdown as sanitized HTML blocks (an editor's preview).
    "markdown.render" => MarkdownRender(MarkdownArgs) -> Vec<String>;
    /// A session's pending changes (or one turn's): the changed files.
    "changes.list" => ChangesList(ChangesArgs) -> ChangesView;
    /// One changed file's diff and hunks.
    "changes.diff" => ChangesDiff(ChangesFileArgs) -> FileDiffView;
    /// Keep or Undo every file, one file, or the hunks of some lines.
    "changes.invoke" => ChangesInvoke(ChangesInvokeArgs) -> ChangesInvoked;
    /// A commit message drafted from the session (the host's `commitDraft`
    /// when it offers one, else the session's title and its prompts).
    "changes.commitDraft" => ChangesCommitDraft(SessionArgs) -> String;
    /// Push the session's branch (the host's `push`).
    "changes.push" => ChangesPush(SessionArgs) -> Pushed;
    /// A pull request's title and body drafted by the host (`pullRequestDraft`).
    "changes.pullRequestDraft" => ChangesPullRequestDraft(SessionArgs) -> PullRequestDraft;
    /// Open a pull request (`pullRequest`), or the command to run without `gh`.
    "changes.pullRequest" => ChangesPullRequest(PullRequestArgs) -> PullRequestOpened;
    /// Merge a worktree session's branch back (`mergeBack`), or its conflicts.
    "changes.mergeBack" => ChangesMergeBack(MergeBackArgs) -> MergedBack;
    /// Mark files "viewed" (or not).
    "changes.review" => ChangesReview(ChangesReviewArgs) -> Dispatched;
    /// Which of these turns changed files ("3 files changed" under a turn).
    "changes.turnCounts" => ChangesTurnCounts(TurnCountsArgs) -> Vec<TurnCounts>;
    /// The session's line comments not sent yet (kept across restarts).
    "review.get" => ReviewGet(SessionArgs) -> Vec<ReviewComment>;
    /// Replace the session's line comments (kept on disk before it answers).
    "review.save" => ReviewSave(ReviewSaveArgs) -> Vec<ReviewComment>;
    /// Send the session's comments to its agent as one message (a new turn,
    /// or queued behind the running one); they are dropped once sent.
    "review.send" => ReviewSend(SessionArgs) -> ReviewSent;
    /// A tool call's terminal: its output after a byte, and whether it ended.
    "terminal.read" => TerminalRead(TerminalArgs) -> TerminalRead;
    /// Type into a login's terminal this app's client claims (AHP
    /// `terminal/input`).
    "terminal.input" => TerminalInput(TerminalInputArgs) -> Dispatched;
    /// Sign a session's agent in with one of the ways its refused start
    /// listed: a key kept in the host's keyring, a login run in a terminal
    /// on the host, or the agent's own sign-in.
    "agent.signIn" => AgentSignIn(AgentSignInArgs) -> SignedIn;
    /// A host's agents: the well-known ones (where, which version, an
    /// install's progress) and the custom ones.
    "agents.list" => AgentsList(HostArgs) -> AgentsView;
    /// Install (or update) a well-known agent on a host with npm; answers
    /// at once, the progress in the list.
    "agents.install" => AgentsInstall(AgentInstallArgs) -> AgentsView;
    /// Remove an agent Hangar installed on a host.
    "agents.remove" => AgentsRemove(AgentIdArgs) -> AgentsView;
    /// Add or replace a custom agent on a host.
    "agents.saveCustom" => AgentsSaveCustom(CustomAgentSaveArgs) -> AgentsView;
    /// Delete a custom agent from a host.
    "agents.deleteCustom" => AgentsDeleteCustom(AgentIdArgs) -> AgentsView;
    /// An agent's own earlier sessions in a folder (`x-hangar/agentSessions`),
    /// to continue one (`session.create` with `agentSession`).
    "agents.pastSessions" => AgentsPastSessions(PastSessionsArgs) -> PastSessionsView;
    /// A host's approval rules (`x-hangar/rules`) and its agents' own.
    "rules.list" => RulesList(RulesListArgs) -> RulesView;
    /// Add a rule to a host (no `id`) or change one (`x-hangar/ruleSave`).
    "rules.save" => RulesSave(RuleSaveArgs) -> RuleSaved;
    /// Delete a host's rule (`x-hangar/ruleDelete`).
    "rules.delete" => RulesDelete(RuleDeleteArgs) -> ();
    /// Tokens and cost per day and agent, the costliest sessions
    /// (`x-hangar/usage`), from one host or every host merged.
    "usage.get" => UsageGet(UsageArgs) -> UsageReport;
}

impl Reply {
    /// The stream a command opened, if it opened one.
    pub fn stream_id(&self) -> Option<u64> {
        match self {
            Self::AppWatch(s) => Some(s.stream_id),
            Self::ChatOpen(c) => Some(c.stream_id),
            _ => None,
        }
    }
}

/// A message attachment from a completion item, handed back with a message
/// (with the `range` where its mention now is). The UI reads none of its
/// fields; the core refuses kinds this protocol version does not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Attachment(pub MessageAttachment);

impl TS for Attachment {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn docs() -> Option<String> {
        Some("/**\n * An AHP `MessageAttachment`, handed back as it came (plus `range`).\n */\n".into())
    }
    fn name(_: &ts_rs::Config) -> String {
        "Attachment".into()
    }
    fn inline(_: &ts_rs::Config) -> String {
        "{ type: string; label: string; [field: string]: unknown }".into()
    }
    fn decl(cfg: &ts_rs::Config) -> String {
        format!("type Attachment = {};", Self::inline(cfg))
    }
    fn decl_concrete(cfg: &ts_rs::Config) -> String {
        Self::decl(cfg)
    }
    fn output_path() -> Option<std::path::PathBuf> {
        Some("Attachment.ts".into())
    }
}

/// Whether a pending message is queued behind the running turn or steers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum PendingKind {
    /// Sent as a new turn once the running one ends.
    #[default]
    Queued,
    /// Injected into the running turn.
    Steering,
}

impl From<PendingKind> for PendingMessageKind {
    fn from(k: PendingKind) -> Self {
        match k {
            PendingKind::Queued => Self::Queued,
            PendingKind::Steering => Self::Steering,
        }
    }
}

/// No arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct NoArgs {}

/// `stream.close`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StreamCloseArgs {
    /// The stream `app.watch` or `chat.open` opened.
    pub stream_id: u64,
}

/// `session.create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct SessionCreateArgs {
    /// Host id.
    pub host: String,
    /// Agent provider (the host's default if absent or empty).
    pub agent: Option<String>,
    /// Working folder URI.
    pub folder: Option<String>,
    /// Work in a new git worktree of the folder's repository, on a new
    /// branch (`createSession` with `_meta["hangar/worktree"]`).
    #[serde(default)]
    pub worktree: Option<bool>,
    /// Continue one of the agent's own earlier sessions (its id from
    /// `agents.pastSessions`; `createSession` with
    /// `_meta["hangar/agentSession"]`).
    #[serde(default)]
    pub agent_session: Option<String>,
    /// The title the agent listed that session under; the new session
    /// takes it (`_meta["hangar/agentSession"].title`).
    #[serde(default)]
    pub agent_session_title: Option<String>,
}

/// A session on a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
}

/// `session.restartAgent`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentRestarted {
    /// An agent process was running and was stopped.
    pub stopped: bool,
}

/// `session.rename`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionRenameArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// The new title (not blank).
    pub title: String,
}

/// `session.setting`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionSettingArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// The setting (a `SettingView`'s `key`).
    pub key: String,
    /// Its new value (one of the setting's options).
    pub value: String,
}

/// `session.archive`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionArchiveArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// Archive (`true`) or unarchive.
    pub archived: bool,
    /// Archiving: remove the session's worktree too (refused, and the
    /// session left unarchived, when that would lose edits or commits
    /// without `force`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub worktree: Option<WorktreeRemoval>,
}

/// `session.dispose`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionDisposeArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// Remove the session's worktree too (refused, and nothing disposed,
    /// when that would lose edits or commits without `force`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub worktree: Option<WorktreeRemoval>,
}

/// `session.markRead`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionMarkReadArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// Read (`true`) or unread.
    pub read: bool,
}

/// `folder.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct FolderListArgs {
    /// Host id.
    pub host: String,
    /// Folder URI; if absent, the host's default directory (for a host that
    /// names none: this computer's home on the embedded host, `/` on a remote one).
    pub uri: Option<String>,
}

/// A chat on a host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
}

/// A turn of a chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatTurnArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// Turn id.
    pub turn_id: String,
}

/// `chat.send`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChatSendArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The message (not blank).
    pub text: String,
    /// Model id (the agent's default if absent or empty).
    pub model: Option<String>,
    /// Attachments of the `@` mentions picked from `chat.completions`.
    pub attachments: Option<Vec<Attachment>>,
    /// The custom agent to send it to (an agent customization's URI).
    pub agent: Option<String>,
}

/// `chat.queue`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChatQueueArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The message (not blank).
    pub text: String,
    /// Queued (default) or steering.
    pub kind: Option<PendingKind>,
    /// Model id.
    pub model: Option<String>,
    /// Attachments of picked `@` mentions.
    pub attachments: Option<Vec<Attachment>>,
    /// The custom agent (an agent customization's URI).
    pub agent: Option<String>,
}

/// `chat.removeQueued`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChatRemoveQueuedArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The pending message.
    pub id: String,
    /// Queued (default) or steering.
    pub kind: Option<PendingKind>,
}

/// `chat.reorderQueued`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatReorderQueuedArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// Queued message ids in their new order.
    pub order: Vec<String>,
}

/// `chat.confirm`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChatConfirmArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The running turn.
    pub turn_id: String,
    /// The tool call.
    pub tool_call_id: String,
    /// Allow (`true`) or deny.
    pub approved: bool,
    /// The option picked, if the host offered options.
    pub option_id: Option<String>,
}

/// `chat.draft`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChatDraftArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The draft (cleared when absent or empty).
    pub text: Option<String>,
}

/// `chat.inputAnswer`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChatInputAnswerArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The input request.
    pub request_id: String,
    /// The question.
    pub question_id: String,
    /// The draft answer (cleared when absent).
    pub answer: Option<AnswerView>,
}

/// `chat.inputComplete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ChatInputCompleteArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The input request.
    pub request_id: String,
    /// Accept, decline or cancel.
    pub response: InputResponse,
    /// The answers, by question id (with `accept`).
    pub answers: Option<BTreeMap<String, AnswerView>>,
}

/// `chat.completions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatCompletionsArgs {
    /// Host id.
    pub host: String,
    /// Chat URI.
    pub chat: String,
    /// The composer's text.
    pub text: String,
    /// The caret's offset in `text`.
    pub offset: i64,
}

/// `customizations.toggle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct CustomizationsToggleArgs {
    /// Host id.
    pub host: String,
    /// Session URI.
    pub session: String,
    /// The customization's id.
    pub id: String,
    /// Which scope's decision to set.
    pub scope: ToggleScope,
    /// On, off, or `null` to clear that scope's decision.
    pub enabled: Option<bool>,
}

/// A stream was opened.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StreamOpened {
    /// For `stream.close`.
    pub stream_id: u64,
}

/// A chat was opened.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatOpened {
    /// For `stream.close`.
    pub stream_id: u64,
    /// The chat's URI.
    pub chat: String,
}

/// A session was created.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionCreated {
    /// Its URI.
    pub session: String,
}

/// An action was dispatched (its effect comes back as a view update).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Dispatched {
    /// The client's sequence number of the action.
    pub client_seq: i64,
}

/// A folder-picker entry.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FolderEntry {
    /// Name.
    pub name: String,
    /// Whether it is a folder.
    pub dir: bool,
    /// URI.
    pub uri: String,
}

/// A folder's listing: folders first, by name.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FolderListing {
    /// The folder.
    pub uri: String,
    /// Its parent, if any.
    pub parent: Option<String>,
    /// Its entries.
    pub entries: Vec<FolderEntry>,
}

/// What `chat.send` did with the message.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum Sent {
    /// A turn started.
    Started {
        /// The action's client sequence number.
        client_seq: i64,
        /// The new turn.
        turn_id: String,
    },
    /// Held until the agent is ready.
    Held {
        /// The held message's id.
        held: String,
    },
}

/// A message was queued.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Queued {
    /// The action's client sequence number; none when the host was
    /// unreachable and the message was kept (in the outbox) for later.
    pub client_seq: Option<i64>,
    /// The pending message's id.
    pub id: String,
}

/// `chat.fetchOlder`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OlderFetched {
    /// Whether a page is on its way (or more may exist).
    pub more: bool,
}

/// A completion item.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompletionItemView {
    /// Text to insert.
    pub insert_text: String,
    /// Start of the range it replaces.
    pub range_start: Option<i64>,
    /// End of the range it replaces.
    pub range_end: Option<i64>,
    /// The attachment to send with the message.
    pub attachment: Attachment,
}

/// `chat.completions`' answer.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Completions {
    /// The items, in the host's order.
    pub items: Vec<CompletionItemView>,
}

impl From<ahp_types::commands::CompletionsResult> for Completions {
    fn from(r: ahp_types::commands::CompletionsResult) -> Self {
        let items = r.items.into_iter().map(|i| CompletionItemView {
            insert_text: i.insert_text,
            range_start: i.range_start,
            range_end: i.range_end,
            attachment: Attachment(i.attachment),
        });
        Self { items: items.collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each command with arguments as the UI sends them (ui/src).
    fn as_the_ui_sends() -> Vec<(&'static str, Value)> {
        let (h, c, s) = ("local", "ahp-chat:/c", "ahp-session:/s");
        vec![
            ("app.watch", json!({})),
            ("stream.close", json!({"streamId": 3})),
            ("settings.get", json!({})),
            (
                "settings.save",
                json!({"theme": "dark", "notify": {"approvals": true, "questions": false, "finishedTurns": true,
                    "failures": true}, "newSession": {"host": "local", "agent": "echo", "folder": "file:///w",
                    "worktreeFolders": [{"host": "local", "folder": "file:///w"}]}}),
            ),
            ("settings.open", json!({"place": "logFile"})),
            ("app.about", json!({})),
            ("devices.get", json!({})),
            ("devices.pair", json!({"name": "phone"})),
            ("devices.revoke", json!({"name": "phone"})),
            ("host.probe", json!({"url": "wss://box.lan:8765/"})),
            (
                "host.add",
                json!({"name": "box", "url": "wss://box.lan:8765/", "token": "t", "fingerprint": "AB:CD",
                "insecureTokenFile": null}),
            ),
            ("host.rename", json!({"host": "h1", "name": "big box"})),
            ("host.remove", json!({"host": "h1"})),
            ("host.reconnect", json!({"host": "h1"})),
            ("host.dismissReport", json!({"host": "h1"})),
            ("host.customizations", json!({"host": "h1"})),
            ("session.create", json!({"host": h, "agent": null, "folder": "file:///w"})),
            ("session.fork", json!({"host": h, "chat": c, "turnId": "t"})),
            ("session.rename", json!({"host": h, "session": s, "title": "T"})),
            ("session.archive", json!({"host": h, "session": s, "archived": true, "worktree": {"force": false}})),
            ("session.markRead", json!({"host": h, "session": s, "read": true})),
            ("session.setting", json!({"host": h, "session": s, "key": "mode", "value": "plan"})),
            ("session.restartAgent", json!({"host": h, "session": s})),
            ("session.dispose", json!({"host": h, "session": s, "worktree": {"force": true}})),
            ("session.worktree", json!({"host": h, "session": s})),
            ("folder.list", json!({"host": h})),
            ("chat.open", json!({"host": h, "session": s})),
            (
                "chat.send",
                json!({"host": h, "chat": c, "text": "hi", "model": null,
                "attachments": [{"type": "resource", "label": "a.md", "uri": "file:///w/a.md"}]}),
            ),
            (
                "chat.queue",
                json!({"host": h, "chat": c, "text": "next", "kind": "steering", "model": "m",
                "agent": "file:///w/.claude/agents/r.md"}),
            ),
            ("chat.removeQueued", json!({"host": h, "chat": c, "id": "q1", "kind": "queued"})),
            ("chat.reorderQueued", json!({"host": h, "chat": c, "order": ["b", "a"]})),
            ("chat.cancel", json!({"host": h, "chat": c})),
            (
                "chat.confirm",
                json!({"host": h, "chat": c, "turnId": "t", "toolCallId": "tc", "approved": true, "optionId": null}),
            ),
            ("chat.draft", json!({"host": h, "chat": c, "text": null})),
            (
                "chat.inputAnswer",
                json!({"host": h, "chat": c, "requestId": "r", "questionId": "q",
                "answer": {"state": "draft", "value": {"kind": "text", "value": "x"}}}),
            ),
            (
                "chat.inputComplete",
                json!({"host": h, "chat": c, "requestId": "r", "response": "accept",
                "answers": {"q": {"state": "skipped"}}}),
            ),
            ("chat.retry", json!({"host": h, "chat": c, "turnId": "t"})),
            ("chat.reply", json!({"host": h, "chat": c, "turnId": "t"})),
            ("chat.fetchOlder", json!({"host": h, "chat": c})),
            ("search", json!({"query": "quok", "limit": 5, "cursors": {"h1": "c1"}})),
            ("chat.completions", json!({"host": h, "chat": c, "text": "@a", "offset": 2})),
            (
                "customizations.toggle",
                json!({"host": h, "session": s, "id": "x", "scope": "workspace", "enabled": null}),
            ),
            ("customizations.read", json!({"host": h, "session": s, "uri": "file:///w/.claude/agents/a.md"})),
            ("customizations.version", json!({"host": h, "session": s, "uri": "file:///w/.claude/agents/a.md"})),
            (
                "customizations.save",
                json!({"host": h, "session": s, "uri": "file:///w/a.md", "text": "x", "etag": null, "create": true}),
            ),
            (
                "customizations.transfer",
                json!({"host": h, "session": s, "from": "file:///w/a.md", "to": "file:///w/b.md", "keep": true}),
            ),
            ("customizations.delete", json!({"host": h, "session": s, "uri": "file:///w/a.md", "recursive": false})),
            ("customizations.testMcp", json!({"host": h, "session": s, "id": "mcp-1"})),
            (
                "customizations.testHook",
                json!({"host": h, "session": s, "command": "./check.sh", "input": "{}", "timeoutSecs": 5}),
            ),
            ("markdown.render", json!({"text": "# Title"})),
            ("changes.list", json!({"host": h, "session": s, "turn": null})),
            ("changes.diff", json!({"host": h, "session": s, "turn": "t1", "file": "file:///w/a.rs", "whole": true})),
            (
                "changes.invoke",
                json!({"host": h, "session": s, "turn": null, "operation": "reject", "file": "file:///w/a.rs",
                "lines": [3, 4], "message": null}),
            ),
            ("changes.commitDraft", json!({"host": h, "session": s})),
            ("changes.push", json!({"host": h, "session": s})),
            ("changes.pullRequestDraft", json!({"host": h, "session": s})),
            ("changes.pullRequest", json!({"host": h, "session": s, "title": "T", "body": "B", "base": null})),
            ("changes.mergeBack", json!({"host": h, "session": s, "mode": null})),
            ("changes.review", json!({"host": h, "session": s, "files": ["file:///w/a.rs"], "reviewed": true})),
            ("changes.turnCounts", json!({"host": h, "session": s, "turns": ["t1", "t2"]})),
            ("review.get", json!({"host": h, "session": s})),
            (
                "review.save",
                json!({"host": h, "session": s, "comments": [{"id": "c1", "file": "file:///w/a.rs", "path": "a.rs",
                "firstLine": 2, "lastLine": 3, "side": "new", "quote": ["+x", " y"], "body": "why?"}]}),
            ),
            ("review.send", json!({"host": h, "session": s})),
            ("terminal.read", json!({"host": h, "uri": "ahp-session:/s/terminals/t", "from": 0})),
            ("terminal.input", json!({"host": h, "uri": "ahp-session:/s/terminals/login-1", "data": "fake-user\r"})),
            ("agent.signIn", json!({"host": h, "session": s, "method": "codex-api-key", "key": "sk-1"})),
            ("agents.list", json!({"host": h})),
            ("agents.install", json!({"host": h, "id": "qwen", "version": null})),
            ("agents.remove", json!({"host": h, "id": "qwen"})),
            (
                "agents.saveCustom",
                json!({"host": h, "agent": {"id": "mine", "name": "Mine", "command": "/opt/mine", "args": ["--acp"],
                "env": {"LOG": "1"}}}),
            ),
            ("agents.deleteCustom", json!({"host": h, "id": "mine"})),
            ("agents.pastSessions", json!({"host": h, "agent": "claude", "folder": "file:///w"})),
            ("rules.list", json!({"host": h, "folder": "file:///w"})),
            (
                "rules.save",
                json!({"host": h, "rule": {"scope": {"kind": "folder", "uri": "file:///w"}, "tool": "shell",
                "pattern": "npm test", "decision": "allow"}}),
            ),
            ("rules.delete", json!({"host": h, "id": "r1"})),
            ("usage.get", json!({"host": null, "from": "2026-03-01", "to": null})),
        ]
    }

    #[test]
    fn every_command_round_trips_from_its_wire_name() {
        let sent = as_the_ui_sends();
        let names: Vec<&str> = sent.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, COMMANDS, "one example per command, in table order");
        for (name, args) in sent {
            let command = Command::from_wire(name, args.clone()).unwrap();
            assert_eq!(command.name(), name);
            let wire = serde_json::to_value(&command).unwrap();
            assert_eq!(wire["cmd"], name);
            let again: Command = serde_json::from_value(wire).unwrap();
            assert_eq!(again, command, "{name} survives the wire");
        }
    }

    #[test]
    fn unknown_commands_and_bad_arguments_are_errors() {
        assert!(
            matches!(Command::from_wire("chat.explode", json!({})), Err(WireError::UnknownCommand(n)) if n == "chat.explode")
        );
        for (name, args) in [
            ("chat.send", json!({"host": "local", "text": "no chat"})),
            ("session.archive", json!({"host": "local", "session": "s", "archived": "yes"})),
            ("chat.queue", json!({"host": "local", "chat": "c", "text": "x", "kind": "later"})),
            ("stream.close", Value::Null),
            ("chat.open", json!([1, 2])),
        ] {
            let e = Command::from_wire(name, args).unwrap_err();
            assert!(matches!(&e, WireError::BadArgs { command, .. } if command == name), "{name}: {e}");
        }
        assert!(Command::from_wire("app.watch", Value::Null).is_ok(), "null arguments count as none");
    }
}
