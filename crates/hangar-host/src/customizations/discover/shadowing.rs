//! Which customizations lose to another of the same kind and name, as the
//! agents' own precedence says; a loser keeps `enabled` (the user's toggle)
//! and gets `_meta["hangar.shadowedBy"]` = the winner's id.
//!
//! Rules implemented, per agent that reads both:
//! 1. scope: project over user (agents, prompts, MCP servers, and skills
//!    for every agent but Claude); Claude skills and commands: personal
//!    (user) over project, as its docs rank them;
//! 2. form: a Claude skill over a command of the same name;
//! 3. the order of the table's rows within a scope (`layout::PLACES`:
//!    Copilot's "first found wins" `.github/skills`, `.agents/skills`,
//!    `.claude/skills`; Gemini's `.agents/skills` over `.gemini/skills`).
//!
//! An entry is shadowed only when it loses for EVERY agent that reads it:
//! `.claude/skills/x` (Claude, Copilot, OpenCode) is not marked because
//! `~/.agents/skills/x` (no Claude) also exists. Rules and hooks add up
//! rather than override, and plugin items are namespaced
//! (`plugin:item`), so neither is compared. Equal ranks (the same row in
//! two working directories) shadow nothing.

use std::collections::HashMap;

use ahp_types::common::JsonObject;
use ahp_types::state::{ChildCustomization, Customization};
use serde_json::json;

use super::layout::{Kind, Read, Reader, Scope, PLACES};
use super::source::Source;

/// One customization that may shadow or be shadowed.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its id.
    pub id: String,
    /// Agent, skill, prompt or MCP server.
    pub kind: Kind,
    /// Its name.
    pub name: String,
    /// Project or user.
    pub scope: Scope,
    /// A Claude command (loses to a skill).
    pub command: bool,
    /// Its row in the table.
    pub order: usize,
    /// The agents that read it.
    pub readers: Vec<Reader>,
}

impl Candidate {
    /// The candidate for `child` of `src` (`None` for kinds that do not
    /// shadow and for plugin items).
    pub fn of(child: &ChildCustomization, src: &Source, scope: Scope) -> Option<Self> {
        let (kind, name, id) = match child {
            ChildCustomization::Agent(c) => (Kind::Agent, &c.name, &c.id),
            ChildCustomization::Skill(c) => (Kind::Skill, &c.name, &c.id),
            ChildCustomization::Prompt(c) => (Kind::Prompt, &c.name, &c.id),
            ChildCustomization::McpServer(c) => (Kind::McpServer, &c.name, &c.id),
            _ => return None,
        };
        Self::new(kind, name, id, src, scope)
    }

    /// The candidate of kind `kind` called `name` (`None` for plugin items).
    pub fn new(kind: Kind, name: &str, id: &str, src: &Source, scope: Scope) -> Option<Self> {
        if src.plugin.is_some() {
            return None;
        }
        Some(Self {
            id: id.to_owned(),
            kind,
            name: name.to_owned(),
            scope,
            command: src.place.read == Read::Command,
            order: PLACES.iter().position(|p| std::ptr::eq(p, src.place)).unwrap_or(usize::MAX),
            readers: src.readers.clone(),
        })
    }

    fn rank(&self, reader: Reader) -> (u8, u8, usize) {
        let user_first = reader == Reader::Claude && self.kind == Kind::Skill;
        let scope = u8::from((self.scope == Scope::Project) == user_first);
        (scope, u8::from(self.command), self.order)
    }
}

/// Loser id → winner id.
pub fn shadowed(candidates: &[Candidate]) -> HashMap<String, String> {
    let mut by_name: HashMap<(Kind, &str), Vec<&Candidate>> = HashMap::new();
    for c in candidates {
        by_name.entry((c.kind, c.name.as_str())).or_default().push(c);
    }
    let mut losers = HashMap::new();
    for same in by_name.values().filter(|same| same.len() > 1) {
        for c in same {
            // The winner over `c` for each of its readers, if `c` loses there.
            let beaten: Vec<Option<&Candidate>> = c
                .readers
                .iter()
                .map(|&r| {
                    same.iter()
                        .filter(|d| d.readers.contains(&r) && d.rank(r) < c.rank(r))
                        .min_by_key(|d| d.rank(r))
                        .copied()
                })
                .collect();
            if let (Some(Some(winner)), true) = (beaten.first(), beaten.iter().all(Option::is_some)) {
                losers.insert(c.id.clone(), winner.id.clone());
            }
        }
    }
    losers
}

/// Put `hangar.shadowedBy` on each loser in `tree`.
pub fn mark(tree: &mut [Customization], losers: &HashMap<String, String>) {
    if losers.is_empty() {
        return;
    }
    let set = |id: &str, meta: &mut Option<JsonObject>| {
        if let Some(winner) = losers.get(id) {
            meta.get_or_insert_with(JsonObject::new).insert("hangar.shadowedBy".to_owned(), json!(winner));
        }
    };
    for item in tree {
        match item {
            Customization::Directory(dir) => {
                for child in dir.children.iter_mut().flatten() {
                    match child {
                        ChildCustomization::Agent(c) => set(&c.id, &mut c.meta),
                        ChildCustomization::Skill(c) => set(&c.id, &mut c.meta),
                        ChildCustomization::Prompt(c) => set(&c.id, &mut c.meta),
                        _ => {}
                    }
                }
            }
            Customization::McpServer(server) => set(&server.id, &mut server.meta),
            Customization::Plugin(_) | Customization::Unknown(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: &str, kind: Kind, scope: Scope, command: bool, order: usize, readers: &[Reader]) -> Candidate {
        Candidate { id: id.into(), kind, name: "x".into(), scope, command, order, readers: readers.to_vec() }
    }

    #[test]
    fn precedence_by_scope_form_and_order_for_every_reader() {
        use Reader::*;
        let project = cand("p", Kind::Agent, Scope::Project, false, 11, &[Claude, Copilot]);
        let user = cand("u", Kind::Agent, Scope::User, false, 60, &[Claude, Copilot]);
        assert_eq!(shadowed(&[project.clone(), user.clone()]), HashMap::from([("u".into(), "p".into())]));
        // Claude skills: personal over project; skill over command.
        let p_skill = cand("ps", Kind::Skill, Scope::Project, false, 20, &[Claude]);
        let u_skill = cand("us", Kind::Skill, Scope::User, false, 65, &[Claude]);
        assert_eq!(shadowed(&[p_skill.clone(), u_skill]), HashMap::from([("ps".into(), "us".into())]));
        let command = cand("c", Kind::Skill, Scope::Project, true, 23, &[Claude]);
        assert_eq!(shadowed(&[p_skill, command]), HashMap::from([("c".into(), "ps".into())]));
        // A loser for one reader only is not shadowed.
        let codex_only = cand("k", Kind::Agent, Scope::Project, false, 16, &[Codex]);
        let wide_user = cand("w", Kind::Agent, Scope::User, false, 60, &[Claude, Codex]);
        assert_eq!(shadowed(&[project, wide_user.clone()]).get("w"), None);
        assert_eq!(shadowed(&[codex_only, wide_user]).get("w"), None);
        // Different kinds never compare.
        let prompt = cand("q", Kind::Prompt, Scope::User, false, 70, &[Claude, Copilot]);
        assert!(shadowed(&[user, prompt]).is_empty());
    }
}
