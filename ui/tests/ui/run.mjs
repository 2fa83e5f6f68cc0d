// UI tests: the real UI (ui/dist) in headless Chromium against the real
// Rust core (hangar-desktop-bridge: embedded host + MultiHostClient) with
// the scripted fake ACP agent. Prints one line per test and a closing
// "N passed, M failed" line.
//
// Env: BRIDGE_BIN, FAKE_AGENT_BIN (default: ../../../target/debug/...),
// CHROMIUM (default /usr/bin/chromium), SCREENSHOT_DIR (optional).
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const bridgeBin = process.env.BRIDGE_BIN ?? join(root, 'target/debug/hangar-desktop-bridge');
const fakeBin = process.env.FAKE_AGENT_BIN ?? join(root, 'target/debug/hangar-fake-agent');
const shots = process.env.SCREENSHOT_DIR;
const T = 20000;

const home = mkdtempSync(join(tmpdir(), 'hangar-ui-home-'));
const demo = join(home, 'projects', 'demo');
mkdirSync(demo, { recursive: true });
mkdirSync(join(home, 'projects', 'other'), { recursive: true });
writeFileSync(join(demo, 'hello.txt'), 'hello world\n');
writeFileSync(join(demo, 'main.rs'), 'fn main() {}\n');
const scriptPath = join(home, 'fake-agent.json');
writeFileSync(scriptPath, readFileSync(join(here, 'fake-agent-script.json')));
// Two more agents: one slow to start (its sessions stay `creating` for a
// while), one that never starts (its sessions end `failed`).
const slowScript = join(home, 'slow-agent.json');
writeFileSync(slowScript, JSON.stringify({ initDelayMs: 2500, turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const brokenScript = join(home, 'broken-agent.json');
writeFileSync(brokenScript, JSON.stringify({ failStart: 'broken agent: no API key configured' }));

const agents = [`fake=${fakeBin} --script ${scriptPath}`, `slow=${fakeBin} --script ${slowScript}`, `broken=${fakeBin} --script ${brokenScript}`];
const bridge = spawn(bridgeBin, ['--no-discover', '--data-dir', join(home, '.hangar-data'), ...agents.flatMap((a) => ['--agent', a])], {
  env: { ...process.env, HOME: home, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((res, rej) => {
  const timer = setTimeout(() => rej(new Error('bridge did not start')), 60000);
  bridge.on('exit', (c) => rej(new Error(`bridge exited ${c}`)));
  createInterface({ input: bridge.stdout }).on('line', (l) => {
    const m = /^listening (http:\/\/\S+)/.exec(l);
    if (m) { clearTimeout(timer); res(m[1]); }
  });
});

const browserDir = mkdtempSync(join(tmpdir(), 'hangar-chromium-'));
const ctx = await chromium.launchPersistentContext(browserDir, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
  viewport: { width: 1280, height: 800 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
const page = await ctx.newPage();
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.setDefaultTimeout(T);
await page.goto(url + '/');

let passed = 0, failed = 0;
async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok - ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL - ${name}: ${e.stack ?? e}`);
    if (shots) await page.screenshot({ path: join(shots, `failed-${name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
  }
}
const shot = async (name) => {
  if (!shots) return;
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: join(shots, `${name}.png`) });
};
const expectText = (sel, text) => page.waitForFunction(([s, t]) => [...document.querySelectorAll(s)].some((e) => e.textContent.includes(t)), [sel, text]);

await test('the sidebar shows the embedded host, connected', async () => {
  await expectText('.host-group h2', 'This computer');
  await page.waitForSelector('.conn.up');
});

await test('create a session in a folder picked with resourceList', async () => {
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=folder-picker]');
  await expectText('[data-testid=folder-path]', home);
  await page.click('[data-testid=folder-entry]:has-text("projects")');
  await expectText('[data-testid=folder-path]', '/projects');
  await page.click('[data-testid=folder-entry]:has-text("demo")');
  await expectText('[data-testid=folder-path]', '/projects/demo');
  await shot('new-session-folder-picker');
  await page.click('[data-testid=create-session]');
  await page.waitForSelector('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]');
});

await test('send a message and see streamed markdown with a highlighted code fence', async () => {
  // Sent right after creation: if the agent is not ready yet, the core
  // holds the message and sends it when it is (no refusal, no resend).
  await page.fill('[data-testid=composer-input]', 'Plan the change');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=turn]');
  await expectText('.md.assistant', 'Here is the plan');
  await page.waitForSelector('.turn.active, [data-testid=confirmation]');
  await page.waitForSelector('.md.assistant pre code.language-rust');
  await expectText('.md.assistant pre code', 'println!');
  await page.waitForSelector('details.reasoning');
  await page.waitForSelector('[data-testid=session-row][data-status=working], [data-testid=session-row][data-status=needs-input]');
});

await test('approve a tool call from its inline card and see the result', async () => {
  await page.waitForSelector('[data-testid=confirmation]');
  await expectText('[data-testid=diff]', 'hello hangar');
  await expectText('[data-testid=inbox-button] .count', '1');
  await page.waitForSelector('[data-testid=session-row][data-status=needs-input]');
  const labels = await page.$$eval('[data-testid=confirmation] button', (bs) => bs.map((b) => b.textContent));
  if (!labels.some((l) => l.includes('Always allow'))) throw new Error(`host options missing: ${labels}`);
  await shot('chat-confirmation');
  await page.click('[data-testid=inbox-button]');
  await page.waitForSelector('[data-testid=inbox-item]');
  await shot('approval-inbox');
  await page.click('[data-testid=inbox-item] button');
  await page.click('[data-testid=confirmation] button:has-text("Allow")');
  await expectText('[data-testid=tool-result]', 'Wrote 1 line to hello.txt');
  await expectText('.md.assistant', 'the file now says hello hangar');
  await page.waitForFunction(() => !document.querySelector('.turn.active'));
  await expectText('[data-testid=inbox-button] .count', '0');
  await expectText('.turn-foot', '1200 in');
  await shot('chat-tool-result');
});

await test('queue a message while a turn runs; it starts when the turn ends', async () => {
  await page.fill('[data-testid=composer-input]', 'Follow up please');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=queue-button]');
  await page.fill('[data-testid=composer-input]', 'Queued question');
  await page.click('[data-testid=queue-button]');
  await expectText('[data-testid=queued-message]', 'Queued question');
  await shot('chat-queued-message');
  await expectText('.md.assistant', 'echo: Queued question');
  await page.waitForFunction(() => !document.querySelector('[data-testid=queued-message]'));
});

// The agent's elicitation (fake-agent-script.json, 4th turn) as the real
// form: needs-input in the sidebar while it waits, then the agent's reply
// quoting the typed answers.
async function answerInputRequest() {
  await page.fill('[data-testid=composer-input]', 'Set up the project');
  await page.click('[data-testid=send]');
  const form = '[data-testid=input-request]:not(.done)';
  await page.waitForSelector(form);
  await page.waitForSelector('[data-testid=session-row][data-status=needs-input]');
  await expectText('[data-testid=inbox-button] .count', '1');
  await page.fill(`${form} [data-question=a_name] input[type=text]`, 'hangar-demo');
  await page.check(`${form} [data-question=b_license] label:has-text("Apache 2.0") input`);
  await page.check(`${form} [data-question=c_tests] input[type=checkbox]`);
  await shot('chat-input-request');
  await page.click('[data-testid=input-submit]');
  await page.waitForSelector('[data-testid=input-request][data-response=accept]');
  await expectText('.md.assistant', '{"a_name":"hangar-demo","b_license":"apache-2.0","c_tests":true}');
  await page.waitForFunction(() => !document.querySelector('.turn.active'));
  await page.waitForSelector('[data-testid=session-row]:not([data-status=needs-input])');
  await expectText('[data-testid=inbox-button] .count', '0');
}
await test('answer an input request in its form; the agent quotes the answers', answerInputRequest);

await test('rename a session; the sidebar follows', async () => {
  await page.click('button:has-text("Rename")');
  await page.fill('[data-testid=rename-input]', 'Renamed by the UI test');
  await page.press('[data-testid=rename-input]', 'Enter');
  await expectText('[data-testid=session-row]', 'Renamed by the UI test');
});

await test('dark theme follows the OS', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  const bg = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim());
  if (bg !== '#16181d') throw new Error(`dark background not applied: ${bg}`);
  await shot('chat-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

// A new session with `agent`, in the folder the picker opens on.
async function newSession(agent) {
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=folder-entry]');
  await page.selectOption('[data-testid=agent-select]', agent);
  await page.click('[data-testid=create-session]');
  await page.waitForSelector('[data-testid=composer-input]');
}

await test('a message typed while the agent starts is held, then becomes a turn', async () => {
  await newSession('slow');
  await page.waitForSelector('[data-testid=starting]');
  await page.fill('[data-testid=composer-input]', 'Typed right away');
  await page.click('[data-testid=send]');
  await expectText('[data-testid=held-message]', 'Typed right away');
  await shot('chat-agent-starting');
  await expectText('.md.assistant', 'echo: Typed right away');
  await page.waitForFunction(() => !document.querySelector('[data-testid=starting], [data-testid=held-message]'));
  const refused = await page.$$eval('.notice', (ns) => ns.map((n) => n.textContent).filter((t) => t.includes('turnStarted')));
  if (refused.length) throw new Error(`a turn was refused: ${refused}`);
});

await test('a failed start shows the reason; start again, then dispose', async () => {
  await newSession('broken');
  await expectText('[data-testid=start-error]', 'no API key configured');
  if (!(await page.isDisabled('[data-testid=send]'))) throw new Error('Send is enabled on a failed session');
  await shot('chat-start-failed');
  const failed = await page.getAttribute('.session-row.selected', 'data-uri');
  await page.click('[data-testid=start-again]');
  // A fresh session with the same agent replaces the failed one (and fails too).
  await page.waitForFunction((u) => {
    const sel = document.querySelector('.session-row.selected');
    return sel && sel.dataset.uri !== u && !document.querySelector(`[data-testid=session-row][data-uri="${u}"]`);
  }, failed);
  await expectText('[data-testid=start-error]', 'no API key configured');
  const second = await page.getAttribute('.session-row.selected', 'data-uri');
  await page.click('[data-testid=dispose-failed]');
  await page.waitForFunction((u) => !document.querySelector(`[data-testid=session-row][data-uri="${u}"]`), second);
  await page.waitForSelector('[data-testid=start-failed]', { state: 'detached' });
});

await test('no page errors', async () => {
  if (consoleErrors.length) throw new Error(consoleErrors.join('\n'));
});

await ctx.close();
bridge.kill('SIGTERM');
rmSync(browserDir, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });
console.log(`ui: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
