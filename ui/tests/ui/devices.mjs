// Settings → Open from other devices, end to end: the desktop core
// (hangar-desktop-bridge) knows two hosts, this computer's embedded host
// and "box", a real `hangar serve` saved with `hangar remote add`, each
// with a session. Turned on in Settings, the app serves its own UI on
// loopback: Settings shows the address, Pair a device shows a QR code (an
// SVG) and the pairing link with Copy. A second browser at a phone's
// viewport (390×844, touch) opens the link, is paired (the code leaves the
// address bar) and lists the sessions of BOTH hosts; a message sent from
// the phone to box's session is seen on the desktop page, with the echo
// agent's answer; the phone cannot pair devices itself. Revoke in Settings signs the phone page out at once; a
// second use of the link is refused. Env: see harness.mjs, plus HANGAR_BIN;
// SCREENSHOT_DIR keeps the Settings section with its QR code and the
// paired phone.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './browser.mjs';
import { fakeBin, run, tempHome, withEnv } from './harness.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const hangarBin = process.env.HANGAR_BIN ?? join(root, 'target/debug/hangar');
const home = tempHome('hangar-ui-devices-');
const config = join(home, 'config');
mkdirSync(config);
const shots = process.env.SCREENSHOT_DIR;
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
// Saved hosts' tokens in 0600 files: no keyring in the test's session.
// This computer's addresses, as the app takes them for its certificate:
// given here (a test seam), so the test can move the computer without root.
const env = {
  XDG_CONFIG_HOME: config,
  DBUS_SESSION_BUS_ADDRESS: null,
  XDG_RUNTIME_DIR: null,
  DISPLAY: null,
  HANGAR_MACHINE_ADDRESSES: '192.168.1.5',
};

function hangar(args, input = '') {
  const out = spawnSync(hangarBin, args, { input, env: withEnv(env) });
  if (out.status !== 0) throw new Error(`hangar ${args.join(' ')}: ${out.stderr}`);
  return String(out.stdout).trim();
}

