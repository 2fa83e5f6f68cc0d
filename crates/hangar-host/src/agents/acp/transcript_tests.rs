//! Every recorded ACP transcript (`tests/e2e/fixtures/acp-transcripts/`,
//! and `../shared/fixtures/acp-transcripts/` beside the checkout when it is
//! there, required with `HANGAR_REQUIRE_SHARED_FIXTURES` set) replayed
//! in-process through the turn mapping (`test_support/replay.rs`) into a
//! chat reduced with `ahp::reducers`,
//! one table row per transcript with the chat it must leave: how the turn
//! ended, its markdown, its tool calls (id, tool name, final title and
//! state), the confirmation shown and the host's answer to the agent (which
//! must be what the recorded client answered), the plan and the usage.
//! A transcript without a row fails, so a new recording gets one, and a
//! shared transcript that differs from the repository's copy fails.

use std::path::{Path, PathBuf};

use ahp_types::common::StringOrMarkdown;
use ahp_types::state::{ResponsePart, ToolCallCancellationReason, ToolCallState, ToolResultContent, TurnState};

use super::test_support::replay::{replay, Replayed};

/// The agents' first words in the scripted turn.
const ACK: &str = "I'll do that now.";
/// Their last.
const DONE: &str = "Done: replaced 'world' with 'ACP' in hello.txt.";

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    /// Completed, successfully.
    Done,
    /// Completed, failed.
    Failed,
    /// Cancelled: the user denied it (with the option the host answered).
    Denied,
    /// Cancelled with the turn.
    Skipped,
    /// Not ended: the mapping left it open.
    Open,
}
use End::{Denied, Done, Skipped};

/// A tool call: id, tool name, final title (past tense when completed,
/// else the invocation message), how it ended.
struct Tool(&'static str, &'static str, &'static str, End);

/// One transcript and the chat it must leave.
struct Row {
    file: &'static str,
    /// How the one turn ended.
    state: TurnState,
    /// Its markdown parts, in order.
    text: &'static [&'static str],
    /// Its tool calls, in order.
    tools: &'static [Tool],
    /// The options the confirmation showed (by id).
    shown: &'static [&'static str],
    /// The option the host answered the agent with (`None`: cancelled).
    answer: Option<&'static str>,
    /// The plan checklist.
    plan: Option<&'static str>,
    /// Input and output tokens (`(None, None)`: the agent reported only
    /// its context use, which is not tokens).
    usage: Option<(Option<i64>, Option<i64>)>,
}

