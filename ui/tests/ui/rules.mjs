// Approval rules UI test: the fake agent asks to run `npm test -- --watch`;
// the person picks *Always allow…*, keeps the prefilled pattern `npm test`
// and saves: the confirmation goes (answered with the agent's allow
// option). The next turn asks the same and the host answers it by the rule
// without asking: the tool call shows "Allowed by rule `npm test`", whose
// link opens the Rules page, which lists the rule with its hit and deletes
// it (after a confirm) back to the empty state. Then *Never allow…*: a
// pattern the host refuses shows its reason and the confirmation waits;
// a valid one saves a deny rule and answers with the reject option, and
// the next request is denied by the rule, which says so. Last, the Rules
// page from Settings and from the host's menu: a rule added and edited there.
// Beside the host's rules, the agents' own: Claude Code's in the folder,
// Codex's, Gemini CLI's and Qwen Code's in HOME, each with its file.
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots of the inline form,
// the tool call a rule answered and the Rules page.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-rules-');
const script = join(home, 'rules.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        {
          request: {
            method: 'session/request_permission',
            params: {
              sessionId: '$SID',
              options: [
                { optionId: 'once', name: 'Allow', kind: 'allow_once' },
                { optionId: 'no', name: 'Reject', kind: 'reject_once' },
              ],
              toolCall: {
                toolCallId: 'run-1',
                title: 'npm test -- --watch',
                kind: 'execute',
                rawInput: { command: 'npm test -- --watch' },
              },
            },
          },
          then: {
            once: [
              { update: { sessionUpdate: 'tool_call_update', toolCallId: 'run-1', status: 'completed' } },
              { chunk: 'ran the tests' },
            ],
            '*': [{ chunk: 'told $RESULT' }],
          },
        },
        { end: 'end_turn' },
      ],
    ],
  }),
);
// Claude Code's own project rules in the session's folder, shown read-only.
mkdirSync(join(home, 'w/.claude'), { recursive: true });
writeFileSync(
  join(home, 'w/.claude/settings.json'),
  JSON.stringify({ permissions: { allow: ['Bash(npm run lint:*)'] } }),
);
// Codex's, Gemini CLI's and Qwen Code's own rules in the host's HOME.
mkdirSync(join(home, '.codex/rules'), { recursive: true });
writeFileSync(
  join(home, '.codex/rules/default.rules'),
  'prefix_rule(pattern = ["cargo", "test"], decision = "allow")\n',
);
mkdirSync(join(home, '.gemini'), { recursive: true });
writeFileSync(join(home, '.gemini/trustedFolders.json'), JSON.stringify({ [join(home, 'w')]: 'TRUST_FOLDER' }));
mkdirSync(join(home, '.qwen'), { recursive: true });
writeFileSync(join(home, '.qwen/settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm *)'] } }));
const shots = process.env.SCREENSHOT_DIR;
// Evaluated in the page by `waitForFunction(turnsDone, n)`: `n` turns, none
// running. (Not curried: a function returned here would be truthy at once.)
const turnsDone = (n) =>
  document.querySelectorAll('[data-testid=turn]').length === n && !document.querySelector('[data-testid=turn].active');

