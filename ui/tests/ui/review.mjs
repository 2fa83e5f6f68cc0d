// Review UI test: line comments on an agent's changes go back to it as one
// message. The agent edits lines 2 and 11 of notes.txt; in the Changes panel
// a click on line 2's number and a click then shift-click over lines 11–12
// write two comments (a third is written and deleted, one is edited). The
// app is restarted on the same data dir: the comments are still there.
// "Send to agent" starts one turn whose ACP prompt (echoed back by the fake
// agent) quotes each comment with its file, lines and the lines themselves,
// and links the file; the transcript shows the message as a review card.
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, runLaunches, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-review-');
const original = `${Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const edited = original.replace('line 2\n', 'line 2, improved\n').replace('line 11\n', 'line 11, improved\n');
writeFileSync(join(home, 'w', 'notes.txt'), original);
const script = join(home, 'review.json');
writeFileSync(
  script,
  JSON.stringify({
    // Every prompt: the same edit (a no-op the second time), then the
    // prompt's ACP content blocks echoed back. (The agent restarts with
    // the app, so its prompt count starts again at the review.)
    turns: [[{ writeFile: { path: 'notes.txt', text: edited } }, { echoPrompt: true }, { end: 'end_turn' }]],
  }),
);
const shots = process.env.SCREENSHOT_DIR;
const reviews = join(home, 'data', 'reviews');
const kept = () => (existsSync(reviews) ? readdirSync(reviews).filter((f) => f.endsWith('.json')) : []);
const lineNumber = (page, text) =>
  page.locator('[data-testid=change-diff] .dl', { hasText: text }).locator('[data-testid=line-number]');
const places = (page) => page.$$eval('[data-testid=review-place]', (els) => els.map((e) => e.textContent).join(','));
const openChanges = async (page) => {
  await page.click('[data-testid=changes-button]');
  await page.click('[data-testid=change-file][data-path="notes.txt"] .change-name');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 2);
};

await runLaunches(
  'review',
  home,
  [`editor=${fakeBin} --script ${script}`],
  [
    async (page, check) => {
      const folder = `file://${join(home, 'w')}`;
      await page.evaluate((f) => window.rpc('session.create', { host: 'local', agent: 'editor', folder: f }), folder);
      await page.click('[data-testid=session-row]');
      await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
      await page.fill('[data-testid=composer-input]', 'Improve lines 2 and 11');
      await page.click('[data-testid=send]');
      await page.waitForSelector('[data-testid=turn]:not(.active)');
      await page.waitForSelector('[data-testid=row-changes]');
      await openChanges(page);

      // One line: click its number, write, Add comment.
      await lineNumber(page, 'line 2, improved').click();
      const place = await page.textContent('[data-testid=comment-form] code');
      check(place === 'notes.txt:2', 'a click on a line number picks that line', place);
      await page.fill('[data-testid=comment-input]', 'Say what was improved');
      await page.click('[data-testid=comment-save]');
      await page.waitForSelector('[data-testid=review-comment]');
      // A range: click, then shift-click; Ctrl+Enter adds it.
      await lineNumber(page, 'line 11, improved').click();
      await lineNumber(page, 'line 12').click({ modifiers: ['Shift'] });
      const picked = await page.$$eval('.dl.picked', (els) => els.length);
      check(picked === 2, 'a shift-click extends the pick to a range', String(picked));
      await page.fill('[data-testid=comment-input]', 'Both lines need a test');
      await page.keyboard.press('Control+Enter');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=review-comment]').length === 2);
      // From the keyboard: n goes to the first hunk, c comments on it; then delete that comment.
      await page.click('#changes-title');
      await page.keyboard.press('n');
      await page.keyboard.press('c');
      await page.waitForSelector('[data-testid=comment-input]');
      await page.keyboard.type('A third one');
      await page.keyboard.press('Control+Enter');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=review-comment]').length === 3);
      const three = await places(page);
      check(three === 'notes.txt:2,notes.txt:11–12,notes.txt:2', 'comments list file:lines in order', three);
      await page.locator('[data-testid=review-comment]').nth(2).locator('[data-testid=review-delete]').click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=review-comment]').length === 2);
      // Edit the first.
      await page.locator('[data-testid=review-comment]').nth(0).locator('[data-testid=review-edit]').click();
      await page.fill('[data-testid=comment-edit] [data-testid=comment-input]', 'Say what was improved, and why');
      await page.click('[data-testid=comment-edit] [data-testid=comment-save]');
      await page.waitForFunction(() =>
        document.querySelector('[data-testid=review-body]')?.textContent.endsWith('and why'),
      );
      const count = await page.textContent('[data-testid=review-count]');
      check(count === 'Review · 2 comments', 'the review counts its comments', count);
      check(kept().length === 1, 'the comments are kept in a file in the data dir', kept().join(','));
      if (shots) await page.screenshot({ path: join(shots, 'review-comments.png') });
    },
    async (page, check) => {
      await page.click('[data-testid=session-row]');
      await page.waitForSelector('[data-testid=turn]:not(.active)');
      await openChanges(page);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=review-comment]').length === 2);
      const after = await places(page);
      check(after === 'notes.txt:2,notes.txt:11–12', 'the comments are still there after a restart', after);
      const body = await page.textContent('[data-testid=review-body]');
      check(body === 'Say what was improved, and why', 'with their edits', body);

      await page.click('[data-testid=review-send]');
      await page.waitForSelector('[data-testid=changes-note]');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=turn]').length === 2);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=turn]:not(.active)').length === 2);
      check(!(await page.$('[data-testid=review]')), 'a sent review leaves the panel', '');
      check(kept().length === 0, 'and its file leaves the data dir', kept().join(','));
      const turns = await page.$$eval('[data-testid=turn]', (els) => els.length);
      check(turns === 2, 'the review is one turn', String(turns));
      const prompt = await page.textContent('[data-testid=turn]:last-of-type .response');
      for (const [what, text] of [
        ['the first place', 'notes.txt, line 2:'],
        ['its quoted lines', '+line 2, improved'],
        ['its comment', 'Say what was improved, and why'],
        ['the range', 'notes.txt, lines 11-12:'],
        ['the quoted range', ' line 12'],
        ['its comment', 'Both lines need a test'],
        ['the file as a resource', `${join(home, 'w', 'notes.txt')}`],
      ])
        check(prompt.includes(text), `the agent's prompt carries ${what}`, `${text} in ${prompt.slice(0, 600)}`);
      const card = await page.textContent('[data-testid=turn]:last-of-type [data-testid=review-card]');
      check(
        card.includes('Review · 2 comments') &&
          card.includes('notes.txt:11–12') &&
          card.includes('Both lines need a test'),
        'the transcript shows the message as a review card',
        card,
      );
      const wall = await page.textContent('[data-testid=turn]:last-of-type .user-msg');
      check(!wall.includes('Please address each comment'), 'not as the wall of text sent', wall.slice(0, 80));
      if (shots) await page.screenshot({ path: join(shots, 'review-sent.png') });
    },
  ],
);
