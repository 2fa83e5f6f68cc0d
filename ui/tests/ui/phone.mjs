// Phone UI test, at 390×844 with touch: the session list says each
// session's state in words under its host; a pending confirmation puts the
// approvals first, and is answered in the chat opened from it (full width,
// with a back control); the turn's change is read as a wrapped unified diff
// and one hunk undone (the disk follows), the other kept; no screen is wider
// than the viewport, touch targets are at least 44×44 px and text 16 px.
// Then a bad network: the page's socket to the core is cut (an init script
// sends its reconnects to a closed port and closes the open one); a message
// sent meanwhile says "Waiting to send" while the chat keeps its last state,
// marked reconnecting, and is delivered exactly once when the socket is
// back; a second one survives a page reload made while cut, and is
// delivered once after, and not again after another reload; a third, typed
// while the core itself is stopped, reaches it once it is started again on
// the same data dir and port. Last, browser
// notifications: "Notify me" asks (on the click), and a new confirmation
// while the page is hidden shows one whose click opens that session.
// Env: see harness.mjs; SCREENSHOT_DIR keeps screenshots at 390×844 and
// 1280×800.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-phone-');
const long = `const message = "${'a long line that a phone must wrap instead of scrolling sideways, '.repeat(4)}";`;
const original = [...Array.from({ length: 12 }, (_, i) => `line ${i + 1}`), long, ''].join('\n');
const edited = original.replace('line 2\n', 'line 2, improved\n').replace(long, long.replace('const', 'let'));
writeFileSync(join(home, 'w', 'notes.txt'), original);
const notes = () => readFileSync(join(home, 'w', 'notes.txt'), 'utf8');
// Each prompt asks to edit notes.txt; allowed, the agent writes it.
const ask = (id) => [
  { echo: true },
  {
    request: {
      method: 'session/request_permission',
      params: {
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
        toolCall: { toolCallId: id, title: 'Edit notes.txt', kind: 'edit' },
      },
    },
    then: {
      allow: [
        { writeFile: { path: 'notes.txt', text: edited } },
        { update: { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed' } },
        { chunk: 'Edited notes.txt.' },
      ],
      '*': [{ chunk: 'Left it.' }],
    },
  },
  { end: 'end_turn' },
];
const askScript = join(home, 'ask.json');
writeFileSync(askScript, JSON.stringify({ turns: [ask('edit-1'), ask('edit-2')] }));
const echoScript = join(home, 'echo.json');
writeFileSync(echoScript, JSON.stringify({ turns: [[{ echo: true }, { end: 'end_turn' }]] }));
// One that asks the person a question (an input request) before it answers.
const question = {
  message: 'Which name should the project have?',
  schema: {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string', title: 'Project name' } },
  },
};
const questionScript = join(home, 'question.json');
writeFileSync(
  questionScript,
  JSON.stringify({
    turns: [
      [
        { elicit: question, then: { accept: [{ chunk: 'Named it $ANSWER' }], '*': [{ chunk: 'No name.' }] } },
        { end: 'end_turn' },
      ],
    ],
  }),
);
const shots = process.env.SCREENSHOT_DIR;

// The page's socket to the core, cut on demand (kept cut across a reload),
// and browser notifications recorded, with the page's visibility set by the test.
const init = () => {
  const Real = window.WebSocket;
  const sockets = [];
  window.WebSocket = class extends Real {
    constructor(url, protocols) {
      const ipc = String(url).endsWith('/ipc');
      super(ipc && localStorage.getItem('test.cut') === '1' ? 'ws://127.0.0.1:9/ipc' : url, protocols);
      if (ipc) sockets.push(this);
    }
  };
  window.__cut = () => {
    localStorage.setItem('test.cut', '1');
    for (const s of sockets) s.close();
  };
  window.__uncut = () => localStorage.removeItem('test.cut');
  // The test's own calls, on a socket of their own that is never cut. A
  // stream command answers with its reply and the first snapshot, then closes.
  window.__rpc = (cmd, args, stream = false) =>
    new Promise((resolve, reject) => {
      const ws = new Real(`ws://${location.host}/ipc`);
      let reply;
      let snapshot;
      ws.onerror = () => reject(new Error(`no socket for ${cmd}`));
      ws.onopen = () => ws.send(JSON.stringify({ id: 1, cmd, args, stream }));
      ws.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.id === 1) {
          if ('err' in m) reject(new Error(m.err));
          reply = m.ok;
        }
        const ops = m.event ? (m.event.op === 'batch' ? m.event.ops : [m.event]) : [];
        snapshot ??= ops.find((o) => o.op === 'snapshot');
        if (reply !== undefined && (!stream || snapshot)) {
          resolve(stream ? { ...reply, snapshot } : reply);
          ws.close();
        }
      };
    });
  window.__hidden = false;
  Object.defineProperty(document, 'hidden', { get: () => window.__hidden });
  window.__notes = [];
  const RealNote = window.Notification;
  window.Notification = class extends RealNote {
    constructor(title, options) {
      super(title, options);
      window.__notes.push({ title, note: this });
    }
  };
};

