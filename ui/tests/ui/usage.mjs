// Usage UI test: two agents report usage the ACP way. "claude" sends
// `usage_update` (context used, its size, the session's cost so far) and
// answers each prompt with tokens; "codex" sends the context only. The chat
// header's context meter shows "42k / 200k" after the first turn and moves
// to "90k / 200k" with the second; each turn's footer shows its tokens and
// the cost so far. A session whose agent reports nothing shows no meter.
// The Usage page (the app menu's "Usage…", every host) plots one bar with
// a segment per agent and lists the claude session first (the costliest);
// a click opens it; its days are the last 7 / 30 / 90, all time or a custom
// from–to, asked of the hosts; every day of the range has its bar (a day
// without usage at zero). A long range is drawn a bar a week or a month:
// with the store's turns moved back in time (the core stopped, the real
// SQLite file changed, the core started again), a custom range of 3 years
// draws at most 40 bars, a month each, their totals summing to the page's
// total; one of a year a bar a week from a Monday. Env: see harness.mjs;
// SCREENSHOT_DIR keeps screenshots of the chat header and the Usage page.
// The header shows a normal-length title whole at 1280 and 1024 px, with
// the Customizations panel too.
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-usage-');
// A repository, so the chat header shows its branch as well.
execFileSync('git', ['init', '--quiet', '-b', 'main', join(home, 'w')]);
const update = (used, cost) => ({
  update: {
    sessionUpdate: 'usage_update',
    used,
    size: 200000,
    ...(cost == null ? {} : { cost: { amount: cost, currency: 'USD' } }),
  },
});
const scripts = {
  claude: {
    turns: [
      [{ chunk: 'one' }, update(42000, 0.25), { end: 'end_turn', usage: { inputTokens: 100, outputTokens: 10 } }],
      [{ chunk: 'two' }, update(90000, 0.75), { end: 'end_turn', usage: { inputTokens: 200, outputTokens: 20 } }],
    ],
  },
  codex: { turns: [[{ chunk: 'hi' }, update(1000), { end: 'end_turn', usage: { inputTokens: 50, outputTokens: 5 } }]] },
  quiet: { turns: [[{ chunk: 'nothing to report' }, { end: 'end_turn' }]] },
};
const agents = Object.entries(scripts).map(([id, s]) => {
  const file = join(home, `${id}.json`);
  writeFileSync(file, JSON.stringify(s));
  return `${id}=${fakeBin} --script ${file}`;
});
const shots = process.env.SCREENSHOT_DIR;
// The claude session's title once renamed: a normal length, to be shown whole.
const longTitle = 'Plan the change to the login form';
const text = (page, sel) => page.$eval(sel, (e) => e.textContent.trim()).catch(() => null);

/** `YYYY-MM-DD` of the UTC day `days` before `from` (a `Date`). */
const daysBefore = (from, days) => new Date(from.getTime() - days * 86_400_000).toISOString().slice(0, 10);

/** The host's store (`hangar.db`) under the data dir. */
function storeFile(dir) {
  const found = readdirSync(dir, { recursive: true }).find((f) => String(f).split('/').pop() === 'hangar.db');
  if (!found) throw new Error(`no hangar.db under ${dir}`);
  return join(dir, String(found));
}

/** Move the turns of `agent`'s sessions numbered `ord` to start on `day`, in the store itself. */
function backdate(db, agent, ord, day) {
  const sql = `UPDATE turns SET turn = json_set(turn, '$.startedAt', '${day}T10:00:00Z')
    WHERE ord = ${ord} AND chat IN (SELECT c.channel FROM checkpoints c JOIN sessions s ON s.uri = c.parent
      WHERE json_extract(s.summary, '$.provider') = '${agent}');`;
  execFileSync('sqlite3', [db, sql]);
}

