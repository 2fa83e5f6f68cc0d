// Paging UI test: a session with more turns than the transcript mounts at
// first (30). Scrolling to the top prepends older turns; the reader must
// stay on the turn they were reading, and the view must not land at the
// top (which would ask for yet another page straight away). Chromium keeps
// the place by itself (`overflow-anchor`), the app's WebKit does not, so the
// test turns anchoring off (`overflow-anchor: none`) to see what WebKit sees.
// Env: see harness.mjs.
import { join } from 'node:path';
import { run, tempHome, writeTurns } from './harness.mjs';

const TURNS = 45;
const home = tempHome('hangar-ui-paging-');

await run('paging', home, [], async (page, check) => {
  const folder = `file://${join(home, 'w')}`;
  const { session } = await page.evaluate(
    (f) => window.rpc('session.create', { host: 'local', agent: null, folder: f }),
    folder,
  );
  await writeTurns(page, session, TURNS, 'lorem ipsum dolor sit amet '.repeat(12));
  await page.addStyleTag({ content: '[data-testid=transcript] { overflow-anchor: none !important; }' });
  await page.click('[data-testid=session-row]');
  await page
    .waitForFunction((n) => {
      const turns = [...document.querySelectorAll('[data-testid=turn]')];
      return turns.length === 30 && turns[29].textContent.includes(`turn ${n - 1}:`);
    }, TURNS)
    .catch(async (e) => {
      const seen = await page.evaluate(() =>
        [...document.querySelectorAll('[data-testid=turn]')].map((t) => t.textContent.slice(0, 12)),
      );
      throw new Error(`30 turns ending with turn ${TURNS - 1}: saw ${JSON.stringify(seen)}: ${e.message}`);
    });
  // The first mounted turn, and where it is within the transcript's content
  // (its offset from the top once scrolled to the top).
  const [reading, expected] = await page.evaluate(() => {
    const el = document.querySelector('[data-testid=transcript]');
    const turn = document.querySelector('[data-testid=turn]');
    return [turn.dataset.turn, turn.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop];
  });
  await page.evaluate(() => {
    const el = document.querySelector('[data-testid=transcript]');
    el.scrollTop = 0;
    el.dispatchEvent(new Event('scroll'));
  });
  await page
    .waitForFunction((n) => document.querySelectorAll('[data-testid=turn]').length === n, TURNS)
    .catch(async (e) => {
      const seen = await page.evaluate(() => ({
        turns: document.querySelectorAll('[data-testid=turn]').length,
        scrollTop: document.querySelector('[data-testid=transcript]').scrollTop,
      }));
      throw new Error(
        `all ${TURNS} turns mounted after scrolling to the top: saw ${JSON.stringify(seen)}: ${e.message}`,
      );
    });
  await page.evaluate(
    () =>
      new Promise((r) => {
        let n = 0;
        const f = () => (++n < 40 ? requestAnimationFrame(f) : r());
        requestAnimationFrame(f);
      }),
  );
  const after = await page.evaluate((id) => {
    const el = document.querySelector('[data-testid=transcript]');
    const box = el.getBoundingClientRect();
    const turn = document.querySelector(`[data-turn="${id}"]`).getBoundingClientRect();
    return { scrollTop: el.scrollTop, offset: turn.top - box.top };
  }, reading);
  check(
    Math.abs(after.offset - expected) < 40,
    'the turn being read stays in place when older turns are prepended',
    `its top is ${after.offset.toFixed(0)} px from the transcript's top, was ${expected.toFixed(0)} px`,
  );
  check(
    after.scrollTop > 80,
    'the view is not left at the top (no second load)',
    `scrollTop ${after.scrollTop.toFixed(0)}`,
  );
});
