// Branch, push and pull request from the Changes panel, on a real git
// repository whose `origin` is a bare repository on disk, with a stand-in
// `gh` first on the bridge's PATH that records its arguments and answers
// `auth status`, `pr create` and `pr view --json` (as the host's own tests,
// tests/e2e/tests/suite/git_loop.rs). The agent edits a file; the person
// keeps it and commits: the header says "hangar/fix ↑1 ↓0". Push: the bare
// repository has the commit and the header goes to ↑0. Open pull request…
// shows the host's draft; with an edited title the stand-in `gh` is asked
// for exactly that title, the link shows in the panel and in the header.
// With `gh` gone from PATH, the panel shows the exact command to run, and
// Copy puts it on the clipboard. Merge back from a worktree session over a
// conflicting commit shows the conflicting block, both sides, and one click
// asks the agent to merge the folder's branch into its own: queued behind
// the turn that is running (a long one), started once it ends. Merge back
// offers how: Squash (one commit with the message as edited; the choice
// remembered for the folder and preselected next time) and Rebase (the
// session's commits on top of the folder's branch, no merge commit).
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-git-loop-');
const w = join(home, 'w');
const bare = join(home, 'origin.git');
const git = (...args) => execFileSync('git', ['-C', w, ...args], { encoding: 'utf8' });
writeFileSync(join(w, 'notes.txt'), 'line 1\nline 2\n');
git('init', '-q', '-b', 'main');
git('config', 'user.email', 'test@example.com');
git('config', 'user.name', 'Test');
git('add', '.');
git('commit', '-q', '-m', 'start');
execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
git('remote', 'add', 'origin', bare);
git('push', '-q', '-u', 'origin', 'main');
// The session works on a branch of its own, already on the remote.
git('checkout', '-q', '-b', 'hangar/fix');
git('push', '-q', '-u', 'origin', 'hangar/fix');

// The stand-in gh: each call's arguments, NUL-separated, each call ended by `::end::`.
const ghDir = join(home, 'gh');
const bin = join(ghDir, 'bin');
const ghLog = join(ghDir, 'gh.log');
mkdirSync(bin, { recursive: true });
writeFileSync(
  join(bin, 'gh'),
  `#!/bin/sh
for a in "$@"; do printf '%s\\0' "$a" >> '${ghLog}'; done
printf '::end::\\0' >> '${ghLog}'
case "$1 $2" in
'auth status') exit 0 ;;
'pr create') echo 'Creating pull request...' >&2; echo 'https://github.com/o/r/pull/7' ;;
'pr view') echo '{"url":"https://github.com/o/r/pull/7","number":7,"state":"OPEN"}' ;;
esac
`,
);
chmodSync(join(bin, 'gh'), 0o755);
const ghCalls = () =>
  existsSync(ghLog)
    ? readFileSync(ghLog, 'utf8')
        .split('::end::\0')
        .filter(Boolean)
        .map((l) => l.split('\0').slice(0, -1))
    : [];

const script = join(home, 'git-loop.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        { writeFile: { path: 'notes.txt', text: 'line 1\nline 2, improved\n' } },
        { chunk: 'Edited.' },
        { end: 'end_turn' },
      ],
    ],
  }),
);
// The worktree session's agent changes line 1.
const moverScript = join(home, 'mover.json');
writeFileSync(
  moverScript,
  JSON.stringify({
    turns: [
      [{ writeFile: { path: 'notes.txt', text: 'line 1, moved\nline 2, improved\n' } }, { end: 'end_turn' }],
      // A long turn (stopped by the test with Cancel), so "Ask the agent" is queued behind it.
      [{ chunk: 'Taking my time.' }, { sleep: 600000 }, { end: 'end_turn' }],
      [{ chunk: 'I will merge main into my branch.' }, { end: 'end_turn' }],
    ],
  }),
);
const shots = process.env.SCREENSHOT_DIR;
const title = 'Improve line 2 of the notes';
const branchText = (page) => page.textContent('[data-testid=chat-branch]');

