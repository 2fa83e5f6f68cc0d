// `@` mention UI test: typing `@not` in the real composer lists the host's
// `completions`; picking `@notes.md` and sending attaches the file to the
// message (the completion item's attachment), which the transcript shows on
// the user message. Env: see harness.mjs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-mentions-');
writeFileSync(join(home, 'w', 'notes.md'), '# Notes\n');
const script = join(home, 'echo.json');
writeFileSync(script, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));

await run('mentions', home, [`echo=${fakeBin} --script ${script}`], async (page, check) => {
  await page.evaluate(
    (folder) => window.rpc('session.create', { host: 'local', agent: 'echo', folder }),
    `file://${join(home, 'w')}`,
  );
  await page.click('[data-testid=session-row]');
  await page.click('[data-testid=composer-input]');
  await page.keyboard.type('Read @not');
  await page.click('[data-testid=mentions] button:has-text("@notes.md")');
  // The composer takes the focus back (next frame) with the caret after the insert.
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'composer-input');
  await page.keyboard.type('please');
  const typed = await page.inputValue('[data-testid=composer-input]');
  check(typed === 'Read @notes.md please', 'the picked item is inserted', JSON.stringify(typed));
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=turn]:not(.active)');
  const chips = await page.$$eval('[data-testid=message-attachment]', (els) =>
    els.map((e) => [e.textContent, e.title]),
  );
  check(
    chips.length === 1 && chips[0][0].includes('notes.md') && chips[0][1].endsWith('/w/notes.md'),
    'the message carries the file',
    JSON.stringify(chips),
  );
});
