// Benchmark: the real UI in headless Chromium against hangar-desktop-bridge
// (embedded host + MultiHostClient + Rust view projection). Prints figures:
//   1. idle RSS of the core process with 50 sessions;
//   2. a session with 10,000 turns: time from click to first painted turn,
//      JS heap, DOM size, core RSS;
//   3. streaming at ~200 deltas/s: frame times while the answer grows, and
//      how many times the streaming part was re-rendered in each frame.
// Usage: node ui/tests/ui/bench.mjs (after cargo build -p hangar-desktop -p hangar-fake-agent
// and npm run build). Env as run.mjs; TURNS (default 10000), SESSIONS (50),
// STREAM_RUNS (1: streaming runs, each in a fresh session), UI_DIR (the
// built UI the bridge serves; default ui/dist), BRIDGE_BIN / FAKE_AGENT_BIN
// (e.g. target/release/… for a release build).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { frameLine, streamScript } from './bench-shared.mjs';
import { launchChromium } from './browser.mjs';
import { writeTurns } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const bridgeBin = resolve(process.env.BRIDGE_BIN ?? join(root, 'target/debug/hangar-desktop-bridge'));
const fakeBin = resolve(process.env.FAKE_AGENT_BIN ?? join(root, 'target/debug/hangar-fake-agent'));
const TURNS = Number(process.env.TURNS ?? 10000);
const SESSIONS = Number(process.env.SESSIONS ?? 50);
const DELTAS = 1000;
const STREAM_RUNS = Number(process.env.STREAM_RUNS ?? 1);
const uiArgs = process.env.UI_DIR ? ['--ui', resolve(process.env.UI_DIR)] : [];

const home = mkdtempSync(join(tmpdir(), 'hangar-bench-home-'));
mkdirSync(join(home, 'w'), { recursive: true });
const scriptPath = join(home, 'bench-agent.json');
writeFileSync(scriptPath, JSON.stringify(streamScript(DELTAS)));

let bridge;
process.on('exit', () => bridge?.kill('SIGKILL')); // also when a step throws
const startBridge = () => {
  bridge = spawn(
    bridgeBin,
    ['--no-discover', '--data-dir', join(home, 'data'), '--agent', `fake=${fakeBin} --script ${scriptPath}`, ...uiArgs],
    {
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const b = bridge;
  return new Promise((res, rej) => {
    b.on('exit', (c) => rej(new Error(`bridge exited ${c}`)));
    createInterface({ input: b.stdout }).on('line', (l) => {
      const m = /^listening (\S+)/.exec(l);
      if (m) res(m[1]);
    });
  });
};
let url = await startBridge();
const rssMiB = () => {
  const s = readFileSync(`/proc/${bridge.pid}/status`, 'utf8');
  return (Number(/VmRSS:\s+(\d+)/.exec(s)[1]) / 1024).toFixed(1);
};
const ctx = await launchChromium(mkdtempSync(join(tmpdir(), 'hangar-bench-chr-')), ['--enable-precise-memory-info']);
const page = await ctx.newPage();
page.setDefaultTimeout(600000);
await page.goto(url + '/');
// A raw bridge client inside the page, for setup only.
const injectRpc = () =>
  page.evaluate(() => {
    let seq = 0;
    const pending = new Map();
    const streams = new Map();
    const ws = new WebSocket(`ws://${location.host}/ipc`);
    window.__ready = new Promise((r) => (ws.onopen = r));
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if ('stream' in m) {
        streams.get(m.stream)?.(m.event);
        return;
      }
      if (m.id && pending.has(m.id)) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        'err' in m ? p[1](new Error(m.err)) : p[0](m.ok);
      }
    };
    // `onEvent` (optional) receives the events of a command that opens a stream.
    window.rpc = async (cmd, args, onEvent) => {
      await window.__ready;
      const id = ++seq;
      if (typeof onEvent === 'function') streams.set(id, onEvent);
      return new Promise((res, rej) => {
        pending.set(id, [res, rej]);
        ws.send(JSON.stringify({ id, cmd, args, stream: !!onEvent }));
      });
    };
  });
