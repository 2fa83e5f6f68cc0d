//! `/` completions, offered when the first word of a message starts with `/`:
//! - the agent's own commands (ACP `available_commands_update`): choosing
//!   one inserts `/name ` and attaches a `simple` attachment (`displayKind`
//!   `command`, `_meta` `hangar.agentCommand`, the description and argument
//!   hint) that is not sent to the agent: the text carries the command, which
//!   the agent runs itself;
//! - the session's enabled prompts and skills: choosing one inserts
//!   `/name ` and attaches the prompt or skill file as a `resource`
//!   (`displayKind` `prompt` / `skill`), so an agent that does not read that
//!   file by itself still receives it with the message.
//!
//! A name both offer is the agent's (it runs its own), listed once.

use ahp_types::commands::{CompletionItem, CompletionItemKind, CompletionsParams, CompletionsResult};
use ahp_types::state::{
    ChildCustomization, Customization, MessageAttachment, MessageResourceAttachment, SimpleMessageAttachment,
};
use ahp_types::state::{TextPosition, TextRange};

use crate::resources::mention_completions::{utf16_len, word_at};
use crate::RpcError;

/// Most items one answer carries.
const MAX_ITEMS: usize = 50;

/// A prompt or skill offered as a `/` command.
#[derive(Debug, Clone, PartialEq)]
pub struct SlashCommand {
    /// The command (without `/`).
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// The file.
    pub uri: String,
    /// `prompt` or `skill`.
    pub kind: &'static str,
}

/// A command the agent offers itself (ACP `available_commands_update`).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCommand {
    /// The command (without `/`).
    pub name: String,
    /// What it does.
    pub description: String,
    /// What to type after it, when it takes input.
    pub hint: Option<String>,
}

/// The `_meta` key that marks an agent command's attachment.
pub const AGENT_COMMAND_META: &str = "hangar.agentCommand";

/// One offer: the agent's command or a prompt/skill file.
enum Offer<'a> {
    Agent(&'a AgentCommand),
    File(&'a SlashCommand),
}

impl Offer<'_> {
    fn name(&self) -> &str {
        match self {
            Offer::Agent(c) => &c.name,
            Offer::File(c) => &c.name,
        }
    }
}

