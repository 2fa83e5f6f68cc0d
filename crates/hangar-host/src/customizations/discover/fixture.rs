//! A fixture workspace and home with one customization of every kind in
//! every path family of the table, for the unit tests here, the e2e
//! suites and `bench-customizations`. Every file is valid; tests that need
//! broken, BOM or CRLF files write them on top.

use std::path::{Path, PathBuf};

/// What [`write_fixture_workspace`] wrote: the expected names per kind
/// (project and user together; plugin items are `plugin:item`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FixtureInfo {
    /// Every file written.
    pub files: Vec<PathBuf>,
    /// Rule names.
    pub rules: Vec<&'static str>,
    /// Agent names.
    pub agents: Vec<&'static str>,
    /// Skill names (skills and Claude commands).
    pub skills: Vec<&'static str>,
    /// Prompt names.
    pub prompts: Vec<&'static str>,
    /// Hook names.
    pub hooks: Vec<&'static str>,
    /// MCP server names (top-level and plugin children).
    pub mcp_servers: Vec<&'static str>,
    /// Plugin names.
    pub plugins: Vec<&'static str>,
    /// The stdio server of `.mcp.json` (`echo`, no secrets) an agent can be
    /// given.
    pub stdio_server: &'static str,
}

/// `(path, content)`; `~/` paths go below home.
const FILES: &[(&str, &str)] = &[
    // ---- rules ----
    ("CLAUDE.md", "# Project rules for Claude\n"),
    ("CLAUDE.local.md", "Local notes.\n"),
    ("AGENTS.md", "# Agents\nUse tabs.\n"),
    ("AGENTS.override.md", "Override.\n"),
    ("GEMINI.md", "Gemini rules.\n"),
    ("QWEN.md", "Qwen rules.\n"),
    (".claude/CLAUDE.md", "More Claude rules.\n"),
    (".claude/rules/style.md", "---\npaths:\n  - \"src/**/*.ts\"\ndescription: TypeScript style\n---\nUse strict.\n"),
    (".claude/rules/nested/always.md", "Always on.\n"),
    (".qwen/QWEN.local.md", "Local qwen.\n"),
    (".github/copilot-instructions.md", "Copilot rules.\n"),
    (
        ".github/instructions/react.instructions.md",
        "---\napplyTo: \"**/*.tsx,**/*.jsx\"\ndescription: React rules\n---\nHooks first.\n",
    ),
    (".github/instructions/all.instructions.md", "---\napplyTo: \"**\"\n---\nEverywhere.\n"),
    ("~/.claude/CLAUDE.md", "Personal Claude rules.\n"),
    ("~/.claude/rules/personal.md", "Personal rule.\n"),
    ("~/.codex/AGENTS.md", "Codex personal.\n"),
    ("~/.gemini/GEMINI.md", "Gemini personal.\n"),
    ("~/.qwen/QWEN.md", "Qwen personal.\n"),
    ("~/.config/opencode/AGENTS.md", "OpenCode personal.\n"),
    ("~/.copilot/instructions/mine.instructions.md", "---\napplyTo: \"**/*.py\"\n---\nPython.\n"),
    // ---- agents ----
    (
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews code\nmodel: sonnet\ntools: Read, Grep\n---\nYou review.\n",
    ),
    (".claude/agents/team/planner.md", "---\nname: planner\ndescription: Plans work\n---\nYou plan.\n"),
    (".github/agents/helper.agent.md", "---\ndescription: Helps\ntools: ['search', 'edit']\n---\nYou help.\n"),
    (".gemini/agents/gem-agent.md", "---\nname: gem-agent\ndescription: Gemini agent\n---\nBody.\n"),
    (".qwen/agents/qwen-agent.md", "---\nname: qwen-agent\ndescription: Qwen agent\nmodel: inherit\n---\nBody.\n"),
    (
        ".opencode/agents/oc-agent.md",
        "---\ndescription: OpenCode agent\ntools:\n  bash: true\n  edit: false\n---\nBody.\n",
    ),
    (
        ".codex/agents/codex-role.toml",
        "name = \"codex-role\"\ndescription = \"A Codex role\"\nmodel = \"gpt-5\"\ndeveloper_instructions = \"Be brief.\"\n",
    ),
    ("~/.claude/agents/reviewer.md", "---\nname: reviewer\ndescription: My reviewer\n---\nPersonal.\n"),
    ("~/.claude/agents/user-agent.md", "---\nname: user-agent\ndescription: Mine\n---\nBody.\n"),
    (
        "~/.codex/agents/u-role.toml",
        "name = \"u-role\"\ndescription = \"User role\"\ndeveloper_instructions = \"Hi.\"\n",
    ),
    ("~/.gemini/agents/u-gem.md", "---\nname: u-gem\ndescription: d\n---\n"),
    ("~/.qwen/agents/u-qwen.md", "---\nname: u-qwen\ndescription: d\n---\n"),
    ("~/.copilot/agents/u-cop.agent.md", "---\ndescription: d\n---\n"),
    ("~/.config/opencode/agents/u-oc.md", "---\ndescription: d\n---\n"),
    // ---- skills (and Claude commands) ----
    (
        ".claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploys\ndisable-model-invocation: true\n---\nSteps.\n",
    ),
    (".agents/skills/shared-skill/SKILL.md", "---\nname: shared-skill\ndescription: Shared\n---\n"),
    (".gemini/skills/gem-skill/SKILL.md", "---\nname: gem-skill\ndescription: d\n---\n"),
    (".qwen/skills/qwen-skill/SKILL.md", "---\nname: qwen-skill\ndescription: d\n---\n"),
    (".github/skills/gh-skill/SKILL.md", "---\nname: gh-skill\ndescription: d\n---\n"),
    (".opencode/skills/oc-skill/SKILL.md", "---\nname: oc-skill\ndescription: d\n---\n"),
    (".claude/commands/deploy.md", "---\ndescription: Old deploy command\n---\nDeploy $ARGUMENTS\n"),
    (".claude/commands/frontend/test.md", "---\ndescription: Runs tests\nuser-invocable: false\n---\n"),
    ("~/.agents/skills/u-shared/SKILL.md", "---\nname: u-shared\ndescription: d\n---\n"),
    ("~/.copilot/skills/u-cop-skill/SKILL.md", "---\nname: u-cop-skill\ndescription: d\n---\n"),
    ("~/.claude/skills/u-claude-skill/SKILL.md", "---\nname: u-claude-skill\ndescription: d\n---\n"),
    // ---- prompts ----
    (".github/prompts/explain.prompt.md", "---\ndescription: Explains code\n---\nExplain.\n"),
    (".gemini/commands/git/commit.toml", "description = \"Commit\"\nprompt = \"Write a commit message\"\n"),
    (".qwen/commands/qwen-cmd.toml", "description = \"Qwen cmd\"\nprompt = \"Do it\"\n"),
    (".qwen/commands/qwen-md.md", "---\ndescription: Qwen md cmd\n---\nDo it.\n"),
    (".opencode/commands/oc-cmd.md", "---\ndescription: OpenCode cmd\n---\n$ARGUMENTS\n"),
    ("~/.codex/prompts/u-prompt.md", "---\ndescription: Codex prompt\n---\nHi.\n"),
    ("~/.gemini/commands/git/commit.toml", "description = \"My commit\"\nprompt = \"Mine\"\n"),
    // ---- hooks ----
    (
        ".claude/settings.json",
        r#"{
  "permissions": {"allow": []},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "./check.sh"},
          {"type": "command", "command": "./audit.sh", "timeout": 5}
        ]
      }
    ],
    "PostToolUse": [
      {"hooks": [{"type": "command", "command": "cargo fmt"}]}
    ]
  }
}
"#,
    ),
    (".claude/settings.local.json", r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}"#),
    (
        ".gemini/settings.json",
        r#"{
  "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./gem-hook.sh"}]}]},
  "mcpServers": {
    "gem-http": {"httpUrl": "https://gem.example/mcp"},
    "gem-sse": {"url": "https://gem.example/sse", "headers": {"X-Api-Key": "k-123"}}
  }
}
"#,
    ),
    (
        ".qwen/settings.json",
        r#"{
  "hooks": {"PreToolUse": [{"matcher": "Shell", "hooks": [{"type": "command", "command": "./qwen-hook.sh"}]}]},
  "mcpServers": {"qwen-stdio": {"command": "qwen-srv", "args": ["--stdio"], "cwd": "tools"}}
}
"#,
    ),
    (".codex/hooks.json", r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./codex-start.sh"}]}]}}"#),
    (".github/hooks/vscode.json", r#"{"hooks": {"PreToolUse": [{"type": "command", "command": "./vs-check.sh"}]}}"#),
    (".github/hooks/cli.json", r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./cli-check.sh"}]}}"#),
    ("~/.claude/settings.json", r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "log-prompt"}]}]}}"#),
    // ---- MCP servers ----
    (
        ".mcp.json",
        r#"{
  "mcpServers": {
    "echo": {
      "command": "echo-mcp",
      "args": ["--root", "${workspaceFolder}"],
      "env": {"LOG_LEVEL": "debug"}
    },
    "docs": {
      "command": "npx",
      "args": ["-y", "docs-server", "--api-key=sk-live-abcdefghijklmnop"],
      "env": {"API_KEY": "sk-live-abcdefghijklmnop", "HOME_DIR": "${HANGAR_FIXTURE_UNSET:-/tmp/docs}"}
    },
    "remote": {
      "type": "http",
      "url": "https://mcp.example/api",
      "headers": {"Authorization": "Bearer abc.def.ghi"}
    }
  }
}
"#,
    ),
    (
        ".vscode/mcp.json",
        r#"{
  // VS Code's own file: JSONC, with inputs
  "inputs": [{"type": "promptString", "id": "token", "password": true}],
  "servers": {
    "vs-fs": {"type": "stdio", "command": "fs-server", "args": ["${workspaceFolder}"],},
  },
}
"#,
    ),
    (
        ".codex/config.toml",
        "model = \"gpt-5\"\n\n[mcp_servers.codex-docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\nenv = { DOCS_TOKEN = \"t0k3n-value-0123456789\" }\n\n[mcp_servers.codex-web]\nurl = \"https://codex.example/mcp\"\nbearer_token_env_var = \"CODEX_WEB_TOKEN\"\n",
    ),
    (
        "opencode.json",
        r#"{"mcp": {"oc-local": {"type": "local", "command": ["oc-srv", "--x"], "environment": {"A": "1"}}, "oc-remote": {"type": "remote", "url": "https://oc.example/mcp", "enabled": false}}}"#,
    ),
    ("~/.claude.json", r#"{"numStartups": 3, "mcpServers": {"u-claude": {"command": "u-claude-srv"}}, "projects": {}}"#),
    ("~/.copilot/mcp-config.json", r#"{"mcpServers": {"u-copilot": {"type": "local", "command": "u-cop-srv", "tools": ["*"]}}}"#),
    (
        "~/.codex/config.toml",
        "[mcp_servers.u-codex]\ncommand = \"u-codex-srv\"\n\n[[hooks.PreToolUse]]\nmatcher = \"shell\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./codex-pre.sh\"\n",
    ),
    // ---- plugins ----
    (".agents/plugins/demo-plugin/.plugin/plugin.json", r#"{"name": "demo-plugin", "version": "1.2.3", "description": "A demo"}"#),
    (".agents/plugins/demo-plugin/commands/hello.md", "---\ndescription: Says hello\n---\nHello.\n"),
    (".agents/plugins/demo-plugin/agents/helper.md", "---\nname: helper\ndescription: Plugin helper\n---\n"),
    (".agents/plugins/demo-plugin/skills/plug-skill/SKILL.md", "---\nname: plug-skill\ndescription: d\n---\n"),
    (".agents/plugins/demo-plugin/rules/style.mdc", "---\ndescription: Plugin style\nglobs: \"*.rs\"\nalwaysApply: false\n---\n"),
    (
        ".agents/plugins/demo-plugin/hooks/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/lint.sh"}]}]}}"#,
    ),
    (
        ".agents/plugins/demo-plugin/.mcp.json",
        r#"{"mcpServers": {"plug-srv": {"command": "${CLAUDE_PLUGIN_ROOT}/srv"}}}"#,
    ),
    (
        "~/.claude/plugins/cache/market/cached-plugin/1.0.0/.claude-plugin/plugin.json",
        r#"{"name": "cached-plugin", "version": "1.0.0"}"#,
    ),
    ("~/.claude/plugins/cache/market/cached-plugin/1.0.0/commands/cached.md", "---\ndescription: Cached\n---\n"),
    ("~/.copilot/installed-plugins/cop-plugin/plugin.json", r#"{"name": "cop-plugin", "version": "0.1.0"}"#),
    ("~/.copilot/installed-plugins/cop-plugin/agents/cop-agent.md", "---\nname: cop-agent\ndescription: d\n---\n"),
];

