// Benchmark: the real app (`hangar-desktop`, Tauri 2 + WebKitGTK) in a real
// window on an X display, driven through Debian's WebKitWebDriver (as in
// ./run.mjs). Prints figures; asserts nothing about them. The headless
// Chromium figures of the same UI come from ../ui/bench.mjs.
//
// Setup, the way ../ui/bench.mjs makes its sessions: hangar-desktop-bridge on
// a temp data dir writes a SMALL-turn and a TURNS-turn session (client-started,
// client-cancelled turns: no agent) through its command socket, then stops.
// The real app is then started on that data dir with the fake agent, and:
//   1. memory (PSS and RSS of the app and the WebKit processes it starts,
//      read from /proc as ./idle-rss.mjs does) once the sidebar lists the
//      sessions: the baseline for the figures after it;
//   2. opening the TURNS-turn session (the first click after launch), the
//      SMALL-turn one, and the big one again: time from the click (in the
//      page) to the last turn in the DOM, and to two animation frames after
//      it (painted); memory after the first opening;
//   3. frame times (requestAnimationFrame gaps) in an open session at rest
//      for IDLE_MS (the baseline), then while the fake agent streams DELTAS
//      chunks at ~200 per second into it; memory after streaming. Beside the
//      frames while streaming, the lateness of a 10 ms timer in the page
//      (how long its main thread was busy at a stretch: when the timer is
//      on time but frames are late, the time goes to painting, not to
//      scripts), and the load average before and after the run.
// The page is polled every 250 ms (WebDriver calls run on the page's main
// thread too), at rest and while streaming alike.
//
// Usage: xvfb-run -a -s "-screen 0 1280x800x24" node ui/tests/window/bench.mjs
// Env: APP_BIN, BRIDGE_BIN, FAKE_AGENT_BIN (default target/debug/...),
// TURNS (10000), SMALL (10), DELTAS (1000), IDLE_MS (3000), WEBKIT_DRIVER,
// BENCH_HOME (a folder for HOME and the data dir, kept after the run and
// reused by the next: the setup is written once for a debug and a release
// run).

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { frameLine, quantile, streamScript } from '../ui/bench-shared.mjs';
import { start, tempHome, writeTurns } from '../ui/harness.mjs';
import { memory, total } from './procmem.mjs';
import { killByMarker, Session, sleep, startDriver } from './webdriver.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const appBin = resolve(process.env.APP_BIN ?? join(root, 'target/debug/hangar-desktop'));
const fakeBin = resolve(process.env.FAKE_AGENT_BIN ?? join(root, 'target/debug/hangar-fake-agent'));
const TURNS = Number(process.env.TURNS ?? 10000);
const SMALL = Number(process.env.SMALL ?? 10);
const DELTAS = Number(process.env.DELTAS ?? 1000);
const IDLE_MS = Number(process.env.IDLE_MS ?? 3000);
if (!process.env.DISPLAY) throw new Error('needs an X display: run under xvfb-run');
const fmt = (ms) => `${ms.toFixed(1)} ms`;

