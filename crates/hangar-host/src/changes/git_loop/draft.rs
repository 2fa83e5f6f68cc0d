//! Drafts the person edits before anything is made: a commit message
//! (`commitDraft`) and a pull request's title and body
//! (`pullRequestDraft`, and `pullRequest` when they are not given), from
//! the session's title, its turns' prompts and the branch's commits.

use serde::Serialize;

/// At most this many prompts are listed.
const PROMPTS: usize = 20;

/// What a draft is made from.
#[derive(Debug, Clone, Default)]
pub struct Session<'a> {
    /// The session's id (its URI).
    pub id: &'a str,
    /// Its title; may be empty.
    pub title: &'a str,
    /// Its turns' prompts, oldest first.
    pub prompts: Vec<String>,
}

/// A drafted pull request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PullRequestDraft {
    /// Its title.
    pub title: String,
    /// Its body (Markdown).
    pub body: String,
    /// The branch it merges into.
    pub base: String,
    /// The branch it proposes.
    pub head: String,
}

/// A commit on the branch: (full id, subject).
pub type Commit = (String, String);

fn first_lines(prompts: &[String]) -> impl Iterator<Item = &str> {
    prompts.iter().filter_map(|p| p.lines().map(str::trim).find(|l| !l.is_empty())).take(PROMPTS)
}

/// The session's title as a first line, then one `- <prompt>` per turn.
pub fn commit_message(session: &Session<'_>) -> String {
    let title = session.title.trim();
    let mut message = if title.is_empty() { format!("Changes from {}", session.id) } else { title.to_owned() };
    let listed: Vec<String> = first_lines(&session.prompts).map(|p| format!("- {p}")).collect();
    if !listed.is_empty() {
        message.push_str("\n\n");
        message.push_str(&listed.join("\n"));
    }
    message
}

/// Title: the session's title, else the first commit's subject, else the
/// branch; body: the prompts and the commits.
pub fn pull_request(session: &Session<'_>, commits: &[Commit], base: &str, head: &str) -> PullRequestDraft {
    let title = match session.title.trim() {
        "" => commits.first().map_or_else(|| head.to_owned(), |(_, subject)| subject.clone()),
        title => title.to_owned(),
    };
    let mut body = String::new();
    let prompts: Vec<String> = first_lines(&session.prompts).map(|p| format!("- {p}")).collect();
    if !prompts.is_empty() {
        body.push_str(&format!("## Prompts\n\n{}\n", prompts.join("\n")));
    }
    if !commits.is_empty() {
        let listed: Vec<String> =
            commits.iter().map(|(id, subject)| format!("- {subject} ({})", id.get(..8).unwrap_or(id))).collect();
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&format!("## Commits\n\n{}\n", listed.join("\n")));
    }
    PullRequestDraft { title, body, base: base.to_owned(), head: head.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafts_come_from_the_title_the_prompts_and_the_commits() {
        let prompts = vec!["Fix the login\nmore detail".to_owned(), "\n  add a test ".to_owned()];
        let s = Session { id: "ahp-session:/1", title: "Login fix", prompts };
        assert_eq!(commit_message(&s), "Login fix\n\n- Fix the login\n- add a test");
        let untitled = Session { id: "ahp-session:/1", title: " ", prompts: Vec::new() };
        assert_eq!(commit_message(&untitled), "Changes from ahp-session:/1");

        let commits = vec![("0123456789ab".to_owned(), "First".to_owned())];
        let pr = pull_request(&s, &commits, "main", "hangar/1");
        assert_eq!(pr.title, "Login fix");
        assert_eq!(pr.body, "## Prompts\n\n- Fix the login\n- add a test\n\n## Commits\n\n- First (01234567)\n");
        assert_eq!(pull_request(&untitled, &commits, "main", "h").title, "First");
        assert_eq!(pull_request(&untitled, &[], "main", "h").title, "h");
    }
}
