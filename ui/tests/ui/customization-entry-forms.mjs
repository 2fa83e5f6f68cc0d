// The forms over one entry of a settings file, against the real core and
// the real embedded host, in a workspace with `.mcp.json`,
// `.claude/settings.json` (a hook beside other settings) and a plugin:
// - MCP server: Edit shows its fields; Test lists the tools of the saved
//   server; a rename and a masked env value are saved in place (the file's
//   other server stays) and the host lists the renamed one; the panel
//   offers to restart the agent, which then starts afresh at the next
//   message in the same conversation; a new http
//   server is refused until it has a name and a URL, then written.
// - Hook: Edit shows event, matcher and command; the test bench runs the
//   edited (unsaved) command on the host with the session's recorded tool
//   call and says it blocks the call, with the hook's reason; saved, the
//   file keeps its other settings; a new event moves it; Remove takes it
//   out after asking.
// - Plugin: the manifest's form refuses a bad version and saves a good
//   one; the panel shows the new version; New plugin writes a folder and
//   manifest from the template, and the host lists it.
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const shots = process.env.SCREENSHOT_DIR;
const home = tempHome('hangar-ui-entry-forms-');
const w = join(home, 'w');
mkdirSync(join(w, '.claude'), { recursive: true });
const mcpFile = join(w, '.mcp.json');
writeFileSync(
  mcpFile,
  `${JSON.stringify({ mcpServers: { tiny: { command: fakeBin, args: ['--mcp-server'] }, keep: { command: 'keep-me' } } }, null, 2)}\n`,
);
const settings = join(w, '.claude', 'settings.json');
writeFileSync(
  settings,
  `${JSON.stringify(
    {
      model: 'sonnet',
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo fine' }] }] },
    },
    null,
    2,
  )}\n`,
);
const plugin = join(w, '.agents', 'plugins', 'demo-plugin');
mkdirSync(join(plugin, '.plugin'), { recursive: true });
mkdirSync(join(plugin, 'commands'), { recursive: true });
const manifest = join(plugin, '.plugin', 'plugin.json');
writeFileSync(manifest, '{\n  "name": "demo-plugin",\n  "version": "1.2.3",\n  "keywords": ["demo"]\n}\n');
writeFileSync(join(plugin, 'commands', 'hello.md'), '---\ndescription: Says hello\n---\nSay hello.\n');
// One turn that runs a tool the hook will be tried against.
const script = join(home, 'tool.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        {
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 't1',
            title: 'Run rm',
            kind: 'execute',
            status: 'completed',
            rawInput: { command: 'rm -rf build' },
          },
        },
        { chunk: 'Cleaned.' },
        { end: 'end_turn' },
      ],
      // What the same process says to its second message.
      [{ chunk: 'Same process.' }, { end: 'end_turn' }],
    ],
  }),
);
const read = (path) => readFileSync(path, 'utf8');
const json = (path) => JSON.parse(read(path));
const saved = async (page) => {
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
};

