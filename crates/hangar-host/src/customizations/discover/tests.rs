//! Discovery over a real fixture workspace and home on disk (`fixture.rs`):
//! every kind and path family, fields, ranges, launches, secrets,
//! robustness, shadowing, dedupe, watch points, `writable`, stable ids.
//! Assertions read the tree as its JSON (the shape clients get).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::super::{customization_id, Discovery, McpTransport, Roots, WatchPoint};
use super::discover;
use super::fixture::{write_fixture_workspace, FixtureInfo};

struct Env {
    _dir: tempfile::TempDir,
    wd: PathBuf,
    home: PathBuf,
    info: FixtureInfo,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (wd, home) = (base.join("work"), base.join("home"));
        std::fs::create_dir_all(&wd).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let info = write_fixture_workspace(&wd, &home);
        Self { _dir: dir, wd, home, info }
    }

    fn roots(&self) -> Roots {
        Roots { working_dirs: vec![self.wd.clone()], home: Some(self.home.clone()) }
    }

    fn discover(&self) -> Discovery {
        discover(&self.roots())
    }

    fn write(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.wd.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }
}

fn uri(path: &Path) -> String {
    crate::resources::uri::path_to_file_uri(path)
}

/// Every top-level entry as JSON.
fn top(d: &Discovery) -> Vec<Value> {
    d.tree.iter().map(|c| serde_json::to_value(c).unwrap()).collect()
}

/// Every child and top-level MCP server as JSON, with `"container"` = the
/// parent's name (top-level servers: none).
fn items(d: &Discovery) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in top(d) {
        match entry["children"].as_array() {
            Some(children) => out.extend(children.iter().map(|c| {
                let mut c = c.clone();
                c["container"] = entry["name"].clone();
                c
            })),
            None => out.push(entry),
        }
    }
    out
}

fn named<'a>(items: &'a [Value], kind: &str, name: &str) -> Vec<&'a Value> {
    items.iter().filter(|i| i["type"] == kind && i["name"] == name).collect()
}

fn one<'a>(items: &'a [Value], kind: &str, name: &str) -> &'a Value {
    let found = named(items, kind, name);
    assert_eq!(found.len(), 1, "{kind} {name}: {found:#?}");
    found[0]
}

fn container<'a>(d: &'a [Value], name: &str, contents: &str) -> &'a Value {
    d.iter()
        .find(|c| c["type"] == "directory" && c["name"] == name && c["contents"] == contents)
        .unwrap_or_else(|| panic!("no {contents} container {name}"))
}

/// The zero-based line of the first line of `path` containing `needle`.
fn line_of(path: &Path, needle: &str) -> i64 {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().position(|l| l.contains(needle)).unwrap() as i64
}

#[test]
fn every_kind_of_every_path_family_is_found() {
    let env = Env::new();
    let d = env.discover();
    let items = items(&d);
    let info = &env.info;
    for (kind, names) in [
        ("rule", &info.rules),
        ("agent", &info.agents),
        ("skill", &info.skills),
        ("prompt", &info.prompts),
        ("hook", &info.hooks),
        ("mcpServer", &info.mcp_servers),
    ] {
        for name in names {
            assert!(!named(&items, kind, name).is_empty(), "{kind} {name} missing");
        }
    }
    let top = top(&d);
    for plugin in &info.plugins {
        assert!(top.iter().any(|c| c["type"] == "plugin" && c["name"] == *plugin), "plugin {plugin}");
    }
    // Containers: one per known folder and kind, root rule files on the working dir.
    let root = container(&top, "work", "rule");
    let root_rules: Vec<&str> =
        root["children"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(root_rules, ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", "QWEN.md"]);
    assert_eq!(root["uri"], uri(&env.wd));
    assert_eq!(container(&top, ".claude/agents", "agent")["children"].as_array().unwrap().len(), 2);
    assert_eq!(container(&top, ".claude", "hook")["children"].as_array().unwrap().len(), 4);
    assert_eq!(container(&top, ".claude/commands", "skill")["children"].as_array().unwrap().len(), 2);
    assert_eq!(container(&top, "~/.claude/agents", "agent")["children"].as_array().unwrap().len(), 2);
    assert_eq!(container(&top, ".github/hooks", "hook")["children"].as_array().unwrap().len(), 2);
    // Order: project containers, user containers, plugins, MCP servers.
    let kinds: Vec<(&str, &str)> =
        top.iter().map(|c| (c["type"].as_str().unwrap(), c["_meta"]["hangar.scope"].as_str().unwrap())).collect();
    let rank = |(t, s): &(&str, &str)| (["directory", "plugin", "mcpServer"].iter().position(|x| x == t), *s == "user");
    assert!(kinds.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])), "{kinds:?}");
    // Every container and child has an absolute file URI.
    for item in items.iter().chain(top.iter()) {
        assert!(item["uri"].as_str().unwrap().starts_with("file:///"), "{item}");
    }
}