await injectRpc();
const folder = `file://${join(home, 'w')}`;
const fmt = (ms) => `${ms.toFixed(1)} ms`;

// 1. Idle with SESSIONS sessions.
const t0 = Date.now();
for (let i = 0; i < SESSIONS; i++)
  await page.evaluate(([f]) => window.rpc('session.create', { host: 'local', agent: null, folder: f }), [folder]);
await page.waitForFunction((n) => document.querySelectorAll('[data-testid=session-row]').length >= n, SESSIONS);
await new Promise((r) => setTimeout(r, 3000));
console.log(`idle: ${SESSIONS} sessions created in ${Date.now() - t0} ms; core process RSS ${rssMiB()} MiB`);

// 2. A session with TURNS turns (client-started, client-cancelled: no agent).
const { session } = await page.evaluate(
  ([f]) => window.rpc('session.create', { host: 'local', agent: null, folder: f }),
  [folder],
);
const t1 = Date.now();
await writeTurns(page, session, TURNS, 'lorem ipsum '.repeat(8));
console.log(`setup: ${TURNS} turns written in ${((Date.now() - t1) / 1000).toFixed(1)} s; core RSS ${rssMiB()} MiB`);
const openBig = async (label) => {
  await page.waitForSelector('[data-testid=session-row]');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=session-row]').length >= n, SESSIONS + 1);
  const firstPaint = await page.evaluate(async () => {
    const row = document.querySelectorAll('[data-testid=session-row]')[0]; // newest first: the big session
    const start = performance.now();
    row.click();
    await new Promise((r) => {
      const check = () => (document.querySelectorAll('[data-testid=turn]').length ? r() : requestAnimationFrame(check));
      check();
    });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return performance.now() - start;
  });
  await new Promise((r) => setTimeout(r, 500));
  const mem = await page.evaluate(() => ({
    heap: performance.memory.usedJSHeapSize / 1048576,
    nodes: document.getElementsByTagName('*').length,
    turns: document.querySelectorAll('[data-testid=turn]').length,
  }));
  console.log(
    `open ${TURNS}-turn session (${label}): first turn painted ${fmt(firstPaint)} after the click; ${mem.turns} turns mounted, ${mem.nodes} DOM elements, JS heap ${mem.heap.toFixed(1)} MiB; core RSS ${rssMiB()} MiB`,
  );
};
await page.reload();
await openBig('live core that wrote every turn');
// The app relaunched: a fresh core and host on the same data directory.
await page.goto('about:blank');
bridge.kill('SIGTERM');
await new Promise((r) => bridge.on('exit', r));
url = await startBridge();
await new Promise((r) => setTimeout(r, 1000));
console.log(`relaunch: core RSS before opening anything ${rssMiB()} MiB`);
await page.goto(url + '/');
await openBig('after relaunch');
// Paging: scroll to the top twice (older turns from the mirror / fetchTurns).
const pageT = await page.evaluate(async () => {
  const el = document.querySelector('[data-testid=transcript]');
  const before = document.querySelectorAll('[data-testid=turn]').length;
  const s = performance.now();
  el.scrollTop = 0;
  el.dispatchEvent(new Event('scroll'));
  await new Promise((r) => {
    const c = () => (document.querySelectorAll('[data-testid=turn]').length > before ? r() : requestAnimationFrame(c));
    c();
  });
  return performance.now() - s;
});
console.log(`page in older turns (scroll to top): ${fmt(pageT)}`);
await injectRpc();

