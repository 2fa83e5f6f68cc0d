// A changed file's diff in the Changes panel: unified or side by side,
// hunks with their own Keep / Undo, "⋯ N unchanged lines" where the core
// left lines out, the words that changed in a replaced line marked, other
// lines coloured by highlight.js (its output escapes the text; nothing else
// from the host is rendered as HTML).
import hljs from 'highlight.js/lib/common';
import type { DiffTag } from '../gen/DiffTag';
import { blocks, type FileDiffView, type HunkView, languageOf, sideBySide } from '../state/changes';

export interface ReviewDiffProps {
  diff: FileDiffView;
  path: string;
  split: boolean;
  busy: boolean;
  /** Keep can target a hunk. */
  acceptLines: boolean;
  onHunk: (operation: 'accept' | 'reject', hunk: HunkView) => void;
  /** Show every unchanged line (a gap was clicked). */
  onExpand: () => void;
}

type Runs = Array<[boolean, string]>;

/** One line's text: its word runs, or syntax colours, or plain. */
function Text({ text, runs, lang }: { text: string; runs?: Runs; lang: string | null }) {
  if (runs) return <>{runs.map(([changed, t]) => (changed ? <span class="w-chg">{t}</span> : t))}</>;
  if (lang && text.length < 2000)
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
  const lang = languageOf(p.path, (l) => !!hljs.getLanguage(l));
  const words = new Map(p.diff.words.map((w) => [w.line, w.runs as Runs]));
  const line = (tag: DiffTag, text: string, at: number) => (
    <div class={`dl ${mark(tag)}`}>
      <span class="dl-mark">{tag}</span>
      <Text text={text} runs={words.get(at)} lang={lang} />
    </div>
  );
  const bar = (hunk: HunkView) => (
    <div class="hunk-bar">
      <button
        type="button"
        disabled={p.busy}
        data-testid="hunk-keep"
        hidden={!p.acceptLines}
        onClick={() => p.onHunk('accept', hunk)}
      >
        Keep
      </button>
      <button type="button" disabled={p.busy} data-testid="hunk-undo" onClick={() => p.onHunk('reject', hunk)}>
        Undo
      </button>
    </div>
  );
  return (
    <pre class={p.split ? 'split' : ''} data-testid={p.split ? 'diff-split' : 'diff-unified'}>
      {blocks(p.diff).map((b, i) => {
        if (b.kind === 'gap')
          return (
            <button type="button" class="fold" data-testid="gap" key={`g${i}`} onClick={p.onExpand}>
              ⋯ {b.hidden} unchanged {b.hidden === 1 ? 'line' : 'lines'}
            </button>
          );
        if (b.kind === 'context')
          return b.lines.map((l, k) =>
            p.split ? (
              <div class="sbs">
                {line(' ', l[1], b.start + k)}
                {line(' ', l[1], b.start + k)}
              </div>
            ) : (
              line(' ', l[1], b.start + k)
            ),
          );
        return (
          <div class="hunk" data-testid="hunk" key={`h${b.index}`}>
            {bar(b.hunk)}
            {p.split
              ? sideBySide(b.lines, b.hunk.start).map(([left, right]) => (
                  <div class="sbs">
                    {left ? line('-', left.text, left.at) : <div class="dl empty" />}
                    {right ? line('+', right.text, right.at) : <div class="dl empty" />}
                  </div>
                ))
              : b.lines.map((l, k) => line(l[0], l[1], b.hunk.start + k))}
          </div>
        );
      })}
    </pre>
  );
}
