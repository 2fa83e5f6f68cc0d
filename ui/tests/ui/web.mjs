// `hangar serve --web` end to end: the real host binary with a self-signed
// certificate on loopback, the fake ACP agent, and headless Chromium at a
// phone's viewport (390×844, touch). A pairing URL minted by
// `hangar token create phone --pair` pairs the page (the code leaves the
// address bar); the paired page lists the host's sessions, starts one,
// answers the agent's confirmation, sees its reply, and undoes the change
// it made. Then: the same pairing URL again is refused; a browser without a
// token gets only the pairing screen and `/ipc` refuses it; `hangar token
// revoke phone` turns the open page into the pairing screen saying it was
// signed out, and a new link pasted there pairs the same tab again without
// a reload. Env: HANGAR_BIN, FAKE_AGENT_BIN, CHROMIUM; SCREENSHOT_DIR
// keeps phone and desktop screenshots.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './browser.mjs';
import { fakeBin, tempHome, withEnv } from './harness.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const hangarBin = process.env.HANGAR_BIN ?? join(root, 'target/debug/hangar');
const shots = process.env.SCREENSHOT_DIR;
const home = tempHome('hangar-ui-web-');
const data = join(home, 'data');
writeFileSync(join(home, 'w', 'notes.txt'), 'first line\n');
const script = join(home, 'web-agent.json');
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      [
        { chunk: 'I would like to edit notes.txt.' },
        {
          request: {
            method: 'session/request_permission',
            params: {
              options: [
                { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
                { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
              ],
              toolCall: { toolCallId: 'edit-1', title: 'Edit notes.txt', kind: 'edit' },
            },
          },
          then: {
            allow: [
              { writeFile: { path: 'notes.txt', text: 'first line, improved\n' } },
              { update: { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'completed' } },
              { chunk: '\n\nDone: notes.txt is improved.' },
            ],
            '*': [{ chunk: '\n\nUnderstood, I left it alone.' }],
          },
        },
        { end: 'end_turn' },
      ],
    ],
  }),
);
const env = withEnv({ HOME: home, RUST_LOG: process.env.RUST_LOG ?? 'warn' });
const hangar = (...args) => spawnSync(hangarBin, [...args, '--data-dir', data], { env, encoding: 'utf8' });

let failed = 0;
const check = (ok, what, detail) => {
  console.log(`${ok ? 'ok' : 'FAIL'} - ${what} (${detail})`);
  if (!ok) failed++;
};

