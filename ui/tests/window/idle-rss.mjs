// Idle memory of the real app against two baselines, in one run: a blank
// window of the same binary and Debian's bare WebKitGTK browser. Prints
// figures; asserts nothing about them.
//
// "app": `hangar-desktop` (embedded host + core + Tauri + the UI) and the
// WebKitGTK processes it starts, with SESSIONS sessions in the sidebar.
// "blank": the same binary with `--blank` (startup.rs): the same window on
// about:blank, no host, no core, no UI. "minibrowser": WebKitGTK's own
// MiniBrowser (`--automation`, as WebKitWebDriver starts it) on about:blank,
// its window resized to the app's 1280×800: what any WebKitGTK window costs.
// "variant" (only when VARIANT_ENV or VARIANT_BIN is set): the app again,
// with extra environment (e.g. `WEBKIT_DISABLE_COMPOSITING_MODE=1`) or
// another build (e.g. the one before a change), against the same baselines.
// Each is started by Debian's WebKitWebDriver (as in ./run.mjs) with a temp
// HOME and data dir, one after the other (ROUNDS times, in KINDS order), on
// the same X display. In the app, sessions (no agent, so no agent
// processes) are created through its own Tauri IPC (`core_call
// session.create`) and the sidebar is checked to list them. After SETTLE_MS
// the resident memory of each process tree is read from /proc: RSS (shared
// pages counted in every process) and PSS (shared pages split between the
// processes that map them; the fairer total). Ratios of each to the
// baselines follow, per round.
//
// Usage: xvfb-run -a -s "-screen 0 1280x800x24" node ui/tests/window/idle-rss.mjs
// Env: APP_BIN (default target/debug/hangar-desktop), SESSIONS (50),
// SETTLE_MS (15000), ROUNDS (1), KINDS (app,blank,minibrowser[,variant]),
// MINIBROWSER (Debian's path), MINIBROWSER_URL (about:blank; e.g. the
// built UI served over HTTP, to weigh a change of the page alone), VARIANT_ENV (`K=V,K2=V2`), VARIANT_BIN,
// SCREENSHOT_DIR (optional: a screenshot of each window, idle-KIND.png; a
// WebDriver screenshot of a page painted without compositing, the app's
// default, never answers in WebKitGTK 2.50: take them with
// HANGAR_WEBKIT_COMPOSITING=1 in the environment).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childMemory, memory, total } from './procmem.mjs';
import { killByMarker, Session, sleep, startDriver } from './webdriver.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const appBin = resolve(process.env.APP_BIN ?? join(root, 'target/debug/hangar-desktop'));
const SESSIONS = Number(process.env.SESSIONS ?? 50);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 15000);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const shots = process.env.SCREENSHOT_DIR;
const miniBin = process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const miniUrl = process.env.MINIBROWSER_URL ?? 'about:blank';
const variantEnv = Object.fromEntries(
  (process.env.VARIANT_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const variantBin = process.env.VARIANT_BIN ? resolve(process.env.VARIANT_BIN) : appBin;
const hasVariant = !!(process.env.VARIANT_ENV || process.env.VARIANT_BIN);
const KINDS = (process.env.KINDS ?? `app,blank,minibrowser${hasVariant ? ',variant' : ''}`).split(',');
const LABELS = {
  app: `app, ${SESSIONS} sessions`,
  blank: 'blank window (--blank)',
  minibrowser: `MiniBrowser ${miniUrl}`,
  variant: `variant, ${SESSIONS} sessions (${[process.env.VARIANT_BIN, process.env.VARIANT_ENV].filter(Boolean).join(' ')})`,
};
if (!process.env.DISPLAY) throw new Error('needs an X display: run under xvfb-run');

/** Start `kind` (see the top), let it idle, read its memory. */
async function measure(kind) {
  const home = mkdtempSync(join(tmpdir(), `hangar-idle-rss-${kind}-`));
  mkdirSync(join(home, 'w'));
  const withApp = kind === 'app' || kind === 'variant';
  const bin = kind === 'minibrowser' ? miniBin : kind === 'variant' ? variantBin : appBin;
  let driver;
  let session;
  try {
    driver = await startDriver({
      env: {
        ...process.env,
        HOME: home,
        HANGAR_NO_DISCOVER: '1',
        RUST_LOG: process.env.RUST_LOG ?? 'warn',
        ...(kind === 'variant' ? variantEnv : {}),
      },
    });
    const args = ['--no-discover', '--data-dir', join(home, 'data')];
    session = await Session.create(driver.base, {
      binary: bin,
      args: kind === 'minibrowser' ? ['--automation'] : kind === 'blank' ? ['--blank', ...args] : args,
      timeoutMs: 60000,
    });
    if (kind === 'minibrowser') {
      await session.cmd('POST', '/url', { url: miniUrl });
      await session.cmd('POST', '/window/rect', { width: 1280, height: 800 });
    }
    if (withApp) {
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
      const want = kind === 'minibrowser' ? new URL(miniUrl).href : 'about:blank';
      if (url !== want) throw new Error(`the ${kind} window shows ${url}, not ${want}`);
    }
    await sleep(SETTLE_MS);
    const dom = await session.exec('return document.getElementsByTagName("*").length;');
    const rows = kind === 'minibrowser' ? childMemory(bin, driver.proc.pid) : memory(bin, home);
    if (shots) writeFileSync(join(shots, `idle-${kind}.png`), await session.screenshot());
    return { rows, dom };
  } finally {
    await session?.delete().catch(() => {});
    await driver?.kill();
    killByMarker(home);
    rmSync(home, { recursive: true, force: true });
  }
}

const mib = (v) => v.toFixed(1).padStart(7);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);
const results = Object.fromEntries(KINDS.map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of KINDS) {
    const { rows, dom } = await measure(kind);
    results[kind].push(rows);
    console.log(`${LABELS[kind]}, round ${round + 1}, ${SETTLE_MS / 1000} s idle, ${dom} DOM elements:`);
    for (const r of rows)
      console.log(`  ${String(r.pid).padStart(7)} ${r.name.padEnd(18)} RSS ${mib(r.rss)} MiB  PSS ${mib(r.pss)} MiB`);
    console.log(
      `  total: ${rows.length} processes, RSS ${total(rows, 'rss').toFixed(1)} MiB (sum), PSS ${total(rows, 'pss').toFixed(1)} MiB (sum)`,
    );
  }
}
const list = (vs) => vs.map((v) => v.toFixed(1)).join(', ');
for (const k of ['pss', 'rss']) {
  const sums = Object.fromEntries(KINDS.map((kind) => [kind, results[kind].map((rows) => total(rows, k))]));
  console.log(
    `${k.toUpperCase()} total (MiB, per round): ${KINDS.map((kind) => `${kind} ${list(sums[kind])}`).join('; ')}`,
  );
  for (const a of ['app', 'variant'].filter((x) => sums[x]))
    for (const b of ['blank', 'minibrowser', 'app'].filter((x) => x !== a && sums[x])) {
      const ratios = sums[a].map((v, i) => (v / sums[b][i]).toFixed(2)).join(', ');
      const diffs = sums[a].map((v, i) => (v - sums[b][i]).toFixed(1)).join(', ');
      console.log(`  ${k.toUpperCase()} ${a} / ${b}: ${ratios} (${a} − ${b}: ${diffs} MiB)`);
    }
}
console.log(`load average after: ${load()}`);
