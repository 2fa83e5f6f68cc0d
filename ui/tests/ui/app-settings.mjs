// The app's Settings and About (app-settings.mjs; settings.mjs is the
// agent's settings in the composer). Settings opens from the app menu and
// with Ctrl+,; it shows the data dir and the log file (Open runs the
// desktop's opener: HANGAR_DESKTOP_OPENER records it here) and lists the
// keyboard shortcuts; the dark theme applies at once; the default agent and
// folder are kept. The bridge is then restarted on the same data dir (a
// relaunch): the theme is dark from the start, Settings shows the choices,
// and New session opens with the default agent in the default folder.
// Relaunched once more over a corrupt settings.json: Settings says it was
// moved aside, the defaults are used. About shows the app's version, and
// the embedded host's software and the AHP version negotiated with it.
// A notice not about an item has a close button and goes by itself.
// Env: see harness.mjs; SCREENSHOT_DIR keeps settings.png and about.png.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, start, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-app-settings-');
const script = join(home, 'echo.json');
writeFileSync(script, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const opener = join(home, 'opener.sh');
const opened = join(home, 'opened.txt');
writeFileSync(opener, `#!/bin/sh\necho "$1" >> '${opened}'\n`);
chmodSync(opener, 0o755);
const agents = [`echo=${fakeBin} --script ${script}`, `second=${fakeBin} --script ${script}`];
const options = { keepHome: true, env: { HANGAR_DESKTOP_OPENER: opener } };
const shots = process.env.SCREENSHOT_DIR;
const dataDir = join(home, 'data');

let failed = 0;
const check = (ok, what, detail) => {
  console.log(`${ok ? 'ok' : 'FAIL'} - ${what} (${detail})`);
  if (!ok) failed++;
};
const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const shot = async (page, name) => {
  if (!shots) return;
  await frames(page);
  await page.screenshot({ path: join(shots, `${name}.png`) });
};
const theme = (page) =>
  page.evaluate(() => ({
    attr: document.documentElement.dataset.theme,
    bg: getComputedStyle(document.documentElement).getPropertyValue('--bg').trim(),
  }));
const hostReady = (page) =>
  page.waitForSelector('[data-testid=host-header][data-host=local][data-state=connected]', { timeout: 60000 });

/** One launch of the app on the data dir in `home`; `body(page)` runs the checks. */
async function launch(name, body) {
  let env;
  try {
    env = await start(home, agents, options);
    await hostReady(env.page);
    await body(env.page);
    check(env.errors.length === 0, `${name}: no page errors`, env.errors.join('; ') || 'none');
  } catch (e) {
    failed++;
    console.log(`FAIL - ${name}: ${e.stack ?? e}`);
  } finally {
    if (env) await env.stop();
  }
}

await launch('first launch', async (page) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.click('[data-testid=app-menu]');
  await page.click('[data-testid=app-menu-settings]');
  await page.waitForSelector('[data-testid=settings-page]');
  const shown = await page.evaluate(() => ({
    data: document.querySelector('[data-testid=settings-data-dir]').textContent,
    log: document.querySelector('[data-testid=settings-log-file]').textContent,
    keys: [...document.querySelectorAll('[data-testid=settings-shortcuts] kbd')].map((k) => k.textContent),
    theme: document.querySelector('[data-testid=theme-system]').checked,
  }));
  check(shown.data === dataDir, 'Settings shows the data dir', shown.data);
  check(shown.log === join(dataDir, 'hangar-desktop.log'), 'and the log file', shown.log);
  check(existsSync(join(dataDir, 'hangar-desktop.log')), 'which the app writes', 'exists');
  check(
    shown.keys.includes('Ctrl+,') && shown.keys.includes('Enter'),
    'the shortcuts are listed',
    shown.keys.join(' '),
  );
  check(shown.theme, 'the theme follows the system at first', 'System');

  await page.click('[data-testid=open-data-dir]');
  await page.click('[data-testid=open-log-file]');
  for (let i = 0; i < 100 && !(existsSync(opened) && readFileSync(opened, 'utf8').split('\n').length > 2); i++) {
    await page.waitForTimeout(50);
  }
  const openedText = existsSync(opened) ? readFileSync(opened, 'utf8') : '';
  check(
    openedText === `${dataDir}\n${join(dataDir, 'hangar-desktop.log')}\n`,
    'Open opens the data dir and the log file',
    JSON.stringify(openedText),
  );

  await page.click('[data-testid=theme-dark]');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  const dark = await theme(page);
  check(dark.bg === '#16181d', 'the dark theme applies at once', dark.bg);
  await page.selectOption('[data-testid=settings-default-agent]', 'second');
  await page.fill('[data-testid=settings-default-folder]', join(home, 'w'));
  await page.press('[data-testid=settings-default-folder]', 'Enter');
  await page.click('[data-testid=notify-finishedTurns]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=notify-finishedTurns]').checked);
  const file = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'));
  check(
    file.theme === 'dark' &&
      file.newSession.agent === 'second' &&
      file.newSession.folder === `file://${join(home, 'w')}` &&
      file.notify.finishedTurns === false &&
      file.notify.approvals === true,
    'settings.json holds the choices',
    JSON.stringify(file),
  );
  await page.evaluate(() => document.querySelector('.settings-page').scrollTo(0, 0));
  await shot(page, 'settings');

  // Escape closes it; Ctrl+, opens it again from anywhere.
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=settings-page]', { state: 'detached' });
  await page.keyboard.press('Control+,');
  await page.waitForSelector('[data-testid=settings-page]');
  check(true, 'Ctrl+, opens Settings', 'after Escape closed it');

  await page.click('[data-testid=app-menu]');
  await page.click('[data-testid=app-menu-about]');
  await page.waitForSelector('[data-testid=about-host][data-host=local] [data-testid=about-host-protocol]');
  await page.waitForFunction(() => document.querySelector('[data-testid=about-version]').textContent !== '…');
  const about = await page.evaluate(() => ({
    version: document.querySelector('[data-testid=about-version]').textContent,
    software: document.querySelector('[data-testid=about-host][data-host=local] [data-testid=about-host-software]')
      .textContent,
    protocol: document.querySelector('[data-testid=about-host][data-host=local] [data-testid=about-host-protocol]')
      .textContent,
  }));
  check(/^\d+\.\d+\.\d+/.test(about.version), 'About shows the app version', about.version);
  check(about.software === `Hangar ${about.version}`, "and the host's software and version", about.software);
  check(about.protocol === '1.0.0', 'and the AHP version negotiated', about.protocol);
  await shot(page, 'about');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=about-dialog]', { state: 'detached' });
  check(await page.isVisible('[data-testid=settings-page]'), 'Escape closes About, not Settings under it', 'open');

  // A refused action is a notice (not about an item on screen): it has a
  // close button, and goes by itself.
  const refuse = () =>
    page.evaluate(
      async (folder) => {
        const { session } = await window.rpc('session.create', { host: 'local', agent: 'echo', folder });
        const { chat } = await window.rpc('chat.open', { host: 'local', session }, () => {});
        const confirm = { host: 'local', chat, turnId: 'none', toolCallId: 'none', approved: true, optionId: 'allow' };
        await window.rpc('chat.confirm', confirm).catch(() => {});
      },
      `file://${join(home, 'w')}`,
    );
  await refuse();
  await page.waitForSelector('[data-testid=app-notice]');
  const notice = await page.textContent('[data-testid=app-notice]');
  check(notice.includes('was refused'), 'a refused action shows a notice', notice);
  await page.click('[data-testid=app-notice] button[aria-label=Close]');
  await page.waitForSelector('[data-testid=app-notice]', { state: 'detached', timeout: 2000 });
  check(true, 'its close button closes it', 'gone');
  await refuse();
  await page.waitForSelector('[data-testid=app-notice]');
  const t0 = Date.now();
  await page.waitForSelector('[data-testid=app-notice]', { state: 'detached', timeout: 20000 });
  check(Date.now() - t0 > 5000, 'another goes by itself after a while', `${Date.now() - t0} ms`);
});

