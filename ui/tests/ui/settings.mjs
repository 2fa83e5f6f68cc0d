// Agent settings UI test: an agent that offers modes (the ACP `modes`
// block) and a reasoning-effort option. Its first session teaches the host
// what it offers; the next session's composer lists its modes and the
// effort ("Mode: Plan", "Effort: Low"); picking Plan reaches the running
// agent (`session/set_mode`, seen in the fake agent's log), and the choice
// is the session's, so it shows again after switching sessions. Env: see harness.mjs;
// SCREENSHOT_DIR keeps a screenshot.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-settings-');
const log = join(home, 'settings.log');
const script = join(home, 'modes.json');
writeFileSync(
  script,
  JSON.stringify({
    newSession: {
      modes: {
        currentModeId: 'default',
        availableModes: [
          { id: 'default', name: 'Default', description: 'Asks before edits' },
          { id: 'plan', name: 'Plan', description: 'Reads only, plans' },
        ],
      },
      configOptions: [
        {
          id: 'effort',
          name: 'Effort',
          category: 'thought_level',
          type: 'select',
          currentValue: 'medium',
          options: [
            { value: 'low', name: 'Low' },
            { value: 'medium', name: 'Medium' },
          ],
        },
      ],
    },
    turns: [[{ echo: true }, { end: 'end_turn' }]],
  }),
);
const shots = process.env.SCREENSHOT_DIR;
const logged = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');

await run(
  'settings',
  home,
  [`modes=${fakeBin} --script ${script}`],
  async (page, check) => {
    const folder = `file://${join(home, 'w')}`;
    await page.evaluate((f) => window.rpc('session.create', { host: 'local', agent: 'modes', folder: f }), folder);
    await page.waitForSelector('[data-testid=session-row]');
    // Its agent has started (and reported its settings) once the composer takes messages.
    await page.click('[data-testid=session-row]');
    await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
    const second = await page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: 'modes', folder: f }),
      folder,
    );
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-row]').length === 2);
    await page.click(`[data-testid=session-row][data-uri="${second.session}"]`);
    const mode = page.locator('[data-testid=setting-mode]');
    await mode.waitFor();
    const labels = await mode.locator('option').allTextContents();
    check(labels.join(',') === 'Mode: Default,Mode: Plan', 'the mode picker lists the agent modes', labels.join(','));
    check((await mode.inputValue()) === 'default', "the agent's current mode is selected", await mode.inputValue());
    const effort = await page.locator('[data-testid=setting-effort] option').allTextContents();
    check(effort.join(',') === 'Effort: Low,Effort: Medium', 'other settings are listed by name', effort.join(','));
    await mode.selectOption('plan');
    await page.waitForFunction(() => document.querySelector('[data-testid=setting-mode]')?.value === 'plan');
    const deadline = Date.now() + 20000;
    while (!logged().includes('session/set_mode plan') && Date.now() < deadline) await page.waitForTimeout(100);
    check(logged().includes('session/set_mode plan'), 'the running agent is switched to plan', logged().trim());
    if (shots) await page.screenshot({ path: join(shots, 'composer-agent-settings.png') });
    // The choice belongs to the session: another session and back shows it.
    await page.click('[data-testid=session-row]:not([data-uri="' + second.session + '"])');
    await page.click(`[data-testid=session-row][data-uri="${second.session}"]`);
    await page.waitForFunction(() => document.querySelector('[data-testid=setting-mode]')?.value === 'plan');
    check(true, 'the session keeps its mode', 'plan');
  },
  { env: { FAKE_ACP_LOG: log } },
);