// "box": a real host on loopback with an echo agent.
const echo = join(home, 'echo.json');
writeFileSync(echo, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const boxDir = join(home, 'box');
mkdirSync(join(boxDir, 'home', 'project'), { recursive: true });
const boxChild = spawn(
  hangarBin,
  [
    'serve',
    '--data-dir',
    join(boxDir, 'data'),
    '--listen',
    '127.0.0.1:0',
    '--no-discover',
    '--agent',
    `echo=${fakeBin} --script ${echo}`,
  ],
  { env: { ...process.env, HOME: join(boxDir, 'home') }, stdio: ['ignore', 'pipe', 'ignore'] },
);
children.push(boxChild);
const boxReady = await new Promise((res, rej) => {
  boxChild.on('exit', (c) => rej(new Error(`hangar serve exited ${c}`)));
  createInterface({ input: boxChild.stdout }).on('line', (l) => l.startsWith('{') && res(JSON.parse(l)));
});
const boxToken = readFileSync(join(boxDir, 'data', 'token'), 'utf8').trim();
hangar(['remote', 'add', 'box', boxReady.url, '--token-stdin', '--insecure-token-file'], boxToken);
const boxId = JSON.parse(hangar(['remote', 'list', '--json'])).find((h) => h.name === 'box').id;

const phoneContext = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
const rowHosts = (page) =>
  page.$$eval('[data-testid=session-row]', (els) => [...new Set(els.map((e) => e.dataset.host))].sort());

await run(
  'devices',
  home,
  [],
  async (page, check, _home, { core }) => {
    await page.waitForSelector(`[data-testid=host-header][data-host="${boxId}"][data-state="connected"]`, {
      timeout: 90000,
    });
    // A session on each host: an empty one here, one with a turn on box.
    await page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: null, folder: f }),
      `file://${join(home, 'w')}`,
    );
    const { session: boxSession } = await page.evaluate(
      ([h, f]) => window.rpc('session.create', { host: h, agent: 'echo', folder: f }),
      [boxId, `file://${join(boxDir, 'home', 'project')}`],
    );
    await page.waitForFunction(
      (box) => {
        const hosts = new Set([...document.querySelectorAll('[data-testid=session-row]')].map((e) => e.dataset.host));
        return hosts.has('local') && hosts.has(box);
      },
      boxId,
      { timeout: 60000 },
    );

    // Settings: off by default; turned on, it shows the address.
    await page.click('[data-testid=app-menu]');
    await page.click('[data-testid=app-menu-settings]');
    await page.waitForSelector('[data-testid=devices-settings]');
    check(
      !(await page.isChecked('[data-testid=devices-enabled]')) && (await page.$('[data-testid=devices-url]')) === null,
      'Open from other devices is off by default',
      '',
    );
    await page.click('[data-testid=devices-enabled]');
    await page.waitForSelector('[data-testid=devices-url]');
    const base = await page.textContent('[data-testid=devices-url]');
    check(/^http:\/\/127\.0\.0\.1:\d+\/$/.test(base), 'on, it serves on loopback and shows the address', base);
    const saved = JSON.parse(readFileSync(join(home, 'data', 'settings.json'), 'utf8')).openFromDevices;
    check(
      saved.enabled === true && saved.onNetwork === false && String(saved.port) === new URL(base).port,
      'the setting and its port are in settings.json',
      JSON.stringify(saved),
    );

    // "Device name" stays on one line at a desktop's widths and a phone's.
    const size = page.viewportSize();
    for (const width of [1280, 1024, 390]) {
      await page.setViewportSize({ width, height: 844 });
      const label = await page.$eval('label[for=devices-name]', (l) => {
        const style = getComputedStyle(l);
        const line = Number.parseFloat(style.lineHeight) || Number.parseFloat(style.fontSize) * 1.2;
        return { height: l.getBoundingClientRect().height, line };
      });
      check(
        label.height > 0 && label.height < label.line * 1.5,
        `the "Device name" label is one line high at ${width} px`,
        JSON.stringify(label),
      );
    }
    await page.setViewportSize(size);

    // Pair a device: a QR code and the link, with Copy.
    await page.fill('[data-testid=devices-name]', 'phone');
    await page.click('[data-testid=devices-pair]');
    await page.waitForSelector('[data-testid=pairing-qr]');
    const link = await page.textContent('[data-testid=pairing-url]');
    check(link.startsWith(`${base}#pair=`), 'Pair a device shows the pairing link', link);
    const qr = await page.$eval('[data-testid=pairing-qr]', (img) => ({
      src: decodeURIComponent(img.src),
      width: img.naturalWidth,
    }));
    check(
      qr.src.startsWith('data:image/svg+xml') && qr.src.includes('<svg') && qr.width >= 200,
      'and its QR code, an SVG',
      `${qr.src.length} chars, ${qr.width} px`,
    );
    const links = readFileSync(join(home, 'data', 'devices', 'pairing.json'), 'utf8');
    check(!links.includes(link.split('#pair=')[1]), 'the code is not on disk (only its hash)', '');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.click('[data-testid=pairing-copy]');
    await page.waitForSelector('[data-testid=pairing-copy]:has-text("Copied")');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    check(copied === link, 'Copy puts the link on the clipboard', copied);
    if (shots) {
      await page.$eval('[data-testid=devices-settings]', (e) => e.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: join(shots, 'devices-settings.png') });
    }

    // The phone: paired by the link, it lists the sessions of both hosts.
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
    });
    try {
      const phone = await (await browser.newContext(phoneContext)).newPage();
      phone.setDefaultTimeout(60000);
      const errors = [];
      phone.on('pageerror', (e) => errors.push(String(e)));
      await phone.goto(link);
      await phone.waitForSelector(`[data-testid=session-row][data-host="${boxId}"]`);
      await phone.waitForSelector('[data-testid=session-row][data-host=local]');
      check(!phone.url().includes('pair='), 'the code leaves the phone’s address bar', phone.url());
      const hosts = await rowHosts(phone);
      check(
        hosts.includes('local') && hosts.includes(boxId),
        'the phone lists the sessions of both hosts',
        hosts.join(),
      );
      await page.waitForSelector('[data-testid=paired-device][data-name=phone]');
      check(
        (await page.$('[data-testid=pairing-link]')) === null,
        'Settings lists the paired phone, and the used link is gone',
        await page.textContent('[data-testid=paired-devices]'),
      );
      if (shots) await phone.screenshot({ path: join(shots, 'devices-phone.png') });

      // A message from the phone to box's session, seen on the desktop.
      await phone.tap(`[data-testid=session-row][data-uri="${boxSession}"]`);
      await phone.waitForSelector('[data-testid=composer-input]:not([disabled])');
      await phone.fill('[data-testid=composer-input]', 'hello from the phone');
      await phone.tap('[data-testid=send]');
      await page.click('[data-testid=settings-close]');
      await page.click(`[data-testid=session-row][data-uri="${boxSession}"]`);
      // The echo agent answers with the message: twice in the turn once it is done.
      const seen = await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid=turn]')]
          .map((t) => t.textContent)
          .find((t) => t.split('hello from the phone').length > 2),
      );
      const turn = await seen.jsonValue();
      check(turn.includes('hello from the phone'), 'the phone’s message and its answer are on the desktop page', turn);

      // The phone's own socket may not pair devices (nor put the app on the network).
      const answer = await phone.evaluate(
        () =>
          new Promise((res) => {
            const token = localStorage.getItem('hangar.deviceToken');
            const ws = new WebSocket(`ws://${location.host}/ipc`, ['hangar-ipc', `hangar-token.${token}`]);
            ws.onopen = () => ws.send(JSON.stringify({ id: 1, cmd: 'devices.pair', args: { name: 'tablet' } }));
            ws.onmessage = (e) => {
              res(JSON.parse(e.data));
              ws.close();
            };
            ws.onclose = () => res({ err: 'closed' });
          }),
      );
      check(
        /only the Hangar app itself/.test(answer.err ?? ''),
        'a paired phone cannot mint pairing links',
        JSON.stringify(answer),
      );

      // Revoke in Settings: the phone page is signed out at once.
      await page.click('[data-testid=app-menu]');
      await page.click('[data-testid=app-menu-settings]');
      await page.click('[data-testid=paired-device][data-name=phone] [data-testid=device-revoke]');
      await phone.waitForSelector('[data-testid=pairing-screen]', { timeout: 30000 });
      const out = await phone.textContent('[data-testid=pairing-message]');
      check(out.includes('This device was signed out'), 'Revoke signs the open phone page out', out);
      check(
        (await page.$('[data-testid=paired-device][data-name=phone]')) === null,
        'and Settings no longer lists it',
        '',
      );

      // The same link again is refused.
      const again = await (await browser.newContext(phoneContext)).newPage();
      await again.goto(link);
      await again.waitForSelector('[data-testid=pairing-screen] [data-testid=pairing-message]');
      const refusal = await again.textContent('[data-testid=pairing-message]');
      check(/not valid/.test(refusal), 'a second use of the pairing link is refused', refusal);
      check(errors.length === 0, 'no errors on the phone page', errors.join('; ') || 'none');
    } finally {
      await browser.close();
    }

    // Off again: nothing listens on the address any more.
    await page.click('[data-testid=devices-enabled]');
    await page.waitForSelector('[data-testid=devices-url]', { state: 'detached' });
    const deadline = Date.now() + 10000;
    let refused = false;
    while (!refused && Date.now() < deadline) {
      refused = await fetch(base).then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 100));
    }
    check(refused, 'turned off, the address no longer answers', base);

    // On my network: over TLS at this computer's address, the certificate
    // made for it; a first certificate is not said to be renewed.
    await page.click('[data-testid=devices-enabled]');
    await page.click('[data-testid=devices-network]');
    await page.waitForSelector('[data-testid=devices-fingerprint]');
    const served = await page.textContent('[data-testid=devices-url]');
    check(
      served.startsWith('https://192.168.1.5:'),
      'on my network it serves over TLS at the computer’s address',
      served,
    );
    const renewed = () => page.$('[data-testid=devices-certificate-renewed]');
    const first = await page.textContent('[data-testid=devices-fingerprint]');
    check((await renewed()) === null, 'a first certificate is not said to be renewed', first);
    // The app started again with the computer at `addresses`: Settings as it shows then.
    const restartAt = async (addresses) => {
      await core.down();
      env.HANGAR_MACHINE_ADDRESSES = addresses;
      await core.up();
      await page.reload();
      await page.click('[data-testid=app-menu]');
      await page.click('[data-testid=app-menu-settings]');
      await page.waitForSelector('[data-testid=devices-fingerprint]');
      return page.textContent('[data-testid=devices-fingerprint]');
    };
    const same = await restartAt('192.168.1.5');
    check(same === first && (await renewed()) === null, 'the same address keeps the certificate, nothing said', same);
    const moved = await restartAt('10.0.0.7');
    const notice = (await renewed()) && (await page.textContent('[data-testid=devices-certificate-renewed]'));
    check(moved !== first, 'a new address gets a new certificate', `${first} -> ${moved}`);
    check(
      /certificate was made again/.test(notice) &&
        /new address 10\.0\.0\.7/.test(notice) &&
        /192\.168\.1\.5 gone/.test(notice) &&
        /fingerprint below/.test(notice),
      'Settings says the certificate was made again, why, and to check the fingerprint below',
      notice,
    );
    const [noticeTop, printTop] = await Promise.all(
      ['devices-certificate-renewed', 'devices-fingerprint'].map((id) =>
        page.$eval(`[data-testid=${id}]`, (e) => e.getBoundingClientRect().top),
      ),
    );
    check(noticeTop < printTop, 'the notice is above the new fingerprint', `${noticeTop} < ${printTop}`);
    const kept = await restartAt('10.0.0.7');
    check(
      kept === moved && (await renewed()) === null,
      'at the next start with that address it is not said again',
      kept,
    );
    await page.click('[data-testid=devices-enabled]');
    await page.waitForSelector('[data-testid=devices-url]', { state: 'detached' });
  },
  { env },
);
