// UI tests: the real UI (ui/dist) in headless Chromium against the real
// Rust core (hangar-desktop-bridge: embedded host + MultiHostClient) with
// the scripted fake ACP agent. Prints one line per test and a closing
// "N passed, M failed" line.
//
// Env: BRIDGE_BIN, FAKE_AGENT_BIN (default: ../../../target/debug/...),
// CHROMIUM (default /usr/bin/chromium), SCREENSHOT_DIR (optional), UI_DIR
// (optional: serve another build of the UI).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const bridgeBin = process.env.BRIDGE_BIN ?? join(root, 'target/debug/hangar-desktop-bridge');
const fakeBin = process.env.FAKE_AGENT_BIN ?? join(root, 'target/debug/hangar-fake-agent');
const shots = process.env.SCREENSHOT_DIR;
const T = 20000;

const home = mkdtempSync(join(tmpdir(), 'hangar-ui-home-'));
const demo = join(home, 'projects', 'demo');
mkdirSync(demo, { recursive: true });
mkdirSync(join(home, 'projects', 'other'), { recursive: true });
writeFileSync(join(demo, 'hello.txt'), 'hello world\n');
writeFileSync(join(demo, 'main.rs'), 'fn main() {}\n');
const scriptPath = join(home, 'fake-agent.json');
writeFileSync(scriptPath, readFileSync(join(here, 'fake-agent-script.json')));
// Two more agents: one slow to start (its sessions stay `creating` for a
// while), one that never starts (its sessions end `failed`).
const slowScript = join(home, 'slow-agent.json');
writeFileSync(slowScript, JSON.stringify({ initDelayMs: 2500, turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const brokenScript = join(home, 'broken-agent.json');
writeFileSync(brokenScript, JSON.stringify({ failStart: 'broken agent: no API key configured' }));
// One whose turns wait for a permission (so a turn stays running for as
// long as the test needs): prompt 0 and prompts 2+ wait; prompt 1 (the
// steering message, sent inside the same turn) only echoes.
const gate = (id) => [
  { echo: true },
  {
    request: {
      method: 'session/request_permission',
      params: {
        options: [
          { optionId: 'allow', name: 'Go ahead', kind: 'allow_once' },
          { optionId: 'reject', name: 'Stop', kind: 'reject_once' },
        ],
        toolCall: { toolCallId: id, title: `Step ${id}`, kind: 'execute' },
      },
    },
    then: {
      allow: [
        {
          update: {
            sessionUpdate: 'tool_call_update',
            toolCallId: id,
            status: 'completed',
            content: [{ type: 'content', content: { type: 'text', text: `${id} done` } }],
          },
        },
        { chunk: '\n\nWent ahead.' },
      ],
      '*': [{ chunk: '\n\nStopped.' }],
    },
  },
  { end: 'end_turn' },
];
const gatedScript = join(home, 'gated-agent.json');
writeFileSync(
  gatedScript,
  JSON.stringify({ turns: [gate('gate-1'), [{ echo: true }, { end: 'end_turn' }], gate('gate-2'), gate('gate-3')] }),
);
// One that crashes in its first process's first turn; the host starts a
// fresh process for the next turn, which only echoes (the wrapper tells
// the two apart by a marker file, as tests/e2e/tests/acp_turns.rs does).
// The crashing one says why on stderr when it starts, so the reason is in
// the host's stderr tail however late the host reads the pipe after the exit.
const crashScript = join(home, 'crash-agent.json');
writeFileSync(
  crashScript,
  JSON.stringify({
    turns: [[{ chunk: 'Looking into it' }, { crash: { code: 7, stderr: 'crashy agent: giving up' } }]],
  }),
);
const echoScript = join(home, 'echo-agent.json');
writeFileSync(echoScript, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
const crashy = join(home, 'crashy-agent.sh');
const crashMark = join(home, 'crashy-crashed');
writeFileSync(
  crashy,
  `#!/bin/sh\nif [ -e ${crashMark} ]; then exec ${fakeBin} --script ${echoScript}; fi\ntouch ${crashMark}\necho 'crashy agent: lost the connection to the model' >&2\nexec ${fakeBin} --script ${crashScript}\n`,
  { mode: 0o755 },
);

const agents = [
  `fake=${fakeBin} --script ${scriptPath}`,
  `slow=${fakeBin} --script ${slowScript}`,
  `broken=${fakeBin} --script ${brokenScript}`,
  `gated=${fakeBin} --script ${gatedScript}`,
  `crashy=${crashy}`,
];
const bridge = spawn(
  bridgeBin,
  [
    '--no-discover',
    '--data-dir',
    join(home, '.hangar-data'),
    ...agents.flatMap((a) => ['--agent', a]),
    // UI_DIR: another build of the UI (as harness.mjs).
    ...(process.env.UI_DIR ? ['--ui', resolve(process.env.UI_DIR)] : []),
  ],
  {
    env: { ...process.env, HOME: home, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
// Never leave the bridge (and its agents) behind, even when the run dies early.
process.on('exit', () => bridge.kill('SIGTERM'));
const url = await new Promise((res, rej) => {
  const timer = setTimeout(() => rej(new Error('bridge did not start')), 60000);
  bridge.on('exit', (c) => rej(new Error(`bridge exited ${c}`)));
  createInterface({ input: bridge.stdout }).on('line', (l) => {
    const m = /^listening (http:\/\/\S+)/.exec(l);
    if (m) {
      clearTimeout(timer);
      res(m[1]);
    }
  });
});

const browserDir = mkdtempSync(join(tmpdir(), 'hangar-chromium-'));
const ctx = await launchChromium(browserDir);
// Every command the UI sends to the core, in order (to prove a key press
// did *not* answer a confirmation).
await ctx.addInitScript(() => {
  window.__sentCommands = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try {
      window.__sentCommands.push(JSON.parse(data).cmd);
    } catch {
      /* not ours */
    }
    return send.call(this, data);
  };
});
// `window.secondClient()`: a client of the core on a socket of its own to the
// bridge, beside the app's (`{ call(cmd, args, stream?), close() }`).
await ctx.addInitScript(() => {
  window.secondClient = async () => {
    const ws = new WebSocket(`ws://${location.host}/ipc`);
    await new Promise((res, rej) => {
      ws.onopen = res;
      ws.onerror = rej;
    });
    const pending = new Map();
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if ('id' in m && pending.has(m.id)) {
        pending.get(m.id)(m);
        pending.delete(m.id);
      }
    };
    let seq = 0;
    const call = (cmd, args, stream = false) =>
      new Promise((res, rej) => {
        const id = ++seq;
        pending.set(id, (m) => ('err' in m ? rej(new Error(m.err)) : res(m.ok)));
        ws.send(JSON.stringify({ id, cmd, args, stream }));
      });
    return { call, close: () => ws.close() };
  };
});
const page = await ctx.newPage();
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.setDefaultTimeout(T);
await page.goto(url + '/');

let passed = 0,
  failed = 0;
async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok - ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL - ${name}: ${e.stack ?? e}`);
    if (shots) await page.screenshot({ path: join(shots, `failed-${name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
  }
}
const shot = async (name) => {
  if (!shots) return;
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: join(shots, `${name}.png`) });
};
const sentCount = (cmd) => page.evaluate((c) => window.__sentCommands.filter((x) => x === c).length, cmd);
const expectText = (sel, text) =>
  page
    .waitForFunction(([s, t]) => [...document.querySelectorAll(s)].some((e) => e.textContent.includes(t)), [sel, text])
    .catch(async (e) => {
      const seen = await page.$$eval(sel, (els) => els.map((el) => el.textContent.slice(0, 300))).catch(() => []);
      throw new Error(`no ${sel} with ${JSON.stringify(text)}; seen ${JSON.stringify(seen)}: ${e.message}`);
    });

await test('the sidebar shows the embedded host, connected', async () => {
  await expectText('.host-group h2', 'This computer');
  await page.waitForSelector('.conn.up');
});

await test('create a session in a folder picked with resourceList', async () => {
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=folder-picker]');
  await expectText('[data-testid=folder-path]', home);
  await page.click('[data-testid=folder-entry]:has-text("projects")');
  await expectText('[data-testid=folder-path]', '/projects');
  await page.click('[data-testid=folder-entry]:has-text("demo")');
  await expectText('[data-testid=folder-path]', '/projects/demo');
  await shot('new-session-folder-picker');
  await page.click('[data-testid=create-session]');
  await page.waitForSelector('[data-testid=session-row]');
  await page.waitForSelector('[data-testid=composer-input]');
});

await test('send a message and see streamed markdown with a highlighted code fence', async () => {
  // Sent right after creation: if the agent is not ready yet, the core
  // holds the message and sends it when it is (no refusal, no resend).
  await page.fill('[data-testid=composer-input]', 'Plan the change');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=turn]');
  await expectText('.md.assistant', 'Here is the plan');
  await page.waitForSelector('.turn.active, [data-testid=confirmation]');
  // Coloured by highlight.js (Rust only adds the language class).
  await page.waitForSelector('.md.assistant pre code.language-rust .hljs-keyword');
  await expectText('.md.assistant pre code', 'println!');
  await page.waitForSelector('details.reasoning');
  await page.waitForSelector(
    '[data-testid=session-row][data-status=working], [data-testid=session-row][data-status=needs-input]',
  );
});