const ROWS: &[Row] = &[
    Row {
        file: "claude.cancel.jsonl",
        state: TurnState::Cancelled,
        text: &[ACK, ACK],
        tools: &[
            Tool("toolu_ddfff4b9896345839771", "read", "Read hello.txt", Done),
            Tool("toolu_b7b3e636d95b464fb4f8", "edit", "Edit hello.txt", Skipped),
        ],
        shown: &["allow_always", "allow", "reject"],
        answer: None,
        plan: None,
        usage: None,
    },
    Row {
        file: "claude.gateway.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("toolu_d98a91c10def4fc88b31", "read", "Read hello.txt", Done),
            Tool("toolu_7440b0442cc74868af8f", "edit", "Edit hello.txt", Done),
        ],
        shown: &["allow_always", "allow", "reject"],
        answer: Some("allow"),
        plan: None,
        usage: Some((Some(300), Some(60))),
    },
    Row {
        file: "claude.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("toolu_fda3dfc4da15406ab3f8", "read", "Read hello.txt", Done),
            Tool("toolu_2f4cfc8596c64294bfd8", "edit", "Edit hello.txt", Done),
        ],
        shown: &["allow_always", "allow", "reject"],
        answer: Some("allow"),
        plan: None,
        usage: Some((Some(300), Some(60))),
    },
    Row {
        file: "claude.plan.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, ACK, DONE],
        tools: &[
            Tool("plan-turn-1", "plan", "Plan", Done),
            Tool("toolu_f69d615516a54655bc25", "read", "Read hello.txt", Done),
            Tool("toolu_d73f4f8912c1401b8e1c", "edit", "Edit hello.txt", Done),
        ],
        shown: &["allow_always", "allow", "reject"],
        answer: Some("allow"),
        plan: Some("- [~] Read hello.txt\n- [ ] Replace the word\n"),
        usage: Some((Some(400), Some(80))),
    },
    Row {
        // Denied stays cancelled though claude then reports the call `failed`.
        file: "claude.reject.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("toolu_9aeb5934640b43119763", "read", "Read hello.txt", Done),
            Tool("toolu_6403b24be5b547b88765", "edit", "Edit hello.txt", Denied),
        ],
        shown: &["allow_always", "allow", "reject"],
        answer: Some("reject"),
        plan: None,
        usage: Some((Some(300), Some(60))),
    },
    Row {
        // The client cancelled on the confirmation; codex's later usage update is dropped.
        file: "codex.cancel.jsonl",
        state: TurnState::Cancelled,
        text: &[ACK, ACK],
        tools: &[
            Tool("call_b1947e7bac654d73", "read", "Read hello.txt", Done),
            Tool("call_8e09f4401b304c09", "edit", "Edit /workspace/hello.txt", Skipped),
        ],
        shown: &["approved", "abort"],
        answer: None,
        plan: None,
        usage: Some((None, None)),
    },
    Row {
        file: "codex.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("call_5751014cf20c4975", "read", "Read hello.txt", Done),
            Tool("call_18dca4b447024b0f", "edit", "Edit /workspace/hello.txt", Done),
        ],
        shown: &["approved", "abort"],
        answer: Some("approved"),
        plan: None,
        usage: Some((None, None)),
    },
    Row {
        file: "codex.plan.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, ACK, DONE],
        tools: &[
            Tool("plan-turn-1", "plan", "Plan", Done),
            Tool("call_5a6a42f303aa4a3c", "read", "Read hello.txt", Done),
            Tool("call_b6ae2c3586e94bf6", "edit", "Edit /workspace/hello.txt", Done),
        ],
        shown: &["approved", "abort"],
        answer: Some("approved"),
        plan: Some("- [~] Read hello.txt\n- [ ] Replace the word\n"),
        usage: Some((None, None)),
    },
    Row {
        // codex answers a denial by ending the prompt `cancelled`.
        file: "codex.reject.jsonl",
        state: TurnState::Cancelled,
        text: &[ACK, ACK],
        tools: &[
            Tool("call_bf34bbf4f03c4ba5", "read", "Read hello.txt", Done),
            Tool("call_f7de467d4bf34f29", "edit", "Edit /workspace/hello.txt", Denied),
        ],
        shown: &["approved", "abort"],
        answer: Some("abort"),
        plan: None,
        usage: Some((None, None)),
    },
    Row {
        file: "copilot.cancel.jsonl",
        state: TurnState::Cancelled,
        text: &[ACK, ACK],
        tools: &[
            Tool("call_3e3dfe8553164054", "read", "Viewing /workspace/hello.txt", Done),
            Tool("call_dcbbb48704fd49d4", "edit", "Edit file", Skipped),
        ],
        shown: &["allow_once", "allow_always", "reject_once"],
        answer: None,
        plan: None,
        usage: Some((None, None)),
    },
    Row {
        file: "copilot.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("call_5a7e2880247648e3", "read", "Viewing /workspace/hello.txt", Done),
            Tool("call_a3a77ea0f6954b5a", "edit", "Edit file", Done),
        ],
        shown: &["allow_once", "allow_always", "reject_once"],
        answer: Some("allow_once"),
        plan: None,
        usage: Some((Some(300), Some(60))),
    },
    Row {
        // copilot says so itself, and the edit's title came with the permission request.
        file: "copilot.reject.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, "Info: Operation cancelled by user"],
        tools: &[
            Tool("call_6ca4576eea944f37", "read", "Viewing /workspace/hello.txt", Done),
            Tool("call_50423ff5b9de4ec7", "edit", "Edit file", Denied),
        ],
        shown: &["allow_once", "allow_always", "reject_once"],
        answer: Some("reject_once"),
        plan: None,
        usage: Some((Some(200), Some(40))),
    },
    Row {
        file: "gemini.cancel.jsonl",
        state: TurnState::Cancelled,
        text: &[ACK, ACK],
        tools: &[
            Tool("read_file__read_file_1795313028031_0", "read", "hello.txt", Done),
            Tool("replace__replace_1795313028194_0", "edit", "hello.txt: world => ACP", Skipped),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: None,
        plan: None,
        usage: None,
    },
    Row {
        file: "gemini.gateway.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("read_file__read_file_1795313156720_0", "read", "hello.txt", Done),
            Tool("replace__replace_1795313156928_0", "edit", "hello.txt: world => ACP", Done),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: Some("proceed_once"),
        plan: None,
        usage: None,
    },
    Row {
        file: "gemini.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("read_file__read_file_1795312728345_0", "read", "hello.txt", Done),
            Tool("replace__replace_1795312728614_0", "edit", "hello.txt: world => ACP", Done),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: Some("proceed_once"),
        plan: None,
        usage: None,
    },
    Row {
        file: "gemini.reject.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("read_file__read_file_1795312992463_0", "read", "hello.txt", Done),
            Tool("replace__replace_1795312992592_0", "edit", "hello.txt: world => ACP", Denied),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: Some("cancel"),
        plan: None,
        usage: None,
    },
    Row {
        file: "opencode.cancel.jsonl",
        state: TurnState::Cancelled,
        text: &[ACK, ACK],
        tools: &[
            Tool("call_52ae57119d874cd7", "read", "hello.txt", Done),
            Tool("call_ed057d9a9fe44983", "edit", "/workspace/hello.txt", Skipped),
        ],
        shown: &["once", "always", "reject"],
        answer: None,
        plan: None,
        usage: None,
    },
    Row {
        file: "opencode.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("call_0f31c7a9139e4ac3", "read", "hello.txt", Done),
            Tool("call_1fae6cc022384671", "edit", "hello.txt", Done),
        ],
        shown: &["once", "always", "reject"],
        answer: Some("once"),
        plan: None,
        usage: Some((Some(100), Some(20))),
    },
    Row {
        // opencode's todo tool is a plain tool call, not an ACP `plan`.
        file: "opencode.plan.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, ACK, DONE],
        tools: &[
            Tool("call_76cf1fb37cad454c", "other", "2 todos", Done),
            Tool("call_5b6b6385782d4e11", "read", "hello.txt", Done),
            Tool("call_d4e38e611836473b", "edit", "hello.txt", Done),
        ],
        shown: &["once", "always", "reject"],
        answer: Some("once"),
        plan: None,
        usage: Some((Some(100), Some(20))),
    },
    Row {
        file: "opencode.reject.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK],
        tools: &[
            Tool("call_e324527a90a447fc", "read", "hello.txt", Done),
            Tool("call_8d629526e8434c31", "edit", "/workspace/hello.txt", Denied),
        ],
        shown: &["once", "always", "reject"],
        answer: Some("reject"),
        plan: None,
        usage: Some((Some(100), Some(20))),
    },
    Row {
        // Qwen Code reports each model call's tokens in an empty message
        // chunk's `_meta.usage`: the turn has their sum.
        file: "qwen.cancel.jsonl",
        state: TurnState::Cancelled,
        text: &[ACK, ACK],
        tools: &[
            Tool("call_dda3900e80d944ce", "read", "ReadFile: hello.txt", Done),
            Tool("call_1ea485cb09504dea", "edit", "hello.txt: world => ACP", Skipped),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: None,
        plan: None,
        usage: Some((Some(200), Some(40))),
    },
    Row {
        file: "qwen.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("call_7417ee1a2d3b4d0a", "read", "ReadFile: hello.txt", Done),
            Tool("call_a197c58e27b445a0", "edit", "hello.txt: world => ACP", Done),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: Some("proceed_once"),
        plan: None,
        usage: Some((Some(300), Some(60))),
    },
    Row {
        file: "qwen.plan.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, ACK, DONE],
        tools: &[
            Tool("plan-turn-1", "plan", "Plan", Done),
            Tool("call_432d5b88bf2642fd", "read", "ReadFile: hello.txt", Done),
            Tool("call_a8454bb8bcf9469d", "edit", "hello.txt: world => ACP", Done),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: Some("proceed_once"),
        plan: Some("- [~] Read hello.txt\n- [ ] Replace the word\n"),
        usage: Some((Some(400), Some(80))),
    },
    Row {
        file: "qwen.reject.jsonl",
        state: TurnState::Complete,
        text: &[ACK, ACK, DONE],
        tools: &[
            Tool("call_2df70db0d71145dc", "read", "ReadFile: hello.txt", Done),
            Tool("call_eb809d9c0b284101", "edit", "hello.txt: world => ACP", Denied),
        ],
        shown: &["proceed_always", "proceed_once", "cancel"],
        answer: Some("cancel"),
        plan: None,
        usage: Some((Some(300), Some(60))),
    },
    Row {
        // The ACP TypeScript SDK's example agent: its own script, no usage.
        file: "sdk.jsonl",
        state: TurnState::Complete,
        text: &[
            "I'll help you with that. Let me start by reading some files to understand the current situation.",
            " Now I understand the project structure. I need to make some changes to improve it.",
            " Perfect! I've successfully updated the configuration. The changes have been applied.",
        ],
        tools: &[
            Tool("call_1", "read", "Reading project files", Done),
            Tool("call_2", "edit", "Modifying critical configuration file", Done),
        ],
        shown: &["allow", "reject"],
        answer: Some("allow"),
        plan: None,
        usage: None,
    },
];

fn row(file: &str) -> Option<&'static Row> {
    ROWS.iter().find(|r| r.file == file)
}

