// Archiving and disposing a session that works in a git worktree of its
// own (a real repository, the host's real `git worktree`): the dialog asks
// keep or remove. A worktree whose branch has a commit not merged into
// main is not removed: the host's reason (with the count) shows, the
// session stays unarchived and the worktree on disk; "Remove anyway"
// archives it and removes the worktree, keeping the branch. A worktree
// with nothing unmerged is removed with its branch on Dispose; Keep
// leaves the worktree where it is. A branch squash-merged into main (as
// GitHub's "Squash and merge", then main pulled) is archived and removed
// with its branch at once, with no "Remove anyway".
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-worktree-close-');
const w = join(home, 'w');
const gitIn = (dir, ...args) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
const git = (...args) => gitIn(w, ...args);
writeFileSync(join(w, 'notes.txt'), 'line 1\n');
git('init', '-q', '-b', 'main');
git('config', 'user.email', 'test@example.com');
git('config', 'user.name', 'Test');
git('add', '.');
git('commit', '-q', '-m', 'start');
const branches = () => git('branch', '--format=%(refname:short)').split('\n').filter(Boolean);

const script = join(home, 'idle.json');
writeFileSync(script, JSON.stringify({ turns: [[{ chunk: 'ok' }, { end: 'end_turn' }]] }));
const shots = process.env.SCREENSHOT_DIR;

await run('worktree-close', home, [`idle=${fakeBin} --script ${script}`], async (page, check) => {
  const make = () =>
    page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: 'idle', folder: f, worktree: true }),
      `file://${w}`,
    );
  const open = async (session) => {
    await page.click(`[data-testid=session-row][data-uri="${session}"]`);
    await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  };
  const worktreeOf = (session) =>
    page.evaluate((s) => window.rpc('session.worktree', { host: 'local', session: s }), session);

  // A session whose branch gets a commit main does not have.
  const { session: a } = await make();
  const wa = await worktreeOf(a);
  check(!!wa && existsSync(wa.path), 'session.worktree names the worktree on disk', JSON.stringify(wa));
  writeFileSync(join(wa.path, 'notes.txt'), 'line 1, on the branch\n');
  gitIn(wa.path, 'commit', '-q', '-am', 'On the branch');
  await open(a);
  await page.click('[data-testid=archive]');
  await page.waitForSelector('[data-testid=worktree-close-dialog]');
  const shown = await page.textContent('[data-testid=worktree-close-path]');
  check(shown === wa.path, 'the dialog names the worktree', shown);
  await page.click('[data-testid=worktree-remove]');
  await page.click('[data-testid=worktree-close-dialog] [data-testid=confirm-dialog-ok]');
  await page.waitForSelector('[data-testid=worktree-refusal]');
  const reason = await page.textContent('[data-testid=worktree-refusal]');
  check(
    reason.includes('1 commit(s) not merged into main') && reason.includes(wa.branch),
    'the refusal says the branch has one unmerged commit',
    reason,
  );
  check(existsSync(wa.path), 'the worktree is still there', wa.path);
  check(
    (await page.textContent('[data-testid=archive]')) === 'Archive',
    'the session is not archived',
    await page.textContent('[data-testid=archive]'),
  );
  if (shots) await page.screenshot({ path: join(shots, 'worktree-close-refused.png') });
  await page.click('[data-testid=worktree-force]');
  await page.waitForSelector('[data-testid=worktree-close-dialog]', { state: 'detached' });
  await page.waitForFunction(() => document.querySelector('[data-testid=archive]')?.textContent === 'Unarchive');
  check(!existsSync(wa.path), 'Remove anyway removes the worktree', wa.path);
  check(branches().includes(wa.branch), 'and keeps its branch with the commit', branches().join());

  // A session with nothing unmerged: Keep on Archive leaves it, Remove on Dispose takes it and its branch.
  const { session: b } = await make();
  const wb = await worktreeOf(b);
  await open(b);
  await page.click('[data-testid=archive]');
  await page.waitForSelector('[data-testid=worktree-close-dialog]');
  if (shots) await page.screenshot({ path: join(shots, 'worktree-close-dialog.png') });
  await page.click('[data-testid=worktree-close-dialog] [data-testid=confirm-dialog-ok]');
  await page.waitForFunction(() => document.querySelector('[data-testid=archive]')?.textContent === 'Unarchive');
  check(existsSync(wb.path), 'Archive with Keep leaves the worktree', wb.path);
  await page.click('[data-testid=dispose]');
  await page.waitForSelector('[data-testid=worktree-close-dialog]');
  await page.click('[data-testid=worktree-remove]');
  await page.click('[data-testid=worktree-close-dialog] [data-testid=confirm-dialog-ok]');
  await page.waitForFunction(
    (s) =>
      !document.querySelector(`[data-testid=session-row][data-uri="${s}"]`) &&
      !document.querySelector('[data-testid=worktree-close-dialog]'),
    b,
  );
  // The row goes as the session is disposed; the worktree and its branch a moment later.
  const deadline = Date.now() + 10000;
  while ((existsSync(wb.path) || branches().includes(wb.branch)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  check(!existsSync(wb.path), 'Dispose with Remove removes the worktree', wb.path);
  check(!branches().includes(wb.branch), 'and its branch, nothing on it being unmerged', branches().join());
  check(existsSync(join(w, 'notes.txt')) && git('status', '--porcelain') === '', 'the folder itself is untouched', '');

  // A session whose two commits were squash-merged into main as one: Archive with Remove just archives.
  const { session: c } = await make();
  const wc = await worktreeOf(c);
  writeFileSync(join(wc.path, 'squashed.txt'), 'one\n');
  gitIn(wc.path, 'add', 'squashed.txt');
  gitIn(wc.path, 'commit', '-q', '-m', 'First on the branch');
  writeFileSync(join(wc.path, 'squashed.txt'), 'one\ntwo\n');
  gitIn(wc.path, 'commit', '-q', '-am', 'Second on the branch');
  git('merge', '-q', '--squash', wc.branch);
  git('commit', '-q', '-m', 'Squashed');
  await open(c);
  await page.click('[data-testid=archive]');
  await page.waitForSelector('[data-testid=worktree-close-dialog]');
  await page.click('[data-testid=worktree-remove]');
  await page.click('[data-testid=worktree-close-dialog] [data-testid=confirm-dialog-ok]');
  await page.waitForSelector('[data-testid=worktree-close-dialog]', { state: 'detached' });
  await page.waitForFunction(() => document.querySelector('[data-testid=archive]')?.textContent === 'Unarchive');
  // The host removes the worktree once the archive is applied: poll with a deadline.
  const removedBy = Date.now() + 10000;
  while ((existsSync(wc.path) || branches().includes(wc.branch)) && Date.now() < removedBy)
    await new Promise((r) => setTimeout(r, 50));
  check(!existsSync(wc.path), 'Archive with Remove removes a squash-merged worktree, no Remove anyway', wc.path);
  check(!branches().includes(wc.branch), 'and its branch, every change of it being in main', branches().join());
});