await test('approve a tool call from its inline card and see the result', async () => {
  await page.waitForSelector('[data-testid=confirmation]');
  await expectText('[data-testid=diff]', 'hello hangar');
  await expectText('[data-testid=inbox-button] .count', '1');
  await page.waitForSelector('[data-testid=session-row][data-status=needs-input]');
  // The row says what the agent waits for, in the host's words.
  await expectText('[data-testid=session-row][data-status=needs-input] .status-word', 'Waiting for approval');
  // The agent's own options (beside them, the host's *Always allow…* / *Never allow…*: rules.mjs).
  const options = '[data-testid=confirmation] button[data-testid^=confirm-]';
  const labels = await page.$$eval(options, (bs) => bs.map((b) => b.textContent));
  if (!labels.some((l) => l.includes('Always allow'))) throw new Error(`host options missing: ${labels}`);
  await shot('chat-confirmation');
  await page.click('[data-testid=inbox-button]');
  await page.waitForSelector('[data-testid=inbox-item]');
  // A tool call can be allowed or denied right in the inbox.
  await page.waitForSelector('[data-testid=inbox-item] [data-testid=inbox-allow]');
  await page.waitForSelector('[data-testid=inbox-item] [data-testid=inbox-deny]');
  await shot('approval-inbox');
  await page.click('[data-testid=inbox-item] button');
  await page.waitForSelector('[data-testid=confirmation]');
  // Each option shows its keys: 1 and y on Allow, 3 and n on Reject.
  const keys = await page.$$eval(options, (bs) =>
    bs.map((b) => [...b.querySelectorAll('kbd')].map((k) => k.textContent).join(' ')),
  );
  if (keys.join('|') !== '1 y|2|3 n') throw new Error(`shortcut keys shown: ${keys.join('|')}`);
  // The keys are legible on their buttons, Allow's blue too: WCAG AA
  // (4.5:1) in both themes, the text's colour and opacity blended over the
  // nearest background (before: white on a light-grey key cap, 1.1:1).
  const themeWas = await page.evaluate(() => document.documentElement.dataset.theme);
  for (const theme of ['light', 'dark']) {
    const ratios = await page.$$eval(
      `${options} kbd`,
      (ks, t) => {
        document.documentElement.dataset.theme = t;
        const rgba = (c) => {
          const [r, g, b, a = 1] = c.match(/[\d.]+/g).map(Number);
          return { r, g, b, a };
        };
        const lum = ({ r, g, b }) => {
          const f = (v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        return ks.map((k) => {
          let bg = null;
          for (let e = k; e && !bg; e = e.parentElement) {
            const c = rgba(getComputedStyle(e).backgroundColor);
            if (c.a > 0) bg = c;
          }
          const fg = rgba(getComputedStyle(k).color);
          const a = fg.a * Number(getComputedStyle(k).opacity);
          const mix = (x, y) => x * a + y * (1 - a);
          const shown = { r: mix(fg.r, bg.r), g: mix(fg.g, bg.g), b: mix(fg.b, bg.b) };
          const [hi, lo] = [lum(shown), lum(bg)].sort((x, y) => y - x);
          return `${k.textContent}:${((hi + 0.05) / (lo + 0.05)).toFixed(1)}`;
        });
      },
      theme,
    );
    console.log(`  shortcut contrast (${theme}): ${ratios.join(' ')}`);
    const low = ratios.filter((r) => Number(r.split(':')[1]) < 4.5);
    if (low.length) throw new Error(`shortcut keys below 4.5:1 in the ${theme} theme: ${low.join(' ')}`);
  }
  await page.evaluate((t) => {
    document.documentElement.dataset.theme = t;
  }, themeWas);
  // Keys that must not answer it: y on a focused button, Enter and Escape
  // on the page, and any key while the new-session dialog is open.
  const before = await sentCount('chat.confirm');
  await page.focus('[data-testid=archive]');
  await page.keyboard.press('y');
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=new-session-dialog]');
  await page.click('[data-testid=new-session-dialog] h2');
  for (const k of ['n', '1', 'y', '3']) await page.keyboard.press(k);
  await page.focus('[data-testid=create-session]');
  await page.keyboard.press('n');
  if ((await sentCount('chat.confirm')) !== before) throw new Error('a key answered the confirmation');
  await page.click('[data-testid=new-session-dialog] button:has-text("Cancel")');
  await page.waitForSelector('[data-testid=new-session-dialog]', { state: 'detached' });
  await page.waitForSelector('[data-testid=confirmation]');
  await expectText('[data-testid=inbox-button] .count', '1');
  // Now `1` on the page picks the first option, Allow.
  await page.keyboard.press('1');
  await expectText('[data-testid=tool-result]', 'Wrote 1 line to hello.txt');
  await expectText('.md.assistant', 'the file now says hello hangar');
  await page.waitForFunction(() => !document.querySelector('.turn.active'));
  await expectText('[data-testid=inbox-button] .count', '0');
  await expectText('.turn-foot', '1200 in');
  await shot('chat-tool-result');
});

await test('queue a message while a turn runs; it starts when the turn ends', async () => {
  await page.fill('[data-testid=composer-input]', 'Follow up please');
  await page.click('[data-testid=send]');
  await page.waitForSelector('[data-testid=queue-button]');
  // The agent echoes it, so its Go fence shows a language beyond the old seven.
  await page.fill('[data-testid=composer-input]', 'Queued question\n\n```go\nfunc main() { return }\n```');
  await page.click('[data-testid=queue-button]');
  await expectText('[data-testid=queued-message]', 'Queued question');
  await shot('chat-queued-message');
  await expectText('.md.assistant', 'echo: Queued question');
  await page.waitForSelector('.md.assistant pre code.language-go .hljs-keyword');
  await page.waitForFunction(() => !document.querySelector('[data-testid=queued-message]'));
});

// The agent's elicitation (fake-agent-script.json, 4th turn) as the real
// form: needs-input in the sidebar while it waits, then the agent's reply
// quoting the typed answers.
async function answerInputRequest() {
  await page.fill('[data-testid=composer-input]', 'Set up the project');
  await page.click('[data-testid=send]');
  const form = '[data-testid=input-request]:not(.done)';
  await page.waitForSelector(form);
  await page.waitForSelector('[data-testid=session-row][data-status=needs-input]');
  await expectText('[data-testid=inbox-button] .count', '1');
  await page.fill(`${form} [data-question=a_name] input[type=text]`, 'hangar-demo');
  await page.check(`${form} [data-question=b_license] label:has-text("Apache 2.0") input`);
  await page.check(`${form} [data-question=c_tests] input[type=checkbox]`);
  await shot('chat-input-request');
  await page.click('[data-testid=input-submit]');
  await page.waitForSelector('[data-testid=input-request][data-response=accept]');
  await expectText('.md.assistant', '{"a_name":"hangar-demo","b_license":"apache-2.0","c_tests":true}');
  await page.waitForFunction(() => !document.querySelector('.turn.active'));
  await page.waitForSelector('[data-testid=session-row]:not([data-status=needs-input])');
  await expectText('[data-testid=inbox-button] .count', '0');
}
await test('answer an input request in its form; the agent quotes the answers', answerInputRequest);

// The 5th turn (repeated for every later prompt): an integer (1–64,
// required), a number (0–1), a multi-select (at least one) and a text.
const openForm = '[data-testid=input-request]:not(.done)';
async function askSizing(text) {
  await page.fill('[data-testid=composer-input]', text);
  await page.click('[data-testid=send]');
  await page.waitForSelector(openForm);
  await expectText(`${openForm} .ir-message`, 'How big should it be?');
}
const lastTurnDone = () => page.waitForFunction(() => !document.querySelector('.turn.active'));

await test('an input request with numbers and a multi-select: bad values are shown, then the answers reach the agent', async () => {
  await askSizing('Size the service');
  await page.fill(`${openForm} [data-question=a_workers] input[type=number]`, '100');
  await page.fill(`${openForm} [data-question=b_ratio] input[type=number]`, '1.5');
  await page.click('[data-testid=input-submit]');
  await expectText(`${openForm} [data-question=a_workers] [data-testid=question-error]`, 'At most 64');
  await expectText(`${openForm} [data-question=b_ratio] [data-testid=question-error]`, 'At most 1');
  await page.fill(`${openForm} [data-question=a_workers] input[type=number]`, '2.5');
  await expectText(`${openForm} [data-question=a_workers] [data-testid=question-error]`, 'whole number');
  await shot('chat-input-validation');
  // Nothing was sent to the agent: the request is still open.
  if (!(await page.$(openForm))) throw new Error('an invalid form was submitted');
  await page.fill(`${openForm} [data-question=a_workers] input[type=number]`, '8');
  await page.fill(`${openForm} [data-question=b_ratio] input[type=number]`, '0.25');
  await page.check(`${openForm} [data-question=c_features] label:has-text("tls") input`);
  await page.check(`${openForm} [data-question=c_features] label:has-text("tracing") input`);
  await page.fill(`${openForm} [data-question=d_notes] input[type=text]`, 'fast start');
  if (await page.$(`${openForm} [data-testid=question-error]`))
    throw new Error('an error is still shown for valid answers');
  await page.click('[data-testid=input-submit]');
  await page.waitForSelector('[data-testid=input-request][data-response=accept]');
  await expectText(
    '.md.assistant',
    '{"a_workers":8,"b_ratio":0.25,"c_features":["tls","tracing"],"d_notes":"fast start"}',
  );
  await lastTurnDone();
});

await test('decline one input request and skip another', async () => {
  await askSizing('Size it again');
  await page.click('[data-testid=input-decline]');
  await page.waitForSelector('[data-testid=input-request][data-response=decline]');
  await expectText('[data-testid=input-outcome]', 'declined');
  await expectText('.md.assistant', 'No sizing then (decline).');
  await lastTurnDone();
  await askSizing('And once more');
  await page.click('[data-testid=input-skip]');
  // Every question skipped: the host tells the agent `cancel`.
  await expectText('.md.assistant', 'No sizing then (cancel).');
  await expectText('[data-testid=input-outcome]', 'skipped');
  await lastTurnDone();
  await expectText('[data-testid=inbox-button] .count', '0');
});

await test('rename a session; the sidebar follows', async () => {
  await page.click('button:has-text("Rename")');
  await page.fill('[data-testid=rename-input]', 'Renamed by the UI test');
  await page.press('[data-testid=rename-input]', 'Enter');
  await expectText('[data-testid=session-row]', 'Renamed by the UI test');
});

await test('dark theme follows the OS', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  // The theme (Settings: System) follows the media query's change event,
  // dispatched at the next rendering update.
  const bgIs = (want) =>
    page
      .waitForFunction((w) => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() === w, want, {
        timeout: 5000,
      })
      .then(
        () => want,
        () => page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()),
      );
  const bg = await bgIs('#16181d');
  if (bg !== '#16181d') throw new Error(`dark background not applied: ${bg}`);
  await shot('chat-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await bgIs('#ffffff');
  if (light !== '#ffffff') throw new Error(`back to light: ${light}`);
});

