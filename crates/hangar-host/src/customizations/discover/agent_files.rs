//! A custom agent file (Markdown with frontmatter, or a Codex role in TOML)
//! as an `agent` child: `name` (else the file name), `description`,
//! `model`, `tools` (a list or a comma-separated string),
//! `disable-model-invocation`, `user-invocable`.

use ahp_types::state::ChildCustomization;
use serde_json::{Map, Value};

use super::fields;
use super::layout::Kind;
use super::source::{with_base, Source};

/// The agent in `src` with its `fields`.
pub fn child(src: &Source, fields: &Map<String, Value>) -> ChildCustomization {
    let name = src.qualify(fields::text(fields, &["name"]).unwrap_or_else(|| src.default_name("/")));
    ChildCustomization::Agent(with_base!(AgentCustomization, src.base(Kind::Agent, "", name, None), {
        enabled: None,
        description: fields::text(fields, &["description"]),
        model: fields::text(fields, &["model"]),
        tools: fields::list(fields, &["tools"]),
        disable_model_invocation: fields::flag(fields, &["disable-model-invocation"]),
        disable_user_invocation: fields::flag(fields, &["user-invocable"]).map(|invocable| !invocable),
    }))
}
