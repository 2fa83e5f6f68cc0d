// The agent's own earlier sessions in the New session dialog, against the
// real core and its embedded host with the scripted agent ("claude") that
// has sessions of its own in the folder `w`: "Continue one of Claude's own
// sessions in this folder…" lists them (asked of the host on demand, only
// that folder's); Continue starts a Hangar session that opens it, its
// history shown as turns; the next message goes on in the agent's own
// session; the list then offers "Open in Hangar" instead. An agent that
// cannot open its sessions ("plain") says so.
// Env: see harness.mjs; SCREENSHOT_DIR (optional) keeps screenshots.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-past-sessions-');
const ws = join(home, 'w');
const past = [
  {
    sessionId: 'cli-1',
    cwd: ws,
    title: 'Fix the flaky quokka test',
    updatedAt: '2026-11-20T10:00:00Z',
    history: [
      ['why does the quokka test fail?', 'Because the wombat fixture is shared.'],
      ['fix it', 'Done: each test has its own fixture.'],
    ],
  },
  { sessionId: 'cli-2', cwd: '/somewhere/else', title: 'Elsewhere', history: [['hello', 'hi']] },
];
const script = (name, capabilities) => {
  const path = join(home, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({ capabilities, pastSessions: past, turns: [[{ echo: true }, { end: 'end_turn' }]] }),
  );
  return path;
};
const claude = script('claude', { loadSession: true, sessionCapabilities: { list: {} } });
const plain = script('plain', { sessionCapabilities: { list: {} } });
const shots = process.env.SCREENSHOT_DIR;
const shot = async (page, name) => shots && (await page.screenshot({ path: join(shots, `${name}.png`) }));

/** Open New session on `agent` in the folder `w`. */
async function dialogOn(page, agent) {
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=folder-entry]', { timeout: 20000 });
  await page.selectOption('[data-testid=agent-select]', agent);
  await page.click('[data-testid=folder-entry]:has-text("w")');
  await page.waitForFunction((p) => document.querySelector('[data-testid=folder-path]')?.textContent === p, ws);
}

await run(
  'past-sessions',
  home,
  [`claude=${fakeBin} --script ${claude}`, `plain=${fakeBin} --script ${plain}`],
  async (page, check) => {
    await dialogOn(page, 'claude');
    await page.click('[data-testid=past-sessions-show]');
    await page.waitForSelector('[data-testid=past-session]', { timeout: 20000 }).catch(() => {});
    const rows = await page.$$eval('[data-testid=past-session]', (els) => els.map((e) => e.textContent));
    check(
      rows.length === 1 && rows[0].includes('Fix the flaky quokka test') && rows[0].includes('Continue'),
      "lists the agent's own sessions in this folder only",
      JSON.stringify(rows),
    );
    await shot(page, 'new-session-past-sessions');

    await page.click('[data-testid=past-session-continue]');
    await page.waitForSelector('[data-testid=new-session-dialog]', { state: 'detached' });
    const shown = await page
      .waitForFunction(
        () => {
          const text = document.body.textContent ?? '';
          return (
            text.includes('why does the quokka test fail?') &&
            text.includes('Because the wombat fixture is shared.') &&
            text.includes('Done: each test has its own fixture.')
          );
        },
        null,
        { timeout: 20000 },
      )
      .then(
        () => true,
        () => false,
      );
    check(shown, 'Continue opens it with its history shown as turns', String(shown));
    const title = await page
      .waitForFunction(
        () => document.querySelector('[data-testid=chat-title]')?.textContent?.trim() === 'Fix the flaky quokka test',
        null,
        { timeout: 10000 },
      )
      .then(
        () => true,
        async () => await page.textContent('[data-testid=chat-title]'),
      );
    check(title === true, 'the session takes the title the agent listed, not its first message', String(title));
    await shot(page, 'past-session-continued');

    await page.fill('[data-testid=composer-input]', 'and now?');
    await page.keyboard.press('Enter');
    const echoed = await page
      .waitForFunction(() => (document.body.textContent ?? '').includes('[restored by session/load]'), null, {
        timeout: 20000,
      })
      .then(
        () => true,
        () => false,
      );
    check(echoed, "the next message goes on in the agent's own session", String(echoed));

    await dialogOn(page, 'claude');
    await page.click('[data-testid=past-sessions-show]');
    await page.waitForSelector('[data-testid=past-session]', { timeout: 20000 });
    const reopen = await page.$$eval('[data-testid=past-session-open]', (els) => els.length);
    check(reopen === 1, 'the list then offers "Open in Hangar"', String(reopen));
    await page.click('[data-testid=new-session-cancel]');

    await dialogOn(page, 'plain');
    await page.click('[data-testid=past-sessions-show]');
    const why = await page
      .waitForSelector('[data-testid=past-sessions-unavailable]', { timeout: 20000 })
      .then((e) => e.textContent());
    check(why.includes('cannot open'), 'an agent that cannot open its sessions says so', why);
  },
);