// A new session with `agent`, in the folder the picker opens on; its URI
// once it is the selected row.
async function newSession(agent) {
  const before = await page.evaluate(() => document.querySelector('.session-row.selected')?.dataset.uri ?? null);
  await page.click('[data-testid=new-session]');
  await page.waitForSelector('[data-testid=folder-entry]');
  await page.selectOption('[data-testid=agent-select]', agent);
  await page.click('[data-testid=create-session]');
  const row = await page.waitForFunction((b) => {
    const sel = document.querySelector('.session-row.selected');
    return sel && sel.dataset.uri !== b && sel.dataset.uri;
  }, before);
  await page.waitForSelector('[data-testid=composer-input]');
  return row.jsonValue();
}

await test('a message typed while the agent starts is held, then becomes a turn', async () => {
  const slow = await newSession('slow');
  await page.waitForSelector('[data-testid=starting]');
  await expectText('[data-testid=chat-status]', 'Starting');
  const slowRow = `[data-testid=session-row][data-uri="${slow}"]`;
  await expectText(`${slowRow}[data-status=starting] .row-sub`, 'Starting');
  await page.fill('[data-testid=composer-input]', 'Typed right away');
  await page.click('[data-testid=send]');
  await expectText('[data-testid=held-message]', 'Typed right away');
  await shot('chat-agent-starting');
  await expectText('.md.assistant', 'echo: Typed right away');
  await page.waitForFunction(() => !document.querySelector('[data-testid=starting], [data-testid=held-message]'));
  await page.waitForSelector(`${slowRow}:not([data-status=starting])`);
  const refused = await page.$$eval('.notice', (ns) =>
    ns.map((n) => n.textContent).filter((t) => t.includes('turnStarted')),
  );
  if (refused.length) throw new Error(`a turn was refused: ${refused}`);
});

