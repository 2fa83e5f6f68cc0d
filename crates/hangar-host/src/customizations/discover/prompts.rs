//! A prompt file (`.prompt.md`, Codex prompts, Gemini/Qwen/OpenCode
//! commands in Markdown or TOML) as a `prompt` child: `name` (else its
//! path, sub-folders joined by `:` as `/git:commit` invokes it) and
//! `description`.

use ahp_types::state::ChildCustomization;
use serde_json::{Map, Value};

use super::fields;
use super::layout::Kind;
use super::source::{with_base, Source};

/// The prompt in `src` with its `fields`.
pub fn child(src: &Source, fields: &Map<String, Value>) -> ChildCustomization {
    let name = src.qualify(fields::text(fields, &["name"]).unwrap_or_else(|| src.default_name(":")));
    ChildCustomization::Prompt(with_base!(PromptCustomization, src.base(Kind::Prompt, "", name, None), {
        enabled: None,
        description: fields::text(fields, &["description"]),
    }))
}
