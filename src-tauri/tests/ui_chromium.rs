//! Runs the UI tests (`ui/tests/ui/run.mjs`; `streaming.mjs` for what keeps
//! streaming frames short; `paging.mjs` for the place kept when older turns
//! are prepended; `mentions.mjs` for an `@` mention's attachment;
//! `new-session.mjs` for the new-session dialog and its folder picker;
//! `customization-editor.mjs` for creating and editing a customization file;
//! `customization-entry-forms.mjs` for the MCP server, hook and plugin forms;
//! `host-customizations.mjs` for a host's customizations under home;
//! `customizations.mjs` for the Customizations panel, a toggle and a custom
//! agent against the host's own discovery;
//! `settings.mjs` for the agent's modes and settings in the composer;
//! `app-settings.mjs` for the app's Settings (theme, notifications, New
//! session defaults, kept across a relaunch; a corrupt file moved aside),
//! About (versions) and notices that close;
//! `plan.mjs` for the agent's plan as a checklist;
//! `terminal.mjs` for a command's output in its tool call's terminal;
//! `sign-in.mjs` for signing an agent in (a terminal login, a key kept in a
//! private Secret Service);
//! `agents.mjs` for the Agents page (shown at first launch, a custom agent,
//! an install from npm with its progress, Remove);
//! `changes.mjs` for reviewing an agent's edits hunk by hunk;
//! `review.mjs` for line comments kept across a restart and sent to the
//! agent as one turn; `commit.mjs` for committing only the kept hunks;
//! `git-loop.mjs` for the branch state, Push and Open pull request (a bare
//! repository as `origin`, a stand-in `gh`); `worktree-close.mjs` for
//! keeping or removing a session's worktree on Archive and Dispose;
//! `worktree-default.mjs` for a folder's "start in a new worktree" default;
//! `hosts.mjs` for remote hosts' states, "Add host" and the host menu,
//! against real `hangar serve` processes;
//! `past-sessions.mjs` for continuing one of an agent's own earlier sessions;
//! `usage.mjs` for the context meter, a turn's usage, the chat header at 1280 and
//! 1024 px, and the Usage page with its date range (a bar a week or a month over a long one);
//! `web.mjs` for `hangar serve --web`: pairing a phone-sized browser, a
//! session driven from it, refused codes and pages, revocation, pairing
//! again in the same tab;
//! `devices.mjs` for Settings → Open from other devices: the app's own UI
//! served with both of its hosts, a phone paired from the QR code's link,
//! a message from it seen on the desktop, Revoke, a reused link refused;
//! `search.mjs` for the search palette across this computer, a real
//! `hangar serve` and a host that is down, opening an old turn, and the
//! sidebar's filters);
//! `phone.mjs` for the phone layout at 390×844 with touch (states in words,
//! the approvals first, a confirmation answered, a wrapped diff's hunks
//! undone and kept, nothing wider than the screen, 44 px targets), the
//! browser's outbox across a cut socket and a reload (sent exactly once)
//! and browser notifications): the built
//! UI in headless
//! Chromium against `hangar-desktop-bridge` (`cargo build --workspace` builds it)
//! with the fake ACP agent. Needs `ui/dist` and `ui/node_modules`
//! (`cd ui && npm ci && npm run build`) and Debian's `chromium`. Skipped
//! when those are missing unless `HANGAR_REQUIRE_UI=1` (CI sets it).
//! The scripts run one at a time (each starts a bridge and a Chromium; two
//! at once on a 2-core machine starve each other).

#![allow(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};

/// Held while a UI script runs: the test harness runs tests in parallel.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn ui_in_headless_chromium() {
    run_ui_script("run.mjs");
}

#[test]
fn streaming_renders_in_frames_not_per_op_and_highlights_when_done() {
    run_ui_script("streaming.mjs");
}

#[test]
fn paging_in_older_turns_keeps_the_reader_in_place() {
    run_ui_script("paging.mjs");
}

#[test]
fn a_picked_mention_is_attached_to_the_message() {
    run_ui_script("mentions.mjs");
}

#[test]
fn the_new_session_dialog_fills_in_when_the_host_answers_and_hides_dot_folders() {
    run_ui_script("new-session.mjs");
}

#[test]
fn the_customizations_panel_lists_toggles_and_the_composer_picks_a_custom_agent() {
    run_ui_script("customizations.mjs");
}

#[test]
fn the_composer_offers_the_agent_modes_and_switches_the_running_agent() {
    run_ui_script("settings.mjs");
}

#[test]
fn settings_are_kept_across_a_relaunch_and_about_shows_the_versions() {
    run_ui_script("app-settings.mjs");
}

#[test]
fn the_agent_plan_is_a_checklist_updated_in_place() {
    run_ui_script("plan.mjs");
}

#[test]
fn a_commands_output_shows_live_in_a_read_only_terminal_with_its_exit() {
    run_ui_script("terminal.mjs");
}

#[test]
fn an_agent_that_needs_signing_in_is_signed_in_from_the_chat_by_terminal_login_or_key() {
    run_ui_script("sign-in.mjs");
}

#[test]
fn agents_are_added_installed_with_progress_and_removed_from_the_agents_page() {
    run_ui_script("agents.mjs");
}

#[test]
fn a_customization_is_created_and_edited_and_a_disk_change_is_never_overwritten() {
    run_ui_script("customization-editor.mjs");
}

