import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyChatOp, type ChatOp, type ChatView, emptyChat } from './chat-store';
import { nextFrame, perFrame } from './frame-batch';
import { chatSnapshot, htmlOf, markdownPart, turnView } from './test-views';

const partOp = (i: number): ChatOp => ({
  op: 'batch',
  ops: [{ op: 'part', turnId: 't', index: 0, part: markdownPart('p', `<p>${'w '.repeat(i)}</p>`) }],
});
const snapshot = chatSnapshot({ active: turnView('t', { active: true, state: null }) });

describe('perFrame', () => {
  it('renders what arrived in one frame once, folded in order', () => {
    const frames: (() => void)[] = [];
    const rendered: number[][] = [];
    const sink = perFrame<number[], number>(
      [],
      (s, n) => [...s, n],
      (s) => rendered.push(s),
      (run) => frames.push(run),
    );
    sink.push(1);
    sink.push(2);
    sink.push(3);
    expect(frames.length).toBe(1);
    expect(rendered).toEqual([]);
    frames.shift()!();
    sink.push(4);
    frames.shift()!();
    expect(rendered).toEqual([
      [1, 2, 3],
      [1, 2, 3, 4],
    ]);
  });

  it('folds a frame of chat ops into one view', () => {
    const frames: (() => void)[] = [];
    const views: ChatView[] = [];
    const sink = perFrame<ChatView, ChatOp>(
      emptyChat(),
      applyChatOp,
      (v) => views.push(v),
      (run) => frames.push(run),
    );
    sink.push(snapshot);
    for (let i = 1; i <= 50; i++) sink.push(partOp(i));
    frames.shift()!();
    expect(views.length).toBe(1);
    expect(htmlOf(views[0].active?.parts[0])).toBe(`<p>${'w '.repeat(50)}</p>`);
  });

  // A hidden window runs no animation frames: what waits for the frame must
  // be the view, not every op (each carries the whole part's HTML).
  it('holds one view, not the ops, while no frame comes', () => {
    let scheduled = 0;
    let folded = 0;
    const fold = (v: ChatView, op: ChatOp) => {
      folded++;
      return applyChatOp(v, op);
    };
    const sink = perFrame<ChatView, ChatOp>(
      emptyChat(),
      fold,
      () => {
        throw new Error('no frame ran');
      },
      () => {
        scheduled++;
      },
    );
    sink.push(snapshot);
    for (let i = 1; i <= 10000; i++) sink.push(partOp(i % 100));
    expect(scheduled).toBe(1);
    expect(folded).toBe(10001);
    expect(sink.state().active?.parts.length).toBe(1);
    expect(htmlOf(sink.state().active?.parts[0])).toBe('<p></p>');
  });

  it('renders the pending state at once on flush, and only once', () => {
    const rendered: number[] = [];
    const frames: (() => void)[] = [];
    const sink = perFrame<number, number>(
      0,
      (s, n) => s + n,
      (s) => rendered.push(s),
      (run) => frames.push(run),
    );
    sink.push(2);
    sink.push(3);
    sink.flush();
    frames.shift()!();
    expect(rendered).toEqual([5]);
  });
});

describe('nextFrame', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('does not wait for an animation frame while the document is hidden', () => {
    vi.useFakeTimers();
    vi.stubGlobal('document', { hidden: true });
    vi.stubGlobal('requestAnimationFrame', () => 0); // never runs, as in a hidden webview
    let ran = 0;
    nextFrame(() => ran++);
    vi.advanceTimersByTime(1000);
    expect(ran).toBe(1);
  });

  it('waits for the animation frame while visible', () => {
    const frames: (() => void)[] = [];
    vi.stubGlobal('document', { hidden: false });
    vi.stubGlobal('requestAnimationFrame', (f: () => void) => frames.push(f));
    let ran = 0;
    nextFrame(() => ran++);
    expect(ran).toBe(0);
    frames.shift()!();
    expect(ran).toBe(1);
  });
});
