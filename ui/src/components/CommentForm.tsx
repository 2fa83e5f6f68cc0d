// The box to write a comment on the lines picked in a diff (or to edit one
// already written): the place it is about, a text area (Ctrl+Enter saves,
// Escape cancels), Save and Cancel.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface CommentFormProps {
  /** Where the comment is, e.g. "notes.txt:2–3". */
  place: string;
  /** The text to start from (editing). */
  initial?: string;
  saveLabel: string;
  onSave: (body: string) => void;
  onCancel: () => void;
  testid?: string;
}

export function CommentForm(p: CommentFormProps) {
  const [body, setBody] = useState(p.initial ?? '');
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => input.current?.focus(), []);
  const save = () => {
    if (body.trim()) p.onSave(body.trim());
  };
  return (
    <form
      class="comment-form"
      data-testid={p.testid ?? 'comment-form'}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <label class="small muted">
        Comment on <code>{p.place}</code>
        <textarea
          ref={input}
          value={body}
          data-testid="comment-input"
          placeholder="What should the agent change here?"
          onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              save();
            } else if (e.key === 'Escape') {
              e.preventDefault();
              p.onCancel();
            }
          }}
        />
      </label>
      <div class="row">
        <button type="submit" disabled={!body.trim()} data-testid="comment-save">
          {p.saveLabel}
        </button>
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
        <span class="muted small">Ctrl+Enter</span>
      </div>
    </form>
  );
}
