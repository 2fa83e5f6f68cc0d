// The installed app, as a person opens it: /usr/bin/hangar-desktop (from the
// package scripts/check-package.sh installs) in a real window on the X
// display, driven through Debian's WebKitWebDriver, with a temp HOME and data
// dir and no agents. Passes when the window shows the app's "New session"
// button, drawn by the UI embedded in the installed binary. Prints one line
// per test and a closing "N passed, M failed" line.
//
// Env: APP_BIN (default /usr/bin/hangar-desktop), WEBKIT_DRIVER, SCREENSHOT_DIR.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killByMarker, Session, startDriver } from './webdriver.mjs';

const appBin = process.env.APP_BIN ?? '/usr/bin/hangar-desktop';
const shots = process.env.SCREENSHOT_DIR;
const home = mkdtempSync(join(tmpdir(), 'hangar-installed-home-'));

let driver;
let wd;
let passed = 0;
let failed = 0;
const watchdog = setTimeout(() => {
  console.log('FAIL - installed app: the run took more than 90 s');
  killByMarker(home);
  process.exit(1);
}, 90000);

try {
  driver = await startDriver({
    driverBin: process.env.WEBKIT_DRIVER ?? 'WebKitWebDriver',
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local/share'),
    },
  });
  wd = await Session.create(driver.base, {
    binary: appBin,
    args: ['--no-discover', '--data-dir', join(home, 'hangar-data')],
    timeoutMs: 30000,
  });
  const label = await wd.waitEl('[data-testid=new-session]', 'New session', 30000);
  if (!label) throw new Error('no "New session" button');
  const title = await wd.exec('return document.title;');
  if (title !== 'Hangar') throw new Error(`window title ${JSON.stringify(title)}, expected "Hangar"`);
  if (shots) writeFileSync(join(shots, 'installed-app.png'), await wd.screenshot());
  passed++;
  console.log(`ok - the installed ${appBin} opens its window and shows "New session"`);
} catch (e) {
  failed++;
  console.log(`FAIL - the installed ${appBin} opens its window and shows "New session": ${e.stack ?? e}`);
} finally {
  clearTimeout(watchdog);
  if (wd) await wd.delete().catch(() => {});
  await driver?.kill();
  killByMarker(home);
  rmSync(home, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
