//! A turn's response parts as the UI shows them: markdown pre-rendered to
//! sanitized HTML (in top-level blocks), tool calls with their diffs, input
//! requests, errors.

use serde::Serialize;
use ts_rs::TS;

use super::input::InputRequestView;

/// One response part.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PartView {
    /// The agent's answer, as sanitized HTML.
    Markdown(HtmlPart),
    /// The agent's reasoning, as sanitized HTML.
    Reasoning(HtmlPart),
    /// A tool call.
    ToolCall(ToolCallPart),
    /// The agent asks the user for input.
    InputRequest(InputRequestPart),
    /// The turn failed.
    Error(ErrorPart),
    /// A note from the host or the agent.
    SystemNotification(NotificationPart),
    /// A reference to content held elsewhere.
    ContentRef(ContentRefPart),
    /// A part of a kind this app does not know (shown as nothing).
    Unknown,
}

/// Markdown rendered to sanitized HTML.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HtmlPart {
    /// Part id.
    pub id: String,
    /// Sanitized HTML, one string per top-level block (a paragraph, a list,
    /// a code block …); joined, they are the part's HTML.
    pub blocks: Vec<String>,
}

/// A tool call and the diffs of the files it edits.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallPart {
    /// The tool call (boxed: the largest part by far).
    pub tool_call: Box<ToolCallView>,
    /// File edits, as diffs.
    pub diffs: Vec<DiffView>,
    /// Commands it ran in terminals.
    pub terminals: Vec<TerminalLinkView>,
}

/// A terminal a tool call ran its command in (`terminal.read` follows it).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalLinkView {
    /// The terminal channel's URI.
    pub uri: String,
    /// The command line.
    pub title: String,
    /// Whether the command has ended.
    pub ended: bool,
    /// Its exit code, once ended (none when a signal ended it).
    pub exit_code: Option<i64>,
    /// The end of its output, kept in the tool call once ended (shown when
    /// the channel is gone, e.g. after the host restarted).
    pub preview: Option<String>,
    /// Whether that preview lost older output.
    pub truncated: bool,
}

/// Where a tool call is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum ToolCallStatus {
    /// Its input is still streaming.
    Streaming,
    /// Waiting for the user to allow it.
    PendingConfirmation,
    /// Running.
    Running,
    /// Waiting for an authorization.
    AuthRequired,
    /// Waiting for the user to accept its result.
    PendingResultConfirmation,
    /// Done (`success` says how).
    Completed,
    /// Cancelled (`reason` says why).
    Cancelled,
    /// A state of a newer protocol.
    Unknown,
}

/// A confirmation option the host offers.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmOptionView {
    /// Option id (`chat.confirm`'s `optionId`).
    pub id: String,
    /// Button label.
    pub label: String,
    /// `approve`, `deny`, or a kind of a newer protocol.
    pub kind: String,
}

/// A tool call; messages are plain text.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallView {
    /// Lifecycle state.
    pub status: ToolCallStatus,
    /// Tool call id.
    pub tool_call_id: String,
    /// Tool name.
    pub tool_name: String,
    /// Display name.
    pub display_name: String,
    /// What the agent means to do.
    pub intention: Option<String>,
    /// What the call does, in words.
    pub invocation_message: Option<String>,
    /// The confirmation's title.
    pub confirmation_title: Option<String>,
    /// What the call did, in words.
    pub past_tense_message: Option<String>,
    /// The input, inline (or as streamed so far).
    pub input: Option<String>,
    /// Where the input is held, when not inline.
    pub input_uri: Option<String>,
    /// The options to confirm it (empty: approve or deny).
    pub options: Vec<ConfirmOptionView>,
    /// Whether it succeeded (when completed).
    pub success: Option<bool>,
    /// Its result as text: the text content, else the error.
    pub result: String,
    /// Why it was cancelled.
    pub reason: Option<String>,
    /// The id of the approval rule that answered its confirmation
    /// (`_meta["hangar/rule"]`), when a rule did.
    pub rule: Option<String>,
    /// The rule *Always allow* / *Never allow* prefill
    /// (`_meta["hangar/ruleSuggestion"]`), on a pending confirmation.
    pub rule_suggestion: Option<crate::rules::RuleSuggestion>,
}

/// A line of a diff: added, removed or context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
pub enum DiffTag {
    /// Added.
    #[serde(rename = "+")]
    Added,
    /// Removed.
    #[serde(rename = "-")]
    Removed,
    /// Unchanged.
    #[serde(rename = " ")]
    Context,
}

/// A file edit as unified-diff lines (text only, never HTML).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffView {
    /// The file's URI.
    pub path: String,
    /// Lines added, as the host counted.
    pub added: Option<i64>,
    /// Lines removed, as the host counted.
    pub removed: Option<i64>,
    /// Whether either side's content was known.
    pub known: bool,
    /// The lines.
    pub lines: Vec<(DiffTag, String)>,
    /// Cut at `MAX_DIFF_LINES`.
    pub truncated: bool,
}

/// How the user answered an input request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum InputResponse {
    /// Answered.
    Accept,
    /// Declined.
    Decline,
    /// Cancelled.
    Cancel,
}

/// An input request and, once answered, how.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InputRequestPart {
    /// The request.
    pub request: InputRequestView,
    /// How it was answered.
    pub response: Option<InputResponse>,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ErrorView {
    /// Kind of error.
    pub error_type: String,
    /// Message.
    pub message: String,
}

/// A turn's error.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ErrorPart {
    /// The error.
    pub error: ErrorView,
    /// Whether `chat.retry` may resume the turn.
    pub resumable: Option<bool>,
    /// The agent would not start until the person signs it in: the ways it
    /// offers (then the message can be sent again).
    pub sign_in: Option<super::sign_in::SignInView>,
}

/// A note, as plain text.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NotificationPart {
    /// The note.
    pub content: String,
}

/// Content held elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ContentRefPart {
    /// Its URI.
    pub uri: String,
}