await test('a failed start shows the reason; start again, then dispose', async () => {
  const failed = await newSession('broken');
  await expectText('[data-testid=start-error]', 'no API key configured');
  if (!(await page.isDisabled('[data-testid=send]'))) throw new Error('Send is enabled on a failed session');
  await expectText('[data-testid=chat-status]', 'Failed to start');
  await expectText(`[data-testid=session-row][data-uri="${failed}"][data-status=failed] .row-sub`, 'Failed');
  await shot('chat-start-failed');
  await page.click('[data-testid=start-again]');
  // A fresh session with the same agent replaces the failed one (and fails too).
  await page.waitForFunction((u) => {
    const sel = document.querySelector('.session-row.selected');
    return sel && sel.dataset.uri !== u && !document.querySelector(`[data-testid=session-row][data-uri="${u}"]`);
  }, failed);
  await expectText('[data-testid=start-error]', 'no API key configured');
  const second = await page.getAttribute('.session-row.selected', 'data-uri');
  await page.click('[data-testid=dispose-failed]');
  await page.waitForFunction((u) => !document.querySelector(`[data-testid=session-row][data-uri="${u}"]`), second);
  await page.waitForSelector('[data-testid=start-failed]', { state: 'detached' });
});

const queuedTexts = () => page.$$eval('[data-testid=queued-message] .q-text', (els) => els.map((e) => e.textContent));
async function expectQueue(texts) {
  await page
    .waitForFunction(
      (want) =>
        JSON.stringify(
          [...document.querySelectorAll('[data-testid=queued-message] .q-text')].map((e) => e.textContent),
        ) === want,
      JSON.stringify(texts),
    )
    .catch(async (e) => {
      throw new Error(
        `queue is ${JSON.stringify(await queuedTexts())}, expected ${JSON.stringify(texts)}: ${e.message}`,
      );
    });
}
const activeTurn = '.turn.active';
let gatedUri = '';

