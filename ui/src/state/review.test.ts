import { describe, expect, it } from 'vitest';
import type { FileDiffView } from './changes';
import { commentOn, commentsText, inSelection, lineNumbers, placeText } from './review';

const view = {
  diff: {
    lines: [
      [' ', 'a'],
      ['-', 'b'],
      ['+', 'B'],
      ['+', 'B2'],
      [' ', 'c'],
    ],
    truncated: false,
  },
  hunks: [{ start: 1, end: 4, firstLine: 8, lastLine: 9 }],
  gaps: [{ at: 0, hidden: 7 }],
  words: [],
} as unknown as FileDiffView;
const file = { id: 'file:///w/n.txt', path: 'n.txt' };

describe('review comments', () => {
  it('numbers each line on both sides, counting the lines a gap hides', () => {
    expect(lineNumbers(view)).toEqual([
      { old: 8, new: 8 },
      { old: 9, new: null },
      { old: null, new: 9 },
      { old: null, new: 10 },
      { old: 10, new: 11 },
    ]);
  });

  it('a selection becomes a comment on the new side, quoting its lines with their marks', () => {
    const c = commentOn(view, lineNumbers(view), { from: 3, to: 1 }, file, 'why two?', 'c1');
    expect(c).toEqual({
      id: 'c1',
      file: file.id,
      path: 'n.txt',
      firstLine: 9,
      lastLine: 10,
      side: 'new',
      quote: ['-b', '+B', '+B2'],
      body: 'why two?',
    });
    expect(placeText(c)).toBe('n.txt:9–10');
  });

  it('only removed lines are numbered before the change', () => {
    const c = commentOn(view, lineNumbers(view), { from: 1, to: 1 }, file, 'keep b', 'c2');
    expect([c.side, c.firstLine, c.lastLine]).toEqual(['old', 9, 9]);
    expect(placeText(c)).toBe('n.txt:9 (removed)');
    expect(commentsText(1)).toBe('1 comment');
    expect(commentsText(2)).toBe('2 comments');
    expect(inSelection({ from: 3, to: 1 }, 2)).toBe(true);
    expect(inSelection(null, 2)).toBe(false);
  });
});
