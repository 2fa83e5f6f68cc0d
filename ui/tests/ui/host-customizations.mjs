// A host's user-level customizations with no session open, against the
// real core and the real embedded host: the host menu's "Customizations…"
// lists what the agent reads under home (a Claude agent in
// ~/.claude/agents), with no switches (a decision belongs to a session);
// Edit changes its description on disk and the list follows the host's
// watcher; New agent writes a second one under home; a folder that does
// not exist yet is listed, and New skill there makes it with the file.
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const shots = process.env.SCREENSHOT_DIR;
const home = tempHome('hangar-ui-host-cust-');
const agents = join(home, '.claude', 'agents');
mkdirSync(agents, { recursive: true });
const helper = join(agents, 'helper.md');
writeFileSync(helper, '---\nname: helper\ndescription: Helps at home\n---\nYou help.\n');
const item = (name) =>
  `[data-testid=host-customizations] [data-testid=cust-item][data-kind=agent][data-name="${name}"]`;

await run('host-customizations', home, [`claude=${fakeBin}`], async (page, check) => {
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.click('[data-host=local] [data-testid=host-menu]');
  await page.click('[data-testid=host-menu-customizations]');
  await page.waitForSelector(item('helper'));
  const desc = await page.textContent(`${item('helper')} .cust-desc`);
  check(desc === 'Helps at home', 'the agent under home is listed with no session open', desc);
  check(
    (await page.$$('[data-testid=host-customizations] [data-testid=cust-switch]')).length === 0,
    'no switches: a decision belongs to a session',
    '',
  );
  if (shots) await page.screenshot({ path: join(shots, 'host-customizations.png') });

  // Edit it: the file under home changes, and the list follows.
  await page.click(`${item('helper')} [data-testid=cust-edit]`);
  const description = '[data-testid=cust-field][data-key=description] textarea';
  await page.waitForSelector(description);
  await page.fill(description, 'Helps everywhere');
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  const saved = readFileSync(helper, 'utf8');
  check(saved.includes('description: Helps everywhere'), 'the file under home is saved', saved);
  await page.click('[aria-label="Close the editor"]');
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent === 'Helps everywhere',
    `${item('helper')} .cust-desc`,
  );
  check(true, "the list follows the host's re-read", '');

  // New agent under home.
  await page.click(
    '[data-testid=host-customizations] [data-testid=cust-group][data-kind=agent] [data-testid=cust-new]',
  );
  await page.fill('[data-testid=cust-new-form] input', 'homebody');
  await page.press('[data-testid=cust-new-form] input', 'Enter');
  await page.waitForSelector('[data-testid=cust-editor-save]');
  const where = await page.textContent('[data-testid=cust-editor-path]');
  check(where.includes('.claude/agents/homebody.md'), 'a new agent goes in the home folder', where);
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  check(readFileSync(join(agents, 'homebody.md'), 'utf8').includes('name: homebody'), 'it is on disk', '');
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector(item('homebody'));
  check(true, 'and listed', '');

  // A first skill under home, in a folder that does not exist yet.
  await page.click(
    '[data-testid=host-customizations] [data-testid=cust-group][data-kind=skill] [data-testid=cust-new] >> nth=0',
  );
  await page.fill('[data-testid=cust-new-form] input', 'standup');
  await page.press('[data-testid=cust-new-form] input', 'Enter');
  await page.waitForSelector('[data-testid=cust-editor-save]');
  const promptPath = await page.textContent('[data-testid=cust-editor-path]');
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  const madePath = promptPath.replace(/^~/, home);
  check(
    madePath.endsWith('.claude/skills/standup/SKILL.md') && existsSync(madePath),
    'a first skill under home is made with its folder',
    madePath,
  );
});