/// The enabled, unshadowed prompts and skills of `tree`, by name.
pub fn slash_commands(tree: &[Customization]) -> Vec<SlashCommand> {
    let mut out: Vec<SlashCommand> = Vec::new();
    for container in tree {
        let (on, children) = match container {
            Customization::Plugin(p) => (super::enablement::effective_enablement(p.enablement.as_deref()), &p.children),
            Customization::Directory(d) => (d.enabled, &d.children),
            _ => continue,
        };
        if !on {
            continue;
        }
        for child in children.iter().flatten() {
            let (kind, id_name, uri, description, enabled, meta) = match child {
                ChildCustomization::Prompt(p) => ("prompt", &p.name, &p.uri, &p.description, p.enabled, &p.meta),
                ChildCustomization::Skill(s) => ("skill", &s.name, &s.uri, &s.description, s.enabled, &s.meta),
                _ => continue,
            };
            let shadowed = meta.as_ref().is_some_and(|m| m.contains_key("hangar.shadowedBy"));
            if enabled == Some(false) || shadowed || out.iter().any(|c| &c.name == id_name) {
                continue;
            }
            out.push(SlashCommand { name: id_name.clone(), description: description.clone(), uri: uri.clone(), kind });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The `/` completions for `params`, or `None` when the cursor is not in a
/// first word starting with `/` (then other completions apply).
pub fn slash_completions(
    agent: &[AgentCommand],
    commands: &[SlashCommand],
    params: &CompletionsParams,
) -> Result<Option<CompletionsResult>, RpcError> {
    if params.kind != CompletionItemKind::UserMessage {
        return Ok(None);
    }
    let Some(word) = word_at(&params.text, params.offset, '/')? else {
        return Ok(None);
    };
    let before = params.text.encode_utf16().take(usize::try_from(word.start16).unwrap_or(usize::MAX));
    if !char::decode_utf16(before).all(|c| c.is_ok_and(char::is_whitespace)) {
        // Only the message's first word is a command.
        return Ok(None);
    }
    let query = word.query.to_lowercase();
    let offers = agent
        .iter()
        .map(Offer::Agent)
        .chain(commands.iter().filter(|c| !agent.iter().any(|a| a.name == c.name)).map(Offer::File));
    let mut matches: Vec<Offer> = offers.filter(|o| o.name().to_lowercase().contains(&query)).collect();
    // Prefix matches first, then the rest, each alphabetical.
    matches.sort_by_key(|o| (!o.name().to_lowercase().starts_with(&query), o.name().to_owned()));
    let items = matches
        .into_iter()
        .take(MAX_ITEMS)
        .map(|offer| {
            let insert_text = format!("/{} ", offer.name());
            let end = word.column16 + utf16_len(insert_text.trim_end());
            let label = format!("/{}", offer.name());
            let range = Some(TextRange {
                start: TextPosition { line: word.line, character: word.column16 },
                end: TextPosition { line: word.line, character: end },
            });
            let attachment = match offer {
                Offer::Agent(c) => MessageAttachment::Simple(SimpleMessageAttachment {
                    label,
                    range,
                    display_kind: Some("command".to_owned()),
                    model_representation: None,
                    meta: Some(meta(
                        Some(&c.description),
                        [(AGENT_COMMAND_META, true.into())]
                            .into_iter()
                            .chain(c.hint.as_ref().map(|h| ("hint", h.clone().into()))),
                    )),
                }),
                Offer::File(c) => MessageAttachment::Resource(MessageResourceAttachment {
                    label,
                    range,
                    display_kind: Some(c.kind.to_owned()),
                    meta: c.description.as_ref().map(|d| meta(Some(d), std::iter::empty())),
                    uri: c.uri.clone(),
                    size_hint: None,
                    content_type: Some("text/markdown".to_owned()),
                    nonce: None,
                    selection: None,
                }),
            };
            CompletionItem { insert_text, range_start: Some(word.start16), range_end: Some(params.offset), attachment }
        })
        .collect();
    Ok(Some(CompletionsResult { items }))
}

/// An attachment's `_meta`: its description, then `extra`.
fn meta<'a>(
    description: Option<&String>,
    extra: impl Iterator<Item = (&'a str, serde_json::Value)>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut meta = serde_json::Map::new();
    if let Some(d) = description {
        meta.insert("description".to_owned(), d.clone().into());
    }
    meta.extend(extra.map(|(k, v)| (k.to_owned(), v)));
    meta
}

/// Whether `attachment` is an agent command's (its text is in the message:
/// nothing to send).
pub fn is_agent_command(attachment: &MessageAttachment) -> bool {
    matches!(attachment, MessageAttachment::Simple(s)
        if s.meta.as_ref().is_some_and(|m| m.contains_key(AGENT_COMMAND_META)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(text: &str) -> CompletionsParams {
        CompletionsParams {
            channel: "ahp-chat:/c".to_owned(),
            meta: None,
            kind: CompletionItemKind::UserMessage,
            text: text.to_owned(),
            offset: text.encode_utf16().count() as i64,
        }
    }

    fn prompt(name: &str) -> SlashCommand {
        SlashCommand { name: name.to_owned(), description: None, uri: format!("file:///w/{name}.md"), kind: "prompt" }
    }

    fn command(name: &str, hint: Option<&str>) -> AgentCommand {
        AgentCommand { name: name.to_owned(), description: format!("{name} it"), hint: hint.map(str::to_owned) }
    }

    #[test]
    fn the_agents_commands_and_the_files_are_offered_once_each() {
        let agent = [command("review", Some("focus")), command("init", None)];
        let files = [prompt("review"), prompt("release")];
        let result = slash_completions(&agent, &files, &params("/re")).unwrap().unwrap();
        let offered: Vec<(&str, bool)> =
            result.items.iter().map(|i| (i.insert_text.as_str(), is_agent_command(&i.attachment))).collect();
        assert_eq!(offered, [("/release ", false), ("/review ", true)], "prefix matches, the agent's review once");
        let MessageAttachment::Simple(review) = &result.items[1].attachment else { panic!("not simple") };
        let meta = review.meta.as_ref().unwrap();
        assert_eq!(meta["hint"], "focus");
        assert_eq!(meta["description"], "review it");
        assert_eq!(review.display_kind.as_deref(), Some("command"));
    }

    #[test]
    fn only_the_first_word_is_a_command() {
        let agent = [command("review", None)];
        assert!(slash_completions(&agent, &[], &params("please /re")).unwrap().is_none());
    }
}
