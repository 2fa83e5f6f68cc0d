//! Reading one file into children, by what its row says it holds: the
//! one-item-per-file kinds (rules, agents, skills, commands, prompts) read
//! their fields from frontmatter or TOML here; hooks and MCP files have
//! their own readers. A file that does not parse still yields its child
//! (named from the file) and a problem for its container.

use ahp_types::state::ChildCustomization;
use serde_json::{Map, Value};

use super::layout::Read;
use super::source::{Outcome, Source};
use super::{agent_files, frontmatter, hooks, mcp, prompts, rules, skills, text, toml_spans};

/// Read `src` as its row says.
pub fn read(src: &Source) -> Outcome {
    match src.place.read {
        Read::Rule(mode) => one(src, |fields| rules::child(src, fields, mode)),
        Read::Agent => one(src, |fields| agent_files::child(src, fields)),
        Read::Skill | Read::Command => one(src, |fields| skills::child(src, fields)),
        Read::Prompt => one(src, |fields| prompts::child(src, fields)),
        Read::Hooks => hooks::read(src),
        Read::Mcp(_) => mcp::read_children(src),
        Read::Plugin => Outcome::default(),
    }
}

fn one(src: &Source, child: impl FnOnce(&Map<String, Value>) -> ChildCustomization) -> Outcome {
    let (fields, problem) = match fields(src) {
        Ok(fields) => (fields, None),
        Err(e) => (Map::new(), Some(src.problem(&e))),
    };
    Outcome { children: vec![child(&fields)], problem, mcp: Vec::new() }
}

/// The fields of a one-item file: a TOML file's table, else the Markdown
/// frontmatter.
fn fields(src: &Source) -> Result<Map<String, Value>, String> {
    let text = text::read_text(&src.path)?;
    if src.path.extension().is_some_and(|ext| ext == "toml") {
        match toml_spans::parse(&text)?.value {
            Value::Object(map) => Ok(map),
            _ => Ok(Map::new()),
        }
    } else {
        frontmatter::parse(&text)
    }
}
