// New-session dialog UI test: the dialog opened before the host has
// answered says so and fills in when the host's state arrives; the folder
// picker's icons are the app's SVG, not emoji (WebKitGTK without an emoji
// font drew empty boxes); dot-folders are hidden behind "Show hidden" and
// then listed after the visible ones; "In a new worktree" starts the
// session in a git worktree of the picked repository, on a branch of its own.
//
// "Before the host has answered" is made certain, not raced: a script in
// the page holds the app stream's events (hosts, sessions) until the test
// releases them, so the dialog opens on an app that knows no host yet —
// what the window shows while the embedded host starts.
// Env: see harness.mjs; SCREENSHOT_DIR (optional) keeps screenshots.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-new-session-');
for (const d of ['.cache', '.local', 'projects', 'Zed']) mkdirSync(join(home, d));
// `projects` is a git repository with one commit (for "In a new worktree").
const projects = join(home, 'projects');
const git = (...args) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-C', projects, ...args], {
    encoding: 'utf8',
  }).trim();
writeFileSync(join(projects, 'README.md'), '# projects\n');
git('init', '--quiet', '-b', 'main');
git('add', '-A');
git('commit', '--quiet', '-m', 'start');
const script = join(home, 'echo.json');
writeFileSync(script, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const shots = process.env.SCREENSHOT_DIR;

/** In the page: hold the `app.watch` stream's events until `__releaseApp()`. */
function holdAppStream() {
  const held = [];
  let holding = true;
  const appStreams = new Set();
  const Native = window.WebSocket;
  window.__heldAppEvents = () => held.length;
  window.__releaseApp = () => {
    holding = false;
    for (const [deliver, ev] of held.splice(0)) deliver(ev);
  };
  window.WebSocket = class extends Native {
    send(data) {
      try {
        const m = JSON.parse(data);
        if (JSON.stringify(m).includes('"app.watch"')) appStreams.add(m.id);
      } catch {
        /* not JSON */
      }
      return super.send(data);
    }
    set onmessage(fn) {
      super.onmessage = (ev) => {
        let m;
        try {
          m = JSON.parse(ev.data);
        } catch {
          /* not JSON */
        }
        if (holding && m && 'stream' in m && appStreams.has(m.stream)) held.push([fn, ev]);
        else fn(ev);
      };
    }
    get onmessage() {
      return super.onmessage;
    }
  };
}

const names = (page) => page.$$eval('[data-testid=folder-entry]', (els) => els.map((e) => e.textContent.trim()));
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const shot = async (page, name) => {
  if (!shots) return;
  await frames(page);
  await page.screenshot({ path: join(shots, `${name}.png`) });
};

await run(
  'new-session',
  home,
  [`echo=${fakeBin} --script ${script}`],
  async (page, check) => {
    await page.waitForFunction(() => window.__heldAppEvents() > 0);
    await page.click('[data-testid=new-session]');
    await page.waitForSelector('[data-testid=new-session-dialog]');
    const before = await page.evaluate(() => ({
      waiting: document.querySelector('[data-testid=host-waiting]')?.textContent ?? '',
      create: document.querySelector('[data-testid=create-session]').disabled,
    }));
    check(
      before.waiting.includes('Connecting') && before.create,
      'opened before the host answered: it says the host is connecting',
      JSON.stringify(before),
    );
    await shot(page, 'new-session-connecting');

    await page.evaluate(() => window.__releaseApp());
    const filled = await page
      .waitForFunction(
        (home) => {
          const path = document.querySelector('[data-testid=folder-path]')?.textContent ?? '';
          const agent = document.querySelector('[data-testid=agent-select]')?.value;
          const host = document.querySelector('[data-testid=host-select]')?.value;
          const waiting = document.querySelector('[data-testid=host-waiting]');
          return path === home && agent === 'echo' && host === 'local' && !waiting && { path, agent, host };
        },
        home,
        { timeout: 20000 },
      )
      .then((h) => h.jsonValue())
      .catch(async () =>
        page.evaluate(() => ({
          path: document.querySelector('[data-testid=folder-path]')?.textContent,
          agent: document.querySelector('[data-testid=agent-select]')?.value,
          host: document.querySelector('[data-testid=host-select]')?.value,
          waiting: document.querySelector('[data-testid=host-waiting]')?.textContent,
        })),
      );
    check(
      filled.path === home && filled.agent === 'echo' && filled.host === 'local' && !filled.waiting,
      'then fills in: host, its agent, the default folder',
      JSON.stringify(filled),
    );

    // The rest on a dialog opened after the host answered (so each check
    // stands on its own).
    await page.click('[data-testid=new-session-dialog] button:has-text("Cancel")');
    await page.click('[data-testid=new-session]');
    await page.waitForSelector('[data-testid=folder-entry]');
    const icons = await page.evaluate(() => {
      const picker = document.querySelector('[data-testid=folder-picker]');
      const entries = [...picker.querySelectorAll('[data-testid=folder-entry]')];
      return {
        entries: entries.length,
        withSvg: entries.filter((e) => e.querySelector('svg')).length,
        upSvg: !!picker.querySelector('[data-testid=folder-up] svg'),
        emoji: (picker.textContent.match(/\p{Extended_Pictographic}/gu) ?? []).join(''),
      };
    });
    check(
      icons.entries > 0 && icons.withSvg === icons.entries && icons.upSvg && icons.emoji === '',
      "the picker's icons are inline SVG, no emoji",
      JSON.stringify(icons),
    );

    const visible = await names(page);
    check(
      JSON.stringify(visible) === JSON.stringify(['data', 'projects', 'w', 'Zed']),
      'dot-folders are hidden',
      JSON.stringify(visible),
    );
    await shot(page, 'new-session-folder-picker-hidden');
    const toggle = await page.$('[data-testid=show-hidden]');
    await toggle?.click();
    const all = toggle ? await names(page) : 'no "Show hidden" toggle';
    check(
      JSON.stringify(all) === JSON.stringify(['data', 'projects', 'w', 'Zed', '.cache', '.local']),
      '"Show hidden" lists them after the visible ones',
      JSON.stringify(all),
    );

    await page.click('[data-testid=folder-entry]:has-text("projects")');
    await page.waitForFunction(
      (p) => document.querySelector('[data-testid=folder-path]')?.textContent === p,
      join(home, 'projects'),
    );
    await page.check('[data-testid=new-session-worktree]');
    await shot(page, 'new-session-worktree');
    await page.click('[data-testid=create-session]');
    await page.waitForSelector('[data-testid=new-session-dialog]', { state: 'detached' });
    const row = await page.waitForSelector('[data-testid=session-row]', { timeout: 20000 }).then(
      (e) => e.textContent(),
      () => '',
    );
    check(row.includes('projects'), 'a session starts in the picked folder', JSON.stringify(row));
    const branches = git('branch', '--list', '--format=%(refname:short)').split('\n');
    const worktrees = git('worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '));
    check(
      branches.length === 2 && branches.some((b) => b.startsWith('hangar/')) && worktrees.length === 2,
      '"In a new worktree": the session has a worktree of the repository on a new hangar/ branch',
      JSON.stringify({ branches, worktrees }),
    );
    check(
      git('status', '--porcelain') === '' && git('branch', '--show-current') === 'main',
      'the picked folder is untouched',
    );
  },
  { init: holdAppStream },
);
