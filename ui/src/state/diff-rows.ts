// A diff as the rows the Changes view draws (a hunk's bar, a line, a side
// by side pair, "⋯ N unchanged lines"), each of a known height, and which
// of them a scrolled view shows: only those are put in the page, so a
// 20,000-line diff opens as fast as a short one (the view is virtualized).
// The heights are fixed by the stylesheet (`.dr-*` classes), so no row is
// measured.
import type { DiffTag } from '../gen/DiffTag';
import { blocks, type FileDiffView, type HunkView, type Side, sideBySide } from './changes';

/** A drawn row; `hunk` is the index of the hunk a line belongs to. */
export type Row =
  | { kind: 'gap'; hidden: number }
  | { kind: 'bar'; hunk: number; view: HunkView }
  | { kind: 'line'; tag: DiffTag; text: string; at: number; hunk: number | null }
  | { kind: 'pair'; left: Side; right: Side; hunk: number | null };

/** Pixel heights, as `styles.css` sets them. */
export const ROW_HEIGHT = { line: 18, pair: 18, bar: 26, gap: 22 } as const;

/** The rows of `view`, unified or side by side. */
export function diffRows(view: FileDiffView, split: boolean): Row[] {
  const out: Row[] = [];
  for (const b of blocks(view)) {
    if (b.kind === 'gap') out.push({ kind: 'gap', hidden: b.hidden });
    else if (b.kind === 'context')
      b.lines.forEach(([, text], k) => {
        const at = b.start + k;
        out.push(
          split
            ? { kind: 'pair', left: { text, at }, right: { text, at }, hunk: null }
            : { kind: 'line', tag: ' ', text, at, hunk: null },
        );
      });
    else {
      out.push({ kind: 'bar', hunk: b.index, view: b.hunk });
      if (split)
        for (const [left, right] of sideBySide(b.lines, b.hunk.start))
          out.push({ kind: 'pair', left, right, hunk: b.index });
      else
        b.lines.forEach(([tag, text], k) => out.push({ kind: 'line', tag, text, at: b.hunk.start + k, hunk: b.index }));
    }
  }
  return out;
}

/** Where each row starts (`offsets[i]`), and the total height at the end. */
export function rowOffsets(rows: Row[]): number[] {
  const offsets = new Array<number>(rows.length + 1);
  offsets[0] = 0;
  rows.forEach((r, i) => {
    offsets[i + 1] = offsets[i] + ROW_HEIGHT[r.kind];
  });
  return offsets;
}

/** The first row whose bottom is below `y`. */
function rowAt(offsets: number[], y: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, lo);
}

/** The rows `[from, to)` to draw for a view scrolled to `top` and `height`
 * tall, with `spare` rows more on each side. */
export function visibleRows(offsets: number[], top: number, height: number, spare = 30): [number, number] {
  const count = offsets.length - 1;
  if (count <= 0) return [0, 0];
  const from = Math.max(0, rowAt(offsets, top) - spare);
  const to = Math.min(count, rowAt(offsets, top + height) + 1 + spare);
  return [from, to];
}

/** The index of hunk `hunk`'s bar row, or -1. */
export function barRow(rows: Row[], hunk: number): number {
  return rows.findIndex((r) => r.kind === 'bar' && r.hunk === hunk);
}
