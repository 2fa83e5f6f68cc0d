// The approval inbox: every pending confirmation and unanswered input request
// across sessions and hosts.
import type { AppState } from '../state/app-store';

export function Inbox({ app, onOpen }: { app: AppState; onOpen: (host: string, session: string) => void }) {
  return (
    <section class="inbox" data-testid="inbox">
      <h1>Approvals</h1>
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
            </li>
          );
        })}
      </ul>
    </section>
  );
}
