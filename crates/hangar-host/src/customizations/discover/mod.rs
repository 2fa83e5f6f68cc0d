//! Discovery: the customizations of the session's working directories and
//! of home, read from the known folders and files of each agent
//! (`../shared/docs/customizations.md`, section 1) into the AHP 1.0.0 tree.
//! Pure: it reads files, holds no state, never panics, and lists only the
//! known folders (a 10,000-file working directory costs a few dozen
//! `stat`s and `readdir`s, not a walk).
//!
//! Map (one job per file):
//! - `layout.rs`     — THE table: place → how found, what it holds, who reads it.
//! - `collect.rs`    — the table over the roots: files found, grouped into
//!   containers, each file once with its readers merged.
//! - `listing.rs`    — listing a known folder (bounded), `writable`.
//! - `source.rs`     — one file to read; the fields every customization shares.
//! - `read.rs`       — a file into children by what its row says.
//! - `rules.rs`, `agent_files.rs`, `skills.rs`, `prompts.rs` — one item per file.
//! - `hooks.rs`      — one hook per handler, three file shapes.
//! - `mcp.rs`        — MCP entries of five dialects; `expand.rs` (`${VAR}`),
//!   `secrets.rs` (what `_meta` may show).
//! - `plugins.rs`    — plugin folders and their components.
//! - `containers.rs` — a group as a `directory` container (`load`, `writable`).
//! - `shadowing.rs`  — same-name losers get `hangar.shadowedBy` (its doc
//!   lists the precedence rules).
//! - `watch_points.rs` — the watch points.
//! - `frontmatter.rs` (YAML, and why `serde-saphyr`), `json_spans.rs`
//!   (JSONC via `jsonc-parser`), `toml_spans.rs` (`toml_edit`), `spans.rs`,
//!   `text.rs` (BOM, UTF-16 positions), `fields.rs` — parsing.
//! - `fixture.rs`    — a workspace and home with one of every kind, for
//!   tests, the e2e suites and the benchmark.
//!
//! The tree: `directory` containers per known folder and kind (the project
//! ones of each working directory, then home's), then plugins, then the
//! top-level `mcpServer` entries (`state: stopped`: the agent runs them).
//! Each child's `_meta["hangar.readBy"]` lists the agents that read its
//! file natively; containers add `hangar.scope`.

mod agent_files;
mod collect;
mod containers;
mod expand;
mod fields;
#[doc(hidden)]
pub mod fixture;
mod frontmatter;
mod hooks;
mod json_spans;
mod layout;
mod listing;
mod mcp;
mod plugins;
mod prompts;
mod read;
mod rules;
mod secrets;
mod shadowing;
mod skills;
mod source;
mod spans;
mod text;
pub(crate) mod toml_spans;
mod watch_points;

#[cfg(test)]
mod tests;

use ahp_types::state::Customization;
use serde_json::json;

use super::{Discovery, Roots};
use collect::Collected;
#[doc(hidden)]
pub use layout::Reader;
use layout::{Kind, Scope};
pub use watch_points::known_paths;

/// Everything found for `roots`.
pub fn discover(roots: &Roots) -> Discovery {
    let Collected { groups, mcp: mcp_files, plugins: plugin_roots } = collect::collect(roots);
    let mut out = Discovery { watch: watch_points::watch_points(roots), ..Discovery::default() };
    let mut candidates = Vec::new();
    let mut scopes = Vec::new();
    for group in &groups {
        let built = containers::build(group, roots);
        candidates.extend(built.candidates);
        out.mcp.extend(built.mcp);
        out.tree.push(built.container);
        scopes.push(group.scope);
    }
    for (root, scope) in &plugin_roots {
        for dir in plugins::find(root) {
            let (plugin, launches) = plugins::build(&dir, root, *scope);
            out.mcp.extend(launches);
            out.tree.push(Customization::Plugin(plugin));
            scopes.push(*scope);
        }
    }
    for (src, scope) in &mcp_files {
        let servers = match mcp::entries(src) {
            Ok(entries) => entries
                .into_iter()
                .map(|entry| {
                    out.mcp.extend(entry.launch);
                    entry.server
                })
                .collect(),
            Err(e) => vec![mcp::broken(src, &e)],
        };
        for mut server in servers {
            candidates.extend(shadowing::Candidate::new(Kind::McpServer, &server.name, &server.id, src, *scope));
            server.meta.get_or_insert_with(Default::default).insert("hangar.scope".to_owned(), json!(scope.id()));
            out.tree.push(Customization::McpServer(Box::new(server)));
            scopes.push(*scope);
        }
    }
    shadowing::mark(&mut out.tree, &shadowing::shadowed(&candidates));
    order(&mut out.tree, &mut scopes);
    out.user = out.tree.iter().zip(&scopes).filter(|(_, s)| **s == Scope::User).map(|(c, _)| c.clone()).collect();
    out
}

/// Project before user within each part of the tree (containers, plugins,
/// MCP servers keep their part; the sort is stable).
fn order(tree: &mut Vec<Customization>, scopes: &mut Vec<Scope>) {
    let part = |c: &Customization| match c {
        Customization::Directory(_) => 0,
        Customization::Plugin(_) => 1,
        _ => 2,
    };
    let mut both: Vec<(Customization, Scope)> = tree.drain(..).zip(scopes.drain(..)).collect();
    both.sort_by_key(|(c, s)| (part(c), *s));
    for (c, s) in both {
        tree.push(c);
        scopes.push(s);
    }
}