#[test]
fn mcp_servers_hooks_and_plugins_are_edited_in_forms_and_a_hook_is_tried_on_the_host() {
    run_ui_script("customization-entry-forms.mjs");
}

#[test]
fn a_hosts_customizations_under_home_are_listed_and_edited_with_no_session() {
    run_ui_script("host-customizations.mjs");
}

#[test]
fn changes_are_reviewed_hunk_by_hunk_and_the_disk_follows() {
    run_ui_script("changes.mjs");
}

#[test]
fn line_comments_survive_a_restart_and_go_to_the_agent_as_one_review_turn() {
    run_ui_script("review.mjs");
}

#[test]
fn commit_from_the_changes_panel_holds_only_the_kept_hunks_with_the_edited_message() {
    run_ui_script("commit.mjs");
}

#[test]
fn push_and_a_pull_request_from_the_changes_panel_with_the_branch_state_in_the_header() {
    run_ui_script("git-loop.mjs");
}

#[test]
fn archiving_or_disposing_a_worktree_session_keeps_or_removes_its_worktree_and_never_loses_commits_unasked() {
    run_ui_script("worktree-close.mjs");
}

#[test]
fn a_folder_set_to_start_in_a_worktree_pre_checks_new_session_and_the_choice_is_remembered() {
    run_ui_script("worktree-default.mjs");
}

#[test]
fn remote_hosts_say_their_state_and_are_added_renamed_and_removed() {
    run_ui_script("hosts.mjs");
}

#[test]
fn search_finds_turns_on_every_host_opens_one_and_the_sidebar_filters() {
    run_ui_script("search.mjs");
}

#[test]
fn always_allow_makes_a_rule_that_answers_the_next_request_and_the_rules_page_deletes_it() {
    run_ui_script("rules.mjs");
}

#[test]
fn an_agents_own_earlier_session_is_listed_in_new_session_and_continued_with_its_history() {
    run_ui_script("past-sessions.mjs");
}

#[test]
fn on_a_phone_the_layout_fits_and_a_message_typed_offline_is_sent_exactly_once() {
    run_ui_script("phone.mjs");
}

#[test]
fn the_context_meter_moves_turns_show_their_usage_and_the_usage_page_plots_two_agents() {
    run_ui_script("usage.mjs");
}

/// Run `ui/tests/ui/SCRIPT` with node; skipped (unless required) when its
/// prerequisites are missing.
#[test]
fn hangar_serve_web_pairs_a_phone_browser_that_works_until_revoked() {
    run_ui_script("web.mjs");
}

#[test]
fn open_from_other_devices_pairs_a_phone_that_sees_every_host_until_revoked() {
    run_ui_script("devices.mjs");
}

fn run_ui_script(script: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bridge = hangar_e2e::desktop_bridge_bin();
    let fake = bridge.with_file_name("hangar-fake-agent");
    let hangar = bridge.with_file_name("hangar");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let missing: Vec<String> = [
        (root.join("ui/dist/index.html"), "ui/dist (npm run build)"),
        (root.join("ui/node_modules/playwright-core"), "ui/node_modules (npm ci)"),
        (PathBuf::from(&chromium), "chromium"),
        (fake.clone(), "hangar-fake-agent (cargo build -p hangar-fake-agent)"),
        (hangar.clone(), "hangar (cargo build -p hangar-cli)"),
    ]
    .into_iter()
    .filter(|(p, _)| !p.exists())
    .map(|(_, what)| what.to_owned())
    .collect();
    if !missing.is_empty() {
        assert!(std::env::var_os("HANGAR_REQUIRE_UI").is_none(), "UI tests required but missing: {missing:?}");
        eprintln!("skipped: missing {missing:?}");
        return;
    }
    // A script that failed (panicked) poisons the lock; the next still runs.
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut cmd = Command::new("node");
    cmd.arg(root.join("ui/tests/ui").join(script))
        .env("BRIDGE_BIN", &bridge)
        .env("FAKE_AGENT_BIN", &fake)
        .env("HANGAR_BIN", &hangar)
        .env("CHROMIUM", &chromium);
    if let Some(dir) = std::env::var_os("SCREENSHOT_DIR") {
        cmd.env("SCREENSHOT_DIR", dir);
    }
    let (status, failures) = run_echoing_failures(&mut cmd);
    assert!(status.success(), "UI tests in {script} failed:\n{}", failures.join("\n"));
}

/// Runs `cmd`, echoing its standard output line by line, and returns its
/// exit status with the lines that say a check failed (`FAIL - …` and the
/// lines under it, up to the next `ok`), so the panic repeats them: CI
/// keeps only the tail of a long run's output, where the panic message is.
fn run_echoing_failures(cmd: &mut Command) -> (std::process::ExitStatus, Vec<String>) {
    let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
    let mut failures = Vec::new();
    let mut in_failure = false;
    for line in BufReader::new(child.stdout.take().unwrap()).split(b'\n') {
        let line = String::from_utf8_lossy(&line.unwrap()).into_owned();
        println!("{line}");
        in_failure = line.starts_with("FAIL") || (in_failure && !line.starts_with("ok "));
        if in_failure && failures.len() < 40 {
            failures.push(line.chars().take(1000).collect());
        }
    }
    (child.wait().unwrap(), failures)
}
