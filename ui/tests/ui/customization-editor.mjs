// Customization editor UI test against the real core and the real embedded
// host: in a workspace with `.claude/agents/reviewer.md`, create an agent
// from the template (the form refuses a missing description), see the file
// on disk and the host's entry for it; edit the reviewer while the file
// changes on disk: the save shows both versions and "Keep mine" writes the
// person's; Ctrl+S saves; closing with unsaved changes asks first;
// duplicate, rename and delete move the file and its name; an MCP server's
// Test lists its tools or says why it failed, and its file is edited as text
// (its form: customization-entry-forms.mjs).
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const shots = process.env.SCREENSHOT_DIR;
const home = tempHome('hangar-ui-cust-editor-');
const w = join(home, 'w');
const agentsDir = join(w, '.claude', 'agents');
mkdirSync(agentsDir, { recursive: true });
const reviewer = join(agentsDir, 'reviewer.md');
writeFileSync(reviewer, '---\nname: reviewer\ndescription: Reviews diffs\ncolor: blue\n---\nYou review diffs.\n');
// Two MCP servers for the Test button: the fake agent's tiny stdio server,
// and one that exits saying why.
writeFileSync(
  join(w, '.mcp.json'),
  JSON.stringify({
    mcpServers: {
      tiny: { command: fakeBin, args: ['--mcp-server'] },
      broken: { command: fakeBin, args: ['--mcp-server', '--mcp-server-stderr', 'no API key set'] },
    },
  }),
);
const script = join(home, 'echo.json');
writeFileSync(
  script,
  JSON.stringify({
    newSession: { models: { currentModelId: 'fast-1', availableModels: [{ modelId: 'fast-1', name: 'Fast' }] } },
    turns: [[{ echo: true }, { end: 'end_turn' }]],
  }),
);
const item = (name) => `[data-testid=cust-item][data-kind=agent][data-name="${name}"]`;
const read = (path) => readFileSync(path, 'utf8');