/// The transcript folders: the repository's, and the shared one when
/// present (required when `HANGAR_REQUIRE_SHARED_FIXTURES` is set, as
/// `scripts/test.sh` does).
fn folders() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = here.join("../../tests/e2e/fixtures/acp-transcripts");
    let shared = here.join("../../../shared/fixtures/acp-transcripts");
    if !shared.is_dir() && std::env::var_os("HANGAR_REQUIRE_SHARED_FIXTURES").is_some() {
        panic!("HANGAR_REQUIRE_SHARED_FIXTURES is set but {} is missing", shared.display());
    }
    std::iter::once(repo).chain(shared.is_dir().then_some(shared)).collect()
}

fn transcripts(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn plain(text: &StringOrMarkdown) -> &str {
    match text {
        StringOrMarkdown::Plain(s) => s,
        StringOrMarkdown::Markdown { markdown } => markdown,
    }
}

/// A tool call as the table states it.
type Facts = (String, String, String, End);

/// The facts of a tool call, and the option a denied one selected.
fn tool_facts(state: &ToolCallState) -> (Facts, Option<String>) {
    match state {
        ToolCallState::Completed(c) => {
            let end = if c.success { Done } else { End::Failed };
            let title = plain(&c.past_tense_message).to_owned();
            ((c.tool_call_id.clone(), c.tool_name.clone(), title, end), None)
        }
        ToolCallState::Cancelled(c) => {
            let end = if c.reason == ToolCallCancellationReason::Denied { Denied } else { Skipped };
            let title = plain(&c.invocation_message).to_owned();
            (
                (c.tool_call_id.clone(), c.tool_name.clone(), title, end),
                c.selected_option.as_ref().map(|o| o.id.clone()),
            )
        }
        other => {
            let v = serde_json::to_value(other).unwrap();
            let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            ((field("toolCallId"), field("toolName"), String::new(), End::Open), None)
        }
    }
}

/// What differs between the replayed chat and `row`.
fn mismatches(row: &Row, replayed: &Replayed) -> Vec<String> {
    let mut bad = Vec::new();
    let mut expect = |what: &str, got: String, want: String| {
        if got != want {
            bad.push(format!("{what}: got {got}, want {want}"));
        }
    };
    let chat = replayed.host.chat_state();
    expect(
        "turns (ended, active)",
        format!("{:?}", (chat.turns.len(), chat.active_turn.is_some())),
        "(1, false)".into(),
    );
    let Some(turn) = chat.turns.first() else {
        return bad;
    };
    expect("turn state", format!("{:?}", turn.state), format!("{:?}", row.state));
    let text: Vec<&str> = turn
        .response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::Markdown(m) => Some(m.content.as_str()),
            _ => None,
        })
        .collect();
    expect("markdown", format!("{text:?}"), format!("{:?}", row.text));
    let calls: Vec<(Facts, Option<String>)> = turn
        .response_parts
        .iter()
        .filter_map(|p| match p {
            ResponsePart::ToolCall(t) => Some(tool_facts(&t.tool_call)),
            _ => None,
        })
        .collect();
    let tools: Vec<&Facts> = calls.iter().map(|(t, _)| t).collect();
    let want: Vec<Facts> = row.tools.iter().map(|t| (t.0.to_owned(), t.1.to_owned(), t.2.to_owned(), t.3)).collect();
    expect("tool calls", format!("{tools:?}"), format!("{want:?}"));
    for (t, selected) in calls.iter().filter(|(t, _)| t.3 == Denied) {
        expect(&format!("option selected on denied {}", t.0), format!("{selected:?}"), format!("{:?}", row.answer));
    }
    let plan = turn.response_parts.iter().find_map(|p| match p {
        ResponsePart::ToolCall(t) => match &t.tool_call {
            ToolCallState::Completed(c) if c.tool_name == "plan" => c.content.iter().flatten().find_map(|c| match c {
                ToolResultContent::Text(t) => Some(t.text.clone()),
                _ => None,
            }),
            _ => None,
        },
        _ => None,
    });
    expect("plan", format!("{plan:?}"), format!("{:?}", row.plan));
    let usage = turn.usage.as_ref().map(|u| (u.input_tokens, u.output_tokens));
    expect("usage", format!("{usage:?}"), format!("{:?}", row.usage));
    // The one confirmation: what it showed, which tool it was for, and
    // the host's answer to the agent, which must be the recorded client's.
    let edit = row.tools.iter().find(|t| t.1 == "edit").map(|t| t.0.to_owned());
    match replayed.answers.as_slice() {
        [answer] => {
            expect("confirmation shown", format!("{:?}", answer.shown), format!("{:?}", row.shown));
            expect("confirmation of", format!("{:?}", answer.tool_call_id), format!("{edit:?}"));
            expect(
                "host answer = recorded answer",
                format!("{:?}", answer.host),
                format!("{:?}", Some(&answer.recorded)),
            );
            let chosen = answer.host.as_ref().and_then(|h| h.pointer("/outcome/optionId")).and_then(|v| v.as_str());
            expect("option answered", format!("{chosen:?}"), format!("{:?}", row.answer));
        }
        other => expect("permission requests answered", other.len().to_string(), "1".into()),
    }
    // Every action the mapping emits is applied and changes the chat.
    let wasted: Vec<String> = replayed
        .host
        .emitted()
        .iter()
        .filter(|e| !(e.applied && e.changed))
        .map(|e| format!("{} {}", e.channel, serde_json::to_string(&e.action).unwrap()))
        .collect();
    expect("actions refused or without effect", format!("{wasted:?}"), "[]".into());
    bad
}

