// Commit… in the Changes panel: a commit message drafted from the session
// (`changes.commitDraft`: the host's draft, or the session's title and
// prompts), editable; "Ask the agent to write it" sends the agent a prompt
// asking for one and, when that turn ends, puts its reply in the field
// (`chat.reply`), to edit before committing; Commit commits exactly the
// kept changes (the host's `commit` operation).
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import { unfence } from '../state/commit-message';

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
  const [asking, setAsking] = useState(false);
  const ask = async () => {
    const chat = p.chat;
    if (!chat) return;
    setAsking(true);
    setAsked('Asked the agent: its message goes here when it answers.');
    try {
      const sent = await call('chat.send', { host: p.host, chat, text: ASK_FOR_COMMIT_MESSAGE });
      if (!('turnId' in sent)) {
        setAsked('The agent is not ready: the request waits in the chat; paste its answer here.');
        return;
      }
      const reply = unfence(await call('chat.reply', { host: p.host, chat, turnId: sent.turnId }));
      if (reply) {
        setMessage(reply);
        setAsked("The agent's message: edit it before committing.");
      } else setAsked('The agent answered with no text.');
    } catch (e) {
      setAsked(errorText(e));
    } finally {
      setAsking(false);
    }
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
        <button type="button" disabled={!p.chat || asking} data-testid="commit-ask" onClick={ask}>
          Ask the agent to write it
        </button>
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
