// Sign-in UI test: agents that refuse to start until the person signs in
// (the fake agent's `auth`). The chat says so and lists the agent's ways
// instead of an error; a terminal login that fails says so under its live
// terminal; one that works starts the session again by itself; a login
// that asks a question on its terminal is answered by typing in it; a key typed
// in a password field is kept in a real Secret Service (a private D-Bus
// session with gnome-keyring, as the e2e keyring tests start) and the
// session starts with it. Env: see harness.mjs; SCREENSHOT_DIR keeps
// screenshots; HANGAR_REQUIRE_KEYRING=1 fails instead of skipping the key
// part when dbus-run-session or gnome-keyring-daemon is missing.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-sign-in-');
const shots = process.env.SCREENSHOT_DIR;
const KEY = 'sk-ui-4e1d0c';
const agent = (name, methods) => {
  const path = join(home, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      initialize: { protocolVersion: 1, agentCapabilities: {}, authMethods: methods },
      auth: { key: { var: 'FAKE_API_KEY', value: KEY } },
      turns: [[{ chunk: `${name} is signed in and working` }, { end: 'end_turn' }]],
    }),
  );
  return `${name}=${fakeBin} --script ${path}`;
};
const login = agent('login', [
  { type: 'terminal', id: 'fail', name: 'A login that expires', args: ['--login', '--login-fail'] },
  { type: 'terminal', id: 'ok', name: 'Log in with Fake', args: ['--login'] },
]);
const asker = agent('asker', [
  { type: 'terminal', id: 'ask', name: 'Log in by answering', args: ['--login', '--login-ask'] },
]);
const keyed = agent('keyed', [
  { type: 'env_var', id: 'key', name: 'Use FAKE_API_KEY', vars: [{ name: 'FAKE_API_KEY' }] },
]);