#[test]
fn fields_are_read_from_frontmatter_toml_and_json() {
    let env = Env::new();
    let items = items(&env.discover());
    let reviewer = named(&items, "agent", "reviewer").into_iter().find(|a| a["container"] == ".claude/agents").unwrap();
    assert_eq!(reviewer["description"], "Reviews code");
    assert_eq!(reviewer["model"], "sonnet");
    assert_eq!(reviewer["tools"], json!(["Read", "Grep"]));
    assert_eq!(reviewer["uri"], uri(&env.wd.join(".claude/agents/reviewer.md")));
    assert_eq!(one(&items, "agent", "helper")["tools"], json!(["search", "edit"]));
    assert_eq!(one(&items, "agent", "oc-agent")["tools"], json!(["bash"]));
    assert_eq!(one(&items, "agent", "codex-role")["model"], "gpt-5");
    assert_eq!(one(&items, "agent", "codex-role")["description"], "A Codex role");

    let style = one(&items, "rule", "style");
    assert_eq!((&style["globs"], &style["alwaysApply"]), (&json!(["src/**/*.ts"]), &json!(false)));
    assert_eq!(style["description"], "TypeScript style");
    assert_eq!(one(&items, "rule", "nested/always")["alwaysApply"], true);
    assert_eq!(one(&items, "rule", "all")["alwaysApply"], true);
    let react = one(&items, "rule", "react");
    assert_eq!((&react["globs"], &react["alwaysApply"]), (&json!(["**/*.tsx", "**/*.jsx"]), &json!(false)));
    assert!(named(&items, "rule", "CLAUDE.md").iter().all(|r| r["alwaysApply"] == true));
    let mdc = one(&items, "rule", "demo-plugin:style");
    assert_eq!((&mdc["globs"], &mdc["alwaysApply"]), (&json!(["*.rs"]), &json!(false)));

    let deploy = named(&items, "skill", "deploy").into_iter().find(|s| s["container"] == ".claude/skills").unwrap();
    assert_eq!((&deploy["description"], &deploy["disableModelInvocation"]), (&json!("Deploys"), &json!(true)));
    assert_eq!(one(&items, "skill", "frontend:test")["disableUserInvocation"], true);
    assert_eq!(one(&items, "skill", "frontend:test")["_meta"]["hangar.form"], "command");
    assert_eq!(one(&items, "prompt", "explain")["description"], "Explains code");
    let commits = named(&items, "prompt", "git:commit");
    assert_eq!(commits.iter().map(|c| c["description"].as_str().unwrap()).collect::<Vec<_>>(), ["Commit", "My commit"]);

    let top = top(&env.discover());
    let demo = top.iter().find(|c| c["name"] == "demo-plugin").unwrap();
    assert_eq!((&demo["version"], &demo["load"]["kind"]), (&json!("1.2.3"), &json!("loaded")));
    let kinds: Vec<&str> = demo["children"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["skill", "agent", "skill", "rule", "hook", "mcpServer"]);
    assert_eq!(top.iter().find(|c| c["name"] == "cached-plugin").unwrap()["version"], "1.0.0");
}

