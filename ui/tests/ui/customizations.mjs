// Customizations UI test against the real core and the real embedded host
// (its own discovery, toggles and custom agents): a workspace with
// `.claude/agents/reviewer.md`, `.github/prompts/fix.prompt.md` and an
// `.mcp.json` server. The panel lists them by kind (and tells where rules
// go when there are none), the MCP server turned off for the folder shows
// off with its restart pending, Escape closes the panel and gives the focus
// back, and the custom agent picked in the composer goes with the message
// (the host names it to the fake agent, which echoes it). Peer text stays
// text. Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const shots = process.env.SCREENSHOT_DIR;
const home = tempHome('hangar-ui-customizations-');
const w = join(home, 'w');
mkdirSync(join(w, '.claude', 'agents'), { recursive: true });
mkdirSync(join(w, '.github', 'prompts'), { recursive: true });
writeFileSync(
  join(w, '.claude', 'agents', 'reviewer.md'),
  '---\nname: reviewer\ndescription: Reviews <b>diffs</b> for bugs\n---\nYou review diffs.\n',
);
writeFileSync(join(w, '.github', 'prompts', 'fix.prompt.md'), '---\ndescription: Fix the failing test\n---\nFix it.\n');
writeFileSync(
  join(w, '.mcp.json'),
  JSON.stringify({ mcpServers: { echo: { command: 'echo-mcp', args: ['--stdio'] } } }, null, 2),
);
// A second folder, for a session whose agent id is `claude` (the fake agent
// again): rules Claude reads itself, a home agent of the same name as the
// project's (shadowed), a file that does not parse.
const w2 = join(home, 'w2');
const write = (path, text) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
write(join(w2, 'CLAUDE.md'), '# Project rules\nUse tabs.\n');
write(join(w2, '.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Project reviewer\n---\nBody.\n');
write(join(w2, '.claude', 'agents', 'broken.md'), '---\nname: [unclosed\ndescription: x\n---\nBody.\n');
write(join(w2, '.claude', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploys the app\n---\n');
write(
  join(w2, '.claude', 'settings.json'),
  JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }] } }),
);
write(join(home, '.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: My own reviewer\n---\n');
const script = join(home, 'echo.json');
writeFileSync(script, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));

const item = (kind, name) => `[data-testid=cust-item][data-kind=${kind}][data-name="${name}"]`;