const host = spawn(
  hangarBin,
  [
    'serve',
    '--web',
    '--tls-self-signed',
    '--listen',
    '127.0.0.1:0',
    '--data-dir',
    data,
    '--no-discover',
    '--browse-root',
    home,
    '--agent',
    `fake=${fakeBin} --script ${script}`,
  ],
  { env, stdio: ['ignore', 'pipe', 'inherit'] },
);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: CHROMIUM_ARGS,
});
const phone = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, ignoreHTTPSErrors: true };
try {
  const ready = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error('hangar serve did not start')), 60000);
    host.on('exit', (c) => rej(new Error(`hangar serve exited ${c}`)));
    createInterface({ input: host.stdout }).on('line', (l) => {
      if (l.startsWith('{')) {
        clearTimeout(timer);
        res(JSON.parse(l));
      }
    });
  });
  const base = ready.url.replace(/^wss:/, 'https:');
  const minted = hangar('token', 'create', 'phone', '--pair');
  const link = minted.stdout.split('\n')[0];
  check(
    minted.status === 0 && link.startsWith(`${base}#pair=`),
    'token create --pair prints the pairing URL of the running host',
    link,
  );
  check(/[▀▄█]/.test(minted.stdout), 'and draws it as a QR code', `${minted.stdout.length} chars`);

  // The phone opens the link: paired, the code gone from the address bar.
  const ctx = await browser.newContext(phone);
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) errors.push(m.text());
  });
  page.setDefaultTimeout(60000);
  const firstLoad = await page.goto(link);
  const headers = firstLoad.headers();
  check(
    /default-src 'self'/.test(headers['content-security-policy'] ?? ''),
    'the page has a strict CSP',
    headers['content-security-policy'],
  );
  check(headers['cache-control'] === 'no-store', 'the page is not cached', headers['cache-control']);
  await page.waitForSelector('[data-testid=new-session]');
  check(!page.url().includes('pair='), 'the code is removed from the address bar', page.url());
  const listed = hangar('token', 'list', '--json');
  check(listed.stdout.includes('"phone"'), 'the paired device is in `hangar token list`', listed.stdout.trim());
  const stored = await page.evaluate(() => localStorage.getItem('hangar.deviceToken') ?? '');
  check(/^[0-9a-f]{64}$/.test(stored), 'the browser keeps a device token', `${stored.length} chars`);

  // A session on the host, from the phone: a message, the confirmation, the reply.
  await page.tap('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=folder-picker]');
  await page.tap('[data-testid=folder-entry]:has-text("w")');
  await page.tap('[data-testid=create-session]');
  await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
  await page.fill('[data-testid=composer-input]', 'Improve notes.txt');
  await page.tap('[data-testid=send]');
  await page.waitForSelector('[data-testid=confirmation]');
  if (shots) await page.screenshot({ path: join(shots, 'web-phone-confirmation.png') });
  await page.tap('[data-testid=confirmation] button[data-testid^=confirm-]:has-text("Allow")');
  await page.waitForSelector('[data-testid=turn]:not(.active)');
  await page.waitForFunction(() => document.body.textContent.includes('Done: notes.txt is improved.'));
  const notes = () => readFileSync(join(home, 'w', 'notes.txt'), 'utf8');
  check(notes() === 'first line, improved\n', 'the allowed edit reached the disk', JSON.stringify(notes()));
  // Undo the turn's change from the Changes panel. Until the phone layout
  // (issue 32, item 3) lands, the chat's header is covered at 390 px: a
  // DOM click rather than a tap.
  const press = (selector) => page.locator(selector).dispatchEvent('click');
  await press('[data-testid=changes-button]');
  await page.waitForSelector('[data-testid=change-file][data-path="notes.txt"]');
  if (shots) await page.screenshot({ path: join(shots, 'web-phone-changes.png') });
  await press('[data-testid=change-file][data-path="notes.txt"] [data-testid=file-undo]');
  const deadline = Date.now() + 30000;
  while (notes() !== 'first line\n' && Date.now() < deadline) await page.waitForTimeout(100);
  check(notes() === 'first line\n', 'undo from the phone puts the file back', JSON.stringify(notes()));
  if (shots) {
    // The same paired browser at a desktop's size (its token copied over).
    const desk = await browser.newContext({ viewport: { width: 1280, height: 800 }, ignoreHTTPSErrors: true });
    await desk.addInitScript((t) => localStorage.setItem('hangar.deviceToken', t), stored);
    const wide = await desk.newPage();
    await wide.goto(base);
    await wide.click('[data-testid=session-row]');
    await wide.waitForSelector('[data-testid=turn]');
    await wide.screenshot({ path: join(shots, 'web-desktop.png') });
    await desk.close();
  }

  // The same link a second time is refused.
  const again = await browser.newContext(phone);
  const second = await again.newPage();
  await second.goto(link);
  await second.waitForSelector('[data-testid=pairing-screen] [data-testid=pairing-message]');
  const refusal = await second.textContent('[data-testid=pairing-message]');
  check(/not valid/.test(refusal), 'a used pairing link is refused', refusal);
  const code = link.split('#pair=')[1];
  const status = await second.evaluate(
    async (c) =>
      (
        await fetch('/pair', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code: c }),
        })
      ).status,
    code,
  );
  check(status === 403, 'POST /pair with the used code is 403', String(status));

  // No token: only the pairing screen, and /ipc refuses the page.
  const stranger = await (await browser.newContext(phone)).newPage();
  await stranger.goto(base);
  await stranger.waitForSelector('[data-testid=pairing-screen]');
  const text = await stranger.textContent('[data-testid=pairing-screen]');
  check(text.includes('hangar token create NAME --pair'), 'a page without a token shows how to pair', text);
  check((await stranger.$('[data-testid=new-session]')) === null, 'and nothing of the app', '');
  if (shots) await stranger.screenshot({ path: join(shots, 'web-phone-pairing.png') });
  const opened = await stranger.evaluate(
    (protocols) =>
      new Promise((res) => {
        const ws = new WebSocket(`wss://${location.host}/ipc`, protocols);
        ws.onopen = () => res('opened');
        ws.onclose = () => res('refused');
      }),
    ['hangar-ipc', 'hangar-token.0000'],
  );
  check(opened === 'refused', '/ipc refuses a page without a valid token', opened);

  // Revoking the device signs the open page out.
  const revoked = hangar('token', 'revoke', 'phone');
  check(revoked.status === 0, 'hangar token revoke phone', revoked.stderr.trim() || 'ok');
  await page.waitForSelector('[data-testid=pairing-screen]', { timeout: 30000 });
  const out = await page.textContent('[data-testid=pairing-message]');
  check(out.includes('This device was signed out'), 'the open page says it was signed out', out);
  check(await page.evaluate(() => localStorage.getItem('hangar.deviceToken') === null), 'and forgets the token', '');
  if (shots) await page.screenshot({ path: join(shots, 'web-phone-signed-out.png') });

  // Paired again in the same tab, without a reload: a new link pasted on
  // the signed-out screen. The page did not knock on /ipc while signed out,
  // so its address is not locked out by the failed-token limit.
  await page.evaluate(() => {
    window.sameTab = true;
  });
  const fresh = hangar('token', 'create', 'phone', '--pair').stdout.split('\n')[0];
  await page.fill('[data-testid=pairing-input]', fresh);
  await page.tap('[data-testid=pairing-submit]');
  await page.waitForSelector('[data-testid=session-row]', { timeout: 30000 });
  check(
    await page.evaluate(() => window.sameTab === true),
    'a new link pasted on the signed-out screen pairs the same tab again, without a reload',
    fresh,
  );
  const relisted = hangar('token', 'list', '--json');
  check(relisted.stdout.includes('"phone"'), 'and the device is listed again', relisted.stdout.trim());
  check(errors.length === 0, 'no page errors or CSP violations', errors.join('; ') || 'none');
} catch (e) {
  failed++;
  console.log(`FAIL - web: ${e.stack ?? e}`);
} finally {
  await browser.close();
  host.kill('SIGTERM');
  rmSync(home, { recursive: true, force: true });
}
console.log(`web: ${failed ? 'failed' : 'passed'}`);
process.exit(failed ? 1 : 0);
