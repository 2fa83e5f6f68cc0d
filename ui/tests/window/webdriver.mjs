// A zero-dependency W3C WebDriver client (Node 20: global fetch) for
// Debian's WebKitWebDriver driving the real Tauri window. Only what the
// real-window test needs. See docs/desktop.md ("real window").
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const ELEM = 'element-6066-11e4-a52e-4f735466cecf';

/** A free TCP port on 127.0.0.1 (bound then released). */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/**
 * Starts `WebKitWebDriver --port=N` in its own process group with
 * TAURI_WEBVIEW_AUTOMATION=true (without it tauri does not enable automation
 * on the webview and POST /session hangs). The app it launches inherits `env`.
 */
export async function startDriver({ driverBin = 'WebKitWebDriver', env = process.env } = {}) {
  const port = await freePort();
  const proc = spawn(driverBin, [`--port=${port}`], {
    env: { ...env, TAURI_WEBVIEW_AUTOMATION: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true, // own process group: killGroup() also reaches the app it starts
  });
  const exited = new Promise((res) => proc.on('exit', (code, sig) => res(`WebKitWebDriver exited (${code ?? sig})`)));
  proc.on('error', () => {});
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10000;
  for (;;) {
    const up = await Promise.race([
      fetch(`${base}/status`).then(
        (r) => r.ok,
        () => false,
      ),
      exited.then((m) => {
        throw new Error(m);
      }),
    ]);
    if (up) break;
    if (Date.now() > deadline) {
      killGroup(proc.pid);
      throw new Error('WebKitWebDriver did not answer /status');
    }
    await sleep(100);
  }
  // Kill the group and reap the driver (no zombie left behind).
  const kill = () => {
    killGroup(proc.pid);
    return Promise.race([exited, sleep(2000)]);
  };
  return { proc, base, kill };
}

/** SIGKILL a process group we started (detached: pgid = pid). */
export function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** SIGKILL processes whose command line contains `marker` (e.g. a unique temp dir). */
export function killByMarker(marker) {
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes(marker)) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  /**
   * POST /session with WebKit's own capability (what tauri-driver would
   * write for `tauri:options`), bounded by `timeoutMs`.
   */
  static async create(base, { binary, args = [], timeoutMs = 30000 }) {
    const caps = { capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary, args } } } };
    const v = await wd(base, 'POST', '/session', caps, timeoutMs);
    return new Session(base, v.sessionId);
  }

  cmd(method, path, body, timeoutMs) {
    return wd(this.base, method, `/session/${this.id}${path}`, body, timeoutMs);
  }
  delete() {
    return wd(this.base, 'DELETE', `/session/${this.id}`, undefined, 10000);
  }

  /** Runs `fn`'s body in the page; `args` are passed as `arguments`. */
  exec(script, ...args) {
    return this.cmd('POST', '/execute/sync', { script, args });
  }
  execAsync(script, ...args) {
    return this.cmd('POST', '/execute/async', { script, args });
  }

  async find(css) {
    return (await this.cmd('POST', '/element', { using: 'css selector', value: css }))[ELEM];
  }
  async click(el) {
    await this.cmd('POST', `/element/${el}/click`, {});
  }
  async clear(el) {
    await this.cmd('POST', `/element/${el}/clear`, {});
  }
  async type(el, text) {
    await this.cmd('POST', `/element/${el}/value`, { text });
  }
  text(el) {
    return this.cmd('GET', `/element/${el}/text`);
  }

  /** Polls `predicate` (a page-side function body returning a truthy value) until it holds. */
  async waitFor(what, body, args = [], timeoutMs = 20000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.exec(body, ...args);
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  /** Waits for an element matching `css` (and containing `text`, if given); returns its reference. */
  async waitEl(css, text, timeoutMs) {
    const v = await this.waitFor(
      text === undefined ? css : `${css} containing ${JSON.stringify(text)}`,
      'const [s, t] = arguments; return [...document.querySelectorAll(s)].find((e) => t === null || e.textContent.includes(t)) ?? null;',
      [css, text ?? null],
      timeoutMs,
    );
    return v[ELEM];
  }

  waitGone(css, timeoutMs) {
    return this.waitFor(`no ${css}`, 'return !document.querySelector(arguments[0]);', [css], timeoutMs);
  }

  /** Real WebDriver click on the first element matching `css` (and `text`). */
  async clickEl(css, text) {
    await this.click(await this.waitEl(css, text));
  }

  /** Clears an input and types into it with WebDriver key events. */
  async fill(css, value) {
    const el = await this.waitEl(css);
    await this.clear(el);
    await this.type(el, value);
  }

  /**
   * Real key events (WebDriver actions) to the focused element: `keys`
   * pressed in order, then released in reverse (`['\uE009', ',']` is Ctrl+,).
   */
  async press(...keys) {
    const actions = [
      ...keys.map((value) => ({ type: 'keyDown', value })),
      ...keys.toReversed().map((value) => ({ type: 'keyUp', value })),
    ];
    await this.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] });
    await this.cmd('DELETE', '/actions');
  }

  /** Resolves after two animation frames: what the DOM says has been painted. */
  frames() {
    return this.execAsync(
      'const d = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => d(1)));',
    );
  }

  /**
   * PNG bytes of the webview. Waits two animation frames first: a WebDriver
   * screenshot taken right after a DOM change can show the previous frame.
   */
  async screenshot() {
    await this.frames();
    return Buffer.from(await this.cmd('GET', '/screenshot'), 'base64');
  }
}

async function wd(base, method, path, body, timeoutMs = 30000) {
  let r;
  try {
    r = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new Error(`${method} ${path}: ${e.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : e.message}`);
  }
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(`${method} ${path} -> ${r.status} ${JSON.stringify(j.value ?? j)}`);
  return j.value;
}
