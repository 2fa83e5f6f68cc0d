// Idle memory of the real app against a blank window of the same binary, in
// one run. Prints figures; asserts nothing about them.
//
// "app": `hangar-desktop` (embedded host + core + Tauri + the UI) and the
// WebKitGTK processes it starts, with SESSIONS sessions in the sidebar.
// "blank": the same binary with `--blank` (startup.rs): the same window on
// about:blank, no host, no core, no UI. Both are started by Debian's
// WebKitWebDriver (as in ./run.mjs) with a temp HOME and data dir, one after
// the other (ROUNDS times, alternating). In the app, sessions (no agent, so
// no agent processes) are created through its own Tauri IPC (`core_call
// session.create`) and the sidebar is checked to list them. After SETTLE_MS
// the resident memory of each process tree is read from /proc: RSS (shared
// pages counted in every process) and PSS (shared pages split between the
// processes that map them; the fairer total).
//
// Usage: xvfb-run -a -s "-screen 0 1280x800x24" node ui/tests/window/idle-rss.mjs
// Env: APP_BIN (default target/debug/hangar-desktop), SESSIONS (50),
// SETTLE_MS (15000), ROUNDS (1), SCREENSHOT_DIR (optional: a screenshot of
// each window, idle-app.png / idle-blank.png).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memory, total } from './procmem.mjs';
import { killByMarker, Session, sleep, startDriver } from './webdriver.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const appBin = resolve(process.env.APP_BIN ?? join(root, 'target/debug/hangar-desktop'));
const SESSIONS = Number(process.env.SESSIONS ?? 50);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 15000);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const shots = process.env.SCREENSHOT_DIR;
if (!process.env.DISPLAY) throw new Error('needs an X display: run under xvfb-run');

/** Start the binary (`blank` or the app with SESSIONS sessions), let it idle, read its memory. */
async function measure(kind) {
  const home = mkdtempSync(join(tmpdir(), `hangar-idle-rss-${kind}-`));
  mkdirSync(join(home, 'w'));
  let driver;
  let session;
  try {
    driver = await startDriver({
      env: { ...process.env, HOME: home, HANGAR_NO_DISCOVER: '1', RUST_LOG: process.env.RUST_LOG ?? 'warn' },
    });
    const args = ['--no-discover', '--data-dir', join(home, 'data')];
    session = await Session.create(driver.base, {
      binary: appBin,
      args: kind === 'blank' ? ['--blank', ...args] : args,
      timeoutMs: 60000,
    });
    if (kind === 'app') {
      await session.waitEl('.conn.up', undefined, 60000);
      const created = await session.execAsync(
        `
        const [n, folder, done] = arguments;
        (async () => {
          for (let i = 0; i < n; i++) await window.__TAURI__.core.invoke('core_call', { cmd: 'session.create', args: { host: 'local', agent: null, folder } });
          return n;
        })().then(done, (e) => done('error: ' + e));`,
        SESSIONS,
        `file://${join(home, 'w')}`,
      );
      if (created !== SESSIONS) throw new Error(`creating sessions: ${created}`);
      await session.waitFor(
        `${SESSIONS} rows`,
        'return document.querySelectorAll("[data-testid=session-row]").length >= arguments[0];',
        [SESSIONS],
        120000,
      );
    } else {
      const url = await session.exec('return location.href;');
      if (url !== 'about:blank') throw new Error(`the blank window shows ${url}`);
    }
    await sleep(SETTLE_MS);
    const rows = memory(appBin, home);
    if (shots) writeFileSync(join(shots, `idle-${kind}.png`), await session.screenshot());
    return rows;
  } finally {
    await session?.delete().catch(() => {});
    await driver?.kill();
    killByMarker(home);
    rmSync(home, { recursive: true, force: true });
  }
}

const mib = (v) => v.toFixed(1).padStart(7);
const results = { app: [], blank: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of ['app', 'blank']) {
    const rows = await measure(kind);
    results[kind].push(rows);
    const label = kind === 'app' ? `app, ${SESSIONS} sessions` : 'blank window (--blank)';
    console.log(`${label}, round ${round + 1}, ${SETTLE_MS / 1000} s idle:`);
    for (const r of rows)
      console.log(`  ${String(r.pid).padStart(7)} ${r.name.padEnd(18)} RSS ${mib(r.rss)} MiB  PSS ${mib(r.pss)} MiB`);
    console.log(
      `  total: ${rows.length} processes, RSS ${total(rows, 'rss').toFixed(1)} MiB (sum), PSS ${total(rows, 'pss').toFixed(1)} MiB (sum)`,
    );
  }
}
for (const k of ['pss', 'rss']) {
  const app = results.app.map((rows) => total(rows, k));
  const blank = results.blank.map((rows) => total(rows, k));
  const ratios = app.map((a, i) => (a / blank[i]).toFixed(2));
  console.log(
    `${k.toUpperCase()} total: app ${app.map((v) => v.toFixed(1)).join(', ')} MiB; blank ${blank.map((v) => v.toFixed(1)).join(', ')} MiB; app / blank ${ratios.join(', ')}; app − blank ${app.map((a, i) => (a - blank[i]).toFixed(1)).join(', ')} MiB`,
  );
}
