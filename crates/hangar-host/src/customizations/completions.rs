//! `/` completions: the session's enabled prompts and skills, offered when
//! the first word of a message starts with `/`. Choosing one inserts
//! `/name ` and attaches the prompt or skill file as a `resource`
//! (`displayKind` `prompt` / `skill`), so an agent that does not read that
//! file by itself still receives it with the message.

use ahp_types::commands::{CompletionItem, CompletionItemKind, CompletionsParams, CompletionsResult};
use ahp_types::state::{ChildCustomization, Customization, MessageAttachment, MessageResourceAttachment};
use ahp_types::state::{TextPosition, TextRange};

use crate::resources::completions::{utf16_len, word_at};
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
    let mut matches: Vec<&SlashCommand> = commands.iter().filter(|c| c.name.to_lowercase().contains(&query)).collect();
    // Prefix matches first, then the rest, each alphabetical.
    matches.sort_by_key(|c| (!c.name.to_lowercase().starts_with(&query), c.name.clone()));
    let items = matches
        .into_iter()
        .take(MAX_ITEMS)
        .map(|c| {
            let insert_text = format!("/{} ", c.name);
            let end = word.column16 + utf16_len(insert_text.trim_end());
            CompletionItem {
                insert_text,
                range_start: Some(word.start16),
                range_end: Some(params.offset),
                attachment: MessageAttachment::Resource(MessageResourceAttachment {
                    label: format!("/{}", c.name),
                    range: Some(TextRange {
                        start: TextPosition { line: word.line, character: word.column16 },
                        end: TextPosition { line: word.line, character: end },
                    }),
                    display_kind: Some(c.kind.to_owned()),
                    meta: c.description.as_ref().map(|d| {
                        let mut meta = serde_json::Map::new();
                        meta.insert("description".to_owned(), d.clone().into());
                        meta
                    }),
                    uri: c.uri.clone(),
                    size_hint: None,
                    content_type: Some("text/markdown".to_owned()),
                    nonce: None,
                    selection: None,
                }),
            }
        })
        .collect();
    Ok(Some(CompletionsResult { items }))
}
