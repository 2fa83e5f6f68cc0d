// The per-folder default "New sessions in this folder start in a new
// worktree" (a real git repository): ticked in Settings for the default
// folder, New session opens with "In a new worktree" checked there; the
// box unticked in New session is remembered for the folder (the next New
// session opens unchecked and Settings no longer lists it), and ticked
// again it is remembered the other way, the session getting its worktree.
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-worktree-default-');
const w = join(home, 'w');
const git = (...args) => execFileSync('git', ['-C', w, ...args], { encoding: 'utf8' });
writeFileSync(join(w, 'notes.txt'), 'line 1\n');
git('init', '-q', '-b', 'main');
git('config', 'user.email', 'test@example.com');
git('config', 'user.name', 'Test');
git('add', '.');
git('commit', '-q', '-m', 'start');
const worktrees = () =>
  git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ')).length;
const script = join(home, 'idle.json');
writeFileSync(script, JSON.stringify({ turns: [[{ chunk: 'ok' }, { end: 'end_turn' }]] }));
const shots = process.env.SCREENSHOT_DIR;
const uri = `file://${w}`;
const saved = () => JSON.parse(readFileSync(join(home, 'data', 'settings.json'), 'utf8'));

await run('worktree-default', home, [`idle=${fakeBin} --script ${script}`], async (page, check) => {
  const openSettings = async () => {
    await page.click('[data-testid=app-menu]');
    await page.click('[data-testid=app-menu-settings]');
    await page.waitForSelector('[data-testid=settings-page]');
  };
  // Opens New session and waits for the folder. `boxChecked` then answers
  // with the box as it was in the very first frame that showed the folder
  // (read by a MutationObserver as the path is written): a box set a frame
  // late would be a box a person sees flip, and a click that can land on
  // the wrong state.
  const newSession = async () => {
    await page.evaluate((p) => {
      window.__firstBox = undefined;
      const seen = new MutationObserver(() => {
        if (document.querySelector('[data-testid=folder-path]')?.textContent !== p) return;
        window.__firstBox = document.querySelector('[data-testid=new-session-worktree]')?.checked;
        seen.disconnect();
      });
      seen.observe(document.body, { childList: true, subtree: true, characterData: true });
    }, w);
    await page.click('[data-testid=new-session]');
    await page.waitForSelector('[data-testid=new-session-dialog]');
    await page.waitForFunction(() => window.__firstBox !== undefined);
  };
  const boxChecked = async () => {
    const first = await page.evaluate(() => window.__firstBox);
    return first === (await page.isChecked('[data-testid=new-session-worktree]')) ? first : 'flipped';
  };
  const create = async () => {
    const rows = await page.$$eval('[data-testid=session-row]', (l) => l.length);
    await page.click('[data-testid=create-session]');
    await page.waitForSelector('[data-testid=new-session-dialog]', { state: 'detached' });
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=session-row]').length === n + 1, rows);
  };

  // Settings: the default folder, and its worktree default.
  await openSettings();
  await page.fill('[data-testid=settings-default-folder]', w);
  await page.press('[data-testid=settings-default-folder]', 'Enter');
  await page.waitForSelector('[data-testid=settings-default-worktree]');
  await page.check('[data-testid=settings-default-worktree]');
  await page.waitForSelector(`[data-testid=settings-worktree-folder][data-folder="${uri}"]`);
  const file = saved();
  check(
    JSON.stringify(file.newSession.worktreeFolders) === JSON.stringify([{ host: 'local', folder: uri }]),
    'settings.json keeps the folder',
    JSON.stringify(file.newSession),
  );
  if (shots) await page.screenshot({ path: join(shots, 'settings-worktree-default.png') });
  await page.click('[data-testid=settings-close]');

  await newSession();
  check((await boxChecked()) === true, 'New session opens with "In a new worktree" checked for that folder', '');
  // Unchecked for one session: remembered for the folder.
  await page.uncheck('[data-testid=new-session-worktree]');
  await create();
  check(worktrees() === 1, 'that session has no worktree', String(worktrees()));
  await newSession();
  check((await boxChecked()) === false, 'the next New session remembers it unchecked', '');
  await openSettingsFromDialog();
  check(
    !(await page.$('[data-testid=settings-worktree-folder]')) &&
      !(await page.isChecked('[data-testid=settings-default-worktree]')),
    'and Settings no longer lists the folder',
    JSON.stringify(saved().newSession),
  );
  await page.click('[data-testid=settings-close]');

  // Checked again in New session: the session gets a worktree, and the folder is listed again.
  await newSession();
  await page.check('[data-testid=new-session-worktree]');
  await create();
  const deadline = Date.now() + 20000;
  while (worktrees() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  check(worktrees() === 2, 'that session works in a new worktree', String(worktrees()));
  await newSession();
  check((await boxChecked()) === true, 'and the next New session opens checked again', '');

  async function openSettingsFromDialog() {
    await page.click('[data-testid=new-session-dialog] button:has-text("Cancel")');
    await openSettings();
  }
});
