// Remote hosts UI test: real `hangar serve` processes saved with the real
// `hangar remote add` (in a temporary config dir, tokens in 0600 files: no
// keyring in the test's session), the real core in the bridge, the real UI.
// Checks each host's connection in words: right after launch, a host that
// is down says "Unreachable", why, when it is tried next and "Retry now";
// "Add host" shows a wss:// host's fingerprint to trust, says what to
// install when there is no keyring, and adds it once the plaintext file is
// ticked; a host killed while connected says "Reconnecting" with the next
// attempt, and comes back with "Retry now"; a revoked device token says
// "Token refused"; the host menu renames and removes a host.
// Env: see harness.mjs, plus HANGAR_BIN (the `hangar` binary);
// SCREENSHOT_DIR (optional) keeps screenshots.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fakeBin, run, tempHome, withEnv } from './harness.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const hangarBin = process.env.HANGAR_BIN ?? join(root, 'target/debug/hangar');
const home = tempHome('hangar-ui-hosts-');
const config = join(home, 'config');
mkdirSync(config);
const shots = process.env.SCREENSHOT_DIR;
const children = [];
// `run` ends the process: the hosts go with it.
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
// No session bus, so no keyring: the dialog must say what to install.
const noKeyring = { XDG_CONFIG_HOME: config, DBUS_SESSION_BUS_ADDRESS: null, XDG_RUNTIME_DIR: null, DISPLAY: null };

/** `hangar ARGS` with the test's config dir; its stdout (throws on failure). */
function hangar(args, input = '') {
  const out = spawnSync(hangarBin, args, {
    input,
    env: withEnv(noKeyring),
  });
  if (out.status !== 0) throw new Error(`hangar ${args.join(' ')}: ${out.stderr}`);
  return String(out.stdout).trim();
}

/** `hangar serve` on `listen`, data in `dir/data`, HOME `dir/home`: `{url, fingerprint, token, stop}`. */
async function serve(dir, listen, extra = []) {
  mkdirSync(join(dir, 'home'), { recursive: true });
  const args = ['serve', '--data-dir', join(dir, 'data'), '--listen', listen, '--no-discover', ...extra];
  const child = spawn(hangarBin, args, {
    env: { ...process.env, HOME: join(dir, 'home') },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  const ready = await new Promise((res, rej) => {
    child.on('exit', (c) => rej(new Error(`hangar serve exited ${c}`)));
    createInterface({ input: child.stdout }).on('line', (l) => l.startsWith('{') && res(JSON.parse(l)));
  });
  const token = readFileSync(join(dir, 'data', 'token'), 'utf8').trim();
  const stop = () =>
    new Promise((res) => {
      child.removeAllListeners('exit');
      child.on('exit', res);
      child.kill('SIGKILL');
    });
  return { url: ready.url, fingerprint: ready.tlsFingerprint, token, stop };
}

const port = async () => {
  const { createServer } = await import('node:net');
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });
};