await test('while a turn runs: queue three, move one up, remove one, steer; the steering message joins the turn', async () => {
  gatedUri = await newSession('gated');
  await page.fill('[data-testid=composer-input]', 'Task one');
  await page.click('[data-testid=send]');
  await page.waitForSelector(`${activeTurn} [data-testid=confirmation]`);
  for (const t of ['Queued A', 'Queued B', 'Queued C']) {
    await page.fill('[data-testid=composer-input]', t);
    await page.click('[data-testid=queue-button]');
  }
  await expectQueue(['Queued A', 'Queued B', 'Queued C']);
  await page.click('[data-testid=queued-message]:has-text("Queued C") button[title="Move up"]');
  await expectQueue(['Queued A', 'Queued C', 'Queued B']);
  await page.click('[data-testid=queued-message]:has-text("Queued A") button[title="Remove"]');
  await expectQueue(['Queued C', 'Queued B']);
  await page.fill('[data-testid=composer-input]', 'Steer: keep it short');
  await page.click('[data-testid=steer]');
  await expectText('[data-testid=steering]', 'Steer: keep it short');
  await shot('chat-queue-and-steer');
  // Let the turn go on: its prompt ends, the steering message is sent
  // inside the same turn, then the first queued message starts.
  await page.click(`${activeTurn} [data-testid=confirmation] button:has-text("Go ahead")`);
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid=turn]')].some(
      (t) =>
        t.querySelector('.user-msg')?.textContent === 'Task one' &&
        t.textContent.includes('echo: Steer: keep it short'),
    ),
  );
  await page.waitForSelector('[data-testid=steering]', { state: 'detached' });
  await expectText(`${activeTurn} .user-msg`, 'Queued C');
  await expectQueue(['Queued B']);
});

