// Real-window tests: the real `hangar-desktop` binary (Tauri 2, WebKitGTK),
// its window on an X display (Xvfb in CI), driven through Debian's
// WebKitWebDriver with the zero-dependency client in ./webdriver.mjs; the
// embedded host runs the scripted fake ACP agent. Prints one line per test
// and a closing "N passed, M failed" line. Selectors follow ui/tests/ui/run.mjs.
//
// Search: Ctrl+K finds the queued message's turn, Enter lands on it.
// Rules: *Always allow…* on a shell confirmation, the next request answered
// by the host, the Rules page editing and deleting the rule.
// Open from other devices: turned on in Settings, the address and pairing
// link the page shows pair a headless Chromium (playwright-core, as the
// Chromium tests use) that lists the app's sessions; revoked in the window,
// it is signed out and its token refused.
// Env: APP_BIN, FAKE_AGENT_BIN (default: ../../../target/debug/...),
// WEBKIT_DRIVER (default WebKitWebDriver), SCREENSHOT_DIR (optional).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { killByMarker, Session, startDriver } from './webdriver.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const appBin = resolve(process.env.APP_BIN ?? join(root, 'target/debug/hangar-desktop'));
const fakeBin = resolve(process.env.FAKE_AGENT_BIN ?? join(root, 'target/debug/hangar-fake-agent'));
const shots = process.env.SCREENSHOT_DIR;
const t0 = Date.now();

// A temp HOME (the folder picker starts there), data dir and project folder:
// never the person's ~/.local/share/hangar*.
const home = mkdtempSync(join(tmpdir(), 'hangar-window-home-'));
const demo = join(home, 'projects', 'demo');
mkdirSync(demo, { recursive: true });
mkdirSync(join(home, 'projects', 'other'), { recursive: true });
// Dot-folders, which the picker hides until "Show hidden".
for (const d of ['.cache', '.local']) mkdirSync(join(home, d));
writeFileSync(join(demo, 'hello.txt'), 'hello world\n');
writeFileSync(join(demo, 'main.rs'), 'fn main() {}\n');
// A project agent, so the Customizations panel offers "New agent" there.
mkdirSync(join(demo, '.claude', 'agents'), { recursive: true });
writeFileSync(
  join(demo, '.claude', 'agents', 'reviewer.md'),
  '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n',
);
// The project is a git repository (Commit in the Changes panel).
const git = (...args) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-C', demo, ...args], {
    encoding: 'utf8',
  }).trim();
git('init', '--quiet', '-b', 'main');
// Commit in the app uses the repository's own identity (no global one here).
git('config', 'user.name', 'Test');
git('config', 'user.email', 'test@example.com');
git('add', '-A');
git('commit', '--quiet', '-m', 'start');

// The Chromium tests' fake-agent script, plus one step: once the edit is
// allowed, the agent really writes the file through the host
// (fs/write_text_file), so the test can see it change on disk.
const script = JSON.parse(readFileSync(join(here, '../ui/fake-agent-script.json'), 'utf8'));
const permission = script.turns[0].find((s) => s.request?.method === 'session/request_permission');
if (!permission?.then?.allow)
  throw new Error('fake-agent-script.json: no permission request with an "allow" branch in turn 1');
