// Sanitized HTML from the Rust core (pulldown-cmark + ammonia) with code
// highlighting. highlight.js reads each block's text and writes escaped
// spans, so it adds no way for peer content to inject markup.
import { useEffect, useRef } from 'preact/hooks';
import hljs from 'highlight.js/lib/core';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import javascript from 'highlight.js/lib/languages/javascript';
import python from 'highlight.js/lib/languages/python';
import bash from 'highlight.js/lib/languages/bash';
import json from 'highlight.js/lib/languages/json';
import diff from 'highlight.js/lib/languages/diff';

hljs.registerLanguage('rust', rust);
hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('ts', typescript);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('js', javascript);
hljs.registerLanguage('python', python);
hljs.registerLanguage('bash', bash);
hljs.registerLanguage('sh', bash);
hljs.registerLanguage('json', json);
hljs.registerLanguage('diff', diff);
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
