// Search UI test: the search palette and the sidebar's filters against real
// hosts. This computer's embedded host holds a session of 102 turns whose
// only "quokka" is in its first turn (the core keeps only the newest ~50 of
// a chat no stream shows, so opening it must fetch older turns from the
// host with fetchTurns); "box" is a real `hangar serve` with a session that
// says "quokka" too; "desk" is saved but down. Ctrl+K opens the palette;
// typing "quok" (the last word matches as a prefix) lists both hosts'
// results with the match marked (<mark>) and a snippet's "<b>" shown as
// text, and says desk did not answer; arrow keys move; Enter opens the old
// turn, scrolled into view, framed and with "quokka" highlighted; a query
// that matches nothing says so; More results adds the next page; Escape
// closes. The sidebar's filters narrow the list by host and state
// (archived), say so, clear in one click and survive a reload.
// Env: see harness.mjs, plus HANGAR_BIN; SCREENSHOT_DIR keeps screenshots.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fakeBin, run, tempHome, withEnv, writeTurns } from './harness.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const hangarBin = process.env.HANGAR_BIN ?? join(root, 'target/debug/hangar');
const home = tempHome('hangar-ui-search-');
const config = join(home, 'config');
mkdirSync(config);
const shots = process.env.SCREENSHOT_DIR;
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
// Saved hosts' tokens in 0600 files: no keyring in the test's session.
const env = { XDG_CONFIG_HOME: config, DBUS_SESSION_BUS_ADDRESS: null, XDG_RUNTIME_DIR: null, DISPLAY: null };

function hangar(args, input = '') {
  const out = spawnSync(hangarBin, args, { input, env: withEnv(env) });
  if (out.status !== 0) throw new Error(`hangar ${args.join(' ')}: ${out.stderr}`);
  return String(out.stdout).trim();
}

/** `hangar serve` on loopback with data in `dir`: `{url, token, stop}`. */
async function serve(dir, extra = []) {
  mkdirSync(join(dir, 'home', 'project'), { recursive: true });
  const args = ['serve', '--data-dir', join(dir, 'data'), '--listen', '127.0.0.1:0', '--no-discover', ...extra];
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
  return { url: ready.url, token, stop };
}

