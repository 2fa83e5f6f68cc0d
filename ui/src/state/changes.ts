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
  | { kind: 'context'; start: number; lines: Array<[DiffTag, string]> }
  | { kind: 'hunk'; index: number; hunk: HunkView; lines: Array<[DiffTag, string]> }
  | { kind: 'gap'; hidden: number };

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
      if (stop > at) out.push({ kind: 'context', start: at, lines: lines.slice(at, stop) });
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

/** A side-by-side row's side: a line's text and its index in the diff. */
export type Side = { text: string; at: number } | null;

/** A hunk's lines as side-by-side rows: removed lines on the left, added
 * ones on the right, paired in order (`start`: the hunk's first index). */
export function sideBySide(lines: Array<[DiffTag, string]>, start: number): Array<[Side, Side]> {
  const left: Side[] = [];
  const right: Side[] = [];
  lines.forEach(([tag, text], k) => (tag === '-' ? left : right).push({ text, at: start + k }));
  return Array.from({ length: Math.max(left.length, right.length) }, (_, i) => [left[i] ?? null, right[i] ?? null]);
}

/** The highlight.js language of a file, from its extension (`known` says
 * whether highlight.js has it). */
export function languageOf(path: string, known: (lang: string) => boolean): string | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext && known(ext) ? ext : null;
}
