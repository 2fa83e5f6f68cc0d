// The Agents page, against the real core and the real embedded host: the
// app started with no agent opens it by itself; a custom agent added in
// its form (the fake ACP agent, its script given in the environment) is in
// the New session dialog at once and answers a message; then, when npm's
// cache holds it (the interop agents' `npm ci`), Qwen Code is installed
// from the page with a progress bar, is offered for new sessions without a
// restart, and is removed again. Env: see harness.mjs; SCREENSHOT_DIR
// keeps screenshots.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeBin, run, tempHome } from './harness.mjs';

const shots = process.env.SCREENSHOT_DIR;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const npmCache = existsSync(join(root, 'tests/interop/agents/node_modules/@qwen-code/qwen-code'));
const home = tempHome('hangar-ui-agents-');
const script = JSON.stringify({ turns: [[{ chunk: 'custom agent says hello' }, { end: 'end_turn' }]] });
const row = (id) => `[data-testid=known-agent][data-agent=${id}]`;

/** The agent names the New session dialog offers. */
async function offered(page) {
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=agent-select]');
  const names = await page.$$eval('[data-testid=agent-select] option', (os) => os.map((o) => o.textContent));
  await page.click('[data-testid=new-session-cancel]');
  await page.waitForSelector('[data-testid=new-session-dialog]', { state: 'detached' });
  return names;
}

await run(
  'agents',
  home,
  [],
  async (page, check) => {
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.waitForSelector('[data-testid=agents-first-run]');
    check(true, 'the app started with no agent opens the Agents page', '');
    await page.waitForSelector(`${row('qwen')} [data-testid=agent-status]`);
    const status = await page.textContent(`${row('qwen')} [data-testid=agent-status]`);
    check(status === 'Not installed', 'a missing agent says so', status);
    check(
      (await page.$$(`${row('qwen')} [data-testid=agent-install]`)).length === 1,
      'and offers Install at the tested version',
      await page.textContent(row('qwen')),
    );
    if (shots) await page.screenshot({ path: join(shots, 'agents-first-run.png') });

    // A custom agent, its script in its environment.
    await page.click('[data-testid=custom-agent-add]');
    await page.fill('[data-testid=custom-agent-id]', 'bad id');
    await page.fill('[data-testid=custom-agent-command]', fakeBin);
    await page.click('[data-testid=custom-agent-save]');
    const problem = await page.textContent('[data-testid=custom-agent-problem]');
    check(problem.startsWith('Id:'), 'a bad id is refused in the form, saying which field', problem);
    await page.fill('[data-testid=custom-agent-id]', 'mine');
    await page.fill('[data-testid=custom-agent-name]', 'My agent');
    await page.click('[data-testid=custom-agent-env-add]');
    await page.fill('[data-testid=custom-agent-env] input[aria-label="Environment: name 1"]', 'FAKE_ACP_SCRIPT');
    await page.fill('[data-testid=custom-agent-env] [data-testid=cust-kv-value]', script);
    if (shots) await page.screenshot({ path: join(shots, 'agents-custom-form.png') });
    await page.click('[data-testid=custom-agent-save]');
    await page.waitForSelector('[data-testid=custom-agent][data-agent=mine]');
    check(true, 'the custom agent is listed', '');
    const names = await offered(page);
    check(names.includes('My agent'), 'the New session dialog offers it at once', names.join(', '));

    const { session } = await page.evaluate(
      (folder) => window.rpc('session.create', { host: 'local', agent: 'mine', folder }),
      `file://${join(home, 'w')}`,
    );
    await page.click(`[data-testid=session-row][data-uri="${session}"]`);
    await page.fill('[data-testid=composer-input]', 'hello');
    await page.click('[data-testid=send]');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid=turn]')].some((t) =>
        t.textContent.includes('custom agent says hello'),
      ),
    );
    check(true, 'a session with it gets the reply its environment scripted', '');

    if (!npmCache) {
      check(true, 'install from npm skipped: no npm cache (tests/interop/agents: npm ci)', '');
      return;
    }
    await page.click('[data-host=local] [data-testid=host-menu]');
    await page.click('[data-testid=host-menu-agents]');
    await page.click(`${row('qwen')} [data-testid=agent-install]`);
    await page.waitForSelector(`${row('qwen')} [data-testid=agent-progress]`);
    const progressed = await page.waitForFunction(
      (sel) => {
        const s = document.querySelector(`${sel} [data-testid=agent-status]`)?.textContent ?? '';
        window.__steps = [...(window.__steps ?? []), s];
        return document.querySelector(sel)?.dataset.tone === 'ready' ? window.__steps : null;
      },
      row('qwen'),
      { polling: 100, timeout: 300000 },
    );
    const seen = await progressed.jsonValue();
    check(
      seen.some((s) => s.startsWith('Installing 0.15.10')),
      'the install shows its steps while it runs',
      [...new Set(seen)].slice(0, 6).join(' | '),
    );
    const done = await page.textContent(`${row('qwen')} [data-testid=agent-status]`);
    check(done.startsWith('Installed by Hangar 0.15.10'), 'then says it is installed, at which version', done);
    if (shots) await page.screenshot({ path: join(shots, 'agents-installed.png') });
    const after = await offered(page);
    check(after.includes('Qwen Code'), 'the new session dialog offers it without a restart', after.join(', '));

    await page.click(`${row('qwen')} [data-testid=agent-remove]`);
    await page.click('[data-testid=agent-remove-confirm] [data-testid=confirm-dialog-ok]');
    await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.tone === 'missing', row('qwen'));
    check(true, 'Remove uninstalls it', '');
    // The host's agent list reaches the dialog a moment after the page's
    // status (two updates): ask again for a few seconds.
    let gone = await offered(page);
    for (let i = 0; i < 20 && gone.includes('Qwen Code'); i++) {
      await page.waitForTimeout(250);
      gone = await offered(page);
    }
    check(!gone.includes('Qwen Code'), 'and new sessions no longer offer it', gone.join(', '));
  },
  { env: { npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' } },
);