const echo = join(home, 'echo.json');
writeFileSync(echo, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const boxDir = join(home, 'box');
const box = await serve(boxDir, ['--agent', `echo=${fakeBin} --script ${echo}`]);
hangar(['remote', 'add', 'box', box.url, '--token-stdin', '--insecure-token-file'], box.token);
const desk = await serve(join(home, 'desk'));
hangar(['remote', 'add', 'desk', desk.url, '--token-stdin', '--insecure-token-file'], desk.token);
await desk.stop();
const boxId = JSON.parse(hangar(['remote', 'list', '--json'])).find((h) => h.name === 'box').id;
const deskId = JSON.parse(hangar(['remote', 'list', '--json'])).find((h) => h.name === 'desk').id;

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const shot = async (page, name) => {
  if (!shots) return;
  await frames(page);
  await page.screenshot({ path: join(shots, `${name}.png`) });
};
const hostState = (page, id, state) =>
  page.waitForSelector(`[data-testid=host-header][data-host="${id}"][data-state="${state}"]`, { timeout: 90000 });
/** What the palette lists: each hit's host, session, turn, title, snippet HTML. */
const hits = (page) =>
  page.$$eval('[data-testid=search-hit]', (els) =>
    els.map((e) => ({
      host: e.querySelector('[data-testid=search-hit-host]')?.textContent,
      session: e.dataset.session,
      turn: e.dataset.turn,
      selected: e.getAttribute('aria-selected') === 'true',
      snippet: e.querySelector('[data-testid=search-snippet]')?.innerHTML ?? '',
      text: e.textContent,
    })),
  );
const rowUris = (page) => page.$$eval('[data-testid=session-row]', (els) => els.map((e) => e.dataset.uri).sort());

await run(
  'search',
  home,
  [],
  async (page, check) => {
    await hostState(page, boxId, 'connected');
    await hostState(page, deskId, 'unreachable');

    // This computer: 102 turns, "quokka" only in the first one.
    const folder = `file://${join(home, 'w')}`;
    const { session: old } = await page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: null, folder: f }),
      folder,
    );
    await writeTurns(page, old, 1, 'the quokka eats <b>leaves</b> at dawn');
    const { chat: oldChat, streamId } = await writeTurns(page, old, 100, 'lorem ipsum dolor sit amet '.repeat(6));
    // With no stream showing it, the core trims a chat over 100 turns back
    // to the host's newest ~50 at its next change (core/pump.rs,
    // MIRROR_TURNS): the quokka turn is then only on the host.
    await page.evaluate(
      async ([chat, streamId]) => {
        await window.rpc('stream.close', { streamId });
        await window.rpc('chat.send', { host: 'local', chat, text: 'one more, with no stream open' });
        for (let k = 0; ; k++) {
          try {
            await window.rpc('chat.cancel', { host: 'local', chat });
            return;
          } catch (e) {
            if (k > 10000) throw e;
            await new Promise((r) => setTimeout(r, 2));
          }
        }
      },
      [oldChat, streamId],
    );
    await page.evaluate((s) => window.rpc('session.rename', { host: 'local', session: s, title: 'Field notes' }), old);
    // A second local session, archived, for the filters.
    const { session: shelved } = await page.evaluate(
      (f) => window.rpc('session.create', { host: 'local', agent: null, folder: f }),
      folder,
    );
    await page.evaluate((s) => window.rpc('session.archive', { host: 'local', session: s, archived: true }), shelved);
    // box: one turn through its echo agent.
    const boxFolder = `file://${join(boxDir, 'home', 'project')}`;
    const { session: remote } = await page.evaluate(
      ([h, f]) => window.rpc('session.create', { host: h, agent: 'echo', folder: f }),
      [boxId, boxFolder],
    );
    await page.evaluate(
      async ([h, s]) => {
        let done = false;
        const { chat } = await window.rpc('chat.open', { host: h, session: s }, (ev) => {
          for (const op of ev.op === 'batch' ? ev.ops : [ev]) if (op.op === 'turnDone') done = true;
        });
        for (let k = 0; ; k++) {
          try {
            await window.rpc('chat.send', { host: h, chat, text: 'a quokka on the build box' });
            break;
          } catch (e) {
            // Held or refused while the agent starts: try again.
            if (k > 200) throw e;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        const end = Date.now() + 30000;
        while (!done && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
        if (!done) throw new Error('the box turn never finished');
      },
      [boxId, remote],
    );

    // Ctrl+K, then type: results as you type, from both hosts; desk says it did not answer.
    await page.keyboard.press('Control+k');
    await page.waitForSelector('[data-testid=search-palette]');
    const focused = await page.evaluate(() => document.activeElement?.dataset.testid);
    check(focused === 'search-input', 'Ctrl+K opens the palette with the cursor in its box', focused);
    await page.keyboard.type('quok');
    // A host indexes a turn at its end: ask until both hosts' turns are found.
    const deadline = Date.now() + 20000;
    let listed = [];
    for (;;) {
      listed = await hits(page);
      const hosts = new Set(listed.map((h) => h.host));
      if ((hosts.has('This computer') && hosts.has('box')) || Date.now() > deadline) break;
      // Typing again asks again.
      await page.fill('[data-testid=search-input]', 'quok ');
      await page.fill('[data-testid=search-input]', 'quok');
      await page.waitForFunction(() =>
        /result|No results/.test(document.querySelector('[data-testid=search-state]').textContent),
      );
    }
    const mine = listed.find((h) => h.session === old && h.turn);
    const theirs = listed.find((h) => h.session === remote);
    check(
      mine && theirs && theirs.host === 'box' && mine.host === 'This computer',
      'a prefix finds the turns on this computer and on box, each tagged with its host',
      JSON.stringify(listed.map((h) => [h.host, h.text])),
    );
    check(
      mine?.snippet.includes('<mark>quokka</mark>') && mine.snippet.includes('&lt;b&gt;leaves&lt;/b&gt;'),
      'the match is marked and the rest of the snippet is text (a "<b>" is not markup)',
      mine?.snippet,
    );
    check(/Field notes/.test(mine?.text ?? ''), 'a result shows its session title', mine?.text);
    const silent = await page.$$eval('[data-testid=search-silent-host]', (els) => els.map((e) => e.textContent));
    check(
      silent.length === 1 && /^desk did not answer: not reachable/.test(silent[0]),
      'the host that is down says it did not answer, and why',
      silent.join(' | '),
    );
    await shot(page, 'search-palette-results');
    // A figure, not a check: where a search's time goes (debug build).
    const timing = await page.evaluate(async () => (await window.rpc('search', { query: 'quok' })).timing);
    console.log(
      `figure - search of 3 hosts: slowest answer ${timing.slowestMs.toFixed(1)} ms, merge after it ${timing.mergeMs.toFixed(3)} ms`,
    );

    // Arrow keys move (and wrap); Enter opens the old turn.
    const selected = async () => (await hits(page)).findIndex((h) => h.selected);
    const moves = [];
    await page.keyboard.press('ArrowDown');
    moves.push(await selected());
    await page.keyboard.press('ArrowUp');
    moves.push(await selected());
    await page.keyboard.press('ArrowUp');
    moves.push(await selected());
    check(
      moves.join() === `1,0,${listed.length - 1}`,
      'arrow keys move the selection, wrapping at the top',
      `${moves.join()} of ${listed.length}`,
    );
    const index = listed.findIndex((h) => h === mine);
    for (let i = await selected(); i !== index; i = await selected()) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=search-palette]', { state: 'detached' });
    await page.waitForSelector('[data-search-focus=true]', { timeout: 30000 });
    const landed = await page.waitForFunction(
      () => {
        const turn = document.querySelector('[data-search-focus=true]');
        const box = document.querySelector('[data-testid=transcript]').getBoundingClientRect();
        const r = turn.getBoundingClientRect();
        const hl = CSS.highlights?.get('search-match');
        const marked = hl ? [...hl].map((range) => range.toString()) : [];
        return r.top < box.bottom && r.bottom > box.top && marked.length > 0
          ? {
              text: turn.textContent.slice(0, 60),
              mounted: document.querySelectorAll('[data-testid=turn]').length,
              marked,
            }
          : null;
      },
      null,
      { timeout: 20000 },
    );
    const at = await landed.jsonValue();
    check(
      /quokka/.test(at.text) && at.mounted === 102 && at.marked.every((m) => m.toLowerCase() === 'quokka'),
      'Enter opens the session at that turn (older than the ~50 the core holds: fetched from the host), in view, with the match highlighted',
      JSON.stringify(at),
    );
    await shot(page, 'search-opened-turn');

    // Nothing found: it says so, and what was searched.
    await page.keyboard.press('Control+k');
    await page.fill('[data-testid=search-input]', 'zebrafinch');
    const empty = await page.waitForSelector('[data-testid=search-empty]').then((e) => e.textContent());
    check(
      /Nothing matches “zebrafinch” in the 2 hosts that answered/.test(empty),
      'no results says so, naming the query',
      empty,
    );
    await shot(page, 'search-palette-no-results');
    // More than a page: "More results" asks the host with its cursor.
    await page.fill('[data-testid=search-input]', 'lorem');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=search-hit]').length === 20);
    await page.click('[data-testid=search-more]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=search-hit]').length === 40);
    const distinct = await page.$$eval(
      '[data-testid=search-hit]',
      (els) => new Set(els.map((e) => `${e.dataset.session} ${e.dataset.turn}`)).size,
    );
    check(distinct === 40, 'More results adds the next page, nothing repeated', `${distinct} distinct of 40`);
    await page.focus('[data-testid=search-input]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=search-palette]', { state: 'detached' });
    check(true, 'Escape closes the palette', 'closed');

    // Filters: by host, then archived; said, cleared, kept across a reload.
    const all = await rowUris(page);
    await page.selectOption('[data-testid=filter-host]', boxId);
    const onBox = await rowUris(page);
    check(onBox.join() === remote, 'the host filter lists only that host', JSON.stringify(onBox));
    const bar = await page.textContent('[data-testid=filter-bar]');
    check(/Showing: on box/.test(bar), 'the filter says what it shows', bar);
    await page.selectOption('[data-testid=filter-host]', '');
    await page.selectOption('[data-testid=filter-state]', 'archived');
    const archived = await rowUris(page);
    await shot(page, 'sidebar-filter');
    check(archived.join() === shelved, 'Archived lists only archived sessions', JSON.stringify(archived));
    await page.reload();
    await page.waitForSelector('[data-testid=filter-bar]');
    const kept = await page.$eval('[data-testid=filter-state]', (e) => e.value);
    check(kept === 'archived', 'the filter is kept across a reload', kept);
    await page.click('[data-testid=filter-clear]');
    await page.waitForSelector('[data-testid=filter-bar]', { state: 'detached' });
    await hostState(page, boxId, 'connected');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=session-row]').length === n, all.length);
    check(!all.includes(shelved) && all.length === 2, 'Clear lists every unarchived session again', all.join());
  },
  { env },
);
