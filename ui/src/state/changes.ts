// The Changes view's pure parts: the counts shown on a button or a
// session row, a file's status letter, and the diff's lines cut into
// context runs and hunks (each hunk with its new-side lines, which Keep /
// Undo of that hunk send).
import type { ChangeCounts } from '../gen/ChangeCounts';
import type { ChangedFile } from '../gen/ChangedFile';
import type { DiffTag } from '../gen/DiffTag';
import type { FileDiffView } from '../gen/FileDiffView';
import type { HunkView } from '../gen/HunkView';

export type { ChangeCounts, ChangedFile, FileDiffView, HunkView };

/** `+12 −4`, or '' when nothing is pending. */
export function countsText(c: ChangeCounts | null | undefined): string {
  if (!c || c.files === 0) return '';
  return `+${c.added} −${c.removed}`;
}

/** `3 files`, `1 file`. */
export function filesText(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}

/** The letter beside a file: A(dded), M(odified), D(eleted). */
export function statusLetter(f: ChangedFile): string {
  return f.status === 'added' ? 'A' : f.status === 'deleted' ? 'D' : 'M';
}

/** Why a file has no diff, in words. */
export function notDiffedText(f: ChangedFile): string | null {
  if (f.notDiffed === 'tooLarge') return 'Too large to show or restore (over 2 MiB).';
  if (f.notDiffed === 'binary') return 'A binary file: no diff, but Undo restores it.';
  return null;
}

/** A run of the diff: unchanged lines, hunk `index`, or unchanged lines left out. */
export type Block =
  | { kind: 'context'; lines: Array<[DiffTag, string]> }
  | { kind: 'hunk'; index: number; hunk: HunkView; lines: Array<[DiffTag, string]> }
  | { kind: 'gap'; hidden: number };

/** Unchanged runs longer than this are folded to their first and last lines. */
export const FOLD_OVER = 8;
/** Lines kept on each side of a folded run. */
const FOLD_KEEP = 3;

/** A context run as shown: all of it, or its ends around a count of hidden lines. */
export function folded(
  lines: Array<[DiffTag, string]>,
  open: boolean,
): { head: string[]; hidden: number; tail: string[] } {
  const text = lines.map((l) => l[1]);
  if (open || text.length <= FOLD_OVER) return { head: text, hidden: 0, tail: [] };
  return { head: text.slice(0, FOLD_KEEP), hidden: text.length - 2 * FOLD_KEEP, tail: text.slice(-FOLD_KEEP) };
}

/** The diff's lines as context runs, hunks and gaps, in order. */
export function blocks(view: FileDiffView): Block[] {
  const out: Block[] = [];
  const lines = view.diff.lines;
  const gaps = [...view.gaps];
  let at = 0;
  // Context lines up to `end`, with each gap where it falls.
  const upTo = (end: number) => {
    for (;;) {
      const gap = gaps[0];
      const stop = gap && gap.at <= end ? gap.at : end;
      if (stop > at) out.push({ kind: 'context', lines: lines.slice(at, stop) });
      at = Math.max(at, stop);
      if (!gap || gap.at > end) return;
      out.push({ kind: 'gap', hidden: gap.hidden });
      gaps.shift();
    }
  };
  view.hunks.forEach((hunk, index) => {
    upTo(hunk.start);
    out.push({ kind: 'hunk', index, hunk, lines: lines.slice(hunk.start, hunk.end) });
    at = hunk.end;
  });
  upTo(lines.length);
  return out;
}
