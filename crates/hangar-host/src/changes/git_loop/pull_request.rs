//! `pullRequest` through the GitHub CLI on the session's host: `gh auth
//! status` must succeed, then `gh pr create` makes it and `gh pr view
//! --json` reads it back ([`view`] reads it again later, for its state).
//! Without `gh` (or signed out) the error carries
//! the exact command line to run instead, quoted for a POSIX shell
//! (`shlex`, not a hand-written quoting).

use std::path::Path;

use super::command;
use super::draft::PullRequestDraft;
use super::state::PullRequest;
use super::GitLoopError;

/// The `gh pr create …` arguments for `draft`.
fn create_args(draft: &PullRequestDraft) -> Vec<&str> {
    vec!["pr", "create", "--title", &draft.title, "--body", &draft.body, "--base", &draft.base, "--head", &draft.head]
}

/// The command line a person would run for `draft`.
pub fn command_line(draft: &PullRequestDraft) -> String {
    let args = std::iter::once("gh").chain(create_args(draft));
    shlex::try_join(args).unwrap_or_else(|_| {
        // Only a NUL byte cannot be quoted; shown as typed.
        format!(
            "gh pr create --title {:?} --body {:?} --base {} --head {}",
            draft.title, draft.body, draft.base, draft.head
        )
    })
}

/// `Err(NoGh)` unless `gh` is installed and signed in.
pub fn check_gh(dir: &Path, draft: &PullRequestDraft) -> Result<(), GitLoopError> {
    let no_gh = |reason: String| GitLoopError::NoGh { reason, command: command_line(draft) };
    match command::run("gh", dir, &["auth", "status"], command::TIMEOUT) {
        Ok(said) if said.ok => Ok(()),
        Ok(said) => Err(no_gh(format!("gh is not signed in on this host ({})", said.both))),
        Err(GitLoopError::Missing { .. }) => Err(no_gh("gh (the GitHub CLI) is not installed on this host".to_owned())),
        Err(other) => Err(other),
    }
}

/// `gh pr create`, then `gh pr view --json url,number,state`.
pub fn create(dir: &Path, draft: &PullRequestDraft) -> Result<PullRequest, GitLoopError> {
    let said = command::run("gh", dir, &create_args(draft), command::TIMEOUT)?;
    if !said.ok {
        return Err(GitLoopError::Refused(format!("gh pr create failed: {}", said.both)));
    }
    let url = said.stdout.lines().rev().map(str::trim).find(|l| l.starts_with("http")).ok_or_else(|| {
        GitLoopError::Refused(format!("gh pr create did not say where the pull request is: {}", said.both))
    })?;
    let viewed = command::run("gh", dir, &["pr", "view", url, "--json", "url,number,state"], command::TIMEOUT)?;
    if viewed.ok {
        if let Ok(pr) = serde_json::from_str::<PullRequest>(&viewed.stdout) {
            return Ok(pr);
        }
    }
    tracing::warn!(url, "gh pr view did not describe the new pull request: {}", viewed.both);
    let number = url.rsplit('/').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    Ok(PullRequest { url: url.to_owned(), number, state: "OPEN".to_owned() })
}

/// `gh pr view <number> --json state,url,number`: the pull request as
/// `gh` sees it now.
pub fn view(dir: &Path, number: u64) -> Result<PullRequest, GitLoopError> {
    let number = number.to_string();
    let viewed = command::run("gh", dir, &["pr", "view", &number, "--json", "state,url,number"], command::TIMEOUT)?;
    if !viewed.ok {
        return Err(GitLoopError::Refused(format!("gh pr view failed: {}", viewed.both)));
    }
    serde_json::from_str(&viewed.stdout)
        .map_err(|e| GitLoopError::Refused(format!("gh pr view said something else ({e}): {}", viewed.both)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_quotes_each_argument_for_a_shell() {
        let draft = PullRequestDraft {
            title: "Fix it's login".into(),
            body: "## Prompts\n\n- $HOME `x`\n".into(),
            base: "main".into(),
            head: "hangar/one".into(),
        };
        let line = command_line(&draft);
        let back = shlex::split(&line).unwrap();
        assert_eq!(
            back,
            [
                "gh",
                "pr",
                "create",
                "--title",
                "Fix it's login",
                "--body",
                &draft.body,
                "--base",
                "main",
                "--head",
                "hangar/one"
            ]
        );
    }
}