await run('usage', home, agents, async (page, check, _home, { core }) => {
  const folder = `file://${join(home, 'w')}`;
  const say = async (title, message, turns) => {
    await page.click(`[data-testid=session-row]:has-text("${title}")`);
    await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
    await page.fill('[data-testid=composer-input]', message);
    await page.click('[data-testid=send]');
    await page.waitForFunction(
      (n) =>
        document.querySelectorAll('[data-testid=turn]').length === n &&
        !document.querySelector('[data-testid=turn].active'),
      turns,
    );
  };
  for (const agent of ['claude', 'codex', 'quiet']) {
    const { session } = await page.evaluate(
      ([a, f]) => window.rpc('session.create', { host: 'local', agent: a, folder: f }),
      [agent, folder],
    );
    await page.evaluate(
      ([s, t]) => window.rpc('session.rename', { host: 'local', session: s, title: t }),
      [session, `${agent} work`],
    );
  }
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-row]').length === 3);

  await say('claude work', 'first', 1);
  await page.waitForSelector('[data-testid=context-meter]');
  const first = await text(page, '[data-testid=context-meter-text]');
  check(first === '42k / 200k', 'the meter shows the context used of the window', first);
  const footer = await text(page, '[data-testid=turn-usage]');
  check(footer === '100 in · 10 out · $0.25 so far', "the turn's footer shows its tokens and the cost", footer);
  await say('claude work', 'second', 2);
  await page.waitForFunction(
    () => document.querySelector('[data-testid=context-meter-text]')?.textContent.trim() === '90k / 200k',
  );
  const value = await page.$eval('[data-testid=context-meter-bar]', (m) => m.value);
  check(value === 90000, 'the meter moved with the new usage_update', String(value));
  if (shots) await page.screenshot({ path: join(shots, 'usage-context-meter.png') });

  // The header with the meter, the branch and the actions: a normal-length
  // title is shown whole at 1280 and at 1024 px, with the Customizations
  // panel closed and open (before, it was cut to "Plan the cha…").
  await page.dblclick('[data-testid=chat-title]');
  await page.fill('[data-testid=rename-input]', longTitle);
  await page.press('[data-testid=rename-input]', 'Enter');
  await page.waitForFunction((t) => document.querySelector('[data-testid=chat-title]')?.textContent === t, longTitle);
  const titleFits = () =>
    page.$eval('[data-testid=chat-title]', (h) => ({ scroll: h.scrollWidth, client: h.clientWidth }));
  for (const width of [1280, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    for (const panel of [false, true]) {
      if (panel) await page.click('[data-testid=customizations-button]');
      await page.waitForFunction((open) => !!document.querySelector('#customizations-panel') === open, panel);
      const fit = await titleFits();
      check(
        fit.scroll <= fit.client && fit.client > 0,
        `the title is whole at ${width} px${panel ? ' with the Customizations panel' : ''}`,
        JSON.stringify(fit),
      );
      const meterShown = await page.$eval('[data-testid=context-meter-text]', (e) => e.getBoundingClientRect().width);
      check(meterShown > 0, `the meter is still shown at ${width} px`, String(meterShown));
      if (shots && width === 1024 && panel) await page.screenshot({ path: join(shots, 'usage-chat-header-1024.png') });
      if (panel) await page.click('[data-testid=customizations-button]');
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  await say('codex work', 'hello', 1);
  await say('quiet work', 'hello', 1);
  const meter = await page.$('[data-testid=context-meter]');
  check(meter === null, 'an agent that reports nothing shows no meter', String(meter));
  const quietFooter = await page.$('[data-testid=turn-usage]');
  check(quietFooter === null, 'nor usage in the footer', String(quietFooter));

  await page.click('[data-testid=app-menu]');
  await page.click('[data-testid=app-menu-usage]');
  await page.waitForSelector('[data-testid=usage-chart]');
  const segments = await page.$$eval('[data-testid=usage-segment]', (s) => s.map((e) => e.dataset.agent));
  check(
    JSON.stringify(segments) === '["claude","codex"]',
    'one bar stacked from two agents (the quiet one has none)',
    JSON.stringify(segments),
  );
  const rows = await page.$$eval('[data-testid=usage-session] td:first-child', (c) => c.map((e) => e.textContent));
  check(rows[0] === longTitle && rows.length === 2, 'the costliest session is listed first', JSON.stringify(rows));
  const missing = await page.$('[data-testid=usage-host-missing]');
  check(missing === null, 'the one host answered', String(missing));
  if (shots) await page.screenshot({ path: join(shots, 'usage-page.png') });

  // The days asked for: the last 30 by default, today's bar in them; a
  // custom range in the past has none (the hosts were asked for it); one
  // that starts after it ends is refused with why; the last 7 have today.
  const month = await page.$$eval('[data-testid=usage-bar]', (b) => b.length);
  check(month === 30, 'the last 30 days: 30 bars', String(month));
  const rangeText = await text(page, '[data-testid=usage-range-text]');
  const today = new Date().toISOString().slice(0, 10);
  check(rangeText?.endsWith(`– ${today} (UTC)`), 'the last 30 days by default, up to today', rangeText);
  await page.selectOption('[data-testid=usage-range]', 'custom');
  await page.fill('[data-testid=usage-from]', '2020-01-01');
  await page.fill('[data-testid=usage-to]', '2020-01-31');
  await page.waitForSelector('[data-testid=usage-empty]');
  const past = await page.$$eval('[data-testid=usage-session]', (r) => r.length);
  check(past === 0, 'a custom range in the past has no usage and no sessions', String(past));
  await page.fill('[data-testid=usage-from]', '2020-02-01');
  const refused = await text(page, '[data-testid=usage-range-error]');
  check(refused?.includes('after it ends'), 'a range that starts after it ends is refused', refused);
  await page.fill('[data-testid=usage-from]', '2020-01-01');
  await page.fill('[data-testid=usage-to]', '');
  await page.waitForSelector('[data-testid=usage-segment]');
  const open = await page.$$eval('[data-testid=usage-segment]', (s) => s.length);
  check(open === 2, 'a custom range open at its end reaches today', String(open));
  await page.selectOption('[data-testid=usage-range]', '7');
  await page.waitForFunction(
    (t) => [...document.querySelectorAll('[data-testid=usage-bar]')].pop()?.dataset.day === t,
    today,
  );
  const week = await page.$$eval('[data-testid=usage-segment]', (s) => s.map((e) => e.dataset.agent));
  check(JSON.stringify(week) === '["claude","codex"]', "the last 7 days: today's bar", JSON.stringify(week));
  // Every day of the range has its bar, the six without usage at zero
  // (before, only the days with usage were drawn, side by side).
  const bars = await page.$$eval('[data-testid=usage-bar]', (b) => b.map((e) => [e.dataset.day, e.dataset.total]));
  const weekDays = Array.from({ length: 7 }, (_, i) =>
    new Date(Date.now() - (6 - i) * 86_400_000).toISOString().slice(0, 10),
  );
  check(
    JSON.stringify(bars.map((b) => b[0])) === JSON.stringify(weekDays) &&
      bars.slice(0, 6).every((b) => b[1] === '0') &&
      Number(bars[6][1]) > 0,
    'the last 7 days: a bar for each day, the days without usage at zero',
    JSON.stringify(bars),
  );
  if (shots) await page.screenshot({ path: join(shots, 'usage-page-range.png') });
  await page.click('[data-testid=usage-cost]');
  const costSegments = await page.$$eval('[data-testid=usage-segment]', (s) => s.map((e) => e.dataset.agent));
  check(
    JSON.stringify(costSegments) === '["claude"]',
    'cost is plotted only where reported',
    JSON.stringify(costSegments),
  );
  await page.click('[data-testid=usage-session] button');
  await page.waitForSelector('[data-testid=chat-title]');
  const title = await text(page, '[data-testid=chat-title]');
  check(title === longTitle, 'a click opens the session', title);

  // A long range: the claude session's first turn moved to 20 days after
  // the start of a 3-year range, its second to 300 days ago (the codex
  // turn stays today), in the store's SQLite file with the core down.
  const now = new Date();
  const threeYears = new Date(now);
  threeYears.setUTCFullYear(now.getUTCFullYear() - 3);
  const from3 = threeYears.toISOString().slice(0, 10);
  await core.down();
  const db = storeFile(join(home, 'data'));
  backdate(db, 'claude', 1, daysBefore(threeYears, -20));
  backdate(db, 'claude', 2, daysBefore(now, 300));
  await core.up();
  await page.reload();
  await page.waitForSelector('[data-testid=session-row]');
  await page.click('[data-testid=app-menu]');
  await page.click('[data-testid=app-menu-usage]');
  await page.waitForSelector('[data-testid=usage-chart]');
  await page.selectOption('[data-testid=usage-range]', 'custom');
  await page.fill('[data-testid=usage-to]', today);
  await page.fill('[data-testid=usage-from]', from3);
  // Drawn once the first bar is that of the range's first day (its day,
  // week or month), so the answer for the new range has come.
  const firstBarIn = (from) =>
    page.waitForFunction(
      ([lo, hi]) => {
        const d = document.querySelector('[data-testid=usage-bar]')?.dataset.day;
        return d && d >= lo && d <= hi;
      },
      [daysBefore(new Date(`${from}T00:00:00Z`), 31), from],
    );
  await firstBarIn(from3);
  const long = () =>
    page.evaluate(() => ({
      bucket: document.querySelector('[data-testid=usage-chart]').dataset.bucket,
      bars: [...document.querySelectorAll('[data-testid=usage-bar]')].map((b) => [
        b.dataset.day,
        Number(b.dataset.total),
      ]),
      total: Number(document.querySelector('[data-testid=usage-total]')?.dataset.total),
      said: document.querySelector('[data-testid=usage-bucket]')?.textContent,
      titles: [...document.querySelectorAll('[data-testid=usage-segment] title')].map((t) => t.textContent),
      labels: [...document.querySelectorAll('[data-testid=usage-bar] text.usage-day')].map((t) => t.textContent),
    }));
  const years = await long();
  const sum = (bars) => bars.reduce((s, b) => s + b[1], 0);
  const used = years.bars.filter((b) => b[1] > 0);
  check(
    years.bars.length <= 40 && years.bars.length >= 36 && years.bucket === 'month' && years.said === 'A bar a month',
    'a custom range of 3 years: a bar a month, at most 40',
    `${years.bars.length} bars, ${years.said}`,
  );
  check(
    sum(years.bars) === years.total && years.total === 385 && used.length === 3,
    "the months' totals sum to the page's total (385 tokens in three months)",
    JSON.stringify({ total: years.total, used }),
  );
  const monthName = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'long', year: 'numeric' }).format(now);
  check(
    years.titles.at(-1)?.startsWith(`${monthName} · `) && years.bars.every((b) => b[0].endsWith('-01')),
    'each bar is a month, its tooltip says which',
    `${years.titles.at(-1)}; ${years.labels.join(', ')}`,
  );
  if (shots) await page.screenshot({ path: join(shots, 'usage-page-3-years.png') });
  // A year: a bar a week, each from a Monday; the 300-day-old turn and today's.
  const from1 = daysBefore(now, 364);
  await page.fill('[data-testid=usage-from]', from1);
  await firstBarIn(from1);
  const year = await long();
  check(
    year.bars.length <= 54 &&
      year.bucket === 'week' &&
      year.bars.every((b) => new Date(`${b[0]}T00:00:00Z`).getUTCDay() === 1) &&
      sum(year.bars) === year.total &&
      year.total === 275 &&
      year.titles.every((t) => t.startsWith('week of ')),
    "a year: a bar a week from a Monday, summing to the page's total (275 tokens)",
    JSON.stringify({ n: year.bars.length, total: year.total, first: year.bars[0], title: year.titles[0] }),
  );
  if (shots) await page.screenshot({ path: join(shots, 'usage-page-year.png') });
});
