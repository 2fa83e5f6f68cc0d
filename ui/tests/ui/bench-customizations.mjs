// Customizations panel benchmark (prints figures, asserts nothing about
// time): the time from a click on *Customizations* to a usable tree (every
// entry drawn, its switch enabled), for a session whose folder holds 200
// agents and, as the baseline in the same run, one holding 1 (median of
// RUNS openings each). Headless Chromium against the real core and host.
// `node tests/ui/bench-customizations.mjs` (after `npm run build` and
// `cargo build -p hangar-desktop -p hangar-fake-agent`); env as harness.mjs, RUNS.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const runs = Number(process.env.RUNS ?? 5);
const home = tempHome('hangar-ui-bench-cust-');
const folder = (name, agents) => {
  const dir = join(home, name, '.claude', 'agents');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < agents; i++) {
    const n = `agent-${String(i).padStart(3, '0')}`;
    writeFileSync(join(dir, `${n}.md`), `---\nname: ${n}\ndescription: Agent number ${i}\n---\nBody ${i}.\n`);
  }
  return join(home, name);
};
const big = folder('big', 200);
const small = folder('small', 1);
const script = join(home, 'echo.json');
writeFileSync(script, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

await run('bench-customizations', home, [`claude=${fakeBin} --script ${script}`], async (page, check) => {
  await page.setViewportSize({ width: 1280, height: 860 });
  const open = async (dir, count) => {
    await page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: 'claude', folder: f }),
      `file://${dir}`,
    );
    const name = dir.split('/').pop();
    await page.click(`[data-testid=session-row]:has-text("${name}")`);
    await page.waitForSelector('[data-testid=customizations-button]');
    // The first opening subscribes the session: not counted.
    await page.click('[data-testid=customizations-button]');
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=cust-item][data-kind=agent]').length === n,
      count,
    );
    await page.keyboard.press('Escape');
    const times = [];
    for (let i = 0; i < runs; i++) {
      await page.waitForSelector('[data-testid=customizations-panel]', { state: 'detached' });
      times.push(
        await page.evaluate(
          (n) =>
            new Promise((done) => {
              const t0 = performance.now();
              document.querySelector('[data-testid=customizations-button]').click();
              const tick = () => {
                const items = document.querySelectorAll('[data-testid=cust-item][data-kind=agent]');
                if (items.length === n && !items[n - 1].querySelector('[data-testid=cust-switch]').disabled)
                  requestAnimationFrame(() => done(performance.now() - t0));
                else requestAnimationFrame(tick);
              };
              tick();
            }),
          count,
        ),
      );
      await page.keyboard.press('Escape');
    }
    return median(times);
  };
  const one = await open(small, 1);
  const many = await open(big, 200);
  console.log(
    `# open the Customizations panel: 200 agents ${many.toFixed(0)} ms; 1 agent ${one.toFixed(0)} ms (median of ${runs}); ratio ${(many / one).toFixed(1)}`,
  );
  check(true, 'figures printed', `${many.toFixed(0)} / ${one.toFixed(0)} ms`);
});