await launch('relaunch', async (page) => {
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  check((await theme(page)).bg === '#16181d', 'after a relaunch the theme is dark from the start', 'kept');
  await page.keyboard.press('Control+,');
  await page.waitForSelector('[data-testid=settings-page]');
  const kept = await page.evaluate(() => ({
    dark: document.querySelector('[data-testid=theme-dark]').checked,
    agent: document.querySelector('[data-testid=settings-default-agent]').value,
    turns: document.querySelector('[data-testid=notify-finishedTurns]').checked,
  }));
  check(kept.dark && kept.agent === 'second' && !kept.turns, 'Settings shows the kept choices', JSON.stringify(kept));
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=new-session-dialog]');
  await page.waitForFunction(() => document.querySelector('[data-testid=folder-path]')?.textContent.includes('/w'));
  const dialog = await page.evaluate(() => ({
    agent: document.querySelector('[data-testid=agent-select]').value,
    folder: document.querySelector('[data-testid=folder-path]').textContent,
  }));
  check(dialog.agent === 'second', 'New session starts with the default agent', dialog.agent);
  check(dialog.folder.endsWith(join(home, 'w')), 'in the default folder', dialog.folder);
});

writeFileSync(join(dataDir, 'settings.json'), '{"theme": "dark",');
await launch('corrupt settings', async (page) => {
  await page.keyboard.press('Control+,');
  const problem = await page.textContent('[data-testid=settings-problem]');
  check(/was not valid.*moved to .*settings\.json\.corrupt-/.test(problem), 'a corrupt file is reported', problem);
  const aside = readdirSync(dataDir).filter((n) => n.startsWith('settings.json.corrupt-'));
  check(aside.length === 1, 'and moved aside, not dropped', aside.join(' '));
  check(await page.isChecked('[data-testid=theme-system]'), 'the defaults are used', 'System');
});

rmSync(home, { recursive: true, force: true });
console.log(`app-settings: ${failed ? 'failed' : 'passed'}`);
process.exit(failed ? 1 : 0);