/** A private Secret Service: its bus address, or null when the tools are missing. */
async function secretService() {
  const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter(
    (t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0,
  );
  if (missing.length > 0) {
    if (process.env.HANGAR_REQUIRE_KEYRING) throw new Error(`HANGAR_REQUIRE_KEYRING is set but ${missing} missing`);
    console.log(`SKIPPED: the key part (${missing.join(', ')} not found)`);
    return null;
  }
  const script = `set -e
eval "$(printf %s hangar-test-password | gnome-keyring-daemon --unlock --components=secrets)"
echo "DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
exec cat >/dev/null`;
  const env = { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'share') };
  delete env.DBUS_SESSION_BUS_ADDRESS;
  const session = spawn('dbus-run-session', ['--', 'sh', '-c', script], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  // Ends with this process (its stdin closes).
  process.on('exit', () => session.kill());
  return new Promise((res, rej) => {
    session.on('exit', (c) => rej(new Error(`the Secret Service session exited ${c}`)));
    createInterface({ input: session.stdout }).on('line', (l) => {
      const m = /^DBUS_SESSION_BUS_ADDRESS=(.+)$/.exec(l);
      if (m) res(m[1]);
    });
  });
}

const bus = await secretService();
const env = bus ? { DBUS_SESSION_BUS_ADDRESS: bus } : {};

await run(
  'sign-in',
  home,
  [login, asker, keyed],
  async (page, check) => {
    const folder = `file://${join(home, 'w')}`;
    const open = async (agentId) => {
      const { session } = await page.evaluate(
        ([a, f]) => window.rpc('session.create', { host: 'local', agent: a, folder: f }),
        [agentId, folder],
      );
      await page.click(`[data-testid=session-row][data-uri="${session}"]`);
      await page.waitForSelector('[data-testid=sign-in]');
      return session;
    };
    const sendAndRead = async (text) => {
      await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
      await page.fill('[data-testid=composer-input]', 'hello');
      await page.click('[data-testid=send]');
      await page.waitForFunction(
        (t) => document.querySelector('[data-testid=transcript]')?.textContent?.includes(t),
        text,
      );
    };

    // A terminal login: the panel, not an error.
    await open('login');
    const panel = await page.$eval('[data-testid=start-failed]', (e) => ({
      signIn: e.classList.contains('sign-in'),
      text: e.textContent,
      ways: e.querySelectorAll('[data-testid=sign-in-terminal]').length,
    }));
    check(
      panel.signIn && /Sign in to login/.test(panel.text) && panel.ways === 2 && /--login/.test(panel.text),
      'a start refused for want of sign-in shows the ways, with what each runs',
      JSON.stringify(panel),
    );
    const row = await page.$eval('[data-testid=session-row]', (e) => ({
      status: e.dataset.status,
      text: e.textContent,
    }));
    check(
      row.status === 'sign-in' && row.text.includes('Sign-in needed'),
      'the sidebar says the session waits for a sign-in, not that it failed',
      JSON.stringify(row),
    );
    if (shots) await page.screenshot({ path: join(shots, 'chat-sign-in.png') });

    await page.click('[data-testid=sign-in-terminal]:nth-child(1) [data-testid=sign-in-run]');
    await page.waitForSelector('[data-testid=sign-in-failed]');
    const failed = await page.$eval('[data-testid=sign-in-terminal]:nth-child(1)', (e) => ({
      terminal: e.querySelector('[data-testid=terminal-text]')?.textContent ?? '',
      said: e.querySelector('[data-testid=sign-in-failed]')?.textContent ?? '',
    }));
    check(
      failed.terminal.includes('The code expired') && failed.said.includes('exit 1'),
      'a login that fails says so under its output',
      JSON.stringify(failed),
    );
    if (shots) await page.screenshot({ path: join(shots, 'chat-sign-in-failed.png') });

    await page.click('[data-testid=sign-in-terminal]:nth-child(2) [data-testid=sign-in-run]');
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=sign-in-terminal]:nth-child(2) [data-testid=terminal-text]')
        ?.textContent?.includes('FAKE-1234'),
    );
    check(true, 'the login shows its device code live', 'FAKE-1234');
    await page.waitForSelector('[data-testid=sign-in]', { state: 'detached' });
    await sendAndRead('login is signed in and working');
    check(true, 'after the login the session starts again by itself and answers', 'login');
    // The row settles once the turn's end reaches the sidebar.
    await page
      .waitForFunction(() => document.querySelector('[data-testid=session-row]')?.dataset.status === 'idle', null, {
        timeout: 10000,
      })
      .catch(() => {});
    const rows = await page.$$eval('[data-testid=session-row]', (els) => els.map((e) => e.textContent));
    check(
      rows.length === 1 && rows[0].includes('login') && rows[0].includes('Idle'),
      'one session replaces the refused one',
      JSON.stringify(rows),
    );

    // Signed out meanwhile (the agent's login file gone) and the agent
    // restarted: the next message's turn fails with the ways to sign in,
    // and once signed in there the message is sent again by itself.
    rmSync(join(home, 'login.json.signed-in'));
    const session = await page.$eval('[data-testid=session-row]', (e) => e.dataset.uri);
    await page.evaluate((s) => window.rpc('session.restartAgent', { host: 'local', session: s }), session);
    await page.fill('[data-testid=composer-input]', 'hello again');
    await page.click('[data-testid=send]');
    await page.waitForSelector('[data-testid=turn-error] [data-testid=sign-in]');
    if (shots) await page.screenshot({ path: join(shots, 'chat-sign-in-turn.png') });
    await page.click('[data-testid=turn-error] [data-testid=sign-in-terminal]:nth-child(2) [data-testid=sign-in-run]');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('[data-testid=turn]').length === 3 &&
        !document.querySelector('[data-testid=turn].active'),
    );
    const last = await page.$eval('[data-testid=turn]:last-of-type', (e) => e.textContent);
    check(
      last.includes('hello again') && last.includes('login is signed in and working'),
      'a turn refused for want of sign-in offers it, and the message goes again after',
      last,
    );

    // A login that asks on its terminal: typed into, as in a terminal.
    await open('asker');
    await page.click('[data-testid=sign-in-terminal] [data-testid=sign-in-run]');
    await page.waitForFunction(() =>
      document
        .querySelector('[data-testid=sign-in-terminal] [data-testid=terminal-text]')
        ?.textContent?.includes('Account to sign in with (tty)'),
    );
    await page.waitForSelector('[data-testid=sign-in-terminal] [data-testid=terminal][data-typing=yes]');
    check(true, 'the login asks its question on a terminal, which takes keystrokes', 'Account to sign in with (tty)');
    await page.click('[data-testid=sign-in-terminal] [data-testid=terminal-screen]');
    await page.keyboard.type('fake-user');
    await page.keyboard.press('Enter');
    if (shots) await page.screenshot({ path: join(shots, 'chat-sign-in-typed.png') });
    await page.waitForSelector('[data-testid=sign-in]', { state: 'detached' });
    await sendAndRead('asker is signed in and working');
    check(true, 'the answer typed in the terminal signs the agent in and the session starts', 'asker');

    if (!bus) return;
    // A key: typed masked, kept in the keyring, the session starts with it.
    await open('keyed');
    const field = await page.$eval('[data-testid=sign-in-key]', (e) => e.type);
    check(field === 'password', 'the key field is masked', field);
    await page.fill('[data-testid=sign-in-key]', KEY);
    if (shots) await page.screenshot({ path: join(shots, 'chat-sign-in-key.png') });
    await page.click('[data-testid=sign-in-save-key]');
    await page.waitForSelector('[data-testid=sign-in]', { state: 'detached' });
    await sendAndRead('keyed is signed in and working');
    check(true, 'with the key saved the session starts and answers', 'keyed');
  },
  { env },
);