await run(
  'phone',
  home,
  [
    `asker=${fakeBin} --script ${askScript}`,
    `echo=${fakeBin} --script ${echoScript}`,
    `questioner=${fakeBin} --script ${questionScript}`,
  ],
  async (page, check, _home, { ctx, core }) => {
    const shot = async (name) => {
      if (shots) await page.screenshot({ path: join(shots, `${name}.png`) });
    };
    // No element wider than the viewport, touch targets, text sizes.
    const fits = async (screen) => {
      const m = await page.evaluate(() => {
        const small = [...document.querySelectorAll('button, select, input, textarea, a[href]')]
          .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
          // A check box or radio button is tapped through its label.
          .map((el) => ({
            el,
            r: (['checkbox', 'radio'].includes(el.type) ? (el.closest('label') ?? el) : el).getBoundingClientRect(),
          }))
          .filter(({ r }) => r.width > 0 && (r.width < 44 || r.height < 44))
          .map(({ el, r }) => `${el.dataset.testid ?? el.textContent.trim().slice(0, 20)} ${r.width}×${r.height}`);
        const tiny = [...document.querySelectorAll('textarea, input, select')]
          .filter((el) => el.getClientRects().length > 0)
          .filter((el) => Number.parseFloat(getComputedStyle(el).fontSize) < 16)
          .map((el) => el.dataset.testid ?? el.tagName);
        // Whatever sticks out past the right edge (also where a box clips it).
        const out = [...document.querySelectorAll('body *')]
          .filter((el) => el.getClientRects().length > 0)
          .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5)
          .map((el) => el.dataset.testid ?? `${el.tagName}.${el.className}`);
        return {
          out,
          scroll: document.documentElement.scrollWidth,
          width: innerWidth,
          small,
          tiny,
          body: Number.parseFloat(getComputedStyle(document.body).fontSize),
        };
      });
      check(
        m.scroll <= m.width && m.out.length === 0,
        `${screen}: nothing wider than the screen`,
        `${m.scroll} <= ${m.width}; past the edge: ${m.out.slice(0, 5).join(', ') || 'none'}`,
      );
      check(m.small.length === 0, `${screen}: every touch target is at least 44×44`, m.small.join(', ') || 'all');
      check(m.tiny.length === 0 && m.body >= 16, `${screen}: text at 16 px or more`, `${m.body}; ${m.tiny}`);
    };
    // Send a message on a session's chat from the test's own socket.
    const say = (session, text) =>
      page.evaluate(
        async ([s, t]) => {
          const { chat } = await window.__rpc('chat.open', { host: 'local', session: s }, true);
          await window.__rpc('chat.send', { host: 'local', chat, text: t });
        },
        [session, text],
      );
    const folder = `file://${join(home, 'w')}`;
    const created = await page.evaluate(
      (f) =>
        Promise.all([
          window.rpc('session.create', { host: 'local', agent: 'asker', folder: f }),
          window.rpc('session.create', { host: 'local', agent: 'echo', folder: f }),
        ]),
      folder,
    );
    const [asker, echo] = created.map((c) => c.session);
    await page.evaluate((s) => window.rpc('session.rename', { host: 'local', session: s, title: 'Notes' }), asker);
    await page.evaluate((s) => window.rpc('session.rename', { host: 'local', session: s, title: 'Chat' }), echo);

    // The list: states in words, under the host.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-row]').length === 2);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid=session-row] .status-word')].every((e) =>
        /^(Idle|Starting)$/.test(e.textContent),
      ),
    );
    const host = await page.textContent('[data-testid=host-group] h2');
    check(host.includes('This computer'), 'the sessions are listed under their host', host);
    const listWidth = await page.$eval('.sidebar', (el) => [el.getBoundingClientRect().width, innerWidth]);
    check(listWidth[0] === listWidth[1], 'the list fills the screen (nothing beside it)', listWidth.join(' of '));

    // A turn that waits for the person: the approvals come first.
    await say(asker, 'Improve the notes');
    await page.waitForSelector('[data-testid=inbox-item]');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid=session-row] .status-word')].some((e) =>
        e.textContent.startsWith('Waiting for approval'),
      ),
    );
    const order = await page.evaluate(
      () =>
        document.querySelector('[data-testid=inbox-item]').getBoundingClientRect().top <
        document.querySelector('[data-testid=session-row]').getBoundingClientRect().top,
    );
    check(order, 'a pending confirmation is listed before the sessions', String(order));
    const words = await page.$$eval('[data-testid=session-row] .status-word', (els) => els.map((e) => e.textContent));
    check(words.includes('Idle'), 'each row says its state in words', words.join(' | '));
    await fits('list');
    await shot('phone-list-approval');

    // Open it from the inbox: the chat, full width, with a back control; allow there.
    await page.tap('[data-testid=inbox-item] button:has-text("Edit notes.txt")');
    await page.waitForSelector('[data-testid=confirmation]');
    check(await page.isVisible('[data-testid=phone-back]'), 'the chat has a back control', '');
    check(!(await page.isVisible('[data-testid=session-row]')), 'the chat fills the screen', '');
    // Every badge in words: the wire's tokens (pending-confirmation, …) never show.
    const badges = await page.$$eval('.badge, .status-word', (els) => els.map((e) => e.textContent.trim()));
    const raw = badges.filter((b) => /^[a-z]+(-[a-z]+)+$/.test(b) && b !== 'needs sign-in');
    check(
      badges.includes('waiting for you') && raw.length === 0,
      'the confirmation’s badge says “waiting for you”, no raw state shows',
      badges.join(' | '),
    );
    await fits('chat with a confirmation');
    await shot('phone-chat-confirmation');
    await page.tap('[data-testid=confirmation] [data-testid=confirm-approve]');
    await page.waitForSelector('[data-testid=turn]:not(.active)');
    await page.waitForFunction(() => !document.querySelector('[data-testid=confirmation]'));
    check(notes() === edited, 'the allowed edit reached the disk', '');

    // The change: a unified diff, long lines wrapped; undo one hunk, keep the other.
    await page.tap('[data-testid=changes-button]');
    await page.tap('[data-testid=change-file][data-path="notes.txt"] .change-name');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 2);
    check(!(await page.isVisible('[data-testid=split-toggle]')), 'no side by side on a phone', '');
    const box = await page.$eval('[data-testid=diff-unified]', (el) => [el.scrollWidth, el.clientWidth]);
    check(box[0] <= box[1], 'the diff wraps its long lines (no sideways scrolling)', box.join(' <= '));
    await fits('changes');
    await shot('phone-changes');
    await page.locator('[data-testid=hunk-undo]').first().tap();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=hunk]').length === 1);
    const afterUndo = notes();
    check(
      afterUndo.includes('line 2\n') && afterUndo.includes(long.replace('const', 'let')),
      'undoing one hunk restores that line only',
      afterUndo,
    );
    await page.tap('[data-testid=hunk-keep]');
    await page.waitForSelector('[data-testid=changes-empty]');
    check(notes() === afterUndo, 'keeping the other leaves the disk as it is', '');
    await page.tap('[data-testid=changes-panel] [aria-label="Close changes"]');
    await page.tap('[data-testid=phone-back]');
    await page.waitForSelector('[data-testid=session-row]');

    // An input request: listed first, answered in the chat's form.
    const asked = await page.evaluate(
      (f) => window.__rpc('session.create', { host: 'local', agent: 'questioner', folder: f }),
      folder,
    );
    await say(asked.session, 'Set up the project');
    await page.waitForSelector('[data-testid=inbox-item]');
    await page.tap('[data-testid=inbox-item] button');
    const form = '[data-testid=input-request]:not(.done)';
    await page.waitForSelector(form);
    await page.fill(`${form} input[type=text]`, 'hangar-phone');
    await fits('chat with an input request');
    await shot('phone-input-request');
    await page.tap('[data-testid=input-submit]');
    await page.waitForSelector('[data-testid=input-request][data-response=accept]');
    await page.waitForFunction(() => document.querySelector('.md.assistant')?.textContent.includes('hangar-phone'));
    check(true, 'an input request is answered from the phone', '');
    await page.tap('[data-testid=phone-back]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=inbox-item]'));

    // A bad network. The other session, one turn in.
    await page.tap('[data-testid=session-row][data-uri="' + echo + '"]');
    await page.waitForSelector('[data-testid=composer-input]:not([disabled])');
    await page.fill('[data-testid=composer-input]', 'first line');
    await page.press('[data-testid=composer-input]', 'Enter');
    const still = await page.inputValue('[data-testid=composer-input]');
    check(still === 'first line\n', 'on a phone Enter starts a new line instead of sending', JSON.stringify(still));
    await page.fill('[data-testid=composer-input]', 'hello before the tunnel');
    await page.tap('[data-testid=send]');
    await page.waitForSelector('[data-testid=turn]:not(.active)');
    await fits('chat');
    await shot('phone-chat');
    // How many of the chat's turns carry this message.
    const sent = (text) =>
      page.evaluate(
        async ([s, t]) => {
          const { snapshot } = await window.__rpc('chat.open', { host: 'local', session: s }, true);
          const turns = [...snapshot.turns, ...(snapshot.active ? [snapshot.active] : [])];
          return turns.filter((x) => x.message.text === t).length;
        },
        [echo, text],
      );
    const deliveredOnce = async (text) => {
      // Polled until it arrives (30 s at most); then it must be there once.
      for (const deadline = Date.now() + 30000; Date.now() < deadline; await page.waitForTimeout(100)) {
        const n = await sent(text);
        if (n > 0) return n;
      }
      return 0;
    };
    const outbox = () =>
      page.evaluate(() =>
        Object.keys(localStorage)
          .filter((k) => k.startsWith('hangar.outbox:'))
          .flatMap((k) => JSON.parse(localStorage.getItem(k)).map((e) => e.text)),
      );

    await page.evaluate(() => window.__cut());
    await page.waitForSelector('[data-testid=reconnecting]');
    await page.fill('[data-testid=composer-input]', 'typed in the tunnel');
    await page.tap('[data-testid=send]');
    await page.waitForSelector('[data-testid=outbox-message]:has-text("Waiting to send")');
    const kept = await page.textContent('[data-testid=transcript]');
    check(kept.includes('hello before the tunnel'), 'the chat keeps its last state while reconnecting', '');
    check((await outbox()).includes('typed in the tunnel'), 'the message is kept in the browser', '');
    await fits('chat, reconnecting');
    await shot('phone-waiting-to-send');
    await page.evaluate(() => window.__uncut());
    await page.waitForFunction(() => !document.querySelector('[data-testid=outbox-message]'), null, { timeout: 30000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid=reconnecting]'));
    check((await deliveredOnce('typed in the tunnel')) === 1, 'delivered exactly once after the reconnect', '');
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-testid=turn] .user-msg')].filter((e) =>
          e.textContent.includes('typed in the tunnel'),
        ).length === 1,
    );
    check(true, 'the resynchronised chat shows it once', '');

    // Cut again; the message survives a reload made while cut.
    await page.evaluate(() => window.__cut());
    await page.waitForSelector('[data-testid=reconnecting]');
    await page.fill('[data-testid=composer-input]', 'typed before the reload');
    await page.tap('[data-testid=send]');
    await page.waitForSelector('[data-testid=outbox-message]');
    await page.reload();
    await page.waitForSelector('[data-testid=reconnecting]');
    check((await outbox()).includes('typed before the reload'), 'the waiting message survives a reload', '');
    await page.evaluate(() => window.__uncut());
    check(
      (await deliveredOnce('typed before the reload')) === 1,
      'delivered exactly once after reload and reconnect',
      '',
    );
    await page.waitForFunction(() => !document.querySelector('[data-testid=reconnecting]'));
    await page.waitForFunction(() => !Object.keys(localStorage).some((k) => k.startsWith('hangar.outbox:')));
    await page.reload();
    await page.waitForSelector('[data-testid=session-row]');
    await page.tap('[data-testid=session-row][data-uri="' + echo + '"]');
    await page.waitForSelector('[data-testid=turn] .user-msg:has-text("typed before the reload")');
    const counts = await Promise.all(['typed in the tunnel', 'typed before the reload'].map(sent));
    check(counts.join() === '1,1', 'nothing is sent again after another reload', counts.join());

    // The core itself down: the bridge stopped, then started again on the
    // same data dir and port; the page's own retries find it.
    await core.down();
    await page.waitForSelector('[data-testid=reconnecting]');
    await page.fill('[data-testid=composer-input]', 'typed while the core was down');
    await page.tap('[data-testid=send]');
    await page.waitForSelector('[data-testid=outbox-message]');
    const shown = await page.textContent('[data-testid=transcript]');
    check(shown.includes('typed before the reload'), 'the chat stays shown while the core is down', '');
    await core.up();
    await page.waitForFunction(() => !document.querySelector('[data-testid=outbox-message]'));
    check(
      (await deliveredOnce('typed while the core was down')) === 1,
      'delivered exactly once to the restarted core',
      '',
    );
    await page.waitForSelector('[data-testid=turn] .user-msg:has-text("typed while the core was down")');
    await page.waitForFunction(() => !document.querySelector('[data-testid=reconnecting]'));
    await page.tap('[data-testid=phone-back]');

    // Browser notifications: asked on a click; a new confirmation while hidden shows one.
    await page.tap('[data-testid=inbox-button]');
    await page.waitForSelector('[data-testid=notify-me]');
    await fits('approvals');
    const before = await page.evaluate(() => Notification.permission);
    check(before === 'default', 'not asked before the click', before);
    await ctx.grantPermissions(['notifications']);
    await page.tap('[data-testid=notify-me]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=notify-me]'));
    await page.tap('[data-testid=phone-back]');
    await page.evaluate(() => {
      window.__hidden = true;
    });
    await say(asker, 'Once more');
    await page.waitForFunction(() => window.__notes.length > 0);
    const title = await page.evaluate(() => window.__notes.map((n) => n.title).join(' | '));
    check(title === 'Allow? Edit notes.txt', 'a hidden page notifies of the new confirmation', title);
    await page.evaluate(() => {
      window.__hidden = false;
      window.__notes[0].note.onclick();
    });
    await page.waitForFunction(() => document.querySelector('[data-testid=chat-title]')?.textContent === 'Notes');
    await page.waitForSelector('[data-testid=confirmation]');
    check(true, "the notification's click opens that session", '');

    // Settings fit too.
    await page.tap('[data-testid=phone-back]');
    await page.tap('[data-testid=app-menu]');
    await page.tap('[data-testid=app-menu-settings]');
    await page.waitForSelector('[data-testid=settings-page]');
    await fits('settings');
    await shot('phone-settings');
    await page.tap('[data-testid=phone-back]');

    // The desktop layout at 1280×800 is unchanged by all this.
    if (shots) {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.waitForSelector('[data-testid=session-row]');
      await shot('phone-test-at-1280x800');
    }
  },
  {
    init,
    context: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 },
  },
);