#[test]
fn every_transcript_has_one_row() {
    let mut missing = Vec::new();
    for folder in folders() {
        for path in transcripts(&folder) {
            let name = name(&path);
            if ROWS.iter().filter(|r| r.file == name).count() != 1 {
                missing.push(path.display().to_string());
            }
        }
    }
    assert!(missing.is_empty(), "transcripts without exactly one row: {missing:#?}");
    let repo = &folders()[0];
    let stale: Vec<&str> = ROWS.iter().map(|r| r.file).filter(|f| !repo.join(f).is_file()).collect();
    assert!(stale.is_empty(), "rows without a transcript in {}: {stale:?}", repo.display());
}

/// A transcript updated in one place only: every shared transcript the
/// repository also holds is byte for byte the repository's copy.
#[test]
fn shared_transcripts_are_the_repositorys() {
    let folders = folders();
    let (repo, shared) = (&folders[0], &folders[1..]);
    let drifted: Vec<String> = shared
        .iter()
        .flat_map(|folder| transcripts(folder))
        .filter(|path| {
            let mine = repo.join(name(path));
            mine.is_file() && std::fs::read(&mine).unwrap() != std::fs::read(path).unwrap()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(drifted.is_empty(), "shared transcripts that differ from {}: {drifted:#?}", repo.display());
}

#[test]
fn every_transcript_replays_into_its_chat() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for folder in folders() {
        for path in transcripts(&folder) {
            let Some(row) = row(&name(&path)) else {
                continue;
            };
            replayed += 1;
            for m in mismatches(row, &replay(&path)) {
                failures.push(format!("{}: {m}", path.display()));
            }
        }
    }
    assert!(replayed >= ROWS.len(), "replayed {replayed} transcripts for {} rows", ROWS.len());
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}
