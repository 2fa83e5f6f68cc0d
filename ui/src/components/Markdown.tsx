// Sanitized HTML from the Rust core (pulldown-cmark + ammonia) with code
// highlighting. highlight.js reads each block's text and writes escaped
// spans, so it adds no way for peer content to inject markup.

// highlight.js's "common" set: ~37 languages (Rust, TypeScript, Python,
// Go, C/C++, Java, shell, SQL, YAML, JSON, diff, …) with their aliases.
import hljs from 'highlight.js/lib/common';
import { useEffect, useRef } from 'preact/hooks';

hljs.configure({ ignoreUnescapedHTML: true });

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
  el.querySelectorAll('pre code[class*="language-"]').forEach((code) => {
    const lang = /language-([\w+#.-]+)/.exec(code.className)?.[1];
    if (lang && hljs.getLanguage(lang) && !(code as HTMLElement).dataset.highlighted)
      hljs.highlightElement(code as HTMLElement);
  });
}

// While a part streams (`streaming`), each delta replaces its HTML; highlighting
// the whole part again per delta is what made frames long. So a streaming
// part is highlighted only once it has been unchanged for streamPauseMs()
// (e.g. the agent waits for a confirmation), and at once when the turn ends.
export function Markdown({ html, className, streaming }: { html: string; className?: string; streaming?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.querySelectorAll('a').forEach((a) => a.setAttribute('target', '_blank'));
    if (!streaming) {
      highlight(el);
      return;
    }
    const timer = window.setTimeout(() => highlight(el), streamPauseMs());
    return () => window.clearTimeout(timer);
  }, [html, streaming]);
  return <div ref={ref} class={`md ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