await run('rules', home, [`asker=${fakeBin} --script ${script}`], async (page, check) => {
  const folder = `file://${join(home, 'w')}`;
  await page.evaluate((f) => window.rpc('session.create', { host: 'local', agent: 'asker', folder: f }), folder);
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'Run the tests');
  await page.click('[data-testid=send]');

  // *Always allow…*: the form, its pattern prefilled from the host's suggestion.
  await page.click('[data-testid=confirmation] [data-testid=rule-always-allow]');
  await page.waitForSelector('[data-testid=rule-form]');
  const pattern = await page.inputValue('[data-testid=rule-pattern]');
  check(pattern === 'npm test', 'the pattern is prefilled from the suggestion', pattern);
  const scope = await page.isChecked('[data-testid=rule-scope-folder]');
  check(scope, 'the rule is for this folder unless changed', String(scope));
  if (shots) await page.screenshot({ path: join(shots, 'rules-always-allow.png') });
  await page.click('[data-testid=rule-save]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=confirmation]'));
  await page.waitForFunction(turnsDone, 1);
  const first = await page.textContent('[data-testid=turn]:last-child');
  check(first.includes('ran the tests'), 'the confirmation was answered with the allow option', first);

  // The next request is answered by the rule, and the tool call says so.
  await page.fill('[data-testid=composer-input]', 'Again');
  await page.click('[data-testid=send]');
  await page.waitForFunction(turnsDone, 2);
  const asked = await page.$$eval('[data-testid=confirmation]', (els) => els.length);
  check(asked === 0, 'no confirmation was asked', String(asked));
  await page.waitForSelector('[data-testid=rule-verdict] code');
  const verdict = await page.textContent('[data-testid=rule-verdict]');
  check(verdict === 'Allowed by rule npm test', 'the tool call names the rule', verdict);
  if (shots) await page.screenshot({ path: join(shots, 'rules-allowed-by-rule.png') });

  // Its link opens the Rules page: the rule with its hit; deleted after a confirm.
  await page.click('[data-testid=rule-link]');
  await page.waitForSelector('[data-testid=rule-row]');
  const row = await page.textContent('[data-testid=rule-row]');
  const hits = Number(await page.textContent('[data-testid=rule-row-hits]'));
  check(row.includes('npm test') && row.includes('Allow') && hits >= 1, 'the Rules page lists the rule', `${row}`);
  check(row.includes('Hangar app'), 'it says who made it', row);
  const own = await page.textContent('[data-testid=agent-rules]');
  check(
    own.includes('Bash(npm run lint:*)') && own.includes('w/.claude/settings.json'),
    "the agents' own rules of the session's folder, with their file",
    own,
  );
  const others = await page.$$eval('[data-testid=agent-rule]', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent.trim()).join(' | ')),
  );
  const expected = [
    `Codex | allow | cargo test | ${join(home, '.codex/rules/default.rules')}`,
    `Gemini CLI | trust folder | ${join(home, 'w')} | ${join(home, '.gemini/trustedFolders.json')}`,
    `Qwen Code | deny | Bash(rm *) | ${join(home, '.qwen/settings.json')}`,
  ];
  check(
    expected.every((e) => others.includes(e)),
    "Codex's, Gemini CLI's and Qwen Code's own rules, with their files",
    JSON.stringify(others),
  );
  if (shots) await page.screenshot({ path: join(shots, 'rules-page.png') });
  await page.click('[data-testid=rule-delete]');
  await page.click('[data-testid=rule-delete-confirm] [data-testid=confirm-dialog-ok]');
  await page.waitForSelector('[data-testid=rules-empty]');
  const left = await page.evaluate(() => window.rpc('rules.list', { host: 'local', folder: null }));
  check(left.rules.length === 0, 'the rule is deleted on the host', JSON.stringify(left.rules));
  if (shots) await page.screenshot({ path: join(shots, 'rules-empty.png') });

  // *Never allow…*: a refused pattern keeps the confirmation, with the host's reason.
  await page.click('[data-testid=rules-close]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'Once more');
  await page.click('[data-testid=send]');
  await page.click('[data-testid=confirmation] [data-testid=rule-never-allow]');
  await page.fill('[data-testid=rule-pattern]', 'npm test && rm');
  await page.click('[data-testid=rule-save]');
  const refused = await (await page.waitForSelector('[data-testid=rule-error]')).textContent();
  check(refused.includes('chain of commands'), "a refused rule shows the host's reason", refused);
  const waiting = await page.$$eval('[data-testid=confirmation]', (els) => els.length);
  check(waiting === 1, 'the confirmation still waits', String(waiting));
  await page.click('[data-testid=rule-scope-host]');
  await page.fill('[data-testid=rule-pattern]', 'npm test');
  await page.click('[data-testid=rule-save]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=confirmation]'));
  await page.waitForFunction(turnsDone, 3);
  const third = await page.textContent('[data-testid=turn]:last-child');
  check(third.includes('told'), 'the confirmation was answered with the reject option', third);
  await page.fill('[data-testid=composer-input]', 'And again');
  await page.click('[data-testid=send]');
  await page.waitForFunction(turnsDone, 4);
  const denied = await (
    await page.waitForSelector('[data-testid=turn]:last-child [data-testid=rule-verdict] code')
  ).evaluate((el) => el.closest('[data-testid=rule-verdict]').textContent);
  check(denied === 'Denied by rule npm test', 'the next request is denied by the rule', denied);

  // Settings lists each host's Rules page.
  await page.keyboard.press('Control+,');
  await page.click('[data-testid=settings-rules]');
  const fromSettings = await (await page.waitForSelector('[data-testid=rules-page] h1')).textContent();
  check(fromSettings.includes('This computer'), "Settings opens the host's Rules page", fromSettings);
  await page.click('[data-testid=rules-close]');

  // The host's menu opens its Rules page; a rule is added and edited there.
  await page.click('[data-testid=host-menu]');
  await page.click('[data-testid=host-menu-rules]');
  await page.waitForSelector('[data-testid=rule-row]');
  await page.click('[data-testid=rule-add]');
  await page.fill('[data-testid=rule-form] [data-testid=rule-pattern]', 'cargo build');
  await page.click('[data-testid=rule-form] [data-testid=rule-save]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=rule-row]').length === 2);
  await page.click('[data-testid=rule-row]:last-child [data-testid=rule-edit]');
  await page.fill('[data-testid=rule-form] [data-testid=rule-pattern]', 'cargo test');
  await page.click('[data-testid=rule-form] [data-testid=rule-save]');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid=rule-row-pattern]')].some((e) => e.textContent === 'cargo test'),
  );
  const after = await page.evaluate(() => window.rpc('rules.list', { host: 'local', folder: null }));
  const added = after.rules.map((r) => `${r.decision} ${r.pattern} ${r.scope.kind}`).join(', ');
  check(added === 'deny npm test host, allow cargo test host', 'a rule added and edited on the page', added);
});
