// Line comments on a diff: each diff line's numbers in the file before and
// after the change, a selection of lines turned into a review comment
// (its 1-based range, on the new side unless only removed lines were
// picked, and the lines quoted with their marks), and the labels the
// Changes panel and the transcript show.
import type { DiffTag } from '../gen/DiffTag';
import type { ReviewComment } from '../gen/ReviewComment';
import type { FileDiffView } from './changes';

export type { ReviewComment };

/** A diff line's 1-based numbers: `old` before the change, `new` after
 * (null on the side the line is not on). */
export type LineNumbers = { old: number | null; new: number | null };

/** The numbers of every line of `view` (gaps count the lines they hide). */
export function lineNumbers(view: FileDiffView): LineNumbers[] {
  const gaps = new Map(view.gaps.map((g) => [g.at, g.hidden]));
  let old = 0;
  let now = 0;
  return view.diff.lines.map(([tag]: [DiffTag, string], i: number) => {
    const hidden = gaps.get(i) ?? 0;
    old += hidden;
    now += hidden;
    if (tag === '+') return { old: null, new: ++now };
    if (tag === '-') return { old: ++old, new: null };
    return { old: ++old, new: ++now };
  });
}

/** A selection of diff lines `[from, to]` (indices, inclusive, any order). */
export type Selection = { from: number; to: number };

/** The comment `body` on the selected lines of `view` (the file `file`, shown as `path`). */
export function commentOn(
  view: FileDiffView,
  numbers: LineNumbers[],
  sel: Selection,
  file: { id: string; path: string },
  body: string,
  id: string,
): ReviewComment {
  const [from, to] = sel.from <= sel.to ? [sel.from, sel.to] : [sel.to, sel.from];
  const picked = numbers.slice(from, to + 1);
  const onNew = picked.map((n) => n.new).filter((n): n is number => n !== null);
  const onOld = picked.map((n) => n.old).filter((n): n is number => n !== null);
  const side = onNew.length > 0 ? 'new' : 'old';
  const range = side === 'new' ? onNew : onOld;
  return {
    id,
    file: file.id,
    path: file.path,
    firstLine: Math.min(...range),
    lastLine: Math.max(...range),
    side,
    quote: view.diff.lines.slice(from, to + 1).map(([tag, text]) => `${tag}${text}`),
    body,
  };
}

/** "notes.txt:2" or "notes.txt:2–4" (", removed" on the old side). */
export function placeText(c: ReviewComment): string {
  const lines = c.firstLine === c.lastLine ? `${c.firstLine}` : `${c.firstLine}–${c.lastLine}`;
  return `${c.path}:${lines}${c.side === 'old' ? ' (removed)' : ''}`;
}

/** "1 comment", "3 comments". */
export function commentsText(n: number): string {
  return n === 1 ? '1 comment' : `${n} comments`;
}

/** Whether diff line `at` is in `sel`. */
export function inSelection(sel: Selection | null, at: number): boolean {
  return !!sel && at >= Math.min(sel.from, sel.to) && at <= Math.max(sel.from, sel.to);
}