#[test]
fn mcp_entries_and_hooks_point_at_their_lines() {
    let env = Env::new();
    let items = items(&env.discover());
    let mcp = env.wd.join(".mcp.json");
    for name in ["echo", "docs", "remote"] {
        let server = one(&items, "mcpServer", name);
        assert_eq!(server["uri"], uri(&mcp));
        assert_eq!(server["range"]["start"]["line"], line_of(&mcp, &format!("\"{name}\": {{")), "{name}");
        assert_eq!(server["state"]["kind"], "stopped");
        assert_eq!(server["id"], customization_id("mcpServer", &mcp, &format!("/mcpServers/{name}")));
    }
    assert_eq!(one(&items, "mcpServer", "docs")["range"]["end"]["line"], line_of(&mcp, "\"remote\"") - 1);
    let toml = env.wd.join(".codex/config.toml");
    let web = one(&items, "mcpServer", "codex-web");
    assert_eq!(web["range"]["start"]["line"], line_of(&toml, "[mcp_servers.codex-web]"));
    assert_eq!(web["range"]["end"]["line"], line_of(&toml, "bearer_token_env_var"));
    assert_eq!(web["id"], customization_id("mcpServer", &toml, "mcp_servers.codex-web"));

    let settings = env.wd.join(".claude/settings.json");
    let audit = one(&items, "hook", "PreToolUse: Bash → ./audit.sh");
    assert_eq!(audit["uri"], uri(&settings));
    assert_eq!(audit["range"]["start"]["line"], line_of(&settings, "./audit.sh"));
    assert_eq!(audit["id"], customization_id("hook", &settings, "/hooks/PreToolUse/0/hooks/1"));
    let config = env.home.join(".codex/config.toml");
    let codex = one(&items, "hook", "PreToolUse: shell → ./codex-pre.sh");
    assert_eq!((&codex["uri"], &codex["container"]), (&json!(uri(&config)), &json!("~/.codex")));
    assert_eq!(codex["range"]["start"]["line"], line_of(&config, "[[hooks.PreToolUse.hooks]]"));
    assert_eq!(codex["range"]["end"]["line"], line_of(&config, "./codex-pre.sh"));
    assert_eq!(codex["id"], customization_id("hook", &config, "hooks.PreToolUse.0.hooks.0"));
    let vs = one(&items, "hook", "PreToolUse → ./vs-check.sh");
    assert_eq!(vs["id"], customization_id("hook", &env.wd.join(".github/hooks/vscode.json"), "/hooks/PreToolUse/0"));
    assert_eq!(vs["range"]["start"], json!({"line": 0, "character": 26}));
}

#[test]
fn launches_expand_variables_and_map_each_dialect() {
    let env = Env::new();
    let d = env.discover();
    let launch = |name: &str| &d.mcp.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("{name}")).transport;
    let wd = env.wd.display().to_string();
    let McpTransport::Stdio { args, env: vars, .. } = launch("echo") else { panic!() };
    assert_eq!(args, &["--root".to_owned(), wd.clone()]);
    assert_eq!(vars, &[("LOG_LEVEL".to_owned(), "debug".to_owned())]);
    let McpTransport::Stdio { env: vars, .. } = launch("docs") else { panic!() };
    assert!(vars.contains(&("HOME_DIR".to_owned(), "/tmp/docs".to_owned())));
    assert!(vars.contains(&("API_KEY".to_owned(), "sk-live-abcdefghijklmnop".to_owned())), "launches keep real values");
    let McpTransport::Http { url, headers } = launch("remote") else { panic!() };
    assert_eq!((url.as_str(), headers[0].1.as_str()), ("https://mcp.example/api", "Bearer abc.def.ghi"));
    assert!(matches!(launch("gem-http"), McpTransport::Http { url, .. } if url == "https://gem.example/mcp"));
    assert!(matches!(launch("gem-sse"), McpTransport::Sse { url, .. } if url == "https://gem.example/sse"));
    assert!(matches!(launch("qwen-stdio"), McpTransport::Stdio { cwd: Some(cwd), .. } if *cwd == env.wd.join("tools")));
    assert!(
        matches!(launch("vs-fs"), McpTransport::Stdio { command, args, .. } if command == "fs-server" && args == std::slice::from_ref(&wd))
    );
    assert!(matches!(launch("oc-local"), McpTransport::Stdio { command, args, env, .. }
        if command == "oc-srv" && args == &["--x".to_owned()] && env == &[("A".to_owned(), "1".to_owned())]));
    assert!(matches!(launch("oc-remote"), McpTransport::Http { .. }));
    let McpTransport::Http { headers, .. } = launch("codex-web") else { panic!() };
    assert_eq!(headers[0].0, "Authorization");
    let plugin = env.wd.join(".agents/plugins/demo-plugin");
    assert!(
        matches!(launch("plug-srv"), McpTransport::Stdio { command, .. } if *command == format!("{}/srv", plugin.display()))
    );
    // Every launch belongs to a customization of the tree.
    let items = items(&d);
    let plugin_children: Vec<Value> = top(&d)
        .iter()
        .filter(|c| c["type"] == "plugin")
        .flat_map(|c| c["children"].as_array().unwrap().clone())
        .collect();
    for l in &d.mcp {
        assert!(items.iter().chain(&plugin_children).any(|i| i["id"] == l.id.as_str()), "{}", l.name);
    }
    assert_eq!(d.mcp.len(), env.info.mcp_servers.len());
}

