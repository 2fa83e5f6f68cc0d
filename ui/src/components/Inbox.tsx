// The approval inbox: every pending confirmation and unanswered input request
// across sessions and hosts. A tool call is allowed or denied right here (the
// answer goes to the item's own host); an input request opens its chat's form.
import { useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import type { AppState, InboxItem } from '../state/app-store';
import { useNotifyPermission } from '../state/browser-notify';

export function Inbox({ app, onOpen }: { app: AppState; onOpen: (host: string, session: string) => void }) {
  const [error, setError] = useState('');
  const [notify, askNotify] = useNotifyPermission();
  const answer = (i: InboxItem, approved: boolean) => {
    setError('');
    const args = { host: i.host, chat: i.chat, turnId: i.turnId, toolCallId: i.toolCallId, approved, optionId: null };
    call('chat.confirm', args).catch((e) => setError(errorText(e)));
  };
  return (
    <section class="inbox" data-testid="inbox">
      <h1>Approvals</h1>
      {notify === 'default' && (
        <p class="small muted notify-ask">
          <button type="button" data-testid="notify-me" onClick={askNotify}>
            Notify me
          </button>{' '}
          when a session needs you while this page is in the background.
        </p>
      )}
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
      {app.inbox.length === 0 && <p class="muted">Nothing is waiting for you.</p>}
      <ul>
        {app.inbox.map((i) => {
          const row = app.sessions[`${i.host} ${i.session}`];
          return (
            <li key={`${i.host}${i.chat}${i.toolCallId}`} data-testid="inbox-item">
              <button type="button" onClick={() => onOpen(i.host, i.session)}>
                <strong>{i.title}</strong>
                <span class="small muted">
                  {row?.title || i.chatTitle || 'Untitled session'} · {row?.hostLabel ?? i.host}
                </span>
              </button>
              {i.confirmation && (
                <span class="inbox-answer">
                  <button type="button" class="primary" data-testid="inbox-allow" onClick={() => answer(i, true)}>
                    Allow
                  </button>
                  <button type="button" data-testid="inbox-deny" onClick={() => answer(i, false)}>
                    Deny
                  </button>
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