// 1. The data dir, written by the bridge (or kept from an earlier run: BENCH_HOME).
const keep = process.env.BENCH_HOME;
const home = keep ? resolve(keep) : tempHome('hangar-window-bench-');
const folder = `file://${join(home, 'w')}`;
const scriptPath = join(home, 'bench-agent.json');
const saved = join(home, 'bench-sessions.json');
let small;
let big;
if (existsSync(saved)) {
  ({ small, big } = JSON.parse(readFileSync(saved, 'utf8')));
  if (big.turns !== TURNS || small.turns !== SMALL) throw new Error(`${saved}: made with other TURNS / SMALL`);
  console.log(`setup: ${SMALL} + ${TURNS} turns kept in ${home}`);
} else {
  mkdirSync(join(home, 'w'), { recursive: true });
  const t0 = Date.now();
  const setup = await start(home, [], { keepHome: true });
  const make = async (turns) => {
    const { session } = await setup.page.evaluate(
      ([f]) => window.rpc('session.create', { host: 'local', agent: null, folder: f }),
      [folder],
    );
    await writeTurns(setup.page, session, turns, 'lorem ipsum '.repeat(8));
    return { uri: session, turns };
  };
  small = await make(SMALL);
  big = await make(TURNS);
  await setup.stop();
  writeFileSync(saved, JSON.stringify({ small, big }));
  console.log(`setup: ${SMALL} + ${TURNS} turns written by the bridge in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
writeFileSync(scriptPath, JSON.stringify(streamScript(DELTAS)));

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);
let driver;
let wd;
const cleanup = async () => {
  if (wd) await wd.delete().catch(() => {});
  await driver?.kill();
  killByMarker(home);
};
process.on('exit', () => killByMarker(home));
// The app and WebKit's processes, not the fake agent the app started.
const appRows = () => memory(appBin, home).filter((r) => !r.name.startsWith('hangar-fake'));
const mem = (label) => {
  const rows = appRows();
  const pss = total(rows, 'pss');
  console.log(
    `memory ${label}: ${rows.length} processes, PSS ${pss.toFixed(1)} MiB, RSS ${total(rows, 'rss').toFixed(1)} MiB (` +
      rows.map((r) => `${r.name} ${r.pss.toFixed(1)}`).join(', ') +
      ')',
  );
  return pss;
};
/** Polls every 250 ms until the page has set `window.__bench`; returns it. */
const result = async (what, timeoutMs = 600000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await wd.exec('return window.__bench;');
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(250);
  }
};
/** Runs `body` in the page (it ends by setting `window.__bench`) and waits for its result. */
const measure = async (what, body, args) => {
  await wd.exec(`window.__bench = null; ${body}`, ...args);
  return result(what);
};

try {
  driver = await startDriver({
    driverBin: process.env.WEBKIT_DRIVER ?? 'WebKitWebDriver',
    env: { ...process.env, HOME: home, HANGAR_NO_DISCOVER: '1', RUST_LOG: process.env.RUST_LOG ?? 'warn' },
  });
  const t1 = Date.now();
  wd = await Session.create(driver.base, {
    binary: appBin,
    args: ['--no-discover', '--data-dir', join(home, 'data'), '--agent', `fake=${fakeBin} --script ${scriptPath}`],
    timeoutMs: 120000,
  });
  await wd.waitEl('.conn.up', undefined, 120000);
  for (const { uri } of [small, big])
    await wd.waitEl(`[data-testid=session-row][data-uri="${uri}"]`, undefined, 120000);
  console.log(`launch: window up, host connected, both sessions listed in ${Date.now() - t1} ms`);
  await sleep(2000);
  const pssIdle = mem('at launch, nothing open (baseline)');

  // 2. Click → the session's last turn in the DOM → painted.
  const open = async (uri, n, label) => {
    const r = await measure(
      `opening ${label}`,
      `const [uri, lastText] = arguments;
      const row = document.querySelector('[data-testid=session-row][data-uri="' + CSS.escape(uri) + '"]');
      const start = performance.now();
      row.click();
      const check = () => {
        const turns = document.querySelectorAll('[data-testid=turn]');
        const last = turns[turns.length - 1];
        if (last && last.textContent.includes(lastText)) {
          const seen = performance.now() - start;
          requestAnimationFrame(() => requestAnimationFrame(() => {
            window.__bench = { seen, painted: performance.now() - start, turns: turns.length, nodes: document.getElementsByTagName('*').length };
          }));
        } else requestAnimationFrame(check);
      };
      check();`,
      [uri, `turn ${n - 1}: `],
    );
    console.log(
      `open ${n}-turn session (${label}): last turn in the DOM ${fmt(r.seen)}, painted ${fmt(r.painted)} after the click; ${r.turns} turns mounted, ${r.nodes} DOM elements`,
    );
    await sleep(500);
    return r.painted;
  };
  const cold = await open(big.uri, TURNS, 'first click after launch');
  await sleep(1500);
  const pssOpen = mem(`with the ${TURNS}-turn session open`);
  const smallT = await open(small.uri, SMALL, 'baseline');
  const warm = await open(big.uri, TURNS, 'again');

  // 3. Frames at rest, then while DELTAS chunks stream into a fresh session.
  const created = await wd.execAsync(
    `const [folder, done] = arguments;
    window.__TAURI__.core.invoke('core_call', { cmd: 'session.create', args: { host: 'local', agent: 'fake', folder } })
      .then((r) => done(r.session ?? r), (e) => done('error: ' + e));`,
    folder,
  );
  if (typeof created !== 'string' || created.startsWith('error')) throw new Error(`session.create: ${created}`);
  await wd.clickEl(`[data-testid=session-row][data-uri="${created}"]`);
  await wd.fill('[data-testid=composer-input]', 'stream please');
  const idle = await measure(
    'frames at rest',
    `const [ms] = arguments;
    const gaps = [];
    let last = performance.now();
    const end = last + ms;
    const tick = (t) => {
      gaps.push(t - last);
      last = t;
      if (t < end) requestAnimationFrame(tick);
      else window.__bench = { gaps };
    };
    requestAnimationFrame(tick);`,
    [IDLE_MS],
  );
  console.log(`frames at rest (baseline, ${IDLE_MS / 1000} s, session open): ${frameLine(idle.gaps)}`);
  await wd.exec(`window.__bench = null;
    const gaps = [];
    const late = [];
    let last = performance.now();
    let started = 0;
    let due = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      if (started && due) late.push(Math.max(0, now - due));
      due = now + 10;
    }, 10);
    const tick = (t) => {
      if (!started && document.querySelector('.turn.active .md.assistant')) started = t;
      if (started) gaps.push(t - last);
      last = t;
      if (started && !document.querySelector('.turn.active')) {
        clearInterval(timer);
        const text = document.querySelector('.turn:last-child .md.assistant')?.textContent.length ?? 0;
        window.__bench = { gaps, late, ms: t - started, text };
      } else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);`);
  const cpuBefore = appRows();
  await wd.clickEl('[data-testid=send]');
  const stream = await result('the stream');
  const cpuAfter = appRows();
  console.log(
    `stream: ${DELTAS} deltas in ${(stream.ms / 1000).toFixed(2)} s (${(DELTAS / (stream.ms / 1000)).toFixed(0)} deltas/s), final answer ${stream.text} chars; ${frameLine(stream.gaps)}`,
  );
  console.log(
    `  a 10 ms timer in the page while streaming, late by: p50 ${fmt(quantile(stream.late, 0.5))}, p95 ${fmt(quantile(stream.late, 0.95))}, max ${fmt(Math.max(...stream.late))} (${stream.late.length} ticks)`,
  );
  // CPU time each process spent from the click to the end of the stream
  // (hardly moved by other load on the machine, unlike the frame times).
  const cpuLine = cpuAfter
    .map((r) => {
      const ms = r.cpu - (cpuBefore.find((b) => b.pid === r.pid)?.cpu ?? 0);
      return `${r.name} ${ms} ms (${((ms * 1000) / DELTAS).toFixed(0)} µs a delta)`;
    })
    .join(', ');
  console.log(`  CPU time while streaming: ${cpuLine}`);
  await sleep(1000);
  const pssStream = mem('after streaming');

  const p95 = quantile(stream.gaps, 0.95);
  const p95Idle = quantile(idle.gaps, 0.95);
  console.log(
    `summary (real window, ${appBin}): first paint of the ${TURNS}-turn session ${fmt(cold)} (again ${fmt(warm)}; ${SMALL}-turn session ${fmt(smallT)}, ratio ${(cold / smallT).toFixed(2)}; aim < 300 ms: ${cold < 300 ? 'met' : 'not met'});` +
      ` frames while streaming p50 ${fmt(quantile(stream.gaps, 0.5))}, p95 ${fmt(p95)}, max ${fmt(Math.max(...stream.gaps))} (at rest p95 ${fmt(p95Idle)}, ratio ${(p95 / p95Idle).toFixed(2)}; aim p95 < 20 ms: ${p95 < 20 ? 'met' : 'not met'});` +
      ` PSS ${pssIdle.toFixed(1)} MiB at launch, ${pssOpen.toFixed(1)} MiB with the big session open (${(pssOpen / pssIdle).toFixed(2)}×), ${pssStream.toFixed(1)} MiB after streaming (${(pssStream / pssIdle).toFixed(2)}×)`,
  );
  console.log(`load average after: ${load()}`);
} finally {
  await cleanup();
  if (!keep) rmSync(home, { recursive: true, force: true });
}