permission.then.allow.unshift({
  request: { method: 'fs/write_text_file', params: { path: '$CWD/hello.txt', content: 'hello hangar\n' } },
});
// The first turn reports the context used and the cost so far (the chat
// header's meter, the Usage page).
script.turns[0].unshift({
  update: { sessionUpdate: 'usage_update', used: 42000, size: 200000, cost: { amount: 0.25, currency: 'USD' } },
});
// The fourth prompt (a review sent from the Changes panel) answers with
// the prompt it got and creates notes.txt, a change to undo.
script.turns.splice(3, 0, [
  { writeFile: { path: 'notes.txt', text: 'reviewed\n' } },
  { echo: true },
  { end: 'end_turn' },
]);
// The fifth and sixth prompts ask to run `npm test -- --watch`: the first
// is made a rule (*Always allow…*), the second is answered by the host.
const runTests = {
  request: {
    method: 'session/request_permission',
    params: {
      sessionId: '$SID',
      options: [
        { optionId: 'once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
      toolCall: {
        toolCallId: 'run-$N',
        title: 'npm test -- --watch',
        kind: 'execute',
        rawInput: { command: 'npm test -- --watch' },
      },
    },
  },
  then: {
    once: [
      { update: { sessionUpdate: 'tool_call_update', toolCallId: 'run-$N', status: 'completed' } },
      { chunk: 'ran the tests' },
    ],
    '*': [{ chunk: 'told $RESULT' }],
  },
};
const runTestsTurn = (n) => [JSON.parse(JSON.stringify(runTests).replaceAll('$N', n)), { end: 'end_turn' }];
script.turns.splice(4, 0, runTestsTurn(1), runTestsTurn(2));
const scriptPath = join(home, 'fake-agent.json');
writeFileSync(scriptPath, JSON.stringify(script));

// Two saved remote hosts, as `hangar remote add` leaves them (config outside
// HOME, so the folder picker's listing of HOME is unchanged): "box" up,
// "desk" saved and then stopped — the window must say each one's state.
const hangarBin = resolve(process.env.HANGAR_BIN ?? join(dirname(appBin), 'hangar'));
const remoteRoot = mkdtempSync(join(tmpdir(), 'hangar-window-remotes-'));
const configHome = join(remoteRoot, 'config');
const servers = [];
async function serve(name) {
  const dir = join(remoteRoot, name);
  mkdirSync(join(dir, 'home'), { recursive: true });
  const args = ['serve', '--data-dir', join(dir, 'data'), '--listen', '127.0.0.1:0', '--no-discover'];
  const child = spawn(hangarBin, args, {
    env: { ...process.env, HOME: join(dir, 'home') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  servers.push(child);
  const ready = await new Promise((res, rej) => {
    child.on('exit', (c) => rej(new Error(`hangar serve exited ${c}`)));
    createInterface({ input: child.stdout }).on('line', (l) => l.startsWith('{') && res(JSON.parse(l)));
  });
  const token = readFileSync(join(dir, 'data', 'token'), 'utf8').trim();
  const add = spawnSync(hangarBin, ['remote', 'add', name, ready.url, '--token-stdin', '--insecure-token-file'], {
    input: token,
    env: { ...process.env, XDG_CONFIG_HOME: configHome },
  });
  if (add.status !== 0) throw new Error(`hangar remote add ${name}: ${add.stderr}`);
  return child;
}
await serve('box');
(await serve('desk')).kill('SIGKILL');

let driver;
let wd;
const cleanup = async () => {
  for (const s of servers) s.kill('SIGKILL');
  rmSync(remoteRoot, { recursive: true, force: true });
  if (wd) await wd.delete().catch(() => {}); // closes the app
  await driver?.kill(); // the driver's process group (the app is started in it)
  killByMarker(home); // anything still running with our temp dir in its arguments (app, fake agent)
  rmSync(home, { recursive: true, force: true });
};
const watchdog = setTimeout(async () => {
  console.log('FAIL - real window: the whole run took more than 180 s');
  await cleanup();
  process.exit(1);
}, 180000);

try {
  driver = await startDriver({
    driverBin: process.env.WEBKIT_DRIVER ?? 'WebKitWebDriver',
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: configHome,
      HANGAR_NO_DISCOVER: '1',
      RUST_LOG: process.env.RUST_LOG ?? 'warn',
      // WebKitGTK 2.50's WebDriver screenshot never answers when the page
      // paints without compositing (the app's default, webkit_settings.rs):
      // screenshots are taken with WebKit's own compositing.
      ...(shots ? { HANGAR_WEBKIT_COMPOSITING: '1' } : {}),
    },
  });
  // Without TAURI_WEBVIEW_AUTOMATION (set by startDriver) this would hang: bounded.
  wd = await Session.create(driver.base, {
    binary: appBin,
    args: [
      '--no-discover',
      '--data-dir',
      join(home, '.hangar-data'),
      '--agent',
      `fake=${fakeBin} --script ${scriptPath}`,
    ],
    timeoutMs: 30000,
  });
} catch (e) {
  console.log(`FAIL - start the app through WebKitWebDriver: ${e.stack ?? e}`);
  await cleanup();
  process.exit(1);
}
console.log(`# window session started in ${Date.now() - t0} ms`);

// Page errors, collected from the start of the test on.
await wd.exec(`window.__errors = [];
  addEventListener('error', (e) => __errors.push(String(e.message)));
  addEventListener('unhandledrejection', (e) => __errors.push(String(e.reason?.message ?? e.reason)));`);

let passed = 0,
  failed = 0;
async function test(name, fn) {
  const t1 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok - ${name} (${Date.now() - t1} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL - ${name}: ${e.stack ?? e}`);
    if (shots)
      writeFileSync(
        join(shots, `failed-window-${name.replace(/\W+/g, '-')}.png`),
        await wd.screenshot().catch(() => Buffer.alloc(0)),
      );
  }
}
const shot = async (name) => {
  if (shots) writeFileSync(join(shots, `${name}.png`), await wd.screenshot());
};
const expectText = (css, text) => wd.waitEl(css, text);
// Click `css` until `done` (a page-side expression) holds, at most five
// times: a panel that redraws as the host answers can replace the element
// between WebKitWebDriver finding it and clicking it, and that click is lost.
async function clickUntil(css, done) {
  for (let i = 0; i < 5; i++) {
    await wd.clickEl(css).catch(() => {});
    const ok = await wd.waitFor(done, `return ${done};`, [], 2000).then(
      () => true,
      () => false,
    );
    if (ok) return;
  }
  throw new Error(`clicking ${css} never gave ${done}`);
}
// The X server's own picture of the screen (`import -window root`, imagemagick;
// skipped when missing), not WebKit's snapshot: the window really drew this.
const screenOf = async (name) => {
  if (!shots || !process.env.DISPLAY) return;
  await wd.frames();
  try {
    execFileSync('import', ['-window', 'root', join(shots, `${name}.png`)], { stdio: 'ignore' });
  } catch {
    /* no imagemagick */
  }
};

// Right after launch, before waiting for the host: the dialog either says
// the host is connecting or is already filled in, and must end filled in
// (before, it kept the empty host it opened with). The Chromium test
// new-session.mjs makes the "not yet" case certain; here it is the real
// window, its fonts and icons.
await test('New session clicked at launch fills in; dot-folders hidden; SVG icons', async () => {
  try {
    await newSessionAtLaunch();
  } finally {
    // Closed whatever happened: an open dialog would block the next tests.
    await wd.exec('document.querySelector("[data-testid=new-session-dialog] .modal-actions button")?.click();');
  }
});
async function newSessionAtLaunch() {
  await wd.clickEl('[data-testid=new-session]');
  await wd.waitEl('[data-testid=new-session-dialog]');
  const atOnce = await wd.exec(
    'return document.querySelector("[data-testid=host-waiting]")?.textContent ?? "(host already answered)";',
  );
  console.log(`# dialog at launch: ${atOnce}`);
  await wd.waitFor(
    'the dialog filled in',
    `return document.querySelector('[data-testid=folder-path]')?.textContent === arguments[0]
      && document.querySelector('[data-testid=agent-select]')?.value === 'fake'
      && !document.querySelector('[data-testid=host-waiting]');`,
    [home],
  );
  const names = () =>
    wd.exec('return [...document.querySelectorAll("[data-testid=folder-entry]")].map((e) => e.textContent.trim());');
  const visible = await names();
  if (JSON.stringify(visible) !== JSON.stringify(['projects']))
    throw new Error(`folders listed: ${JSON.stringify(visible)}`);
  const icons = await wd.exec(`const p = document.querySelector('[data-testid=folder-picker]');
    return { svg: p.querySelectorAll('svg').length, box: [...p.querySelectorAll('[data-testid=folder-entry] svg')].map((s) => s.getBoundingClientRect().width),
      emoji: (p.textContent.match(/\\p{Extended_Pictographic}/gu) ?? []).join('') };`);
  if (icons.svg < 2 || icons.emoji || icons.box.some((w) => w < 12))
    throw new Error(`picker icons: ${JSON.stringify(icons)}`);
  await shot('real-window-new-session');
  await screenOf('real-window-new-session-xvfb');
  await wd.clickEl('[data-testid=show-hidden]');
  await wd.waitFor(
    'hidden folders listed',
    'return document.querySelectorAll("[data-testid=folder-entry]").length === 4;',
  );
  const all = await names();
  if (JSON.stringify(all) !== JSON.stringify(['projects', '.cache', '.hangar-data', '.local']))
    throw new Error(`with hidden: ${JSON.stringify(all)}`);
  await shot('real-window-new-session-hidden');
}

await test('the sidebar shows the embedded host, connected', async () => {
  await expectText('.host-group h2', 'This computer');
  await wd.waitEl('.conn.up');
  const title = await wd.cmd('GET', '/title');
  if (title !== 'Hangar') throw new Error(`window title ${JSON.stringify(title)}`);
});

await test('saved remote hosts: one connected, one down says why, when it is tried next, and Retry now', async () => {
  const stateIs =
    "return [...document.querySelectorAll('[data-testid=host-header]')].some((h) => h.querySelector('h2')?.textContent === arguments[0] && h.dataset.state === arguments[1]);";
  await wd.waitFor('box connected', stateIs, ['box', 'connected'], 30000);
  await wd.waitFor('desk unreachable', stateIs, ['desk', 'unreachable'], 30000);
  await expectText('[data-testid=host-detail]', 'cannot reach');
  await wd.waitEl('[data-testid=host-retry]');
  await shot('real-window-remote-hosts');
});

await test('create a session in a folder picked with the folder picker', async () => {
  await wd.clickEl('[data-testid=new-session]');
  await wd.waitEl('[data-testid=folder-picker]');
  await expectText('[data-testid=folder-path]', home);
  await wd.clickEl('[data-testid=folder-entry]', 'projects');
  await expectText('[data-testid=folder-path]', '/projects');
  await wd.clickEl('[data-testid=folder-entry]', 'demo');
  await expectText('[data-testid=folder-path]', '/projects/demo');
  await wd.clickEl('[data-testid=create-session]');
  await wd.waitEl('[data-testid=session-row]');
  await wd.waitEl('[data-testid=composer-input]');
  await expectText('[data-testid=session-row]', 'demo');
});

await test('send a message and see streamed markdown', async () => {
  // Every text the newest assistant message shows, recorded in the page (so
  // WebDriver's polling latency cannot miss an intermediate state).
  await wd.exec(`window.__seen = [];
    new MutationObserver(() => {
      const t = [...document.querySelectorAll('.md.assistant')].pop()?.textContent ?? '';
      if (t && __seen[__seen.length - 1] !== t) __seen.push(t);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });`);
  // Sent right after creation: the core holds it until the agent is ready.
  await wd.fill('[data-testid=composer-input]', 'Plan the change');
  await wd.clickEl('[data-testid=send]');
  await wd.waitEl('[data-testid=turn]');
  await expectText('.md.assistant', 'Here is the plan');
  await wd.waitEl('.turn.active, [data-testid=confirmation]');
  // Coloured by highlight.js (Rust only adds the language class).
  await wd.waitEl('.md.assistant pre code.language-rust .hljs-keyword');
  await expectText('.md.assistant pre code', 'println!');
  await expectText('.md.assistant strong', demo); // **$CWD** rendered as markdown
  await wd.waitEl('details.reasoning');
  const seen = await wd.exec('return window.__seen;');
  if (!seen.some((t) => t.includes('Here is the plan') && !t.includes('println!'))) {
    throw new Error(`no partial render before the rest streamed in: ${JSON.stringify(seen)}`);
  }
});

await test('approve the tool call from its card; the result shows and the file changed on disk', async () => {
  await wd.waitEl('[data-testid=confirmation]');
  await expectText('[data-testid=diff]', 'hello hangar');
  await expectText('[data-testid=inbox-button] .count', '1');
  await wd.waitEl('[data-testid=session-row][data-status=needs-input]');
  if (readFileSync(join(demo, 'hello.txt'), 'utf8') !== 'hello world\n')
    throw new Error('file changed before approval');
  await screenOf('real-window-xvfb');
  await expectText('[data-testid=context-meter-text]', '42k / 200k');
  await wd.clickEl('[data-testid=confirmation] button', 'Allow');
  await expectText('[data-testid=tool-result]', 'Wrote 1 line to hello.txt');
  await expectText('.md.assistant', 'the file now says hello hangar');
  await wd.waitGone('.turn.active');
  await expectText('[data-testid=inbox-button] .count', '0');
  await expectText('.turn-foot', '1200 in');
  // The input, open while the choice was pending, is closed and takes no
  // room (WebKitGTK kept the height of a <details> whose `open` was unset).
  await wd.frames();
  const closedExtra = await wd.exec(`const d = document.querySelector('details.tool-input');
    return d.open ? -1 : Math.round(d.getBoundingClientRect().height - d.querySelector('summary').getBoundingClientRect().height);`);
  if (closedExtra !== 0) throw new Error(`closed tool input takes ${closedExtra}px beyond its summary`);
  const onDisk = readFileSync(join(demo, 'hello.txt'), 'utf8');
  if (onDisk !== 'hello hangar\n') throw new Error(`hello.txt on disk: ${JSON.stringify(onDisk)}`);
});

await test('queue a message while a turn runs; it starts when the turn ends', async () => {
  await wd.fill('[data-testid=composer-input]', 'Follow up please');
  await wd.clickEl('[data-testid=send]');
  await wd.waitEl('[data-testid=queue-button]');
  await wd.fill('[data-testid=composer-input]', 'Queued question');
  await wd.clickEl('[data-testid=queue-button]');
  await expectText('[data-testid=queued-message]', 'Queued question');
  await expectText('.md.assistant', 'Working on the follow-up');
  await expectText('.md.assistant', 'echo: Queued question');
  await wd.waitGone('[data-testid=queued-message]');
  await wd.waitGone('.turn.active');
  const turns = await wd.exec("return document.querySelectorAll('[data-testid=turn]').length;");
  if (turns !== 3) throw new Error(`expected 3 turns, saw ${turns}`);
  // The row catches up: idle, and not unread (the session is open).
  await wd.waitEl('[data-testid=session-row][data-status=idle]');
  await wd.waitGone('.unread-dot');
  await shot('real-window-chat');
});

await test('comment on a line of the approved edit and send the review: one turn quotes it', async () => {
  await wd.waitEl('[data-testid=row-changes]');
  await wd.clickEl('[data-testid=changes-button]');
  await wd.waitEl('[data-testid=change-file][data-path="hello.txt"]');
  await expectText('[data-testid=change-diff]', 'hello hangar');
  // The line number of the added line picks it (again if the diff was
  // drawn anew under the click: the panel refreshes as the turn settles).
  for (let i = 0; ; i++) {
    await wd.exec(`const line = [...document.querySelectorAll('[data-testid=change-diff] .dl')]
        .find((l) => l.textContent.includes('hello hangar'));
      line?.querySelector('[data-testid=line-number]')?.click();`);
    const open = await wd.waitEl('[data-testid=comment-input]', undefined, 2000).then(
      () => true,
      () => false,
    );
    if (open) break;
    if (i === 4) throw new Error('no comment box after five clicks on the line number');
  }
  await wd.fill('[data-testid=comment-input]', 'Say it in capitals');
  await wd.clickEl('[data-testid=comment-save]');
  await expectText('[data-testid=review-comment]', 'Say it in capitals');
  await shot('real-window-review');
  await wd.clickEl('[data-testid=review-send]');
  await wd.waitFor(
    'four turns, none running',
    "return document.querySelectorAll('[data-testid=turn]').length === 4 && !document.querySelector('.turn.active');",
  );
  await expectText('[data-testid=turn]:last-of-type [data-testid=review-card]', 'Say it in capitals');
  await expectText('[data-testid=turn]:last-of-type .response', 'hello.txt, line 1:');
  await expectText('[data-testid=turn]:last-of-type .response', 'Say it in capitals');
});

await test("undo the review turn's new file, keep the edit and commit it: the commit holds only what was kept", async () => {
  await wd.waitEl('[data-testid=change-file][data-path="notes.txt"]');
  await wd.clickEl('[data-testid=change-file][data-path="notes.txt"] [data-testid=file-undo]');
  await wd.waitGone('[data-testid=change-file][data-path="notes.txt"]');
  if (existsSync(join(demo, 'notes.txt'))) throw new Error('notes.txt still on disk after Undo');
  await clickUntil(
    '[data-testid=change-file][data-path="hello.txt"] [data-testid=file-keep]',
    `!document.querySelector('[data-testid=change-file][data-path="hello.txt"]')`,
  );
  await clickUntil('[data-testid=commit-button]', `!!document.querySelector('[data-testid=commit-message]')`);
  await wd.waitEl('[data-testid=commit-message]:not([disabled])');
  await wd.fill('[data-testid=commit-message]', 'Say hello to hangar');
  await clickUntil('[data-testid=commit-confirm]', `!!document.querySelector('[data-testid=commit-id]')`);
  await shot('real-window-commit');
  const subject = git('log', '-1', '--format=%s');
  if (subject !== 'Say hello to hangar') throw new Error(`last commit: ${JSON.stringify(subject)}`);
  const files = git('show', '--name-only', '--format=', 'HEAD');
  if (files !== 'hello.txt') throw new Error(`committed files: ${JSON.stringify(files)}`);
  if (git('show', 'HEAD:hello.txt') !== 'hello hangar') throw new Error('the commit does not hold the kept edit');
});

await test('create an agent in the Customizations panel, with its description: the file is on disk', async () => {
  await wd.clickEl('[data-testid=customizations-button]');
  await wd.clickEl('[data-testid=cust-group][data-kind=agent] [data-testid=cust-new]');
  await wd.fill('[data-testid=cust-new-form] input', 'helper');
  await wd.clickEl('[data-testid=cust-new-form] button[type=submit]');
  await wd.waitEl('[data-testid=cust-editor] .cm-content');
  await wd.fill('[data-testid=cust-field][data-key=description] textarea', 'Helps in the real window');
  await wd.clickEl('[data-testid=cust-editor-save]');
  await wd.waitEl('[data-testid=cust-editor-note]');
  await shot('real-window-customization-editor');
  const made = readFileSync(join(demo, '.claude', 'agents', 'helper.md'), 'utf8');
  if (!made.includes('description: Helps in the real window')) throw new Error(`helper.md: ${JSON.stringify(made)}`);
  await wd.clickEl('[aria-label="Close the editor"]');
  await wd.waitEl('[data-testid=cust-item][data-kind=agent][data-name=helper]');
});

await test('the host menu opens the Agents page; a custom agent added in its form is offered for new sessions', async () => {
  await wd.clickEl('[data-host=local] [data-testid=host-menu]');
  await wd.clickEl('[data-testid=host-menu-agents]');
  await wd.waitEl('[data-testid=known-agent][data-agent=codex] [data-testid=agent-status]');
  // The agent given on the command line is named too.
  await wd.waitEl('[data-testid=agents-started-with]', 'fake');
  await wd.clickEl('[data-testid=custom-agent-add]');
  await wd.fill('[data-testid=custom-agent-id]', 'window-agent');
  await wd.fill('[data-testid=custom-agent-name]', 'Window agent');
  await wd.fill('[data-testid=custom-agent-command]', fakeBin);
  await wd.clickEl('[data-testid=custom-agent-save]');
  await wd.waitEl('[data-testid=custom-agent][data-agent=window-agent]');
  await shot('real-window-agents');
  await screenOf('real-window-agents-screen');
  await wd.clickEl('[data-testid=new-session]');
  await wd.waitFor(
    'the new agent offered',
    `return [...document.querySelectorAll('[data-testid=agent-select] option')].some((o) => o.textContent === 'Window agent');`,
  );
  await wd.clickEl('[data-testid=new-session-cancel]');
  await wd.clickEl('[data-testid=agents-close]');
});

await test('Ctrl+, opens Settings; the dark theme applies; About names the host and the AHP version', async () => {
  await wd.exec('document.activeElement?.blur();');
  await wd.press('\uE009', ',');
  await wd.waitEl('[data-testid=settings-page]');
  await wd.clickEl('[data-testid=theme-dark]');
  await wd.waitFor('the dark theme', "return document.documentElement.dataset.theme === 'dark';");
  await shot('real-window-settings');
  await wd.clickEl('[data-testid=theme-system]');
  await wd.clickEl('[data-testid=app-menu]');
  await wd.clickEl('[data-testid=app-menu-about]');
  await wd.waitEl('[data-testid=about-host][data-host=local] [data-testid=about-host-protocol]', '1.0.0');
  await wd.waitEl('[data-testid=about-host][data-host=local] [data-testid=about-host-software]', 'Hangar');
  await wd.clickEl('[data-testid=about-close]');
  await wd.clickEl('[data-testid=settings-close]');
});

await test('Ctrl+K searches every host; Enter opens the session at the matching turn, framed', async () => {
  await wd.exec('document.activeElement?.blur();');
  await wd.press('\uE009', 'k');
  await wd.waitEl('[data-testid=search-palette]');
  await wd.fill('[data-testid=search-input]', 'queued quest');
  await wd.waitEl('[data-testid=search-hit] [data-testid=search-snippet] mark', 'Queued', 30000);
  await shot('real-window-search');
  await wd.press('\uE007');
  await wd.waitGone('[data-testid=search-palette]');
  await wd.waitEl('[data-search-focus=true]', 'Queued question');
  // WebKitGTK with the CSS Custom Highlight API marks the words too.
  const marked = await wd.waitFor(
    'the matched words highlighted, where the engine can',
    `const h = globalThis.CSS?.highlights;
     if (!h) return 'no highlight API';
     const r = h.get('search-match');
     return r && r.size > 0 ? [...r].map((x) => x.toString()).join(',') : null;`,
  );
  console.log(`  highlighted: ${marked}`);
});

await test('Always allow… makes a rule that answers the next request; the Rules page edits and deletes it', async () => {
  const turnsDone = (n) =>
    wd.waitFor(
      `${n} turns, none running`,
      `return document.querySelectorAll('[data-testid=turn]').length === ${n} && !document.querySelector('.turn.active');`,
    );
  await wd.fill('[data-testid=composer-input]', 'Run the tests');
  await wd.clickEl('[data-testid=send]');
  await wd.clickEl('[data-testid=confirmation] [data-testid=rule-always-allow]');
  await wd.waitEl('[data-testid=rule-form]');
  const suggested = await wd.exec("return document.querySelector('[data-testid=rule-pattern]').value;");
  if (suggested !== 'npm test') throw new Error(`suggested pattern ${JSON.stringify(suggested)}`);
  await wd.fill('[data-testid=rule-pattern]', 'npm test --');
  await shot('real-window-rules-always-allow');
  // One WebDriver click, no retry: the form opened at the foot of the
  // transcript must have scrolled itself wholly into view (RuleForm.tsx).
  await wd.clickEl('[data-testid=rule-save]');
  await wd.waitGone('[data-testid=confirmation]');
  await turnsDone(5);
  await expectText('[data-testid=turn]:last-of-type .response', 'ran the tests');

  // The next request: answered by the host, the tool call names the rule.
  await wd.fill('[data-testid=composer-input]', 'Run them again');
  await wd.clickEl('[data-testid=send]');
  await turnsDone(6);
  await expectText('[data-testid=turn]:last-of-type .response', 'ran the tests');
  const asked = await wd.exec("return document.querySelectorAll('[data-testid=confirmation]').length;");
  if (asked !== 0) throw new Error(`${asked} confirmation(s) asked`);
  // The pattern is read from the host's list once the verdict shows (RuleLink.tsx).
  await wd.waitEl('[data-testid=turn]:last-of-type [data-testid=rule-verdict] code');
  const verdict = await wd.exec(
    `return document.querySelector('[data-testid=turn]:last-of-type [data-testid=rule-verdict]')?.textContent ?? '';`,
  );
  if (verdict !== 'Allowed by rule npm test --') throw new Error(`the tool call says ${JSON.stringify(verdict)}`);
  await wd.waitEl('[data-testid=turn]:last-of-type [data-testid=tool-call][data-status=completed]');
  await shot('real-window-rules-allowed-by-rule');
  // The header (meter, branch, actions, the Customizations panel open) shows the title whole.
  const fit = await wd.exec(
    "const h = document.querySelector('[data-testid=chat-title]'); return [h.scrollWidth, h.clientWidth];",
  );
  if (!(fit[0] <= fit[1])) throw new Error(`the chat title is cut: ${JSON.stringify(fit)}`);

  // Its link opens the Rules page: the rule, its hit, who made it.
  await wd.clickEl('[data-testid=turn]:last-of-type [data-testid=rule-link]');
  await wd.waitEl('[data-testid=rule-row]');
  const row = await wd.exec(`const r = document.querySelector('[data-testid=rule-row]');
    return { text: r.textContent, hits: Number(r.querySelector('[data-testid=rule-row-hits]').textContent) };`);
  if (!row.text.includes('npm test --') || !row.text.includes('Allow') || row.hits !== 1)
    throw new Error(`rule row: ${JSON.stringify(row)}`);
  await shot('real-window-rules-page');
  // Edited in place, then deleted after the confirm.
  await wd.clickEl('[data-testid=rule-row] [data-testid=rule-edit]');
  await wd.fill('[data-testid=rule-form] [data-testid=rule-pattern]', 'npm run test');
  await wd.clickEl('[data-testid=rule-form] [data-testid=rule-save]');
  await expectText('[data-testid=rule-row-pattern]', 'npm run test');
  await wd.clickEl('[data-testid=rule-row] [data-testid=rule-delete]');
  await wd.clickEl('[data-testid=rule-delete-confirm] [data-testid=confirm-dialog-ok]');
  await wd.waitEl('[data-testid=rules-empty]');
  await wd.clickEl('[data-testid=rules-close]');
});

await test("the Usage page plots the agent's report and lists the session", async () => {
  await wd.clickEl('[data-testid=app-menu]');
  await wd.clickEl('[data-testid=app-menu-usage]');
  await wd.waitEl('[data-testid=usage-chart]');
  await wd.waitEl('[data-testid=usage-segment]');
  await wd.waitEl('[data-testid=usage-session]');
  await shot('real-window-usage');
  await wd.clickEl('[data-testid=usage-close]');
});

await test('Open from other devices: on in Settings, a browser paired with the link shown sees the sessions; revoked, it is refused', async () => {
  await wd.clickEl('[data-testid=app-menu]');
  await wd.clickEl('[data-testid=app-menu-settings]');
  await wd.clickEl('[data-testid=devices-enabled]');
  await wd.waitEl('[data-testid=devices-url]');
  const textOf = (css) => wd.exec('return document.querySelector(arguments[0])?.textContent ?? null;', css);
  const base = await textOf('[data-testid=devices-url]');
  if (!/^http:\/\/127\.0\.0\.1:\d+\/$/.test(base)) throw new Error(`the address shown: ${JSON.stringify(base)}`);
  await wd.fill('[data-testid=devices-name]', 'phone');
  await wd.clickEl('[data-testid=devices-pair]');
  await wd.waitEl('[data-testid=pairing-qr]');
  const link = await textOf('[data-testid=pairing-url]');
  if (!link?.startsWith(`${base}#pair=`)) throw new Error(`the pairing link shown: ${JSON.stringify(link)}`);
  // The QR code is drawn (an image WebKitGTK decoded, not a broken one).
  const qr = await wd.exec(
    "const i = document.querySelector('[data-testid=pairing-qr]'); return [i.complete, i.naturalWidth];",
  );
  if (!qr[0] || qr[1] < 200) throw new Error(`the QR code: ${JSON.stringify(qr)}`);
  await wd.exec("document.querySelector('[data-testid=devices-settings]').scrollIntoView({ block: 'center' });");
  await shot('real-window-devices');
  await screenOf('real-window-devices-xvfb');

  const { chromium } = await import('playwright-core');
  const { CHROMIUM_ARGS } = await import('../ui/browser.mjs');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true })).newPage();
    phone.setDefaultTimeout(30000);
    await phone.goto(link);
    const row = await phone.waitForSelector('[data-testid=session-row][data-host=local]');
    const rowText = await row.textContent();
    if (!rowText.includes('demo')) throw new Error(`the paired browser's session row: ${JSON.stringify(rowText)}`);
    if (phone.url().includes('pair=')) throw new Error(`the code stayed in the address bar: ${phone.url()}`);
    await phone.waitForSelector('[data-testid=host-header][data-state=connected] h2:has-text("box")');
    if (shots) await phone.screenshot({ path: join(shots, 'real-window-devices-phone.png') });
    await wd.waitEl('[data-testid=paired-device][data-name=phone]');
    await wd.waitGone('[data-testid=pairing-link]');

    // Revoked in the window: the page is signed out, its token refused.
    const token = await phone.evaluate(() => localStorage.getItem('hangar.deviceToken'));
    await wd.clickEl('[data-testid=paired-device][data-name=phone] [data-testid=device-revoke]');
    await phone.waitForSelector('[data-testid=pairing-screen] [data-testid=pairing-message]:has-text("signed out")');
    await wd.waitGone('[data-testid=paired-device][data-name=phone]');
    const again = await phone.evaluate(
      ([t]) =>
        new Promise((done) => {
          const ws = new WebSocket(`ws://${location.host}/ipc`, ['hangar-ipc', `hangar-token.${t}`]);
          ws.onopen = () => ws.send(JSON.stringify({ id: 1, cmd: 'devices.get', args: {} }));
          ws.onmessage = (e) => done(`answered ${e.data}`);
          ws.onerror = () => done('refused');
          ws.onclose = () => done('refused');
        }),
      [token],
    );
    if (again !== 'refused') throw new Error(`the revoked token: ${again}`);
  } finally {
    await browser.close();
  }
  await wd.clickEl('[data-testid=devices-enabled]');
  await wd.waitGone('[data-testid=devices-url]');
  await wd.clickEl('[data-testid=settings-close]');
});

await test('no page errors', async () => {
  const errors = await wd.exec('return window.__errors;');
  if (errors.length) throw new Error(errors.join('\n'));
});

clearTimeout(watchdog);
await cleanup();
console.log(`window: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(failed ? 1 : 0);
