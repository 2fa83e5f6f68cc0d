import { describe, expect, it } from 'vitest';
import type { FileDiffView } from './changes';
import { barRow, diffRows, ROW_HEIGHT, rowOffsets, visibleRows } from './diff-rows';

const view: FileDiffView = {
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
  hunks: [{ start: 1, end: 4, firstLine: 1, lastLine: 2 }],
  gaps: [{ at: 0, hidden: 7 }],
  words: [],
} as unknown as FileDiffView;

describe('diff rows', () => {
  it('draws a gap, context, a bar per hunk and its lines, unified or side by side', () => {
    const unified = diffRows(view, false).map((r) => (r.kind === 'line' ? `${r.tag}${r.text}` : r.kind));
    expect(unified).toEqual(['gap', ' a', 'bar', '-b', '+B', '+B2', ' c']);
    const split = diffRows(view, true).map((r) =>
      r.kind === 'pair' ? `${r.left?.text ?? '∅'}|${r.right?.text ?? '∅'}` : r.kind,
    );
    expect(split).toEqual(['gap', 'a|a', 'bar', 'b|B', '∅|B2', 'c|c']);
    expect(barRow(diffRows(view, false), 0)).toBe(2);
  });

  it('shows only the rows in view of a 20,000-line diff, plus a few around', () => {
    const lines = Array.from({ length: 20000 }, (_, i) => [' ', `line ${i}`]);
    const big = { ...view, diff: { lines, truncated: false }, hunks: [], gaps: [] } as unknown as FileDiffView;
    const rows = diffRows(big, false);
    const offsets = rowOffsets(rows);
    expect(offsets[rows.length]).toBe(20000 * ROW_HEIGHT.line);
    const [from, to] = visibleRows(offsets, 18 * 10000, 18 * 40, 5);
    expect([from, to]).toEqual([9995, 10046]);
    expect(visibleRows(offsets, 0, 720, 5)).toEqual([0, 46]);
    expect(visibleRows(offsets, 18 * 20000, 720, 5)[1]).toBe(20000);
  });
});