#[test]
fn secrets_never_reach_the_tree() {
    let env = Env::new();
    let d = env.discover();
    let text = serde_json::to_string(&top(&d)).unwrap();
    for secret in ["sk-live-abcdefghijklmnop", "abc.def.ghi", "t0k3n-value-0123456789", "k-123"] {
        assert!(!text.contains(secret), "{secret} leaked");
    }
    let items = items(&d);
    let docs = &one(&items, "mcpServer", "docs")["_meta"]["hangar.mcp"];
    assert_eq!(docs["env"], json!({"API_KEY": "•••", "HOME_DIR": "${HANGAR_FIXTURE_UNSET:-/tmp/docs}"}));
    assert_eq!(docs["args"], json!(["-y", "docs-server", "--api-key=•••"]));
    assert_eq!((&docs["transport"], &docs["command"]), (&json!("stdio"), &json!("npx")));
    assert_eq!(one(&items, "mcpServer", "echo")["_meta"]["hangar.mcp"]["env"], json!({"LOG_LEVEL": "debug"}));
    let remote = &one(&items, "mcpServer", "remote")["_meta"]["hangar.mcp"];
    assert_eq!(
        (&remote["url"], &remote["headers"]),
        (&json!("https://mcp.example/api"), &json!({"Authorization": "•••"}))
    );
    let web = &one(&items, "mcpServer", "codex-web")["_meta"]["hangar.mcp"];
    assert_eq!(web["headers"], json!({"Authorization": "Bearer ${CODEX_WEB_TOKEN}"}));
    assert_eq!(one(&items, "mcpServer", "oc-remote")["_meta"]["hangar.disabledInFile"], true);
}

#[test]
fn bom_crlf_and_odd_yaml_load_and_a_broken_file_degrades_only_its_container() {
    let env = Env::new();
    env.write(".claude/agents/bom.md", "\u{feff}---\nname: bom\ndescription: With BOM\n---\n");
    env.write(
        ".claude/agents/crlf.md",
        "---\r\nname: crlf\r\ndescription: CRLF\r\ntools: [Read, 'Edit']\r\n---\r\nBody\r\n",
    );
    env.write(".claude/agents/empty.md", "---\n---\nNo fields.\n");
    env.write(
        ".claude/agents/odd.md",
        "---\n# comment\n'name': odd\n\"description\": >-\n  folded\n  text\ntools: []\n---\n",
    );
    env.write(".claude/agents/broken.md", "---\nname: broken\ndescription: [unclosed\n---\n");
    let d = env.discover();
    let items = items(&d);
    assert_eq!(one(&items, "agent", "bom")["description"], "With BOM");
    assert_eq!(one(&items, "agent", "crlf")["tools"], json!(["Read", "Edit"]));
    assert_eq!(one(&items, "agent", "empty")["container"], ".claude/agents");
    assert_eq!(one(&items, "agent", "odd")["description"], "folded text");
    // The broken file is still listed, named from its file, and says why.
    let broken = one(&items, "agent", "broken");
    assert_eq!(broken["uri"], uri(&env.wd.join(".claude/agents/broken.md")));
    let top = top(&d);
    let agents = container(&top, ".claude/agents", "agent");
    assert_eq!(agents["load"]["kind"], "degraded");
    let message = agents["load"]["message"].as_str().unwrap();
    assert_eq!(message, "broken.md: line 3: unclosed bracket '['");
    assert!(named(&items, "agent", "reviewer").iter().any(|r| r["container"] == ".claude/agents"));
    assert_eq!(container(&top, ".claude/skills", "skill")["load"]["kind"], "loaded");
}