await test('cancel the running turn: it shows cancelled and the next queued message starts', async () => {
  await page.waitForSelector(`${activeTurn} [data-testid=confirmation]`);
  await page.click('[data-testid=cancel-turn]');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.turn.cancelled')].some(
      (t) => t.querySelector('.user-msg')?.textContent === 'Queued C',
    ),
  );
  await expectText('.turn.cancelled .badge', 'cancelled');
  await expectText(`${activeTurn} .user-msg`, 'Queued B');
  await page.click(`${activeTurn} [data-testid=confirmation] button:has-text("Go ahead")`);
  await page.waitForFunction(() => !document.querySelector('.turn.active'));
  const order = await page.$$eval('[data-testid=turn] .user-msg', (els) => els.map((e) => e.textContent));
  if (JSON.stringify(order) !== JSON.stringify(['Task one', 'Queued C', 'Queued B']))
    throw new Error(`turns: ${JSON.stringify(order)}`);
  await shot('chat-cancelled-turn');
});

let crashyUri = '';
await test('an agent crash shows the error in the turn; the next message works', async () => {
  crashyUri = await newSession('crashy');
  await page.fill('[data-testid=composer-input]', 'Do the risky thing');
  await page.click('[data-testid=send]');
  await expectText('[data-testid=turn-error]', 'exit status: 7');
  await expectText('[data-testid=turn-error]', 'lost the connection to the model');
  // Only the error is red, not the whole turn.
  const colours = await page.evaluate(() =>
    [...document.querySelectorAll('.turn.error .user-msg, [data-testid=turn-error]')].map(
      (e) => getComputedStyle(e).color,
    ),
  );
  if (colours.length !== 2 || colours[0] === colours[1])
    throw new Error(`turn text coloured like its error: ${colours}`);
  await page.waitForFunction(() => !document.querySelector('.turn.active'));
  // The host does not mark a crash resumable: no Retry.
  if (await page.$('[data-testid=retry]')) throw new Error('Retry offered on an error that is not resumable');
  await shot('chat-turn-error');
  await page.fill('[data-testid=composer-input]', 'Try again');
  await page.click('[data-testid=send]');
  await expectText('.md.assistant', 'echo: Try again');
  await page.waitForFunction(() => !document.querySelector('.turn.active'));
});

