// Terminal UI test: an agent runs a command in a terminal on the host
// (ACP `terminal/create`): its tool call shows the output live in a
// read-only terminal while it runs, then its exit status; a second command
// that fails says so. Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-terminal-');
const runIn = (id, title, command) => [
  { request: { method: 'terminal/create', params: { command: 'sh', args: ['-c', command], cwd: '$CWD' } } },
  {
    update: {
      sessionUpdate: 'tool_call',
      toolCallId: id,
      title,
      kind: 'execute',
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId: '$TERMINAL' }],
    },
  },
  { request: { method: 'terminal/wait_for_exit', params: { terminalId: '$TERMINAL' } } },
  {
    update: {
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      status: 'completed',
      content: [{ type: 'terminal', terminalId: '$TERMINAL' }],
    },
  },
];
const script = join(home, 'terminal.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        // Long enough between lines for a loaded machine to show the first alone.
        ...runIn('build', 'Run the build', 'echo compiling; sleep 4; echo "\\033[32mbuild ok\\033[0m"'),
        ...runIn('test', 'Run the tests', 'echo 1 test failed >&2; exit 3'),
        { chunk: 'The build passes; one test fails.' },
        { end: 'end_turn' },
      ],
    ],
  }),
);
const shots = process.env.SCREENSHOT_DIR;
const terminals = (page) =>
  page.$$eval('[data-testid=terminal]', (els) =>
    els.map((e) => ({
      state: e.dataset.state,
      exit: e.dataset.exitCode,
      text: e.querySelector('[data-testid=terminal-text]')?.textContent ?? '',
      screen: e.querySelector('.xterm-rows')?.textContent ?? '',
      status: e.querySelector('.badge')?.textContent ?? '',
    })),
  );

await run('terminal', home, [`runner=${fakeBin} --script ${script}`], async (page, check) => {
  const folder = `file://${join(home, 'w')}`;
  await page.evaluate((f) => window.rpc('session.create', { host: 'local', agent: 'runner', folder: f }), folder);
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'Build and test');
  await page.click('[data-testid=send]');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid=terminal] .xterm-rows')?.textContent?.includes('compiling'),
  );
  const live = (await terminals(page))[0];
  check(
    live.state === 'running' && live.status === 'running…' && !live.screen.includes('build ok'),
    'the output shows while the command runs',
    JSON.stringify(live),
  );
  if (shots) await page.screenshot({ path: join(shots, 'chat-terminal-running.png') });
  await page.waitForSelector('[data-testid=turn]:not(.active)');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=terminal][data-state=ended]').length === 2);
  const [build, test] = await terminals(page);
  check(
    build.exit === '0' && build.status === 'exit 0' && build.screen.includes('build ok'),
    'the finished command shows all its output and its exit status',
    JSON.stringify(build),
  );
  check(
    !build.screen.includes('\\033') && !build.screen.includes('[32m'),
    'colours are drawn, not printed',
    build.screen,
  );
  check(
    test.exit === '3' && test.status === 'exit 3' && test.text.includes('1 test failed'),
    'a failing command says so, with its error output',
    JSON.stringify(test),
  );
  const failedCard = await page.$eval('[data-testid=terminal][data-exit-code="3"]', (e) =>
    e.classList.contains('failed'),
  );
  check(failedCard, 'the failing command is marked failed', String(failedCard));
  const typed = await page.evaluate(() => {
    const input = document.querySelector('[data-testid=terminal] textarea');
    return input ? input.disabled || input.readOnly || input.getAttribute('aria-readonly') : 'none';
  });
  check(typed !== false && typed !== null, 'the terminal is read-only', String(typed));
  if (shots) await page.screenshot({ path: join(shots, 'chat-terminal.png') });
});
