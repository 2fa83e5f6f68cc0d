// Open pull request… in the Changes panel: a title and body drafted by the
// host (`changes.pullRequestDraft`: the session's title, its prompts and
// commits), both editable, and the branch it goes into.
import { useEffect, useState } from 'preact/hooks';
import type { PullRequestDraft } from '../gen';
import { call, errorText } from '../ipc';

export interface PullRequestFormProps {
  host: string;
  session: string;
  busy: boolean;
  onOpen: (title: string, body: string, base: string | null) => void;
  onCancel: () => void;
}

export function PullRequestForm(p: PullRequestFormProps) {
  const [draft, setDraft] = useState<PullRequestDraft | null>(null);
  const [failed, setFailed] = useState('');
  useEffect(() => {
    call('changes.pullRequestDraft', { host: p.host, session: p.session }).then(
      (d) => setDraft((now) => now ?? d),
      (e) => {
        setDraft((now) => now ?? { title: '', body: '', base: '', head: '' });
        setFailed(`No draft: ${errorText(e)}`);
      },
    );
  }, [p.host, p.session]);
  const edit = (field: 'title' | 'body' | 'base') => (e: Event) => {
    const value = (e.target as HTMLInputElement | HTMLTextAreaElement).value;
    setDraft((d) => (d ? { ...d, [field]: value } : d));
  };
  const ready = draft !== null && draft.title.trim() !== '';
  return (
    <form
      class="comment-form pr-form"
      data-testid="pr-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (draft && ready) p.onOpen(draft.title.trim(), draft.body, draft.base.trim() || null);
      }}
    >
      <label class="small muted">
        Title
        <input
          type="text"
          value={draft?.title ?? ''}
          disabled={draft === null}
          placeholder={draft === null ? 'Drafting…' : ''}
          data-testid="pr-title"
          onInput={edit('title')}
        />
      </label>
      <label class="small muted">
        Description
        <textarea
          rows={8}
          value={draft?.body ?? ''}
          disabled={draft === null}
          data-testid="pr-body"
          onInput={edit('body')}
        />
      </label>
      <label class="small muted">
        Into branch{draft?.head ? ` (from ${draft.head})` : ''}
        <input
          type="text"
          value={draft?.base ?? ''}
          disabled={draft === null}
          data-testid="pr-base"
          onInput={edit('base')}
        />
      </label>
      {failed && <p class="muted small">{failed}</p>}
      <div class="row">
        <button type="submit" class="primary" disabled={p.busy || !ready} data-testid="pr-confirm">
          Open pull request
        </button>
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