const openRow = async (uri) => {
  await page.click(`[data-testid=session-row][data-uri="${uri}"]`);
  await page.waitForSelector(`.session-row.selected[data-uri="${uri}"]`);
  await page.waitForSelector('[data-testid=composer-input]');
};

await test('a draft survives switching to another session and back', async () => {
  await openRow(crashyUri);
  await page.fill('[data-testid=composer-input]', 'half-written thought');
  await openRow(gatedUri);
  await page.waitForFunction(() => document.querySelector('[data-testid=composer-input]').value === '');
  await openRow(crashyUri);
  await page.waitForFunction(
    () => document.querySelector('[data-testid=composer-input]').value === 'half-written thought',
  );
  // It also survives a switch after the draft reached the host.
  await openRow(gatedUri);
  await openRow(crashyUri);
  await page.waitForFunction(
    () => document.querySelector('[data-testid=composer-input]').value === 'half-written thought',
  );
});

await test('a turn finishing in a session that is not open marks it unread; opening it clears the mark', async () => {
  await openRow(gatedUri);
  const row = `[data-testid=session-row][data-uri="${crashyUri}"]`;
  await page.waitForSelector(`${row}[data-unread=false]`);
  if (await page.$(`${row} .unread-dot`)) throw new Error('unread before anything happened');
  // A second client of the core (its own connection to the bridge) sends a message there.
  const host = await page.getAttribute(row, 'data-host');
  await page.evaluate(
    async ({ host, session }) => {
      const { call, close } = await window.secondClient();
      const opened = await call('chat.open', { host, session }, true);
      await call('chat.send', { host, chat: opened.chat, text: 'From another client' });
      await call('stream.close', { streamId: opened.streamId });
      close();
    },
    { host, session: crashyUri },
  );
  await page.waitForSelector(`${row} .unread-dot`);
  await shot('sidebar-unread');
  await page.click(row);
  await expectText('.md.assistant', 'echo: From another client');
  await page.waitForSelector(`${row} .unread-dot`, { state: 'detached' });
});

