// Shared by the small UI test files (streaming.mjs, paging.mjs,
// mentions.mjs, new-session.mjs, hosts.mjs): start the real core (hangar-desktop-bridge) in a temp HOME
// with the given agents, open headless Chromium on it, and clean both up;
// `writeTurns` (also used by bench.mjs) fills a session. Env: BRIDGE_BIN,
// FAKE_AGENT_BIN, CHROMIUM; UI_DIR serves another build of the UI (to see a
// test fail on one without the change it covers).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const fakeBin = process.env.FAKE_AGENT_BIN ?? join(root, 'target/debug/hangar-fake-agent');
const bridgeBin = process.env.BRIDGE_BIN ?? join(root, 'target/debug/hangar-desktop-bridge');

/** A temp HOME with a workspace folder `w`. */
export function tempHome(prefix) {
  const home = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(home, 'w'));
  return home;
}

/** `process.env` with `changes` (a `null` value removes the variable). */
export function withEnv(changes) {
  const env = { ...process.env, ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === null) delete env[k];
  return env;
}

/**
 * Start the bridge on `home`'s data dir (on `listen`, an `ADDR:PORT`, if
 * given); resolves to the process and its `url` once it listens.
 */
async function spawnBridge(home, agents, env, listen) {
  const ui = process.env.UI_DIR ? ['--ui', resolve(process.env.UI_DIR)] : [];
  const at = listen ? ['--listen', listen] : [];
  const bridge = spawn(
    bridgeBin,
    ['--no-discover', '--data-dir', join(home, 'data'), ...agents.flatMap((a) => ['--agent', a]), ...ui, ...at],
    {
      env: withEnv({ HOME: home, RUST_LOG: process.env.RUST_LOG ?? 'warn', ...env }),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error('bridge did not start')), 60000);
    bridge.on('exit', (c) => rej(new Error(`bridge exited ${c}`)));
    createInterface({ input: bridge.stdout }).on('line', (l) => {
      const m = /^listening (http:\/\/\S+)/.exec(l);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
  });
  return { bridge, url };
}

/** Stop `bridge` and wait for it to exit. */
function stopBridge(bridge) {
  const exited = bridge.exitCode == null ? new Promise((r) => bridge.once('exit', r)) : Promise.resolve();
  bridge.kill('SIGTERM');
  return exited;
}

/**
 * Start the bridge and Chromium; `agents` are `ID=COMMAND` strings; `init`
 * (optional) runs in the page before the UI's own scripts; `env` (optional)
 * changes the bridge's environment (see `withEnv`); with `keepHome`, `stop`
 * leaves HOME (and the data dir in it) for the next start, and waits for
 * the bridge to exit (a restart of the app); `context` (optional) changes
 * the browser context's options (see `launchChromium`). Returns the page,
 * its errors, `stop`, the browser context `ctx` and `core` (`down` / `up`:
 * stop the bridge, start it again on the same data dir and port).
 */
export async function start(home, agents = [], { init, env = {}, keepHome = false, context = {} } = {}) {
  let { bridge, url } = await spawnBridge(home, agents, env);
  const browserDir = mkdtempSync(join(tmpdir(), 'hangar-chromium-'));
  const ctx = await launchChromium(browserDir, [], context);
  if (init) await ctx.addInitScript(init);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.setDefaultTimeout(60000);
  await page.goto(url + '/');
  // A raw client of the bridge's command socket in the page, for setup.
  await page.evaluate(() => {
    let seq = 0;
    const pending = new Map();
    const streams = new Map();
    const ws = new WebSocket(`ws://${location.host}/ipc`);
    const ready = new Promise((r) => (ws.onopen = r));
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if ('stream' in m) {
        streams.get(m.stream)?.(m.event);
        return;
      }
      const p = pending.get(m.id);
      if (p) {
        pending.delete(m.id);
        'err' in m ? p[1](new Error(m.err)) : p[0](m.ok);
      }
    };
    // `onEvent` (optional) receives the events of a command that opens a stream.
    window.rpc = async (cmd, args, onEvent) => {
      await ready;
      const id = ++seq;
      if (onEvent) streams.set(id, onEvent);
      return new Promise((res, rej) => {
        pending.set(id, [res, rej]);
        ws.send(JSON.stringify({ id, cmd, args, stream: !!onEvent }));
      });
    };
  });
  const stop = async () => {
    await ctx.close();
    const exited = stopBridge(bridge);
    rmSync(browserDir, { recursive: true, force: true });
    if (keepHome) await exited;
    else rmSync(home, { recursive: true, force: true });
  };
  // The core down (`down`, resolved once the bridge exited), then up again
  // on the same data dir and port (`up`, resolved once it listens).
  const core = {
    down: () => stopBridge(bridge),
    up: async () => {
      ({ bridge } = await spawnBridge(home, agents, env, new URL(url).host));
    },
  };
  return { page, errors, stop, ctx, core };
}