#[test]
fn broken_json_settings_mcp_files_and_manifests_are_reported() {
    let env = Env::new();
    env.write(".claude/settings.local.json", "{\n  \"hooks\": {\n    \"Stop\": [,]\n}\n");
    env.write(".mcp.json", "{\"mcpServers\": {\"a\": }}");
    env.write(".agents/plugins/demo-plugin/.plugin/plugin.json", "{\"name\": ");
    let d = env.discover();
    let top = top(&d);
    let hooks = container(&top, ".claude", "hook");
    assert_eq!(hooks["load"]["kind"], "degraded");
    assert!(hooks["load"]["message"].as_str().unwrap().starts_with("settings.local.json: line 3"), "{hooks}");
    let items = items(&d);
    assert_eq!(one(&items, "hook", "settings.local.json")["uri"], uri(&env.wd.join(".claude/settings.local.json")));
    assert!(!named(&items, "hook", "PreToolUse: Bash → ./check.sh").is_empty(), "the sibling file still loads");
    let mcp = one(&items, "mcpServer", ".mcp.json");
    assert_eq!(mcp["state"]["kind"], "error");
    assert!(mcp["state"]["error"]["message"].as_str().unwrap().contains("line 1"));
    let plugin = top
        .iter()
        .find(|c| c["type"] == "plugin" && c["uri"] == uri(&env.wd.join(".agents/plugins/demo-plugin")))
        .unwrap();
    assert_eq!(plugin["load"]["kind"], "error");
    assert_eq!(plugin["name"], "demo-plugin");
    assert!(!plugin["children"].as_array().unwrap().is_empty(), "its parts are still read");
}

#[test]
fn shadowed_entries_name_their_winner() {
    let env = Env::new();
    let items = items(&env.discover());
    let shadow = |v: &Value| v["_meta"]["hangar.shadowedBy"].as_str().map(str::to_owned);
    let reviewers = named(&items, "agent", "reviewer");
    let (project, user) = (reviewers[0], reviewers[1]);
    assert_eq!(project["container"], ".claude/agents");
    assert_eq!((shadow(project), shadow(user)), (None, Some(project["id"].as_str().unwrap().to_owned())));
    // A Claude skill over the command of the same name.
    let deploys = named(&items, "skill", "deploy");
    let skill = deploys.iter().find(|s| s["container"] == ".claude/skills").unwrap();
    let command = deploys.iter().find(|s| s["container"] == ".claude/commands").unwrap();
    assert_eq!((shadow(skill), shadow(command)), (None, Some(skill["id"].as_str().unwrap().to_owned())));
    // A project prompt over the user's.
    let commits = named(&items, "prompt", "git:commit");
    assert_eq!((shadow(commits[0]), shadow(commits[1])), (None, Some(commits[0]["id"].as_str().unwrap().to_owned())));
    assert_eq!(items.iter().filter(|i| shadow(i).is_some()).count(), 3);
    // Nothing is disabled by it: `enabled` stays the user's.
    assert!(items.iter().all(|i| i.get("enabled").is_none()));
}

#[test]
fn one_file_read_by_several_agents_is_one_child() {
    let env = Env::new();
    let items = items(&env.discover());
    let claude_md = named(&items, "rule", "CLAUDE.md");
    let project = claude_md.iter().find(|r| r["container"] == "work").unwrap();
    assert_eq!(project["_meta"]["hangar.readBy"], json!(["claude", "copilot", "opencode"]));
    assert_eq!(one(&items, "agent", "planner")["_meta"]["hangar.readBy"], json!(["claude", "copilot"]));
    // A symlink to another known file is that file: one child, readers merged.
    let env = Env::new();
    std::fs::remove_file(env.wd.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("CLAUDE.md", env.wd.join("AGENTS.md")).unwrap();
    let items = super::tests::items(&env.discover());
    let root: Vec<&Value> = items.iter().filter(|i| i["container"] == "work").collect();
    assert_eq!(root.iter().filter(|r| r["name"] == "AGENTS.md").count(), 0);
    let merged = root.iter().find(|r| r["name"] == "CLAUDE.md").unwrap();
    assert_eq!(merged["_meta"]["hangar.readBy"], json!(["claude", "codex", "qwen", "copilot", "opencode"]));
    // The working directory being home lists each folder once.
    let roots = Roots { working_dirs: vec![env.home.clone()], home: Some(env.home.clone()) };
    let d = discover(&roots);
    let agents: Vec<Value> =
        top(&d).into_iter().filter(|c| c["uri"] == uri(&env.home.join(".claude/agents"))).collect();
    assert_eq!(agents.len(), 1);
    assert_eq!(agents[0]["children"].as_array().unwrap().len(), 2);
}

#[test]
fn watch_points_cover_known_folders_and_never_a_root_recursively() {
    let env = Env::new();
    let d = env.discover();
    let has = |path: PathBuf, recursive: bool| d.watch.contains(&WatchPoint { path, recursive });
    assert!(has(env.wd.clone(), false));
    assert!(has(env.home.clone(), false));
    assert!(has(env.wd.join(".claude"), false));
    assert!(has(env.wd.join(".claude/agents"), true));
    assert!(has(env.wd.join(".claude/skills"), true));
    assert!(has(env.wd.join(".github/prompts"), false));
    assert!(has(env.wd.join(".github/instructions"), true));
    assert!(has(env.home.join(".claude/plugins/cache"), true));
    assert!(has(env.home.join(".codex"), false));
    for point in &d.watch {
        assert!(!(point.recursive && (point.path == env.wd || point.path == env.home)), "{point:?}");
        assert!(point.path.starts_with(&env.wd) || point.path.starts_with(&env.home), "{point:?}");
    }
    let mut sorted = d.watch.clone();
    sorted.dedup_by(|a, b| a.path == b.path);
    assert_eq!(sorted.len(), d.watch.len(), "each path once");
}

#[test]
fn only_known_places_are_read_never_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let wd = std::fs::canonicalize(dir.path()).unwrap();
    for rel in
        ["src/deep/CLAUDE.md", "src/.claude/agents/x.md", "node_modules/p/.mcp.json", ".claude/agents/.hidden/y.md"]
    {
        std::fs::create_dir_all(wd.join(rel).parent().unwrap()).unwrap();
        std::fs::write(wd.join(rel), "---\nname: x\n---\n").unwrap();
    }
    let d = discover(&Roots { working_dirs: vec![wd.clone()], home: None });
    assert!(items(&d).is_empty(), "{:#?}", items(&d));
    // The main folders are offered even while missing, so a first file can be made.
    let top = top(&d);
    let root = wd.file_name().unwrap().to_str().unwrap();
    for (name, contents) in
        [(root, "rule"), (".claude/agents", "agent"), (".claude/skills", "skill"), (".github/prompts", "prompt")]
    {
        let c = container(&top, name, contents);
        assert_eq!((&c["writable"], &c["load"]["kind"], &c["children"]), (&json!(true), &json!("loaded"), &json!([])));
    }
    assert!(!top.iter().any(|c| c["name"] == ".gemini/agents"), "not offered: listed once it exists");
}

