// Changes UI test: the agent edits two far-apart lines of notes.txt with its
// own file I/O. The Changes panel lists the file with its counts and shows
// two hunks; undoing the first (keys n, u) puts that line back on disk and
// leaves the other; keeping the second empties the panel and leaves the disk as it is.
// A conflicting undo shows the host's reason. "Fork from here" opens a new
// session in a copy of the folder as the turn left it. Env: see harness.mjs;
// SCREENSHOT_DIR keeps screenshots.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-changes-');
const original = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const edited = original.replace('line 2\n', 'line 2, improved\n').replace('line 11\n', 'line 11, improved\n');
writeFileSync(join(home, 'w', 'notes.txt'), original);
writeFileSync(join(home, 'w', 'other.txt'), 'keep me\n');
const script = join(home, 'changes.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        { writeFile: { path: 'notes.txt', text: edited } },
        { writeFile: { path: 'other.txt', text: 'changed by the agent\n' } },
        { chunk: 'Edited two files.' },
        { end: 'end_turn' },
      ],
    ],
  }),
);
const shots = process.env.SCREENSHOT_DIR;
const notes = () => readFileSync(join(home, 'w', 'notes.txt'), 'utf8');

await run('changes', home, [`editor=${fakeBin} --script ${script}`], async (page, check) => {
  const folder = `file://${join(home, 'w')}`;
  await page.evaluate((f) => window.rpc('session.create', { host: 'local', agent: 'editor', folder: f }), folder);
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'Improve lines 2 and 11, and other.txt');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=turn]:not(.active)');
  await page.waitForSelector('[data-testid=row-changes]');
  const rowCounts = await page.textContent('[data-testid=row-changes]');
  check(rowCounts.includes('+3 −3'), 'the session row shows the pending counts', rowCounts);
  await page.waitForSelector('[data-testid=turn-changes]');
  const under = await page.textContent('[data-testid=turn-changes]');
  check(under.startsWith('2 files changed'), 'the turn says what it changed', under);
  await page.click('[data-testid=changes-button]');
  await page.waitForSelector('[data-testid=change-file][data-path="notes.txt"]');
  const paths = await page.$$eval('[data-testid=change-file]', (els) => els.map((e) => e.dataset.path).join(','));
  check(paths === 'notes.txt,other.txt', 'both files are listed', paths);
  await page.click('[data-testid=change-file][data-path="notes.txt"] .change-name');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 2);
  if (shots) await page.screenshot({ path: join(shots, 'changes-review.png') });
  const marked = await page.$$eval('.dl.add .w-chg', (els) => els.map((e) => e.textContent).join('|'));
  check(marked.includes('improved'), 'the words that changed are marked', marked);
  await page.click('[data-testid=split-toggle]');
  await page.waitForSelector('[data-testid=diff-split] .sbs');
  const rows = await page.$$eval('.sbs.in-hunk', (els) => els.length);
  check(rows === 2, 'side by side: one row per replaced line', String(rows));
  if (shots) await page.screenshot({ path: join(shots, 'changes-side-by-side.png') });
  await page.click('[data-testid=split-toggle]');
  await page.waitForSelector('[data-testid=diff-unified]');
  // "⋯ 2 unchanged lines" expands to the lines it hid.
  await page.click('[data-testid=gap]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=gap]'));
  const shown = await page.textContent('[data-testid=change-diff] pre');
  check(shown.includes('line 6') && shown.includes('line 7'), 'a gap expands to the lines it hid', '');
  await page.click('[data-testid=change-file][data-path="notes.txt"] .change-name');

  // Undo the first hunk only, from the keyboard: n goes to it, u undoes it.
  await page.keyboard.press('n');
  await page.keyboard.press('u');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 1);
  const afterUndo = notes();
  check(
    afterUndo.includes('line 2\n') && afterUndo.includes('line 11, improved\n'),
    'undoing one hunk restores that line only',
    afterUndo,
  );
  // The note offers Redo: the hunk comes back; then "Undo again" undoes it once more.
  await page.click('[data-testid=changes-redo]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 2);
  check(notes() === edited, 'Redo brings the undone hunk back', notes());
  const again = await page.textContent('[data-testid=changes-redo]');
  check(again === 'Undo again', 'after a Redo, the button undoes once more', again);
  await page.click('[data-testid=changes-redo]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 1);
  check(notes() === afterUndo, 'Undo again restores that line once more', notes());
  // Keep the other: the disk stays, notes.txt leaves the list.
  await page.click('[data-testid=hunk-keep]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=change-file][data-path="notes.txt"]'));
  check(notes() === afterUndo, 'keeping a hunk leaves the disk as it is', notes());

  // A conflicting undo: the person rewrote the agent's line in other.txt.
  writeFileSync(join(home, 'w', 'other.txt'), 'my own words\n');
  await page.click('[data-testid=change-file][data-path="other.txt"] [data-testid=file-undo]');
  await page.waitForSelector('[data-testid=changes-error]');
  const err = await page.textContent('[data-testid=changes-error]');
  check(/changed again/.test(err), 'a conflicting undo says why and changes nothing', err);
  check(readFileSync(join(home, 'w', 'other.txt'), 'utf8') === 'my own words\n', 'the file is untouched', '');
  if (shots) await page.screenshot({ path: join(shots, 'changes-conflict.png') });

  // Keep what is left: the panel empties.
  await page.click('[data-testid=keep-all]');
  await page.waitForSelector('[data-testid=changes-empty]');
  check(true, 'keep all empties the panel', '');

  // The turn's own changes stay as history: rewinding notes.txt from there
  // undoes what is left of that turn in it (line 11), keeping the rest.
  await page.click('[data-testid=turn-changes]');
  await page.waitForFunction(() => document.querySelector('#changes-title')?.textContent === 'Changes in this turn');
  await page.waitForSelector('[data-testid=change-file][data-path="notes.txt"]');
  if (shots) await page.screenshot({ path: join(shots, 'changes-turn.png') });
  await page.click('[data-testid=change-file][data-path="notes.txt"] [data-testid=file-undo]');
  await page.waitForSelector('[data-testid=changes-note]');
  check(notes() === original, 'rewinding a file of the turn restores it', notes());

  // Fork from the turn: a new session opens with the turn in its
  // transcript, working in a copy of the folder as the turn left it; this
  // session's folder stays as it is.
  await page.click('[data-testid=turn-fork]');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid=chat-title]')?.textContent.startsWith('Fork: '),
  );
  await page.waitForSelector('[data-testid=turn]');
  const forked = await page.textContent('[data-testid=turn] .user-msg');
  check(forked.includes('Improve lines 2 and 11'), 'the fork starts with the turn it was made from', forked);
  const copies = readdirSync(home, { recursive: true }).filter((p) =>
    /hangar-worktrees\/fork-[^/]+\/w\/notes\.txt$/.test(p),
  );
  check(copies.length === 1, 'the fork has its own folder', copies.join(','));
  const copied = copies.length === 1 ? readFileSync(join(home, copies[0]), 'utf8') : '';
  check(copied === edited, "the fork's folder has the file as the turn left it", copied);
  check(notes() === original, "this session's folder is untouched", notes());
  const note = await page.textContent('[data-testid=fork-note]');
  check(note.includes('hangar-worktrees/fork-'), 'the fork says where it works', note);
  if (shots) await page.screenshot({ path: join(shots, 'fork-from-turn.png') });
});
