// Sanitized HTML from the Rust core (pulldown-cmark + ammonia) with code
// highlighting. highlight.js reads each block's text and writes escaped
// spans, so it adds no way for peer content to inject markup. It is loaded
// the first time a part shows a code block with a language (../highlight.ts).

import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { loadHighlighter } from '../highlight';

/**
 * How long a streaming part must stay unchanged before it is highlighted:
 * 300 ms, or `window.__hangarStreamPauseMs` (a UI test sets a long pause so
 * that a stall in delivery on a loaded machine does not count as a pause).
 */
function streamPauseMs(): number {
  const ms = (window as { __hangarStreamPauseMs?: unknown }).__hangarStreamPauseMs;
  return typeof ms === 'number' && ms >= 0 ? ms : 300;
}

function highlight(el: HTMLElement) {
  const blocks = [...el.querySelectorAll<HTMLElement>('pre code[class*="language-"]')].filter(
    (code) => !code.dataset.highlighted,
  );
  if (blocks.length === 0) return;
  void loadHighlighter().then((hljs) => {
    for (const code of blocks) {
      const lang = /language-([\w+#.-]+)/.exec(code.className)?.[1];
      if (code.isConnected && lang && hljs.getLanguage(lang) && !code.dataset.highlighted) hljs.highlightElement(code);
    }
  });
}

/** The nodes shown for each block of a part. */
interface Shown {
  blocks: string[];
  nodes: ChildNode[][];
}

/** Top-level elements whose trailing whitespace does not show. */
const BLOCK_TAGS = new Set(['P', 'PRE', 'UL', 'OL', 'BLOCKQUOTE', 'TABLE', 'HR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6']);

/**
 * The DOM nodes of one block of sanitized HTML. The newline after a
 * block-level element is left out (it does not show), so a block is one
 * node and replacing it is one DOM change.
 */
function blockNodes(html: string): ChildNode[] {
  const template = document.createElement('template');
  template.innerHTML = html;
  const nodes = [...template.content.childNodes];
  const first = nodes[0];
  if (first instanceof Element && BLOCK_TAGS.has(first.tagName)) {
    while (
      nodes.length > 1 &&
      nodes[nodes.length - 1].nodeType === Node.TEXT_NODE &&
      !nodes[nodes.length - 1].textContent?.trim()
    )
      nodes.pop();
  }
  return nodes;
}

/**
 * Bring `el` from the blocks it shows to `blocks`: the blocks both start
 * with stay as they are (their DOM, highlighting included, is not touched);
 * the rest is replaced in one DOM change (an append, one node replaced, or,
 * rarely, all children set at once).
 */
function patchBlocks(el: HTMLElement, shown: Shown, blocks: string[]): Shown {
  let keep = 0;
  while (keep < shown.blocks.length && keep < blocks.length && shown.blocks[keep] === blocks[keep]) keep++;
  const added = blocks.slice(keep).map(blockNodes);
  const dropped = shown.nodes.slice(keep).flat();
  const fragment = document.createDocumentFragment();
  for (const nodes of added) fragment.append(...nodes);
  if (dropped.length === 0) el.append(fragment);
  else if (dropped.length === 1) dropped[0].replaceWith(fragment);
  else el.replaceChildren(...shown.nodes.slice(0, keep).flat(), fragment);
  return { blocks, nodes: [...shown.nodes.slice(0, keep), ...added] };
}

// The part comes as top-level blocks (a paragraph, a list, a code block).
// While it streams, its last blocks change (`partAppend` keeps the others):
// only those are parsed and replaced, so a delta costs the size of the
// block being written, not of the part.
// Highlighting the whole part again per delta is what made frames long. So a
// streaming part is highlighted only once it has been unchanged for
// streamPauseMs() (e.g. the agent waits for a confirmation), and at once when
// the turn ends.
export function Markdown({
  blocks,
  className,
  streaming,
}: {
  blocks: string[];
  className?: string;
  streaming?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const shown = useRef<Shown>({ blocks: [], nodes: [] });
  useLayoutEffect(() => {
    const el = ref.current;
    if (el) shown.current = patchBlocks(el, shown.current, blocks);
  }, [blocks]);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    for (const a of el.querySelectorAll('a')) a.setAttribute('target', '_blank');
    if (!streaming) {
      highlight(el);
      return;
    }
    const timer = window.setTimeout(() => highlight(el), streamPauseMs());
    return () => window.clearTimeout(timer);
  }, [blocks, streaming]);
  // Preact renders the element only; its children are the blocks' nodes.
  return <div ref={ref} class={`md ${className ?? ''}`} />;
}
