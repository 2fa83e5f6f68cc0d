import { describe, expect, it } from 'vitest';
import { blocks, countsText, type FileDiffView, filesText, languageOf, sideBySide, statusLetter } from './changes';

const view: FileDiffView = {
  diff: {
    path: 'file:///w/a.txt',
    added: 2,
    removed: 1,
    known: true,
    truncated: false,
    lines: [
      [' ', 'a'],
      ['-', 'b'],
      ['+', 'B'],
      [' ', 'c'],
      ['+', 'd'],
    ],
  },
  hunks: [
    { start: 1, end: 3, firstLine: 1, lastLine: 1 },
    { start: 4, end: 5, firstLine: 3, lastLine: 3 },
  ],
  gaps: [],
  words: [],
};

describe('changes', () => {
  it('cuts the diff into context runs and hunks that keep every line once', () => {
    const b = blocks(view);
    expect(b.map((x) => (x.kind === 'hunk' ? `h${x.index}` : 'c'))).toEqual(['c', 'h0', 'c', 'h1']);
    expect(b.flatMap((x) => (x.kind === 'gap' ? [] : x.lines))).toEqual(view.diff.lines);
  });

  it('puts the left-out stretches where they were', () => {
    const gaps = [
      { at: 0, hidden: 10 },
      { at: 4, hidden: 7 },
      { at: 5, hidden: 2 },
    ];
    const kinds = blocks({ ...view, gaps }).map((x) =>
      x.kind === 'hunk' ? `h${x.index}` : x.kind === 'gap' ? `g${x.hidden}` : 'c',
    );
    expect(kinds).toEqual(['g10', 'c', 'h0', 'c', 'g7', 'h1', 'g2']);
  });

  it("pairs a hunk's removed and added lines side by side", () => {
    const rows = sideBySide(
      [
        ['-', 'a'],
        ['-', 'b'],
        ['+', 'A'],
      ],
      10,
    );
    expect(rows).toEqual([
      [
        { text: 'a', at: 10 },
        { text: 'A', at: 12 },
      ],
      [{ text: 'b', at: 11 }, null],
    ]);
    expect(languageOf('src/main.rs', (l) => l === 'rs')).toBe('rs');
    expect(languageOf('Makefile', () => true)).toBe(null);
  });

  it('says counts in words', () => {
    expect(countsText({ files: 2, added: 12, removed: 4 })).toBe('+12 −4');
    expect(countsText({ files: 0, added: 0, removed: 0 })).toBe('');
    expect(countsText(null)).toBe('');
    expect(filesText(1)).toBe('1 file');
    expect(filesText(3)).toBe('3 files');
    const f = { id: 'x', path: 'x', added: null, removed: null, reviewed: false, notDiffed: null };
    expect(statusLetter({ ...f, status: 'deleted' })).toBe('D');
  });
});