/// Write the fixture below `root` (a working directory) and `home`.
#[doc(hidden)]
pub fn write_fixture_workspace(root: &Path, home: &Path) -> FixtureInfo {
    let mut files = Vec::new();
    for (rel, content) in FILES {
        let path = match rel.strip_prefix("~/") {
            Some(rel) => home.join(rel),
            None => root.join(rel),
        };
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(&path, content);
        files.push(path);
    }
    FixtureInfo {
        files,
        rules: vec![
            "CLAUDE.md",
            "CLAUDE.local.md",
            "AGENTS.md",
            "AGENTS.override.md",
            "GEMINI.md",
            "QWEN.md",
            "style",
            "nested/always",
            "QWEN.local.md",
            "copilot-instructions.md",
            "all",
            "react",
            "personal",
            "mine",
            "demo-plugin:style",
        ],
        agents: vec![
            "reviewer",
            "planner",
            "helper",
            "gem-agent",
            "qwen-agent",
            "oc-agent",
            "codex-role",
            "user-agent",
            "u-role",
            "u-gem",
            "u-qwen",
            "u-cop",
            "u-oc",
            "demo-plugin:helper",
            "cop-plugin:cop-agent",
        ],
        skills: vec![
            "deploy",
            "shared-skill",
            "gem-skill",
            "qwen-skill",
            "gh-skill",
            "oc-skill",
            "frontend:test",
            "u-shared",
            "u-cop-skill",
            "u-claude-skill",
            "demo-plugin:hello",
            "demo-plugin:plug-skill",
            "cached-plugin:cached",
        ],
        prompts: vec!["explain", "git:commit", "qwen-cmd", "qwen-md", "oc-cmd", "u-prompt"],
        hooks: vec![
            "PreToolUse: Bash → ./check.sh",
            "PreToolUse: Bash → ./audit.sh",
            "PostToolUse → cargo fmt",
            "Stop → notify-send done",
            "BeforeTool: write_file → ./gem-hook.sh",
            "PreToolUse: Shell → ./qwen-hook.sh",
            "SessionStart → ./codex-start.sh",
            "PreToolUse → ./vs-check.sh",
            "preToolUse → ./cli-check.sh",
            "UserPromptSubmit → log-prompt",
            "PreToolUse: shell → ./codex-pre.sh",
            "PreToolUse: Edit → ${CLAUDE_PLUGIN_ROOT}/lint.sh",
        ],
        mcp_servers: vec![
            "echo",
            "docs",
            "remote",
            "vs-fs",
            "gem-http",
            "gem-sse",
            "qwen-stdio",
            "codex-docs",
            "codex-web",
            "oc-local",
            "oc-remote",
            "u-claude",
            "u-copilot",
            "u-codex",
            "plug-srv",
        ],
        plugins: vec!["demo-plugin", "cached-plugin", "cop-plugin"],
        stdio_server: "echo",
    }
}
