import { describe, expect, it } from 'vitest';
import { perFrame } from './frame-batch';
import { applyChatOp, emptyChat } from './chat-store';

describe('perFrame', () => {
  it('applies everything that arrived in one frame together, in order', () => {
    const frames: (() => void)[] = [];
    const applied: number[][] = [];
    const push = perFrame<number>((items) => applied.push(items), (run) => frames.push(run));
    push(1); push(2); push(3);
    expect(frames.length).toBe(1);
    expect(applied).toEqual([]);
    frames.shift()!();
    push(4);
    frames.shift()!();
    expect(applied).toEqual([[1, 2, 3], [4]]);
  });

  it('folds a frame of chat ops into one view', () => {
    const frames: (() => void)[] = [];
    const views: any[] = [];
    let view = emptyChat();
    const push = perFrame<any>((ops) => { view = ops.reduce(applyChatOp, view); views.push(view); }, (run) => frames.push(run));
    push({ op: 'snapshot', meta: { resource: 'c' }, turns: [], active: { id: 't', active: true, message: { text: 'hi' }, parts: [] } });
    for (let i = 1; i <= 50; i++) push({ op: 'batch', ops: [{ op: 'part', turnId: 't', index: 0, part: { kind: 'markdown', id: 'p', html: `<p>${'w '.repeat(i)}</p>` } }] });
    frames.shift()!();
    expect(views.length).toBe(1);
    expect(view.active?.parts[0].html).toBe(`<p>${'w '.repeat(50)}</p>`);
  });
});
