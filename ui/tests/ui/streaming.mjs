// Streaming UI test: the real UI in headless Chromium against the real core
// (hangar-desktop-bridge) with a fake agent that streams a Rust fence in
// many small, closely spaced chunks (~200 a second). Checks what keeps
// frames short while a part streams:
//   1. chat ops are applied once per animation frame: the streaming part's
//      HTML is replaced at most once per frame (not once per delta);
//   2. the streaming code is not highlighted while deltas keep coming, and
//      is highlighted once the turn is done.
// Counts, not durations: nothing here depends on how fast the machine is.
// The UI highlights a streaming part after a 300 ms pause; the test sets a
// pause of ten minutes (`__hangarStreamPauseMs`) so that a stall in delivery
// on a loaded machine is not taken for one. How many frames the stream
// spans depends on the frame rate, so only "at least one replacement" and
// "at most one per frame" are checked.
// Env: see harness.mjs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeBin, run, tempHome } from './harness.mjs';

const home = tempHome('hangar-ui-stream-');
const steps = [{ chunk: 'Streaming a fence:\n\n```rust\n' }];
for (let i = 0; i < 300; i++) steps.push({ chunk: `let value_${i} = ${i};\n` }, { sleep: 5 });
steps.push({ chunk: '```\n\nDone.' }, { end: 'end_turn' });
const script = join(home, 'stream.json');
writeFileSync(script, JSON.stringify({ turns: [steps] }));

await run('streaming', home, [`stream=${fakeBin} --script ${script}`], async (page, check) => {
  await page.evaluate(
    (folder) => window.rpc('session.create', { host: 'local', agent: 'stream', folder }),
    `file://${join(home, 'w')}`,
  );
  await page.evaluate(() => {
    window.__hangarStreamPauseMs = 600000;
  });
  await page.click('[data-testid=session-row]');
  await page.fill('[data-testid=composer-input]', 'stream a fence');
  // Per animation frame: how often the streaming part's HTML was replaced,
  // and whether its code was highlighted while the turn was still running.
  const watching = page.evaluate(
    () =>
      new Promise((resolve) => {
        let frame = 0;
        let seen = 0;
        const perFrame = new Map();
        let highlightedWhileStreaming = 0;
        const mo = new MutationObserver((records) => {
          const md = document.querySelector('.turn.active .md.assistant');
          if (!md) return;
          for (const r of records)
            if (r.target === md && r.type === 'childList') perFrame.set(frame, (perFrame.get(frame) ?? 0) + 1);
          if (md.querySelector('.hljs-keyword')) highlightedWhileStreaming++;
        });
        mo.observe(document.querySelector('[data-testid=transcript]'), { subtree: true, childList: true });
        const tick = () => {
          frame++;
          if (document.querySelector('.turn.active .md.assistant')) seen++;
          if (seen && !document.querySelector('.turn.active')) {
            mo.disconnect();
            resolve({ frames: seen, replacements: [...perFrame.values()], highlightedWhileStreaming });
          } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
  await page.click('[data-testid=send]');
  const w = await watching;
  const total = w.replacements.reduce((a, b) => a + b, 0);
  const most = Math.max(0, ...w.replacements);
  check(
    total > 0 && most <= 1,
    'the streaming part is re-rendered at most once per frame',
    `${total} replacements over ${w.frames} frames, at most ${most} in one frame`,
  );
  check(
    w.highlightedWhileStreaming === 0,
    'no highlighting while deltas keep coming',
    `${w.highlightedWhileStreaming} mutations saw highlighted code`,
  );
  await page.waitForSelector('.md.assistant pre code.language-rust .hljs-keyword');
  check(true, 'highlighted once the turn is done', 'hljs spans present');
});