#[test]
fn writable_follows_the_folder_or_its_nearest_existing_ancestor() {
    let env = Env::new();
    let top_of = |env: &Env| top(&env.discover());
    let t = top_of(&env);
    assert_eq!(container(&t, ".claude/agents", "agent")["writable"], true);
    assert_eq!(container(&t, ".github/agents", "agent")["writable"], true, "missing: its parent .github is writable");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(env.wd.join(".github"), std::fs::Permissions::from_mode(0o555)).unwrap();
    let t = top_of(&env);
    std::fs::set_permissions(env.wd.join(".github"), std::fs::Permissions::from_mode(0o755)).unwrap();
    if !rustix::process::geteuid().is_root() {
        assert_eq!(container(&t, ".github/agents", "agent")["writable"], false);
        assert_eq!(container(&t, ".github/prompts", "prompt")["writable"], false);
    }
    assert_eq!(container(&t, ".claude/agents", "agent")["writable"], true);
}

#[test]
fn ids_are_stable_across_discoveries_and_unique() {
    let env = Env::new();
    let (a, b) = (env.discover(), env.discover());
    assert_eq!(a, b);
    let mut ids = Vec::new();
    for entry in top(&a) {
        ids.push(entry["id"].as_str().unwrap().to_owned());
        for child in entry["children"].as_array().into_iter().flatten() {
            ids.push(child["id"].as_str().unwrap().to_owned());
        }
    }
    let count = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), count, "ids are unique");
    assert_eq!(
        one(&items(&a), "agent", "planner")["id"],
        customization_id("agent", &env.wd.join(".claude/agents/team/planner.md"), "")
    );
}

#[test]
fn the_user_subset_is_what_home_holds() {
    let env = Env::new();
    let d = env.discover();
    assert!(!d.user.is_empty());
    for c in &d.user {
        let v = serde_json::to_value(c).unwrap();
        assert_eq!(v["_meta"]["hangar.scope"], "user", "{v}");
        assert!(v["uri"].as_str().unwrap().starts_with(&uri(&env.home)), "{v}");
    }
    let names: Vec<Value> = d.user.iter().map(|c| serde_json::to_value(c).unwrap()["name"].clone()).collect();
    for name in ["~/.claude/agents", "cached-plugin", "u-claude", "u-codex"] {
        assert!(names.contains(&json!(name)), "{name}");
    }
    assert_eq!(d.tree.iter().filter(|c| d.user.contains(c)).count(), d.user.len());
}
