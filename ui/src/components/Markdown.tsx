// Sanitized HTML from the Rust core (pulldown-cmark + ammonia) with code
// highlighting. highlight.js reads each block's text and writes escaped
// spans, so it adds no way for peer content to inject markup.
import { useEffect, useRef } from 'preact/hooks';
// highlight.js's "common" set: ~37 languages (Rust, TypeScript, Python,
// Go, C/C++, Java, shell, SQL, YAML, JSON, diff, …) with their aliases.
import hljs from 'highlight.js/lib/common';

hljs.configure({ ignoreUnescapedHTML: true });

export function Markdown({ html, className }: { html: string; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.querySelectorAll('pre code[class*="language-"]').forEach((code) => {
      const lang = /language-([\w+#.-]+)/.exec(code.className)?.[1];
      if (lang && hljs.getLanguage(lang)) hljs.highlightElement(code as HTMLElement);
    });
    el.querySelectorAll('a').forEach((a) => a.setAttribute('target', '_blank'));
  }, [html]);
  return <div ref={ref} class={`md ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
