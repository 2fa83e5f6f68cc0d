// Commit UI test, on a real git repository: the agent edits lines 2 and 11
// of notes.txt and rewrites other.txt. The person keeps the line-2 hunk,
// undoes the line-11 one and leaves other.txt pending; Commit… shows a
// message drafted from the session, edited here; the commit (read back with
// git) holds notes.txt with only the kept hunk, and not other.txt. A second
// Commit with nothing more kept shows the host's reason. "Ask the agent to
// write it" sends the agent one prompt asking for a message and, when the
// turn ends, the message field holds the agent's reply (out of its code
// fence), editable.
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-commit-');
const w = join(home, 'w');
const git = (...args) => execFileSync('git', ['-C', w, ...args], { encoding: 'utf8' });
const original = `${Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;
const edited = original.replace('line 2\n', 'line 2, improved\n').replace('line 11\n', 'line 11, improved\n');
writeFileSync(join(w, 'notes.txt'), original);
writeFileSync(join(w, 'other.txt'), 'keep me\n');
git('init', '-q', '-b', 'main');
git('config', 'user.email', 'test@example.com');
git('config', 'user.name', 'Test');
git('add', '.');
git('commit', '-q', '-m', 'start');
const script = join(home, 'commit.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        { writeFile: { path: 'notes.txt', text: edited } },
        { writeFile: { path: 'other.txt', text: 'changed by the agent\n' } },
        { chunk: 'Edited.' },
        { end: 'end_turn' },
      ],
      [{ chunk: '```\nTidy the notes\n\nLine 2 reads better.\n```' }, { end: 'end_turn' }],
    ],
  }),
);
const shots = process.env.SCREENSHOT_DIR;
const message = 'Improve line 2 of the notes\n\nKept from the agent, line 11 undone.';

await run('commit', home, [`editor=${fakeBin} --script ${script}`], async (page, check) => {
  await page.evaluate(
    (f) => window.rpc('session.create', { host: 'local', agent: 'editor', folder: f }),
    `file://${w}`,
  );
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'Improve lines 2 and 11');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=turn]:not(.active)');
  await page.waitForSelector('[data-testid=row-changes]');
  await page.click('[data-testid=changes-button]');
  await page.click('[data-testid=change-file][data-path="notes.txt"] .change-name');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 2);
  // Keep the first hunk (line 2), undo the other (line 11).
  await page.click('[data-testid=hunk][data-hunk="0"] [data-testid=hunk-keep]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 1);
  await page.click('[data-testid=hunk][data-hunk="0"] [data-testid=hunk-undo]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=change-file][data-path="notes.txt"]'));

  await page.click('[data-testid=commit-button]');
  await page.waitForSelector('[data-testid=commit-message]:not([disabled])');
  const draft = await page.inputValue('[data-testid=commit-message]');
  check(draft.includes('- Improve lines 2 and 11'), 'the message is drafted from the session', JSON.stringify(draft));
  await page.fill('[data-testid=commit-message]', message);
  if (shots) await page.screenshot({ path: join(shots, 'commit-form.png') });
  await page.click('[data-testid=commit-confirm]');
  await page.waitForSelector('[data-testid=commit-id]');
  const id = await page.getAttribute('[data-testid=commit-id]', 'title');
  const head = git('rev-parse', 'HEAD').trim();
  check(id === head, 'the panel shows the new commit', `${id} / ${head}`);
  check(git('log', '-1', '--format=%B').trim() === message, 'with the edited message', git('log', '-1', '--format=%B'));
  const committed = git('show', 'HEAD:notes.txt');
  check(
    committed === original.replace('line 2\n', 'line 2, improved\n'),
    'the commit holds only the kept hunk',
    committed,
  );
  const files = git('show', '--name-only', '--format=', 'HEAD').trim();
  check(files === 'notes.txt', 'and not the file still pending', files);
  check(readFileSync(join(w, 'other.txt'), 'utf8') === 'changed by the agent\n', 'which stays on disk', '');
  if (shots) await page.screenshot({ path: join(shots, 'commit-done.png') });

  // Nothing more kept: the host's reason, and no commit.
  await page.click('[data-testid=commit-button]');
  await page.waitForSelector('[data-testid=commit-message]:not([disabled])');
  await page.fill('[data-testid=commit-message]', 'Nothing');
  await page.click('[data-testid=commit-confirm]');
  await page.waitForSelector('[data-testid=changes-error]');
  const err = await page.textContent('[data-testid=changes-error]');
  check(/nothing/i.test(err), 'a commit with nothing kept shows why', err);
  check(git('rev-parse', 'HEAD').trim() === head, 'and commits nothing', '');

  // Ask the agent: one prompt asking for a message; its reply fills the field.
  await page.fill('[data-testid=commit-message]', 'Nothing');
  await page.click('[data-testid=commit-ask]');
  await page.waitForSelector('[data-testid=commit-asked]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=turn]:not(.active)').length === 2);
  const asked = await page.textContent('[data-testid=turn]:last-of-type .user-msg');
  check(asked.startsWith('Write a git commit message'), 'the agent is asked for a commit message', asked);
  await page.waitForFunction(() => document.querySelector('[data-testid=commit-message]')?.value !== 'Nothing', null, {
    timeout: 20000,
  });
  const written = await page.inputValue('[data-testid=commit-message]');
  check(
    written === 'Tidy the notes\n\nLine 2 reads better.',
    "the field holds the agent's reply",
    JSON.stringify(written),
  );
  if (shots) await page.screenshot({ path: join(shots, 'commit-agent-message.png') });
  await page.fill('[data-testid=commit-message]', `${written}\n\nEdited.`);
  check(
    (await page.inputValue('[data-testid=commit-message]')).endsWith('Edited.'),
    'and stays editable',
    await page.inputValue('[data-testid=commit-message]'),
  );
});
