// Changes benchmark (prints figures, asserts nothing about time): the agent
// edits a 20,000-line file in 500 places and a 20-line file in one. Times,
// in headless Chromium against the real core: from a click on the file in
// the Changes panel to its diff on screen with every hunk's buttons, for
// the big file and, as the baseline in the same run, the small one
// (median of RUNS openings each); then the whole file (20,000 lines shown)
// and a jump to its end.
// `node tests/ui/bench-changes.mjs` (after `npm run build` and
// `cargo build -p hangar-desktop -p hangar-fake-agent`); env as harness.mjs, RUNS.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const runs = Number(process.env.RUNS ?? 5);
const home = tempHome('hangar-ui-bench-changes-');
const lines = (n, changed) =>
  Array.from({ length: n }, (_, i) => `line ${i}${changed(i) ? ' changed' : ''}`).join('\n') + '\n';
writeFileSync(
  join(home, 'w', 'big.txt'),
  lines(20000, () => false),
);
writeFileSync(
  join(home, 'w', 'small.txt'),
  lines(20, () => false),
);
const script = join(home, 'bench.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        { writeFile: { path: 'big.txt', text: lines(20000, (i) => i % 40 === 7) } },
        { writeFile: { path: 'small.txt', text: lines(20, (i) => i === 3) } },
        { end: 'end_turn' },
      ],
    ],
  }),
);
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

await run('bench-changes', home, [`editor=${fakeBin} --script ${script}`], async (page, check) => {
  const folder = `file://${join(home, 'w')}`;
  await page.evaluate((f) => window.rpc('session.create', { host: 'local', agent: 'editor', folder: f }), folder);
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'edit');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=row-changes]');
  await page.click('[data-testid=changes-button]');
  await page.waitForSelector('[data-testid=change-file][data-path="small.txt"]');
  const open = async (name, hunks) => {
    const times = [];
    for (let i = 0; i < runs; i++) {
      const other = name === 'big.txt' ? 'small.txt' : 'big.txt';
      await page.click(`[data-testid=change-file][data-path="${other}"] .change-name`);
      await page.waitForSelector('[data-testid=hunk-undo]');
      const ms = await page.evaluate(
        ([name, hunks]) =>
          new Promise((done) => {
            const t0 = performance.now();
            document.querySelector(`[data-testid=change-file][data-path="${name}"] .change-name`).click();
            const tick = () => {
              const head = document.querySelector('.change-diff .diff-head code')?.textContent;
              const box = document.querySelector('.diff-scroll');
              if (head === name && box?.dataset.hunks === String(hunks) && box.querySelector('[data-testid=hunk-undo]'))
                requestAnimationFrame(() => done(performance.now() - t0));
              else requestAnimationFrame(tick);
            };
            tick();
          }),
        [name, hunks],
      );
      times.push(ms);
    }
    return median(times);
  };
  const small = await open('small.txt', 1);
  const big = await open('big.txt', 500);
  console.log(
    `# open the diff: 20,000 lines / 500 hunks ${big.toFixed(0)} ms; 20 lines / 1 hunk ${small.toFixed(0)} ms (median of ${runs}); ratio ${(big / small).toFixed(1)}`,
  );
  // The whole file (every unchanged line shown: 20,000 rows), then a jump
  // to its end: the time to the last line on screen.
  const whole = await page.evaluate(
    () =>
      new Promise((done) => {
        const t0 = performance.now();
        document.querySelector('[data-testid=gap]').click();
        const tick = () => {
          const box = document.querySelector('.diff-scroll');
          if (Number(box?.dataset.rows) >= 20000 && box.querySelector('.dl'))
            requestAnimationFrame(() => done(performance.now() - t0));
          else requestAnimationFrame(tick);
        };
        tick();
      }),
  );
  const drawn = await page.$$eval('.diff-scroll .dl', (els) => els.length);
  const end = await page.evaluate(
    () =>
      new Promise((done) => {
        const box = document.querySelector('.diff-scroll');
        const t0 = performance.now();
        box.scrollTop = box.scrollHeight;
        const tick = () => {
          if (box.textContent.includes('line 19999')) requestAnimationFrame(() => done(performance.now() - t0));
          else requestAnimationFrame(tick);
        };
        tick();
      }),
  );
  console.log(
    `# whole file (20,000 lines): open ${whole.toFixed(0)} ms, ${drawn} lines in the page; jump to its end ${end.toFixed(0)} ms`,
  );
  check(drawn < 500, 'a 20,000-line diff puts only the lines in view in the page', String(drawn));
  check(true, 'figures printed', `${big.toFixed(0)} / ${small.toFixed(0)} ms`);
});
