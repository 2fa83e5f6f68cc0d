// A changed file's diff in the Changes panel: unified or side by side,
// hunks with their own Keep / Undo, "⋯ N unchanged lines" where the core
// left lines out, the words that changed in a replaced line marked, other
// lines coloured by highlight.js (its output escapes the text; nothing else
// from the host is rendered as HTML; plain until highlight.js has loaded,
// ../highlight.ts). Each line's number is a button: click it to pick the
// line for a comment, shift-click (or Shift+Enter) to extend the pick to a
// range. Only the rows in view (and a few
// around) are in the page (`state/diff-rows.ts`), so a 20,000-line diff
// opens and scrolls like a short one.
import type { HLJSApi } from 'highlight.js';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { DiffTag } from '../gen/DiffTag';
import { useHighlighter } from '../highlight';
import { type FileDiffView, type HunkView, languageOf } from '../state/changes';
import { barRow, diffRows, type Row, rowOffsets, visibleRows } from '../state/diff-rows';
import { inSelection, type LineNumbers, type Selection } from '../state/review';

export interface ReviewDiffProps {
  diff: FileDiffView;
  path: string;
  split: boolean;
  /**
   * Long lines wrap (the phone layout): then rows differ in height, so a
   * diff of up to WRAP_ROWS rows is drawn whole instead of windowed; a
   * longer one stays windowed, unwrapped, scrolling sideways in its box.
   */
  wrap?: boolean;
  busy: boolean;
  /** Keep can target a hunk. */
  acceptLines: boolean;
  /** The hunk the keyboard is on (`n` / `p`), or -1. */
  current: number;
  onHunk: (operation: 'accept' | 'reject', hunk: HunkView) => void;
  /** Show every unchanged line (a gap was clicked). */
  onExpand: () => void;
  /** Each diff line's numbers before and after the change. */
  numbers: LineNumbers[];
  /** The lines picked for a comment. */
  selection: Selection | null;
  /** A line number was picked (`extend`: with Shift, to make a range). */
  onPick: (at: number, extend: boolean) => void;
}

type Runs = Array<[boolean, string]>;

/** The most rows a wrapped diff draws whole. */
const WRAP_ROWS = 3000;

/** One line's text: its word runs, or syntax colours, or plain. */
function Text({ text, runs, lang, hljs }: { text: string; runs?: Runs; lang: string | null; hljs: HLJSApi | null }) {
  if (runs) return <>{runs.map(([changed, t]) => (changed ? <span class="w-chg">{t}</span> : t))}</>;
  if (hljs && lang && text.length < 2000)
    // biome-ignore lint/security/noDangerouslySetInnerHtml: highlight.js escapes the text it colours.
    return (
      <span
        dangerouslySetInnerHTML={{ __html: hljs.highlight(text, { language: lang, ignoreIllegals: true }).value }}
      />
    );
  return <>{text}</>;
}

const mark = (tag: DiffTag) => (tag === '+' ? 'add' : tag === '-' ? 'del' : '');

export function ReviewDiff(p: ReviewDiffProps) {
  const hljs = useHighlighter();
  const lang = useMemo(() => (hljs ? languageOf(p.path, (l) => !!hljs.getLanguage(l)) : null), [p.path, hljs]);
  const words = useMemo(() => new Map(p.diff.words.map((w) => [w.line, w.runs as Runs])), [p.diff]);
  const rows = useMemo(() => diffRows(p.diff, p.split), [p.diff, p.split]);
  const offsets = useMemo(() => rowOffsets(rows), [rows]);
  const box = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  const measure = () => {
    const el = box.current;
    if (el) setView({ top: el.scrollTop, height: el.clientHeight || 800 });
  };
  useLayoutEffect(measure, [rows]);
  // The keyboard's hunk: scrolled into view, its Undo button focused.
  useEffect(() => {
    const el = box.current;
    const i = barRow(rows, p.current);
    if (!el || i < 0) return;
    if (offsets[i] < el.scrollTop || offsets[i + 1] > el.scrollTop + el.clientHeight) {
      el.scrollTop = Math.max(0, offsets[i] - 3 * 18);
      measure();
    }
    requestAnimationFrame(() =>
      el.querySelector<HTMLButtonElement>(`[data-hunk="${p.current}"] [data-testid=hunk-undo]`)?.focus(),
    );
  }, [p.current, rows]);

  const [from, to] = visibleRows(offsets, view.top, view.height);
  const wrapped = !!p.wrap && rows.length <= WRAP_ROWS;
  const line = (tag: DiffTag, text: string, at: number, inHunk: boolean, key?: number, old = false) => {
    const n = p.numbers[at];
    const number = (old ? n?.old : (n?.new ?? n?.old)) ?? '';
    const picked = inSelection(p.selection, at);
    return (
      <div class={`dl ${mark(tag)}${inHunk ? ' in-hunk' : ''}${picked ? ' picked' : ''}`} key={key}>
        <button
          type="button"
          class="dl-num"
          data-testid="line-number"
          data-at={at}
          aria-pressed={picked}
          title="Comment on this line (Shift: a range)"
          onClick={(e) => p.onPick(at, e.shiftKey)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && e.shiftKey) {
              e.preventDefault();
              p.onPick(at, true);
            }
          }}
        >
          {number}
        </button>
        <span class="dl-mark">{tag}</span>
        <Text text={text} runs={words.get(at)} lang={lang} hljs={hljs} />
      </div>
    );
  };
  const draw = (r: Row, i: number) => {
    switch (r.kind) {
      case 'gap':
        return (
          <button type="button" class="fold" data-testid="gap" key={i} onClick={p.onExpand}>
            ⋯ {r.hidden} unchanged {r.hidden === 1 ? 'line' : 'lines'}
          </button>
        );
      case 'bar':
        return (
          <div
            class={`hunk-bar${r.hunk === p.current ? ' current' : ''}`}
            data-testid="hunk"
            data-hunk={r.hunk}
            key={i}
          >
            <button
              type="button"
              disabled={p.busy}
              data-testid="hunk-keep"
              hidden={!p.acceptLines}
              onClick={() => p.onHunk('accept', r.view)}
            >
              Keep
            </button>
            <button type="button" disabled={p.busy} data-testid="hunk-undo" onClick={() => p.onHunk('reject', r.view)}>
              Undo
            </button>
          </div>
        );
      case 'line':
        return line(r.tag, r.text, r.at, r.hunk !== null, i);
      case 'pair': {
        const side = (s: typeof r.left, tag: DiffTag) =>
          s ? (
            line(r.hunk === null ? ' ' : tag, s.text, s.at, r.hunk !== null, undefined, tag === '-')
          ) : (
            <div class="dl empty" />
          );
        return (
          <div class={`sbs${r.hunk !== null ? ' in-hunk' : ''}`} key={i}>
            {side(r.left, '-')}
            {side(r.right, '+')}
          </div>
        );
      }
    }
  };
  return (
    <div
      class="diff-scroll"
      ref={box}
      onScroll={measure}
      data-testid={p.split ? 'diff-split' : 'diff-unified'}
      data-rows={rows.length}
      data-hunks={p.diff.hunks.length}
    >
      {wrapped ? (
        <pre class="wrap">{rows.map((r, k) => draw(r, k))}</pre>
      ) : (
        <pre class={p.split ? 'split' : ''} style={{ height: `${offsets[rows.length]}px` }}>
          <div class="diff-window" style={{ transform: `translateY(${offsets[from]}px)` }}>
            {rows.slice(from, to).map((r, k) => draw(r, from + k))}
          </div>
        </pre>
      )}
    </div>
  );
}
