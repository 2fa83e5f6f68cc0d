// The messages of one session waiting in the browser's outbox (typed while
// the link to the core was down): each says "Waiting to send", or why the
// core refused it with Retry and Discard.
import { dropFromOutbox, updateInOutbox, useOutbox } from '../state/outbox';

export function OutboxList({ host, session, onRetry }: { host: string; session: string; onRetry: () => void }) {
  const entries = useOutbox(host, session);
  if (entries.length === 0) return null;
  return (
    <ul class="queue" data-testid="outbox">
      {entries.map((e) => (
        <li key={e.id} data-testid="outbox-message" data-state={e.error ? 'refused' : 'waiting'}>
          <span class="q-text">{e.text}</span>
          {e.error ? (
            <>
              <span class="error small">Not sent: {e.error}</span>
              <button
                type="button"
                data-testid="outbox-retry"
                onClick={() => {
                  updateInOutbox(localStorage, host, session, e.id, { error: undefined });
                  onRetry();
                }}
              >
                Retry
              </button>
              <button
                type="button"
                data-testid="outbox-discard"
                onClick={() => dropFromOutbox(localStorage, host, session, e.id)}
              >
                Discard
              </button>
            </>
          ) : (
            <span class="muted small">Waiting to send</span>
          )}
        </li>
      ))}
    </ul>
  );
}
