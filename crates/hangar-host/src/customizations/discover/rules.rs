//! A rule file as a `rule` child: `paths` (Claude), `applyTo` (Copilot) or
//! `globs` (Open Plugins `.mdc`) become `globs`; a `**` glob, an explicit
//! `alwaysApply`, or a file its agents always load makes `alwaysApply`.

use ahp_types::state::ChildCustomization;
use serde_json::{Map, Value};

use super::fields;
use super::layout::{Kind, RuleMode};
use super::source::{with_base, Source};

/// The rule in `src` with its frontmatter `fields`.
pub fn child(src: &Source, fields: &Map<String, Value>, mode: RuleMode) -> ChildCustomization {
    let globs = fields::list(fields, &["paths", "applyTo", "globs"]).filter(|globs| !globs.is_empty());
    let always = fields::flag(fields, &["alwaysApply"]).unwrap_or_else(|| match &globs {
        Some(globs) => globs.iter().any(|g| matches!(g.as_str(), "**" | "**/*")),
        None => mode == RuleMode::Always,
    });
    let name = src.qualify(fields::text(fields, &["name"]).unwrap_or_else(|| src.default_name("/")));
    ChildCustomization::Rule(with_base!(RuleCustomization, src.base(Kind::Rule, "", name, None), {
        enabled: None,
        description: fields::text(fields, &["description"]),
        always_apply: Some(always),
        globs,
    }))
}
