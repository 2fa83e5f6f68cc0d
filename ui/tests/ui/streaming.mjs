// Streaming UI test: the real UI in headless Chromium against the real core
// (hangar-desktop-bridge) with a fake agent that streams a Rust fence in
// many small, closely spaced chunks (~200 a second). Checks what keeps
// frames short while a part streams:
//   1. chat ops are applied once per animation frame: the streaming part's
//      HTML is replaced at most once per frame (not once per delta);
//   2. the streaming code is not highlighted while deltas keep coming, and
//      is highlighted once the turn is done.
// Counts, not durations: nothing here depends on how fast the machine is.
// Env as run.mjs: BRIDGE_BIN, FAKE_AGENT_BIN, CHROMIUM; UI_DIR serves another
// build of the UI (to see this test fail on one without these changes).
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const bridgeBin = process.env.BRIDGE_BIN ?? join(root, 'target/debug/hangar-desktop-bridge');
const fakeBin = process.env.FAKE_AGENT_BIN ?? join(root, 'target/debug/hangar-fake-agent');

const home = mkdtempSync(join(tmpdir(), 'hangar-ui-stream-'));
mkdirSync(join(home, 'w'));
const steps = [{ chunk: 'Streaming a fence:\n\n```rust\n' }];
for (let i = 0; i < 300; i++) steps.push({ chunk: `let value_${i} = ${i};\n` }, { sleep: 5 });
steps.push({ chunk: '```\n\nDone.' }, { end: 'end_turn' });
const script = join(home, 'stream.json');
writeFileSync(script, JSON.stringify({ turns: [steps] }));

const bridge = spawn(bridgeBin, ['--no-discover', '--data-dir', join(home, 'data'), '--agent', `stream=${fakeBin} --script ${script}`,
  ...(process.env.UI_DIR ? ['--ui', resolve(process.env.UI_DIR)] : [])], {
  env: { ...process.env, HOME: home, RUST_LOG: process.env.RUST_LOG ?? 'warn' }, stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((res, rej) => {
  const timer = setTimeout(() => rej(new Error('bridge did not start')), 60000);
  bridge.on('exit', (c) => rej(new Error(`bridge exited ${c}`)));
  createInterface({ input: bridge.stdout }).on('line', (l) => { const m = /^listening (http:\/\/\S+)/.exec(l); if (m) { clearTimeout(timer); res(m[1]); } });
});
const browserDir = mkdtempSync(join(tmpdir(), 'hangar-chromium-stream-'));
const ctx = await chromium.launchPersistentContext(browserDir, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, viewport: { width: 1280, height: 800 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
let failed = 0;
try {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.setDefaultTimeout(60000);
  await page.goto(url + '/');
  // Create the session through the bridge's command socket (setup only).
  await page.evaluate(async (folder) => {
    const ws = new WebSocket(`ws://${location.host}/ipc`);
    await new Promise((r) => (ws.onopen = r));
    ws.send(JSON.stringify({ id: 1, cmd: 'session.create', args: { host: 'local', agent: 'stream', folder }, stream: false }));
    await new Promise((r) => (ws.onmessage = r));
    ws.close();
  }, `file://${join(home, 'w')}`);
  await page.click('[data-testid=session-row]');
  await page.fill('[data-testid=composer-input]', 'stream a fence');
  // Per animation frame: how often the streaming part's HTML was replaced,
  // and whether its code was highlighted while the turn was still running.
  const watching = page.evaluate(() => new Promise((resolve) => {
    let frame = 0; let seen = 0;
    const perFrame = new Map(); let highlightedWhileStreaming = 0;
    const mo = new MutationObserver((records) => {
      const md = document.querySelector('.turn.active .md.assistant');
      if (!md) return;
      for (const r of records) if (r.target === md && r.type === 'childList') perFrame.set(frame, (perFrame.get(frame) ?? 0) + 1);
      if (md.querySelector('.hljs-keyword')) highlightedWhileStreaming++;
    });
    mo.observe(document.querySelector('[data-testid=transcript]'), { subtree: true, childList: true });
    const tick = () => {
      frame++;
      if (document.querySelector('.turn.active .md.assistant')) seen++;
      if (seen && !document.querySelector('.turn.active')) {
        mo.disconnect();
        resolve({ frames: seen, replacements: [...perFrame.values()], highlightedWhileStreaming });
      } else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }));
  await page.click('[data-testid=send]');
  const w = await watching;
  const total = w.replacements.reduce((a, b) => a + b, 0);
  const most = Math.max(0, ...w.replacements);
  const check = (ok, name, detail) => { console.log(`${ok ? 'ok' : 'FAIL'} - ${name} (${detail})`); if (!ok) failed++; };
  check(total > 20 && most <= 1, 'the streaming part is re-rendered at most once per frame',
    `${total} replacements over ${w.frames} frames, at most ${most} in one frame`);
  check(w.highlightedWhileStreaming === 0, 'no highlighting while deltas keep coming', `${w.highlightedWhileStreaming} mutations saw highlighted code`);
  await page.waitForSelector('.md.assistant pre code.language-rust .hljs-keyword');
  check(true, 'highlighted once the turn is done', 'hljs spans present');
  check(errors.length === 0, 'no page errors', errors.join('; ') || 'none');
} catch (e) {
  failed++;
  console.log(`FAIL - streaming: ${e.stack ?? e}`);
} finally {
  await ctx.close();
  bridge.kill('SIGTERM');
  rmSync(browserDir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
console.log(`streaming: ${failed ? 'failed' : 'passed'}`);
process.exit(failed ? 1 : 0);