const agents = [`fake=${fakeBin} --script ${script}`, `claude=${fakeBin} --script ${script}`];
await run('customizations', home, agents, async (page, check) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(
    (folder) => window.rpc('session.create', { host: 'local', agent: 'fake', folder }),
    `file://${w}`,
  );
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]');
  const button = page.locator('[data-testid=customizations-button]');
  await button.click();
  const panel = page.locator('[data-testid=customizations-panel]');
  await panel.waitFor();
  check(
    await page.evaluate(() => document.activeElement?.id === 'cust-title'),
    'opening the panel moves the focus to it',
    await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 60)),
  );
  await page.waitForSelector(item('agent', 'reviewer'));
  const listed = await page.$$eval('[data-testid=cust-group]', (gs) =>
    gs.map((g) => [
      g.getAttribute('data-kind'),
      [...g.querySelectorAll('[data-testid=cust-item]')].map((i) => i.getAttribute('data-name')),
    ]),
  );
  const names = Object.fromEntries(listed);
  check(
    names.agent?.includes('reviewer') && names.prompt?.includes('fix') && names.mcpServer?.includes('echo'),
    'the agent, the prompt and the MCP server are listed under their kinds',
    JSON.stringify(listed),
  );
  const rulesEmpty = await page.textContent('[data-testid=cust-group][data-kind=rule] [data-testid=cust-empty]');
  check(/No rules yet\. Add AGENTS\.md/.test(rulesEmpty ?? ''), 'an empty kind says where its files go', rulesEmpty);
  const desc = await page.textContent(`${item('agent', 'reviewer')} .cust-desc`);
  const bold = await page.$$(`${item('agent', 'reviewer')} b`);
  check(desc === 'Reviews <b>diffs</b> for bugs' && bold.length === 0, "a file's description is shown as text", desc);
  if (shots) await panel.screenshot({ path: join(shots, 'customizations-panel.png') });

  // The MCP server, off for this folder: the switch says off, the folder's
  // decision is listed, and the running agent gets it only at its next start.
  const echo = page.locator(item('mcpServer', 'echo'));
  await echo.locator('[data-testid=cust-scope]').selectOption('workspace');
  await echo.locator('[data-testid=cust-switch]').click();
  await page.waitForSelector(`${item('mcpServer', 'echo')}[data-enabled=false]`);
  const after = await echo.evaluate((el) => ({
    switch: el.querySelector('[data-testid=cust-switch]')?.getAttribute('aria-checked'),
    decisions: el.querySelector('[data-testid=cust-decisions]')?.textContent,
  }));
  check(
    after.switch === 'false' && after.decisions?.startsWith('Off for this folder'),
    'the MCP server is off for this folder',
    JSON.stringify(after),
  );
  await page.waitForSelector(`${item('mcpServer', 'echo')} [data-badge=restart]`);
  const badge = await page.textContent(`${item('mcpServer', 'echo')} [data-badge=restart]`);
  check(badge === 'restart pending', 'it says a restart is pending', badge);
  if (shots) await echo.screenshot({ path: join(shots, 'customizations-mcp-off.png') });

  // Keyboard: Escape closes the panel and the focus goes back to its button.
  await echo.locator('[data-testid=cust-switch]').focus();
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached' });
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'customizations-button');
  check(true, 'Escape closes the panel and the focus returns to its button', 'focused');
  await page.keyboard.press('Enter');
  await panel.waitFor();
  check((await button.getAttribute('aria-expanded')) === 'true', 'Enter on the button opens it again', 'expanded');

  // The custom agent, picked beside the model, goes with the message.
  const options = await page.$$eval('[data-testid=agent-select] option', (os) => os.map((o) => o.textContent));
  check(
    options[0] === 'No custom agent' && options.includes('reviewer'),
    'the composer offers the custom agent',
    JSON.stringify(options),
  );
  await page.selectOption('[data-testid=agent-select]', { label: 'reviewer' });
  if (shots) await page.screenshot({ path: join(shots, 'customizations-agent-picker.png') });
  await page.click('[data-testid=composer-input]');
  await page.keyboard.type('review this');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=turn]:not(.active)');
  const to = await page.textContent('[data-testid=message-agent]');
  check(to === 'to reviewer', 'the message says which agent it went to', to);
  const answer = await page.textContent('[data-testid=turn] .response');
  check(
    (answer ?? '').includes('Act as the custom agent "reviewer"') && (answer ?? '').includes('review this'),
    'the agent was told to act as the custom agent',
    (answer ?? '').slice(0, 160),
  );
  if (shots) await page.screenshot({ path: join(shots, 'customizations-chat.png') });

  // A Claude session: what Claude reads itself, a shadowed agent, a broken file.
  await page.evaluate(
    (folder) => window.rpc('session.create', { host: 'local', agent: 'claude', folder }),
    `file://${w2}`,
  );
  await page.click('[data-testid=session-row]:has-text("w2")');
  await page.waitForSelector(item('rule', 'CLAUDE.md'));
  const readBy = await page.textContent(`${item('rule', 'CLAUDE.md')} [data-badge=readBy]`);
  const note = await page.textContent(`${item('rule', 'CLAUDE.md')} .cust-note`);
  check(
    readBy === 'read by Claude Agent itself' && /Hangar cannot stop it/.test(note ?? ''),
    'a rule Claude reads itself says so, and what the switch cannot do',
    `${readBy} / ${note}`,
  );
  const mine = page.locator(`[data-testid=cust-item][data-name=reviewer]:has-text("My own reviewer")`);
  const shadow = await mine.locator('[data-badge=shadowed]').textContent();
  check(shadow === 'shadowed by reviewer', "the home agent is shadowed by the project's", shadow);
  const problem = await page.textContent('[data-testid=cust-load-problem]');
  check(/^Partly read: .*broken\.md/.test(problem ?? ''), 'a file that does not parse is said in words', problem);
  const offered = await page.$$eval('[data-testid=agent-select] option', (os) => os.map((o) => o.textContent));
  check(
    offered.filter((o) => o === 'reviewer').length === 1,
    'the composer offers the winning reviewer once',
    JSON.stringify(offered),
  );
  if (shots) await page.screenshot({ path: join(shots, 'customizations-claude-session.png') });
});
