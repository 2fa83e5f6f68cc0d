// The headless Chromium every UI script drives (Debian's /usr/bin/chromium,
// or $CHROMIUM), with the flags this machine needs: no sandbox as root, no
// GPU, and no background networking (the network is closed; Chromium's own
// connections are refused many at a time otherwise).
import { chromium } from 'playwright-core';

/** The flags every headless Chromium of the UI tests runs with. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * A persistent Chromium context on `userDataDir`, 1280×800, plus `extraArgs`;
 * `context` (optional) changes Playwright's context options (a phone's
 * viewport, touch).
 */
export function launchChromium(userDataDir, extraArgs = [], context = {}) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    ...context,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}
