//! A skill (`<name>/SKILL.md`) or a Claude command (`commands/<name>.md`,
//! shown as a skill as AHP's skill type says) as a `skill` child. A
//! skill's name is its folder's (that is what `/name` invokes; Claude
//! shows frontmatter `name` only for display, and Agent Skills require the
//! two to match); a command's is its path, sub-folders joined by `:`.

use ahp_types::state::ChildCustomization;
use serde_json::{json, Map, Value};

use super::fields;
use super::layout::{Kind, Read};
use super::source::{with_base, Source};

/// The skill in `src` with its frontmatter `fields`.
pub fn child(src: &Source, fields: &Map<String, Value>) -> ChildCustomization {
    let command = src.place.read == Read::Command;
    let name = src.qualify(src.default_name(":"));
    let mut base = src.base(Kind::Skill, "", name, None);
    if command {
        base.meta.insert("hangar.form".to_owned(), json!("command"));
    }
    ChildCustomization::Skill(with_base!(SkillCustomization, base, {
        enabled: None,
        description: fields::text(fields, &["description"]),
        disable_model_invocation: fields::flag(fields, &["disable-model-invocation"]),
        disable_user_invocation: fields::flag(fields, &["user-invocable"]).map(|invocable| !invocable),
    }))
}