// "box": up, with an agent. "desk": saved, then stopped before the app starts.
const echo = join(home, 'echo.json');
writeFileSync(echo, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const boxDir = join(home, 'box');
mkdirSync(join(boxDir, 'home', 'remote-project'), { recursive: true });
const boxListen = `127.0.0.1:${await port()}`;
const boxArgs = ['--agent', `echo=${fakeBin} --script ${echo}`];
let box = await serve(boxDir, boxListen, boxArgs);
hangar(['remote', 'add', 'box', box.url, '--token-stdin', '--insecure-token-file'], box.token);
const desk = await serve(join(home, 'desk'), `127.0.0.1:${await port()}`);
hangar(['remote', 'add', 'desk', desk.url, '--token-stdin', '--insecure-token-file'], desk.token);
await desk.stop();
// "lab": a wss:// host the test adds through the dialog, with a device token.
const labDir = join(home, 'lab');
const labListen = `127.0.0.1:${await port()}`;
let lab = await serve(labDir, labListen, ['--tls-self-signed']);
const labToken = hangar(['token', 'create', 'ui-test', '--data-dir', join(labDir, 'data')]);

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const shot = async (page, name) => {
  if (!shots) return;
  await frames(page);
  await page.screenshot({ path: join(shots, `${name}.png`) });
};
/** A host header's state word, detail and next-attempt text, by host label. */
const header = (page, label) =>
  page.evaluate((label) => {
    const h = [...document.querySelectorAll('[data-testid=host-header]')].find(
      (e) => e.querySelector('h2')?.textContent === label,
    );
    if (!h) return null;
    const text = (id) => h.querySelector(`[data-testid=${id}]`)?.textContent ?? '';
    return {
      state: h.dataset.state,
      word: text('host-state'),
      detail: text('host-detail'),
      next: text('host-next'),
      retry: !!h.querySelector('[data-testid=host-retry]'),
    };
  }, label);
const waitState = (page, label, state) =>
  page.waitForFunction(
    ([label, state]) =>
      [...document.querySelectorAll('[data-testid=host-header]')].some(
        (e) => e.querySelector('h2')?.textContent === label && e.dataset.state === state,
      ),
    [label, state],
    { timeout: 90000 },
  );
// Click the host header `h`'s "Retry now", then wait until `label` is
// Connected; says how it came back. On a busy machine the backoff's own
// attempt can connect first (the button leaves as the click lands), the
// same outcome: the click then gives up instead of waiting for a button
// that is gone.
const retryNow = async (page, h, label) => {
  const how = h
    .locator('[data-testid=host-retry]')
    .click({ timeout: 15000 })
    .then(
      () => 'Retry now clicked',
      () => 'the backoff reconnected it before the click',
    );
  await waitState(page, label, 'connected');
  return how;
};
const menu = async (page, label, item) => {
  const h = page.locator('[data-testid=host-header]', { has: page.locator('h2', { hasText: label }) });
  await h.locator('[data-testid=host-menu]').click();
  await h.locator(`[data-testid=host-menu-${item}]`).click();
};

await run(
  'hosts',
  home,
  [],
  async (page, check) => {
    await waitState(page, 'box', 'connected');
    await waitState(page, 'desk', 'unreachable');
    await page.waitForSelector('[data-testid=host-next]');
    const down = await header(page, 'desk');
    check(
      down.word === 'Unreachable' && /Connection refused/i.test(down.detail) && /next attempt/.test(down.next),
      'right after launch, a saved host that is down says so, why, and when it is tried next',
      JSON.stringify(down),
    );
    check(down.retry, 'with "Retry now"', JSON.stringify(down));
    const up = await header(page, 'box');
    check(up.word === 'Connected' && !up.detail, 'a saved host that is up says Connected', JSON.stringify(up));
    const local = await header(page, 'This computer');
    check(local?.state === 'connected', 'this computer is listed first and connected', JSON.stringify(local));
    await shot(page, 'hosts-after-launch');

    // A new session on box: its agents, its folders (from box's home, never this computer's).
    const boxId = JSON.parse(hangar(['remote', 'list', '--json'])).find((h) => h.name === 'box').id;
    await page.click('[data-testid=new-session]');
    await page.selectOption('[data-testid=host-select]', boxId);
    await page
      .waitForFunction(
        (home) => document.querySelector('[data-testid=folder-path]')?.textContent === home,
        join(boxDir, 'home'),
        { timeout: 20000 },
      )
      .catch(async (e) => {
        const seen = await page.evaluate(() => document.querySelector('[data-testid=new-session-dialog]')?.innerText);
        throw new Error(`${e.message}; the dialog showed: ${seen}`);
      });
    const picked = await page.evaluate(() => ({
      agents: [...document.querySelectorAll('[data-testid=agent-select] option')].map((o) => o.value),
      folders: [...document.querySelectorAll('[data-testid=folder-entry]')].map((e) => e.textContent.trim()),
    }));
    check(
      picked.agents.join() === 'echo' && picked.folders.join() === 'remote-project',
      "the new-session dialog lists box's agents and box's folders, starting at box's home",
      JSON.stringify(picked),
    );
    await page.click('[data-testid=folder-entry]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=folder-path]')?.textContent.endsWith('/remote-project'),
    );
    await page.click('[data-testid=create-session]');
    await page.waitForSelector(`[data-testid=session-row][data-host="${boxId}"]`);
    check(true, 'the session is created on box and listed under it', boxId);

    // box goes down while its chat is open: a message typed meanwhile is kept
    // (on disk), shown as not sent yet, and sent once when box is back.
    await page.click(`[data-testid=session-row][data-host="${boxId}"]`);
    await page.waitForSelector('[data-testid=composer-input]');
    await box.stop();
    await waitState(page, 'box', 'reconnecting');
    const offline = 'typed while box is down';
    await page.fill('[data-testid=composer-input]', offline);
    await page.click('[data-testid=send]');
    await page.waitForFunction(
      (t) => [...document.querySelectorAll('[data-testid=unsent-message]')].some((e) => e.textContent.includes(t)),
      offline,
    );
    check(true, 'a message typed while its host is down is listed as not sent yet', offline);
    await shot(page, 'chat-unsent-host-down');
    box = await serve(boxDir, boxListen, boxArgs);
    const bh = page.locator('[data-testid=host-header][data-host]', { has: page.locator('h2', { hasText: 'box' }) });
    console.log(`  box back: ${await retryNow(page, bh, 'box')}`);
    await page.waitForFunction(
      (t) =>
        document.querySelectorAll('[data-testid=unsent-message]').length === 0 &&
        [...document.querySelectorAll('[data-testid=turn]')].filter((e) => e.textContent.includes(t)).length === 1,
      offline,
      { timeout: 30000 },
    );
    check(true, 'back, it is sent once: one turn, and the not-sent list is gone', offline);
    const backNote = await page.textContent('[data-host-back-for=box] [data-testid=host-back-summary]').catch(() => '');
    check(/^Back at .* 1 session resumed$/.test(backNote), 'box says it is back and what resumed', backNote);
    await shot(page, 'hosts-back-report');
    await page.click('[data-host-back-for=box] [data-testid=host-back-dismiss]');
    await page.waitForSelector('[data-host-back-for=box]', { state: 'detached' });
    check(true, 'the return report is dismissed', 'box');

    // Add host: the fingerprint to trust, no keyring, then the opted-in file.
    await page.click('[data-testid=add-host]');
    await page.fill('[data-testid=add-host-name]', 'lab');
    await page.fill('[data-testid=add-host-url]', lab.url);
    await page.fill('[data-testid=add-host-token]', labToken);
    await page.click('[data-testid=add-host-next]');
    const shown = await page.textContent('[data-testid=add-host-fingerprint-value]');
    check(shown === lab.fingerprint, 'the dialog shows the certificate fingerprint to trust', shown);
    await shot(page, 'add-host-fingerprint');
    await page.click('[data-testid=add-host-trust]');
    const noKeyring = await page.textContent('[data-testid=add-host-error]');
    check(
      /no OS keyring/.test(noKeyring) && /gnome-keyring/.test(noKeyring) && /plaintext file/.test(noKeyring),
      'without a keyring it says what to install (and the opt-in)',
      noKeyring,
    );
    await shot(page, 'add-host-no-keyring');
    await page.check('[data-testid=add-host-insecure]');
    await page.click('[data-testid=add-host-trust]');
    await page.waitForSelector('[data-testid=add-host-dialog]', { state: 'detached' });
    await waitState(page, 'lab', 'connected');
    const saved = JSON.parse(hangar(['remote', 'list', '--json']));
    const labSaved = saved.find((h) => h.name === 'lab');
    check(
      labSaved?.fingerprint === lab.fingerprint && labSaved?.tokenStorage === 'insecureFile',
      'the dialog saved it as `hangar remote add` does (pinned; the token in the opted-in file)',
      JSON.stringify(labSaved),
    );

    // lab goes down: Reconnecting with the next attempt; back, Retry now connects it.
    await lab.stop();
    await waitState(page, 'lab', 'reconnecting');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid=host-next]')].some((e) => /next attempt in/.test(e.textContent)),
    );
    const lost = await header(page, 'lab');
    check(
      lost.word === 'Reconnecting' && /next attempt in \d+ s/.test(lost.next) && lost.retry,
      'a host lost while connected says Reconnecting, the next attempt and Retry now',
      JSON.stringify(lost),
    );
    await shot(page, 'hosts-remote-down');
    lab = await serve(labDir, labListen, ['--tls-self-signed']);
    const lh = page.locator('[data-testid=host-header][data-host]', { has: page.locator('h2', { hasText: 'lab' }) });
    check(true, 'Retry now brings it back: Connected', `lab, ${await retryNow(page, lh, 'lab')}`);

    // A revoked device token: Token refused, in words.
    hangar(['token', 'revoke', 'ui-test', '--data-dir', join(labDir, 'data')]);
    await waitState(page, 'lab', 'tokenRefused');
    const refused = await header(page, 'lab');
    check(
      refused.word === 'Token refused' && /hangar token create/.test(refused.detail),
      'a revoked device token says Token refused and what to do',
      JSON.stringify(refused),
    );
    await shot(page, 'hosts-token-refused');

    // The host menu: rename, then remove.
    await menu(page, 'box', 'rename');
    await page.fill('[data-testid=host-rename-input]', 'big box');
    await page.press('[data-testid=host-rename-input]', 'Enter');
    await waitState(page, 'big box', 'connected');
    const renamed = JSON.parse(hangar(['remote', 'list', '--json'])).map((h) => h.name);
    check(renamed.includes('big box'), 'rename reaches the saved list', renamed.join(', '));
    await menu(page, 'desk', 'remove');
    await page.click('[data-testid=confirm-dialog-ok]');
    await page.waitForFunction(
      () => ![...document.querySelectorAll('[data-testid=host-header] h2')].some((e) => e.textContent === 'desk'),
    );
    const left = JSON.parse(hangar(['remote', 'list', '--json'])).map((h) => h.name);
    check(!left.includes('desk'), 'remove takes it out of the saved list and the sidebar', left.join(', '));
  },
  { env: noKeyring },
);
