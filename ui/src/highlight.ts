// highlight.js, loaded on first use: the first code block with a language
// or the first diff shown, not at start. Its "common" set (~37 languages:
// Rust, TypeScript, Python, Go, C/C++, Java, shell, SQL, YAML, JSON, diff, …)
// is a chunk of its own, so a window that never shows code never parses it.
//
// - loadHighlighter(): the instance, configured (a promise, loaded once).
// - useHighlighter(): the instance once loaded, else null (loads it and
//   renders again when it is there).
import type { HLJSApi } from 'highlight.js';
import { useEffect, useState } from 'preact/hooks';

let loading: Promise<HLJSApi> | null = null;
let loaded: HLJSApi | null = null;

/** highlight.js, loaded once. */
export function loadHighlighter(): Promise<HLJSApi> {
  loading ??= import('highlight.js/lib/common').then(({ default: hljs }) => {
    hljs.configure({ ignoreUnescapedHTML: true });
    loaded = hljs;
    return hljs;
  });
  return loading;
}

/** highlight.js once loaded (null until then; loading it renders the caller again). */
export function useHighlighter(): HLJSApi | null {
  const [hljs, setHljs] = useState(loaded);
  useEffect(() => {
    if (!hljs) void loadHighlighter().then(setHljs);
  }, [hljs]);
  return hljs;
}