await run('customization-entry-forms', home, [`claude=${fakeBin} --script ${script}`], async (page, check) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(
    (folder) => window.rpc('session.create', { host: 'local', agent: 'claude', folder }),
    `file://${w}`,
  );
  await page.click('[data-testid=session-row]');
  await page.fill('[data-testid=composer-input]', 'clean up');
  await page.press('[data-testid=composer-input]', 'Enter');
  await page.waitForSelector('text=Cleaned.');
  await page.click('[data-testid=customizations-button]');
  await page.waitForSelector('[data-kind=mcpServer][data-name=tiny]');

  // MCP server: its form, Test, a rename and a masked value.
  await page.click('[data-kind=mcpServer][data-name=tiny] [data-testid=cust-edit]');
  await page.waitForSelector('[data-testid=mcp-form]');
  check((await page.inputValue('[data-testid=mcp-name]')) === 'tiny', 'the form shows the server’s name', '');
  check((await page.inputValue('[data-testid=mcp-command]')) === fakeBin, 'and its command', '');
  await page.click('[data-testid=mcp-form-test]');
  await page.waitForSelector('[data-testid=mcp-form] [data-testid=cust-mcp-tools]');
  const tools = await page.textContent('[data-testid=mcp-form] [data-testid=cust-mcp-tools]');
  check(tools.includes('echo'), 'Test in the form lists the saved server’s tools', tools);
  await page.fill('[data-testid=mcp-name]', 'tiny2');
  check(await page.isDisabled('[data-testid=mcp-form-test]'), 'Test waits for a save after an edit', '');
  await page.click('[data-testid=mcp-env-add]');
  await page.fill('[data-testid=mcp-env] input >> nth=0', 'API_KEY');
  await page.fill('[data-testid=cust-kv-value]', 'sk-secret');
  check(
    (await page.getAttribute('[data-testid=cust-kv-value]', 'type')) === 'password',
    'an environment value is masked',
    '',
  );
  await page.click('[data-testid=cust-kv-reveal]');
  check((await page.getAttribute('[data-testid=cust-kv-value]', 'type')) === 'text', 'Show reveals it', '');
  if (shots) await page.screenshot({ path: join(shots, 'customization-editor-mcp.png') });
  await saved(page);
  const servers = json(mcpFile).mcpServers;
  check(
    !servers.tiny &&
      servers.tiny2?.command === fakeBin &&
      servers.tiny2.env?.API_KEY === 'sk-secret' &&
      servers.keep?.command === 'keep-me',
    'the renamed server is saved in place; the other stays',
    JSON.stringify(servers),
  );
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector('[data-kind=mcpServer][data-name=tiny2]');
  check(true, 'the host lists the renamed server', '');
  // The running agent has the old servers: the panel offers a restart.
  await page.waitForSelector('[data-testid=cust-restart]');
  if (shots) await page.screenshot({ path: join(shots, 'customizations-restart-agent.png') });
  await page.click('[data-testid=cust-restart-agent]');
  await page.waitForSelector('[data-testid=cust-restart]', { state: 'detached' });
  check(true, 'Restart agent stops it; nothing is pending any more', '');
  // The next message starts a fresh agent process (its script begins again).
  await page.fill('[data-testid=composer-input]', 'again');
  await page.press('[data-testid=composer-input]', 'Enter');
  await page.waitForFunction(() =>
    /Cleaned\.[\s\S]*again[\s\S]*(Cleaned|Same process)\./.test(document.body.innerText),
  );
  const after = await page.textContent('body');
  check(
    !after.includes('Same process.') && after.split('Cleaned.').length === 3,
    'the next message runs on a fresh agent, in the same conversation',
    '',
  );

  // A new http server: refused until it has a name and an address.
  await page.click('[data-testid=cust-new-entry][data-kind=mcpServer]');
  await page.waitForSelector('[data-testid=mcp-form]');
  check(await page.isDisabled('[data-testid=cust-editor-save]'), 'an empty server cannot be saved', '');
  await page.check('[data-testid=mcp-transport-http]');
  await page.fill('[data-testid=mcp-name]', 'remote');
  await page.fill('[data-testid=mcp-url]', 'example.com');
  const problem = await page.textContent('[data-testid=cust-field-problem]');
  check(problem.includes('URL'), 'a URL without http(s):// is refused', problem);
  await page.fill('[data-testid=mcp-url]', 'https://example.com/mcp');
  await saved(page);
  check(
    JSON.stringify(json(mcpFile).mcpServers.remote) === '{"type":"http","url":"https://example.com/mcp"}',
    'the new server is written in Claude’s form',
    JSON.stringify(json(mcpFile).mcpServers.remote),
  );
  await page.click('[aria-label="Close the editor"]');

  // Hook: its form, the test bench with the recorded tool call, save, move, remove.
  const hookItem = '[data-testid=cust-item][data-kind=hook]';
  await page.click(`${hookItem} [data-testid=cust-edit]`);
  await page.waitForSelector('[data-testid=hook-form]');
  check((await page.inputValue('[data-testid=hook-event]')) === 'PreToolUse', 'the form shows the event', '');
  check((await page.inputValue('[data-testid=hook-matcher]')) === 'Bash', 'and the matcher', '');
  await page.fill(
    '[data-testid=hook-command]',
    'grep -q "rm -rf" && { echo "rm is not allowed here" >&2; exit 2; }; exit 0',
  );
  const input = await page.inputValue('[data-testid=hook-bench-input]');
  check(
    input.includes('rm -rf build') && input.includes('"hook_event_name": "PreToolUse"'),
    'the bench feeds the recorded tool call',
    input,
  );
  await page.click('[data-testid=hook-bench-run]');
  await page.waitForSelector('[data-testid=hook-verdict]');
  const verdict = await page.textContent('[data-testid=hook-verdict]');
  check(
    (await page.getAttribute('[data-testid=hook-verdict]', 'data-tone')) === 'block' &&
      verdict.includes('rm is not allowed here'),
    'the hook, run on the host, blocks the call with its reason',
    verdict,
  );
  check(read(settings).includes('echo fine'), 'trying a hook saves nothing', '');
  // The sample event lets the call through.
  await page.selectOption('[data-testid=hook-bench-source]', '-1');
  await page.click('[data-testid=hook-bench-run]');
  await page.waitForSelector('[data-testid=hook-verdict][data-tone=ok]');
  check(true, 'with a harmless sample the call goes ahead', '');
  if (shots) await page.screenshot({ path: join(shots, 'customization-editor-hook.png') });
  await saved(page);
  let doc = json(settings);
  check(
    doc.model === 'sonnet' && doc.hooks.PreToolUse[0].hooks[0].command.startsWith('grep -q'),
    'the hook is saved in place; the other settings stay',
    read(settings),
  );
  await page.selectOption('[data-testid=hook-event]', 'PostToolUse');
  await saved(page);
  doc = json(settings);
  check(
    !doc.hooks.PreToolUse && doc.hooks.PostToolUse[0].matcher === 'Bash',
    'a new event moves the hook',
    read(settings),
  );
  await page.click('[data-testid=cust-editor-remove]');
  await page.click('[data-testid=cust-editor-delete-confirm] [data-testid=confirm-dialog-ok]');
  await page.waitForSelector('[data-testid=cust-editor]', { state: 'detached' });
  doc = json(settings);
  check(
    doc.model === 'sonnet' && Object.keys(doc.hooks).length === 0,
    'Remove takes out only the hook',
    read(settings),
  );
  await page.waitForSelector(hookItem, { state: 'detached' });

  // Plugin: the manifest's form.
  const pluginRow = '[data-testid=cust-container][data-kind=plugin]';
  await page.click(`${pluginRow} [data-testid=cust-edit-plugin]`);
  await page.waitForSelector('[data-testid=plugin-form]');
  const parts = await page.textContent('[data-testid=plugin-parts]');
  check(parts.includes('hello'), 'the form lists the plugin’s components', parts);
  await page.fill('#plugin-version', '1.3');
  check(await page.isDisabled('[data-testid=cust-editor-save]'), 'a version that is not semver is refused', '');
  await page.fill('#plugin-version', '1.3.0');
  await page.fill('#plugin-description', 'Says hello');
  if (shots) await page.screenshot({ path: join(shots, 'customization-editor-plugin.png') });
  await saved(page);
  const m = json(manifest);
  check(
    m.version === '1.3.0' && m.description === 'Says hello' && m.keywords[0] === 'demo',
    'the manifest is saved; its other keys stay',
    read(manifest),
  );
  await page.click('[aria-label="Close the editor"]');
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes('v1.3.0'), pluginRow);
  check(true, 'the panel shows the new version', '');

  // A new plugin from the template: its folder and manifest.
  await page.click('[data-testid=cust-group][data-kind=plugin] [data-testid=cust-new]');
  await page.fill('[data-testid=cust-new-form] input', 'my-tools');
  await page.press('[data-testid=cust-new-form] input', 'Enter');
  await page.waitForSelector('[data-testid=plugin-form]');
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  const made = json(join(w, '.agents', 'plugins', 'my-tools', '.plugin', 'plugin.json'));
  check(
    made.name === 'my-tools' && made.version === '0.1.0',
    'New plugin writes its folder and manifest',
    JSON.stringify(made),
  );
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector('[data-testid=cust-container][data-kind=plugin][data-name=my-tools]');
  check(true, 'the host lists the new plugin', '');
});
