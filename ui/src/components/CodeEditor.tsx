// A real code editor (CodeMirror 6: markdown, JSON or TOML highlighting, search
// with Ctrl+F, undo, brackets) for a customization file's body or its whole
// text.
// The document is replaced when `value` changes from outside (the disk's
// version taken, raw mode switched); the person's edits come out through
// `onChange`.
import { json } from '@codemirror/lang-json';
import { markdown } from '@codemirror/lang-markdown';
import { StreamLanguage } from '@codemirror/language';
import { toml } from '@codemirror/legacy-modes/mode/toml';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';

export function CodeEditor({
  value,
  onChange,
  label,
  testid,
  readOnly = false,
  language = 'markdown',
}: {
  value: string;
  /** Highlighting: markdown, JSON, TOML, or none. */
  language?: 'markdown' | 'json' | 'toml' | 'plain';
  onChange?: (text: string) => void;
  /** The editor's accessible name. */
  label: string;
  testid?: string;
  readOnly?: boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      doc: value,
      parent: host.current,
      extensions: [
        basicSetup,
        LANGUAGES[language](),
        EditorView.lineWrapping,
        EditorView.editable.of(!readOnly),
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) changed.current?.(u.state.doc.toString());
        }),
      ],
    });
    view.current = v;
    return () => v.destroy();
  }, []);
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);
  return <div class="code-editor" ref={host} data-testid={testid} />;
}

const LANGUAGES = {
  markdown: () => markdown(),
  json: () => json(),
  toml: () => StreamLanguage.define(toml),
  plain: () => [],
};