await run(
  'git-loop',
  home,
  [`editor=${fakeBin} --script ${script}`, `mover=${fakeBin} --script ${moverScript}`],
  async (page, check) => {
    await page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: 'editor', folder: f }),
      `file://${w}`,
    );
    await page.click('[data-testid=session-row]');
    await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
    await page.fill('[data-testid=composer-input]', 'Improve line 2');
    await page.click('[data-testid=send]');
    await page.waitForSelector('[data-testid=turn]:not(.active)');
    await page.waitForSelector('[data-testid=chat-branch]');
    const before = await branchText(page);
    check(before === 'hangar/fix ↑0 ↓0', 'the header shows the branch, level with its upstream', before);

    // Keep and commit.
    await page.click('[data-testid=changes-button]');
    await page.click('[data-testid=keep-all]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=change-file]'));
    await page.click('[data-testid=commit-button]');
    await page.waitForSelector('[data-testid=commit-message]:not([disabled])');
    await page.fill('[data-testid=commit-message]', title);
    await page.click('[data-testid=commit-confirm]');
    await page.waitForSelector('[data-testid=commit-id]');
    const head = git('rev-parse', 'HEAD').trim();
    await page.waitForFunction(() => document.querySelector('[data-testid=chat-branch]')?.dataset.ahead === '1');
    check(
      (await branchText(page)) === 'hangar/fix ↑1 ↓0',
      'after the commit the header is one ahead',
      await branchText(page),
    );
    if (shots) await page.screenshot({ path: join(shots, 'git-loop-ahead.png') });

    // Push.
    await page.click('[data-testid=push-button]');
    await page.waitForSelector('[data-testid=git-note], [data-testid=git-error]');
    const pushed = await page.textContent('[data-testid=git-actions]');
    check(!!(await page.$('[data-testid=git-note]')), 'Push shows its result', pushed);
    const remote = execFileSync('git', ['--git-dir', bare, 'log', '-1', '--format=%H', 'hangar/fix'], {
      encoding: 'utf8',
    });
    check(remote.trim() === head, 'the bare repository has the commit', `${remote.trim()} / ${head}`);
    await page.waitForFunction(() => document.querySelector('[data-testid=chat-branch]')?.dataset.ahead === '0');
    check(
      (await branchText(page)) === 'hangar/fix ↑0 ↓0',
      'after the push the header is level again',
      await branchText(page),
    );

    // Open pull request… with an edited title.
    await page.click('[data-testid=pr-button]');
    await page.waitForSelector('[data-testid=pr-title]:not([disabled])');
    const draftBody = await page.inputValue('[data-testid=pr-body]');
    check(draftBody.includes(title), "the body is drafted from the session's commits", JSON.stringify(draftBody));
    await page.fill('[data-testid=pr-title]', 'Notes: a better line 2');
    if (shots) await page.screenshot({ path: join(shots, 'git-loop-pr-form.png') });
    await page.click('[data-testid=pr-confirm]');
    await page.waitForSelector('[data-testid=pr-link], [data-testid=git-error]');
    const link = await page.getAttribute('[data-testid=pr-link]', 'href');
    check(link === 'https://github.com/o/r/pull/7', 'the panel shows the new pull request', link);
    const create = ghCalls().find((c) => c[0] === 'pr' && c[1] === 'create') ?? [];
    const arg = (name) => create[create.indexOf(name) + 1];
    check(
      arg('--title') === 'Notes: a better line 2' && arg('--body') === draftBody && arg('--head') === 'hangar/fix',
      'gh was asked for the edited title, the drafted body, from the branch',
      JSON.stringify(create),
    );
    await page.waitForSelector('[data-testid=chat-pr]');
    const shown = await page.textContent('[data-testid=chat-pr]');
    check(shown === '#7 open', "the header shows the pull request's link and state", shown);
    if (shots) await page.screenshot({ path: join(shots, 'git-loop-pr-opened.png') });

    // No gh on PATH: the exact command to run, and Copy.
    rmSync(join(bin, 'gh'));
    const calls = ghCalls().length;
    await page.click('[data-testid=pr-button]');
    await page.waitForSelector('[data-testid=pr-title]:not([disabled])');
    await page.fill('[data-testid=pr-title]', 'Run it yourself');
    await page.click('[data-testid=pr-confirm]');
    await page.waitForSelector('[data-testid=pr-command-text], [data-testid=git-error]');
    const command = (await page.textContent('[data-testid=pr-command-text]')) ?? '';
    check(
      command.startsWith('gh pr create --title ') && command.includes('Run it yourself'),
      'without gh the panel shows the command to run',
      command,
    );
    check(ghCalls().length === calls, 'and nothing ran gh', String(ghCalls().length));
    await page.click('[data-testid=pr-command-copy]');
    await page.waitForFunction(() => document.querySelector('[data-testid=pr-command-copy]')?.textContent === 'Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    check(copied === command, 'Copy puts the command on the clipboard', copied);
    if (shots) await page.screenshot({ path: join(shots, 'git-loop-pr-command.png') });

    // Merge back from a session in a worktree of its own: first over a
    // conflicting commit in the original folder (listed, nothing merged),
    // then, that commit dropped, merged.
    check(!(await page.$('[data-testid=merge-back-button]')), 'a session in the folder itself has no Merge back', '');
    const { session } = await page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: 'mover', folder: f, worktree: true }),
      `file://${w}`,
    );
    await page.click(`[data-testid=session-row][data-uri="${session}"]`);
    await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
    await page.fill('[data-testid=composer-input]', 'Move line 1');
    await page.click('[data-testid=send]');
    await page.waitForSelector('[data-testid=turn]:not(.active)');
    await page.waitForSelector('[data-testid=row-changes]');
    await page.click('[data-testid=changes-button]');
    await page.click('[data-testid=keep-all]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=change-file]'));
    await page.click('[data-testid=commit-button]');
    await page.waitForSelector('[data-testid=commit-message]:not([disabled])');
    await page.fill('[data-testid=commit-message]', 'Move line 1');
    await page.click('[data-testid=commit-confirm]');
    await page.waitForSelector('[data-testid=commit-id]');
    const moved = await page.getAttribute('[data-testid=commit-id]', 'title');
    writeFileSync(join(w, 'notes.txt'), 'line 1, by hand\nline 2, improved\n');
    git('commit', '-q', '-am', 'By hand');
    const byHand = git('rev-parse', 'HEAD').trim();
    await page.click('[data-testid=merge-back-button]');
    await page.click('[data-testid=merge-back-dialog] [data-testid=confirm-dialog-ok]');
    await page.waitForSelector(
      '[data-testid=merge-back-conflicts], [data-testid=merge-back-done], [data-testid=git-error]',
    );
    const conflicts = await page.$$eval('[data-testid=conflict-file]', (l) => l.map((x) => x.dataset.path));
    check(conflicts.join() === 'notes.txt', 'a conflicting merge back shows the file', JSON.stringify(conflicts));
    check(git('rev-parse', 'HEAD').trim() === byHand, 'and merges nothing', '');
    const sides = await page.$$eval('[data-testid=conflict-hunk] pre', (l) => l.map((x) => x.textContent));
    check(
      sides.join('|') === 'line 1, by hand|line 1, moved',
      "the conflicting block shows the folder's line beside the session's",
      JSON.stringify(sides),
    );
    if (shots) await page.screenshot({ path: join(shots, 'git-loop-merge-conflict.png') });
    // One click asks the agent to merge the folder's branch into its own:
    // while a turn runs, queued behind it (the chat's queue), and the panel says so.
    await page.fill('[data-testid=composer-input]', 'Take your time');
    await page.click('[data-testid=send]');
    await page.waitForSelector('[data-testid=turn].active');
    await page.click('[data-testid=conflict-ask-agent]');
    const asked = await (await page.waitForSelector('[data-testid=conflict-asked]')).textContent();
    check(asked.includes('Queued behind the running turn'), 'asking while a turn runs says it is queued', asked);
    const queued = await (await page.waitForSelector('[data-testid=queued-message]')).textContent();
    check(queued.includes('git merge hangar/fix'), 'the request waits in the chat queue', queued);
    const turnsNow = await page.$$eval('[data-testid=turn]', (l) => l.length);
    check(turnsNow === 2, 'and no turn was started for it while the long one runs', String(turnsNow));
    if (shots) await page.screenshot({ path: join(shots, 'git-loop-merge-queued.png') });
    await page.click('[data-testid=cancel-turn]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=turn]:not(.active)').length === 3);
    const request = await page.textContent('[data-testid=turn]:last-of-type .user-msg');
    check(
      request.includes('git merge hangar/fix') && request.includes('notes.txt'),
      "the agent is asked to merge the folder's branch (hangar/fix) into its own",
      request,
    );
    git('reset', '-q', '--hard', 'HEAD~1');
    await page.click('[data-testid=merge-back-button]');
    await page.click('[data-testid=merge-back-dialog] [data-testid=confirm-dialog-ok]');
    await page.waitForSelector('[data-testid=merge-back-done], [data-testid=git-error]');
    const done = await page.textContent('[data-testid=git-actions]');
    check(git('rev-parse', 'HEAD').trim() === moved, 'Merge back fast-forwards the original branch', done);
    check(readFileSync(join(w, 'notes.txt'), 'utf8') === 'line 1, moved\nline 2, improved\n', 'and its folder', '');

    // Squash: two commits of the session become one on the folder's branch, with the message as edited.
    const info = await page.evaluate((s) => window.rpc('session.worktree', { host: 'local', session: s }), session);
    const inTree = (...args) => execFileSync('git', ['-C', info.path, ...args], { encoding: 'utf8' });
    const commitIn = (dir, file) => {
      writeFileSync(join(dir, file), `${file}\n`);
      execFileSync('git', ['-C', dir, 'add', file]);
      execFileSync('git', ['-C', dir, 'commit', '-q', '-m', `Add ${file}`]);
    };
    commitIn(info.path, 'one.txt');
    commitIn(info.path, 'two.txt');
    commitIn(w, 'side.txt');
    const sideTip = git('rev-parse', 'HEAD').trim();
    await page.click('[data-testid=merge-back-button]');
    await page.waitForSelector('[data-testid=merge-back-dialog] [data-testid=merge-back-choice]');
    check(
      await page.isChecked('[data-testid=merge-mode-merge]'),
      'Merge back offers how, a merge commit preselected',
      '',
    );
    await page.click('[data-testid=merge-mode-squash]');
    const draft = await page.waitForSelector('[data-testid=merge-squash-message]:not([disabled])');
    const drafted = await draft.inputValue();
    check(drafted.trim().length > 0, "Squash's message starts as the drafted commit message", drafted);
    await page.fill('[data-testid=merge-squash-message]', 'One commit from the session\n\nSquashed in the panel');
    if (shots) await page.screenshot({ path: join(shots, 'git-loop-merge-choice.png') });
    await page.click('[data-testid=merge-back-dialog] [data-testid=confirm-dialog-ok]');
    await page.waitForSelector('[data-testid=merge-back-done], [data-testid=git-error]');
    const squashed = await page.textContent('[data-testid=git-actions]');
    check(
      git('log', '-1', '--format=%B').trim() === 'One commit from the session\n\nSquashed in the panel',
      'Squash makes one commit with the message as edited',
      squashed,
    );
    check(git('rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ')[1] === sideTip, 'with one parent', '');
    check(existsSync(join(w, 'one.txt')) && existsSync(join(w, 'two.txt')), "and both commits' files", '');
    const kept = await page.evaluate(() => window.rpc('settings.get', {}));
    check(
      JSON.stringify(kept.settings.mergeModes) === JSON.stringify([{ host: 'local', folder: w, mode: 'squash' }]),
      'the choice is remembered for the folder',
      JSON.stringify(kept.settings.mergeModes),
    );

    // Rebase, the folder's remembered Squash preselected first.
    commitIn(info.path, 'three.txt');
    commitIn(w, 'side2.txt');
    const side2 = git('rev-parse', 'HEAD').trim();
    await page.click('[data-testid=merge-back-button]');
    await page.waitForSelector('[data-testid=merge-back-dialog] [data-testid=merge-back-choice]');
    check(await page.isChecked('[data-testid=merge-mode-squash]'), "the folder's last choice is preselected", '');
    await page.click('[data-testid=merge-mode-rebase]');
    await page.click('[data-testid=merge-back-dialog] [data-testid=confirm-dialog-ok]');
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid=git-error]') ||
        document.querySelector('[data-testid=merge-back-done]')?.textContent.includes('rebased'),
    );
    const rebased = await page.textContent('[data-testid=git-actions]');
    check(git('rev-parse', 'HEAD').trim() === inTree('rev-parse', 'HEAD').trim(), 'Rebase fast-forwards', rebased);
    check(git('rev-list', '--merges', `${side2}..HEAD`).trim() === '', 'with no merge commit', '');
    check(git('merge-base', '--is-ancestor', side2, 'HEAD') === '', "on top of the folder's branch", '');
    check(existsSync(join(w, 'three.txt')), "and the session's file", '');
    check(git('status', '--porcelain') === '', 'the folder is clean', git('status', '--porcelain'));
  },
  { env: { PATH: `${bin}:${process.env.PATH}` }, context: { permissions: ['clipboard-read', 'clipboard-write'] } },
);