await run('customization-editor', home, [`claude=${fakeBin} --script ${script}`], async (page, check) => {
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.evaluate(
    (folder) => window.rpc('session.create', { host: 'local', agent: 'claude', folder }),
    `file://${w}`,
  );
  await page.click('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]');
  await page.click('[data-testid=customizations-button]');
  await page.waitForSelector(item('reviewer'));

  // An MCP server's Test starts it on the host and lists its tools, or says why not.
  await page.click('[data-kind=mcpServer][data-name=tiny] [data-testid=cust-mcp-test]');
  await page.waitForSelector('[data-testid=cust-mcp-tools]');
  const tools = await page.textContent('[data-testid=cust-mcp-tools]');
  check(
    tools.includes('fake-mcp 1.0.0 answered: 1 tool') && tools.includes('echo'),
    "Test lists the server's tools",
    tools,
  );
  await page.click('[data-kind=mcpServer][data-name=broken] [data-testid=cust-mcp-test]');
  await page.waitForSelector('[data-testid=cust-mcp-error]');
  const why = await page.textContent('[data-testid=cust-mcp-error]');
  check(why.includes('no API key set'), 'a failing server says why, with its stderr', why);
  if (shots) await page.screenshot({ path: join(shots, 'customizations-mcp-test.png') });
  // Its settings file is edited as text too (JSON highlighted); the panel follows the save.
  await page.click('[data-kind=mcpServer][data-name=tiny] [data-testid=cust-edit]');
  await page.waitForSelector('[data-testid=mcp-form]');
  await page.click('[data-testid=cust-editor-raw]');
  await page.waitForSelector('[data-testid=cust-editor-text] .cm-content');
  const servers = JSON.parse(read(join(w, '.mcp.json')));
  servers.mcpServers.extra = { command: fakeBin, args: ['--mcp-server'] };
  await page.fill('[data-testid=cust-editor-text] .cm-content', JSON.stringify(servers, null, 2));
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  check('extra' in JSON.parse(read(join(w, '.mcp.json'))).mcpServers, 'the settings file is saved as edited', '');
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector('[data-kind=mcpServer][data-name=extra]');
  check(true, 'the panel lists the server added in the file', '');

  // A first hook: the agent's settings file exists with other settings and
  // no hooks; the editor takes it as it is and adds the hook.
  writeFileSync(join(w, '.claude', 'settings.json'), '{\n  "model": "sonnet"\n}\n');
  await page.click('[data-testid=cust-new-first][data-kind=hook]');
  await page.waitForSelector('[data-testid=hook-form]');
  await page.fill('[data-testid=hook-matcher]', 'Bash');
  await page.fill('[data-testid=hook-command]', './check.sh');
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  const settingsNow = JSON.parse(read(join(w, '.claude', 'settings.json')));
  check(
    settingsNow.model === 'sonnet' && settingsNow.hooks.PreToolUse[0].hooks[0].command === './check.sh',
    'a first hook goes into the existing settings file, beside its settings',
    JSON.stringify(settingsNow),
  );
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector('[data-testid=cust-item][data-kind=hook]');
  check(true, 'the panel lists the first hook', '');

  // New agent: a name, then the template in the editor.
  await page.click('[data-testid=cust-group][data-kind=agent] [data-testid=cust-new]');
  await page.fill('[data-testid=cust-new-form] input', 'helper');
  await page.press('[data-testid=cust-new-form] input', 'Enter');
  await page.waitForSelector('[data-testid=cust-editor]');
  const where = await page.textContent('[data-testid=cust-editor-path]');
  check(where.endsWith('.claude/agents/helper.md'), 'the editor says where the file will be written', where);
  const description = '[data-testid=cust-field][data-key=description] textarea';
  await page.fill(description, '');
  await page.waitForSelector('[data-testid=cust-field-problem]');
  check(await page.isDisabled('[data-testid=cust-editor-save]'), 'a missing description blocks the save', '');
  await page.fill(description, 'Helps with chores');
  // The model field offers the models the session's agent reports.
  await page.waitForSelector('#cust-field-model-options option[value="fast-1"]', { state: 'attached' });
  check(true, "the model field offers the agent's models", '');
  await page.fill('[data-testid=cust-field][data-key=model] input', 'haiku');
  // Tools are picked from the agent's built-in ones (free entry stays).
  await page.click('[data-testid=cust-field][data-key=tools] [data-testid=cust-chip][data-value=Read]');
  await page.click('[data-testid=cust-field][data-key=tools] [data-testid=cust-chip][data-value=Bash]');
  check(
    (await page.inputValue('[data-testid=cust-field][data-key=tools] textarea')) === 'Read\nBash',
    'picked tools fill the list',
    '',
  );
  // The body's preview renders its markdown (sanitized, as the transcript).
  await page.click('[data-testid=cust-editor-preview-toggle]');
  await page.fill('[data-testid=cust-editor-body] .cm-content', '# Helper\n\nDo **chores**.<script>bad()</script>\n');
  await page.waitForSelector('[data-testid=cust-editor-preview] strong');
  const shown = await page.innerHTML('[data-testid=cust-editor-preview]');
  check(shown.includes('<h1>Helper</h1>') && !shown.includes('<script'), 'the preview renders the body, sanitized', '');
  if (shots) await page.screenshot({ path: join(shots, 'customization-editor-new-agent.png') });
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  const made = read(join(agentsDir, 'helper.md'));
  check(
    made.includes('name: helper') &&
      made.includes('description: Helps with chores') &&
      made.includes('model: haiku') &&
      made.includes('tools:\n  - Read\n  - Bash\n') &&
      made.endsWith('---\n# Helper\n\nDo **chores**.<script>bad()</script>\n'),
    'the new agent is on disk with its fields',
    made,
  );
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector(`${item('helper')} .cust-desc`);
  const listed = await page.textContent(`${item('helper')} .cust-desc`);
  check(listed === 'Helps with chores', "the host's entry for it has the new description", listed);

  // A change on disk while the editor is open and unedited is taken.
  await page.click(`${item('reviewer')} [data-testid=cust-edit]`);
  await page.waitForSelector(description);
  writeFileSync(
    reviewer,
    '---\nname: reviewer\ndescription: Reviews diffs well\ncolor: blue\n---\nYou review diffs.\n',
  );
  await page.waitForFunction((sel) => document.querySelector(sel)?.value === 'Reviews diffs well', description);
  check(true, 'an unedited file that changed on disk is reloaded', '');
  // Edit the reviewer while the file changes on disk: nothing is lost.
  await page.fill(description, 'Reviews diffs, kindly');
  writeFileSync(reviewer, '---\nname: reviewer\ndescription: Changed on disk\ncolor: blue\n---\nYou review diffs.\n');
  await page.keyboard.press('Control+s');
  await page.waitForSelector('[data-testid=cust-conflict]');
  const disk = await page.textContent('[data-testid=cust-conflict-disk]');
  const mine = await page.textContent('[data-testid=cust-conflict-mine]');
  check(
    disk.includes('Changed on disk') && mine.includes('Reviews diffs, kindly'),
    'a changed file shows both versions',
    '',
  );
  check(read(reviewer).includes('Changed on disk'), 'nothing was written over the disk', '');
  if (shots) await page.screenshot({ path: join(shots, 'customization-editor-conflict.png') });
  await page.click('[data-testid=cust-keep-mine]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  const kept = read(reviewer);
  check(
    kept.includes('description: Reviews diffs, kindly') && kept.includes('color: blue'),
    'Keep mine writes the edit, and keeps the keys the form does not show',
    kept,
  );
  // Again, merged by hand: yours in the editor, the disk's beside it.
  await page.fill(description, 'Reviews diffs, mine');
  writeFileSync(reviewer, '---\nname: reviewer\ndescription: Theirs\ncolor: red\n---\nYou review diffs.\n');
  await page.keyboard.press('Control+s');
  await page.waitForSelector('[data-testid=cust-merge]');
  await page.click('[data-testid=cust-merge]');
  await page.waitForSelector('[data-testid=cust-merge-disk] .cm-content');
  const theirs = await page.textContent('[data-testid=cust-merge-disk] .cm-content');
  check(theirs.includes('color: red'), "the disk's version is beside yours", theirs);
  if (shots) await page.screenshot({ path: join(shots, 'customization-editor-merge.png') });
  await page.fill(
    '[data-testid=cust-editor-text] .cm-content',
    '---\nname: reviewer\ndescription: Reviews diffs, mine\ncolor: red\n---\nYou review diffs.\n',
  );
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=cust-merge-disk]'));
  const merged = read(reviewer);
  check(
    merged.includes('description: Reviews diffs, mine') && merged.includes('color: red'),
    'the hand-merged text is saved over the disk’s',
    merged,
  );

  // Unsaved changes: closing asks first.
  await page.fill(description, 'Not saved');
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector('[data-testid=cust-editor-discard]');
  check(true, 'closing with unsaved changes asks first', '');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+s');
  await page.waitForFunction(() => !document.querySelector('.cust-editor h2')?.textContent.includes('unsaved'));
  check(read(reviewer).includes('description: Not saved'), 'Ctrl+S saves', read(reviewer));

  // Duplicate, rename, delete: the file follows, and so does its `name`.
  const nameField = '[data-testid=cust-field][data-key=name] input';
  const rename = async (button, name) => {
    await page.click(button);
    await page.fill('[data-testid=cust-editor-name] input', name);
    await page.press('[data-testid=cust-editor-name] input', 'Enter');
    await page.waitForFunction(
      ([sel, name]) =>
        document.querySelector(sel)?.value === name &&
        !document.querySelector('.cust-editor h2')?.textContent.includes('unsaved'),
      [nameField, name],
    );
  };
  await rename('[data-testid=cust-editor-duplicate]', 'reviewer-two');
  const copy = join(agentsDir, 'reviewer-two.md');
  check(
    read(copy).includes('name: reviewer-two') && read(reviewer).includes('name: reviewer\n'),
    'Duplicate makes a copy under its own name',
    read(copy),
  );
  await rename('[data-testid=cust-editor-rename]', 'critic');
  const critic = join(agentsDir, 'critic.md');
  check(read(critic).includes('name: critic') && !existsSync(copy), 'Rename moves the file and its name', read(critic));
  await page.click('[data-testid=cust-editor-delete]');
  await page.click('[data-testid=cust-editor-delete-confirm] [data-testid=confirm-dialog-ok]');
  await page.waitForSelector('[data-testid=cust-editor]', { state: 'detached' });
  check(!existsSync(critic), 'Delete, after asking, removes the file', '');
  await page.waitForSelector(item('critic'), { state: 'detached' });

  // A kind with no folder yet: "New skill in .claude/skills" makes the folder with the file.
  await page.click('[data-testid=cust-group][data-kind=skill] [data-testid=cust-new]');
  await page.fill('[data-testid=cust-new-form] input', 'deploy');
  await page.press('[data-testid=cust-new-form] input', 'Enter');
  await page.waitForSelector('[data-testid=cust-editor-save]');
  await page.click('[data-testid=cust-editor-save]');
  await page.waitForSelector('[data-testid=cust-editor-note]');
  const skill = read(join(w, '.claude', 'skills', 'deploy', 'SKILL.md'));
  check(skill.includes('name: deploy'), "a first skill goes in the agent's own folder, made for it", skill);
  await page.click('[aria-label="Close the editor"]');
  await page.waitForSelector('[data-testid=cust-item][data-kind=skill][data-name=deploy]');
  check(true, 'the panel lists the new skill', '');
  // The skill's other files are listed in its editor; one opens as text.
  mkdirSync(join(w, '.claude', 'skills', 'deploy', 'scripts'), { recursive: true });
  writeFileSync(join(w, '.claude', 'skills', 'deploy', 'notes.md'), 'Deploy on Fridays? Never.\n');
  await page.click('[data-testid=cust-item][data-kind=skill][data-name=deploy] [data-testid=cust-edit]');
  await page.waitForSelector('[data-testid=skill-files] [data-testid=skill-file]');
  const files = await page.textContent('[data-testid=skill-files]');
  check(files.includes('notes.md') && files.includes('scripts/'), "the skill's other files are listed", files);
  await page.click('[data-testid=skill-file]');
  await page.waitForFunction(() =>
    document.querySelector('[data-testid=cust-editor-text] .cm-content')?.textContent?.includes('Never.'),
  );
  check(true, 'a skill file opens in the editor', '');
  await page.click('[aria-label="Close the editor"]');
});