/**
 * Write `n` turns (`turn I: ` + `filler`) into `session` through the page's
 * `window.rpc`, each started and cancelled by the client (no agent). The
 * next is sent once the chat stream shows the last one done: a cancel sent
 * earlier can find the previous turn still active in the core and leave
 * this one running, and the next turnStarted is then refused. Returns what
 * `chat.open` answered (`{streamId, chat}`; the stream stays open).
 */
export function writeTurns(page, session, n, filler) {
  return page.evaluate(
    async ([s, n, filler]) => {
      let done = 0;
      const count = (ev) => {
        for (const op of ev.op === 'batch' ? ev.ops : [ev]) if (op.op === 'turnDone') done++;
      };
      const opened = await window.rpc('chat.open', { host: 'local', session: s }, count);
      const { chat } = opened;
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      for (let i = 0; i < n; i++) {
        await window.rpc('chat.send', { host: 'local', chat, text: `turn ${i}: ` + filler });
        for (let k = 0; ; k++) {
          try {
            await window.rpc('chat.cancel', { host: 'local', chat });
            break;
          } catch (e) {
            if (k > 10000) throw e;
            await sleep(2);
          }
        }
        for (let k = 0; done <= i; k++) {
          if (k > 30000) throw new Error(`turn ${i} never finished`);
          await sleep(2);
        }
      }
      return opened;
    },
    [session, n, filler],
  );
}

/**
 * Run `checks(page, check, home, env)` (`env`: what `start` returned); prints one line per check and exits
 * non-zero if any failed. `options` go to `start`.
 */
export async function run(name, home, agents, checks, options = {}) {
  let failed = 0;
  const check = (ok, what, detail) => {
    console.log(`${ok ? 'ok' : 'FAIL'} - ${what} (${detail})`);
    if (!ok) failed++;
  };
  let env;
  try {
    env = await start(home, agents, options);
    await checks(env.page, check, home, env);
    check(env.errors.length === 0, 'no page errors', env.errors.join('; ') || 'none');
  } catch (e) {
    failed++;
    console.log(`FAIL - ${name}: ${e.stack ?? e}`);
  } finally {
    if (env) await env.stop();
    else rmSync(home, { recursive: true, force: true });
  }
  console.log(`${name}: ${failed ? 'failed' : 'passed'}`);
  process.exit(failed ? 1 : 0);
}

/**
 * Like `run`, but each of `launches` (`(page, check, home) => …`) runs in a
 * launch of its own on the same HOME and data dir (a restart of the app
 * between them); HOME is removed at the end.
 */
export async function runLaunches(name, home, agents, launches, options = {}) {
  let failed = 0;
  const check = (ok, what, detail) => {
    console.log(`${ok ? 'ok' : 'FAIL'} - ${what} (${detail})`);
    if (!ok) failed++;
  };
  for (const [i, checks] of launches.entries()) {
    let env;
    try {
      env = await start(home, agents, { ...options, keepHome: true });
      await checks(env.page, check, home);
      check(env.errors.length === 0, `launch ${i + 1}: no page errors`, env.errors.join('; ') || 'none');
    } catch (e) {
      failed++;
      console.log(`FAIL - ${name}, launch ${i + 1}: ${e.stack ?? e}`);
    } finally {
      if (env) await env.stop();
    }
    if (failed) break;
  }
  rmSync(home, { recursive: true, force: true });
  console.log(`${name}: ${failed ? 'failed' : 'passed'}`);
  process.exit(failed ? 1 : 0);
}
