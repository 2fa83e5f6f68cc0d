// Plan UI test: an agent that sends its plan three times while it works
// (two entries to do; the first done and the second in progress; both
// done). The chat shows one checklist that updates in place: the same
// element, its marks and progress changing, and it stays after the turn.
// Env: see harness.mjs; SCREENSHOT_DIR keeps a screenshot.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-plan-');
const plan = (a, b) => ({
  update: {
    sessionUpdate: 'plan',
    entries: [
      { content: 'Read the failing test', priority: 'high', status: a },
      { content: 'Fix the parser', priority: 'medium', status: b },
    ],
  },
});
const script = join(home, 'plan.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        plan('pending', 'pending'),
        // Long enough for a loaded machine to show each state before the next.
        { sleep: 4000 },
        plan('completed', 'in_progress'),
        { sleep: 4000 },
        plan('completed', 'completed'),
        { chunk: 'Both steps are done.' },
        { end: 'end_turn' },
      ],
    ],
  }),
);
const shots = process.env.SCREENSHOT_DIR;
const states = (page) => page.$$eval('[data-testid=plan] li', (els) => els.map((e) => e.dataset.state).join(','));

await run('plan', home, [`planner=${fakeBin} --script ${script}`], async (page, check) => {
  const folder = `file://${join(home, 'w')}`;
  await page.evaluate((f) => window.rpc('session.create', { host: 'local', agent: 'planner', folder: f }), folder);
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'Fix the parser');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=plan]');
  // The checklist's entries, not only its frame (under load they come a frame later).
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=plan] li').length === 2);
  const first = await page.$('[data-testid=plan]');
  check((await states(page)) === 'todo,todo', 'the plan starts as a checklist', await states(page));
  await page.waitForFunction(() => document.querySelector('[data-testid=plan] li')?.dataset.state === 'done');
  check((await states(page)) === 'done,doing', 'an update changes the marks', await states(page));
  if (shots) await page.screenshot({ path: join(shots, 'chat-plan.png') });
  const same = await page.evaluate((el) => el === document.querySelector('[data-testid=plan]'), first);
  check(same, 'the checklist is updated in place, not added again', String(same));
  await page.waitForSelector('[data-testid=turn]:not(.active)');
  const count = await page.$$eval('[data-testid=plan]', (els) => els.length);
  const progress = await page.textContent('[data-testid=plan-progress]');
  check(count === 1 && progress === '2 of 2 done', 'one plan, all done, after the turn', `${count} ${progress}`);
});
