//! The well-known agents, one row each: every fact Hangar holds about one
//! agent is in its row of [`KNOWN`] (as zed keeps one file per agent in
//! `crates/agent_servers`), and the rest of the crate reads it from here:
//! discovery and the survey (`discovery.rs`: packages, executables, ACP
//! arguments), installs (`install.rs`: package and tested version), the names
//! shown ([`display_name_for`]), and sign-in (`acp/sign_in.rs`: the variable
//! a key provider stands for).
//!
//! What an agent reports at run time is not here: its `authMethods` (read
//! by `acp/sign_in.rs`), its `mcpCapabilities` (which MCP transports it
//! takes; `customizations/acp_mcp.rs`) and its models and modes. The files
//! an agent reads by itself are the rows of
//! `customizations/discover/layout.rs` read by its [`KnownAgent::reader`].
//!
//! Versions are the ones tested (`../shared/docs/acp-agents.md`, results
//! at a glance); `hangar agents install` installs them.

use crate::customizations::discover::Reader;

/// One well-known ACP agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownAgent {
    /// Its id (`--agent`, `createSession`'s provider).
    pub id: &'static str,
    /// Its name, as people know it.
    pub name: &'static str,
    /// Other ids that get the same name.
    pub aliases: &'static [&'static str],
    /// The npm package that provides it.
    pub package: &'static str,
    /// The version `hangar agents install` installs (the one tested).
    pub pinned: &'static str,
    /// The executables that provide it, first found wins.
    pub executables: &'static [&'static str],
    /// The arguments that put it in ACP stdio mode.
    pub acp_args: &'static [&'static str],
    /// The environment variables its API key may be given in (what its
    /// `authMethods` name, by `vars`, by `_meta["api-key"]` or in words).
    pub key_vars: &'static [&'static str],
    /// `_meta["api-key"] {provider}` in its `authMethods`, and the variable
    /// that provider's key goes in.
    pub api_key_provider: Option<(&'static str, &'static str)>,
    /// How it offers sign-in in `authMethods` (as the recorded transcripts
    /// in `tests/e2e/fixtures/acp-transcripts` show it).
    pub sign_in: &'static str,
    /// The MCP transports besides stdio it declared (`mcpCapabilities`
    /// `http`, `sse`) at the tested version; what it declares at run time
    /// decides.
    pub mcp_http_sse: (bool, bool),
    /// Which of the customization files it reads by itself.
    pub reader: Reader,
}

/// The well-known agents, in the order the Agents page lists them.
pub const KNOWN: &[KnownAgent] = &[
    KnownAgent {
        id: "claude",
        name: "Claude Agent",
        aliases: &["claude-agent", "claude-code"],
        package: "@zed-industries/claude-agent-acp",
        pinned: "0.23.1",
        executables: &["claude-agent-acp", "claude-code-acp"],
        acp_args: &[],
        key_vars: &["ANTHROPIC_API_KEY"],
        api_key_provider: Some(("anthropic", "ANTHROPIC_API_KEY")),
        sign_in: "none offered (`authMethods: []`); a model gateway when the client asks for one (left out)",
        mcp_http_sse: (true, true),
        reader: Reader::Claude,
    },
    KnownAgent {
        id: "codex",
        name: "Codex",
        aliases: &[],
        package: "@zed-industries/codex-acp",
        pinned: "0.16.0",
        executables: &["codex-acp"],
        acp_args: &[],
        key_vars: &["CODEX_API_KEY", "OPENAI_API_KEY"],
        api_key_provider: Some(("openai", "OPENAI_API_KEY")),
        sign_in: "`type: env_var` with `vars` (CODEX_API_KEY, OPENAI_API_KEY); a ChatGPT login it runs itself",
        mcp_http_sse: (true, false),
        reader: Reader::Codex,
    },
    KnownAgent {
        id: "gemini",
        name: "Gemini CLI",
        aliases: &[],
        package: "@google/gemini-cli",
        pinned: "0.61.0",
        executables: &["gemini"],
        acp_args: &["--acp"],
        key_vars: &["GEMINI_API_KEY"],
        api_key_provider: Some(("google", "GEMINI_API_KEY")),
        sign_in: "`_meta[\"api-key\"] {provider: google}`; a Google login and Vertex AI it runs itself; a model gateway (left out)",
        mcp_http_sse: (true, true),
        reader: Reader::Gemini,
    },
    KnownAgent {
        id: "copilot",
        name: "Copilot CLI",
        aliases: &[],
        package: "@github/copilot",
        pinned: "1.0.102",
        executables: &["copilot"],
        acp_args: &["--acp", "--stdio"],
        key_vars: &[],
        api_key_provider: None,
        sign_in: "`_meta[\"terminal-auth\"] {command, args}`: `copilot login` in a terminal",
        mcp_http_sse: (true, true),
        reader: Reader::Copilot,
    },
    KnownAgent {
        id: "opencode",
        name: "OpenCode",
        aliases: &[],
        package: "opencode-ai",
        pinned: "1.18.33",
        executables: &["opencode"],
        acp_args: &["acp"],
        key_vars: &[],
        api_key_provider: None,
        sign_in: "in words only: \"Run `opencode auth login` in the terminal\"",
        mcp_http_sse: (true, true),
        reader: Reader::OpenCode,
    },
    KnownAgent {
        id: "qwen",
        name: "Qwen Code",
        aliases: &[],
        package: "@qwen-code/qwen-code",
        pinned: "0.15.10",
        executables: &["qwen"],
        acp_args: &["--acp"],
        key_vars: &["OPENAI_API_KEY"],
        api_key_provider: None,
        sign_in: "`_meta.type: terminal` (`--auth-type=openai`, `--auth-type=qwen-oauth`); the key named in words (\"Requires setting the `OPENAI_API_KEY` environment variable\")",
        mcp_http_sse: (true, true),
        reader: Reader::Qwen,
    },
];

/// The row of well-known agent `id`.
pub fn known(id: &str) -> Option<&'static KnownAgent> {
    KNOWN.iter().find(|k| k.id == id)
}

/// The npm package of well-known agent `id` and the version Hangar
/// installs of it.
pub fn package_of(id: &str) -> Option<(&'static str, &'static str)> {
    known(id).map(|k| (k.package, k.pinned))
}

/// The ids of the well-known agents.
pub fn known_ids() -> Vec<&'static str> {
    KNOWN.iter().map(|k| k.id).collect()
}

/// The name of agent `id`: a well-known agent's (by id or alias), else the id.
pub fn display_name_for(id: &str) -> String {
    KNOWN.iter().find(|k| k.id == id || k.aliases.contains(&id)).map_or_else(|| id.to_owned(), |k| k.name.to_owned())
}

/// The variable a key of `_meta["api-key"]` provider `provider` goes in.
pub fn api_key_var(provider: &str) -> Option<&'static str> {
    KNOWN.iter().filter_map(|k| k.api_key_provider).find(|(p, _)| *p == provider).map(|(_, var)| var)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_names_its_own_reader_and_keys_its_provider_names() {
        for k in KNOWN {
            assert_eq!(k.reader.id(), k.id, "{}", k.id);
            if let Some((_, var)) = k.api_key_provider {
                assert!(k.key_vars.contains(&var), "{}", k.id);
            }
        }
        assert_eq!(display_name_for("claude-code"), "Claude Agent");
        assert_eq!(display_name_for("mine"), "mine");
        assert_eq!(api_key_var("google"), Some("GEMINI_API_KEY"));
        assert_eq!(api_key_var("other"), None);
    }
}