await test('archive a session, find it under Show archived, unarchive it', async () => {
  await openRow(gatedUri);
  const row = `[data-testid=session-row][data-uri="${gatedUri}"]`;
  await page.click('[data-testid=archive]');
  await page.waitForSelector(row, { state: 'detached' });
  await expectText('[data-testid=archive]', 'Unarchive');
  await page.check('[data-testid=show-archived]');
  await page.waitForSelector(row);
  if (await page.$(`[data-testid=session-row][data-uri="${crashyUri}"]`)) {
    const rows = await page.$$eval('[data-testid=session-row]', (els) =>
      els.map((e) => `${e.dataset.uri} ${e.textContent}`),
    );
    throw new Error(`a live session is listed as archived: ${rows.join(' | ')}`);
  }
  await shot('sidebar-archived');
  await page.click('[data-testid=archive]');
  await page.waitForSelector(row, { state: 'detached' });
  await page.uncheck('[data-testid=show-archived]');
  await page.waitForSelector(row);
  await expectText('[data-testid=archive]', 'Archive');
});

await test('dispose asks in the app first; cancel keeps the session, confirm removes it', async () => {
  await openRow(gatedUri);
  const row = `[data-testid=session-row][data-uri="${gatedUri}"]`;
  await page.click('[data-testid=dispose]');
  await page.waitForSelector('[data-testid=dispose-dialog]');
  await shot('dispose-confirmation');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=dispose-dialog]', { state: 'detached' });
  await page.click('[data-testid=dispose]');
  await page.click('[data-testid=dispose-dialog] [data-testid=confirm-dialog-cancel]');
  await page.waitForSelector('[data-testid=dispose-dialog]', { state: 'detached' });
  await page.waitForSelector(row);
  await page.click('[data-testid=dispose]');
  await page.click('[data-testid=dispose-dialog] [data-testid=confirm-dialog-ok]');
  await page.waitForSelector(row, { state: 'detached' });
  await page.waitForSelector('[data-testid=chat-title]', { state: 'detached' });
});

await test('six messages fired at once over one socket are queued in the order sent', async () => {
  const uri = await newSession('gated');
  await page.fill('[data-testid=composer-input]', 'Task fired');
  await page.click('[data-testid=send]');
  await page.waitForSelector(`${activeTurn} [data-testid=confirmation]`);
  const texts = [1, 2, 3, 4, 5, 6].map((n) => `Fired ${n}`);
  const host = await page.getAttribute(`[data-testid=session-row][data-uri="${uri}"]`, 'data-host');
  await page.evaluate(
    async ({ host, session, texts }) => {
      const { call, close } = await window.secondClient();
      const opened = await call('chat.open', { host, session }, true);
      // Not awaited one by one: the frames leave back to back.
      await Promise.all(texts.map((text) => call('chat.queue', { host, chat: opened.chat, text, kind: 'queued' })));
      await call('stream.close', { streamId: opened.streamId });
      close();
    },
    { host, session: uri, texts },
  );
  await expectQueue(texts);
});

await test('no page errors', async () => {
  if (consoleErrors.length) throw new Error(consoleErrors.join('\n'));
});

await ctx.close();
bridge.kill('SIGTERM');
rmSync(browserDir, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });
console.log(`ui: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
