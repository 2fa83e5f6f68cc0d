// Idle memory of the real app: `hangar-desktop` (embedded host + core +
// Tauri) and the WebKitGTK processes it starts, with SESSIONS sessions in
// the sidebar. Prints figures; asserts nothing about them.
//
// The app is started by Debian's WebKitWebDriver (as in ./run.mjs) with a
// temp HOME and data dir; sessions (no agent, so no agent processes) are
// created through the app's own Tauri IPC (`core_call session.create`), the
// sidebar is checked to list them, and after SETTLE_MS the resident memory
// of the app's process tree is read from /proc: RSS (shared pages counted
// in every process) and PSS (shared pages split between the processes that
// map them; the fairer total).
//
// Usage: xvfb-run -a -s "-screen 0 1280x800x24" node ui/tests/window/idle-rss.mjs
// Env: APP_BIN (default target/debug/hangar-desktop), SESSIONS (50), SETTLE_MS (15000).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killByMarker, Session, sleep, startDriver } from './webdriver.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const appBin = resolve(process.env.APP_BIN ?? join(root, 'target/debug/hangar-desktop'));
const SESSIONS = Number(process.env.SESSIONS ?? 50);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 15000);
if (!process.env.DISPLAY) throw new Error('needs an X display: run under xvfb-run');

const home = mkdtempSync(join(tmpdir(), 'hangar-idle-rss-'));
mkdirSync(join(home, 'w'));

/** pid → parent pid, for every process. */
function parents() {
  const out = new Map();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      out.set(Number(p), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  return out;
}
/** The app process (its command line names our temp dir) and all its descendants. */
function appTree() {
  const ppid = parents();
  const app = [...ppid.keys()].find((p) => {
    try {
      const c = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      return c.startsWith(appBin) && c.includes(home);
    } catch {
      return false;
    }
  });
  if (!app) throw new Error('app process not found');
  const tree = [app];
  for (let i = 0; i < tree.length; i++) for (const [p, pp] of ppid) if (pp === tree[i]) tree.push(p);
  return tree;
}
const kib = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);

let driver;
let session;
try {
  driver = await startDriver({
    env: { ...process.env, HOME: home, HANGAR_NO_DISCOVER: '1', RUST_LOG: process.env.RUST_LOG ?? 'warn' },
  });
  session = await Session.create(driver.base, {
    binary: appBin,
    args: ['--no-discover', '--data-dir', join(home, 'data')],
    timeoutMs: 60000,
  });
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
  await sleep(SETTLE_MS);
  const rows = [];
  for (const pid of appTree()) {
    let name = '?';
    let status = '';
    let rollup = '';
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
      rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    } catch {
      continue;
    }
    rows.push({ pid, name, rss: kib(status, 'VmRSS') / 1024, pss: kib(rollup, 'Pss') / 1024 });
  }
  for (const r of rows)
    console.log(
      `  ${String(r.pid).padStart(7)} ${r.name.padEnd(18)} RSS ${r.rss.toFixed(1).padStart(7)} MiB  PSS ${r.pss.toFixed(1).padStart(7)} MiB`,
    );
  const sum = (k) => rows.reduce((a, r) => a + r[k], 0).toFixed(1);
  console.log(
    `idle app, ${SESSIONS} sessions, ${SETTLE_MS / 1000} s after the sidebar listed them: ${rows.length} processes, RSS ${sum('rss')} MiB (sum), PSS ${sum('pss')} MiB (sum)`,
  );
} finally {
  await session?.delete().catch(() => {});
  await driver?.kill();
  killByMarker(home);
  rmSync(home, { recursive: true, force: true });
}