// 3. Streaming ~200 deltas/s into a fresh session with the fake agent.
// Besides frame gaps, the page's main-thread time (Chrome's Performance
// metrics, seconds → ms) while the answer streams: what the UI spends.
const cdp = await page.context().newCDPSession(page);
await cdp.send('Performance.enable');
const rendererTime = async () =>
  Object.fromEntries(
    (await cdp.send('Performance.getMetrics')).metrics
      .filter((m) => ['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration'].includes(m.name))
      .map((m) => [m.name, m.value]),
  );
for (let run = 0; run < STREAM_RUNS; run++) {
  const s2 = await page.evaluate(
    ([f]) => window.rpc('session.create', { host: 'local', agent: 'fake', folder: f }),
    [folder],
  );
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=session-row]').length >= n,
    SESSIONS + 2 + run,
  );
  await page.evaluate(() => document.querySelectorAll('[data-testid=session-row]')[0].click());
  await page.waitForSelector('[data-testid=composer-input]');
  await page.fill('[data-testid=composer-input]', 'stream please');
  const frames = page.evaluate(
    () =>
      new Promise((resolve) => {
        const gaps = [];
        let last = performance.now();
        let started = 0;
        let mutations = 0;
        // Replacements of the streaming part's DOM (one per render), per frame.
        let frame = 0;
        let firstFrame = 0;
        const perFrame = new Map();
        const obs = new MutationObserver((records) => {
          mutations++;
          if (!started) started = performance.now();
          const md = document.querySelector('.turn.active .md.assistant');
          for (const r of records)
            if (md && r.target === md && r.type === 'childList') perFrame.set(frame, (perFrame.get(frame) ?? 0) + 1);
        });
        obs.observe(document.querySelector('[data-testid=transcript]'), {
          subtree: true,
          childList: true,
          characterData: true,
        });
        const tick = (t) => {
          frame++;
          if (started) gaps.push(t - last);
          last = t;
          if (!firstFrame && document.querySelector('.turn.active .md.assistant')) firstFrame = frame;
          const done = started && !document.querySelector('.turn.active') && document.querySelector('.md.assistant');
          if (done) {
            obs.disconnect();
            // Frames while it streamed, by how many replacements each saw.
            const dist = {};
            for (let i = firstFrame; i < frame; i++) {
              const n = perFrame.get(i) ?? 0;
              dist[n] = (dist[n] ?? 0) + 1;
            }
            resolve({ gaps, ms: performance.now() - started, mutations, dist });
          } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
  const cpuBefore = await rendererTime();
  await page.click('[data-testid=send]');
  const f = await frames;
  const cpu = Object.fromEntries(Object.entries(await rendererTime()).map(([k, v]) => [k, (v - cpuBefore[k]) * 1000]));
  const text = await page.evaluate(
    () => document.querySelector('.turn:last-child .md.assistant')?.textContent.length ?? 0,
  );
  console.log(
    `stream: ${DELTAS} deltas in ${(f.ms / 1000).toFixed(2)} s (${(DELTAS / (f.ms / 1000)).toFixed(0)} deltas/s), final answer ${text} chars;` +
      ` ${frameLine(f.gaps)};` +
      ` page main thread busy ${cpu.TaskDuration.toFixed(0)} ms (script ${cpu.ScriptDuration.toFixed(0)}, style ${cpu.RecalcStyleDuration.toFixed(0)}, layout ${cpu.LayoutDuration.toFixed(0)})`,
  );
  // The property streaming.mjs used to assert (one render per frame), as a
  // figure: it depends on the machine's load.
  const counts = Object.keys(f.dist).map(Number);
  console.log(
    `stream: replacements of the streaming part per frame: max ${Math.max(0, ...counts)}; frames by count ` +
      counts
        .sort((a, b) => a - b)
        .map((n) => `${n}: ${f.dist[n]}`)
        .join(', '),
  );
}
console.log(`after streaming: core RSS ${rssMiB()} MiB`);
await ctx.close();
bridge.kill('SIGTERM');
rmSync(home, { recursive: true, force: true });
