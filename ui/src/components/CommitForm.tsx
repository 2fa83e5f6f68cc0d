// Commit… in the Changes panel: a commit message drafted from the session
// (`changes.commitDraft`: the host's draft, or the session's title and
// prompts), editable; "Ask the agent to write it" sends the agent a prompt
// asking for one (its answer shows in the chat, to paste here); Commit
// commits exactly the kept changes (the host's `commit` operation).
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, errorText } from '../ipc';

/** The prompt "Ask the agent to write it" sends. */
export const ASK_FOR_COMMIT_MESSAGE =
  'Write a git commit message for the changes I kept in this session: a subject line of at most 72 characters, a blank line, then a short body saying what changed and why. Reply with the message only.';

export interface CommitFormProps {
  host: string;
  session: string;
  /** The session's chat (for "Ask the agent"), once known. */
  chat: string | null;
  busy: boolean;
  onCommit: (message: string) => void;
  onCancel: () => void;
}

export function CommitForm(p: CommitFormProps) {
  const [message, setMessage] = useState<string | null>(null);
  const [asked, setAsked] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    call('changes.commitDraft', { host: p.host, session: p.session }).then(
      (m) => setMessage((now) => now ?? m),
      (e) => {
        setMessage((now) => now ?? '');
        setAsked(`No draft: ${errorText(e)}`);
      },
    );
  }, [p.host, p.session]);
  useEffect(() => {
    if (message !== null) input.current?.focus();
  }, [message === null]);
  const ask = () => {
    if (!p.chat) return;
    call('chat.send', { host: p.host, chat: p.chat, text: ASK_FOR_COMMIT_MESSAGE }).then(
      () => setAsked('Asked the agent: its message will be in the chat; paste it here.'),
      (e) => setAsked(errorText(e)),
    );
  };
  return (
    <form
      class="comment-form"
      data-testid="commit-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (message?.trim()) p.onCommit(message.trim());
      }}
    >
      <label class="small muted">
        Commit message (only what you kept is committed)
        <textarea
          ref={input}
          rows={6}
          value={message ?? ''}
          disabled={message === null}
          placeholder={message === null ? 'Drafting…' : ''}
          data-testid="commit-message"
          onInput={(e) => setMessage((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              p.onCancel();
            }
          }}
        />
      </label>
      {asked && (
        <p class="muted small" data-testid="commit-asked">
          {asked}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={p.busy || !message?.trim()} data-testid="commit-confirm">
          Commit
        </button>
        <button type="button" disabled={!p.chat} data-testid="commit-ask" onClick={ask}>
          Ask the agent to write it
        </button>
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
