// An agent's own earlier sessions in the folder picked in the New session
// dialog (sessions the person ran in the agent's own CLI, or in another
// app), asked of the host on demand (`agents.pastSessions`); Continue
// starts a Hangar session that opens the picked one (its history replayed
// as turns when the agent replays it). An agent that cannot list or open
// its sessions says so. Anchors: Claude Code's `--resume` picker, Codex's
// `resume`.
import { useEffect, useState } from 'preact/hooks';
import type { PastSessionsView } from '../gen/PastSessionsView';
import { call, errorText } from '../ipc';

export function PastSessions({
  host,
  agent,
  agentName,
  folder,
  busy,
  onContinue,
  onOpenExisting,
}: {
  host: string;
  agent: string;
  agentName: string;
  folder: string;
  busy: boolean;
  /** Start a session that continues the agent's session `id` (listed as `title`). */
  onContinue: (id: string, title: string | null) => void;
  /** The Hangar session already made from it. */
  onOpenExisting: (session: string) => void;
}) {
  const [view, setView] = useState<PastSessionsView | null>(null);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState('');
  // A different host, agent or folder: ask again when the person does.
  useEffect(() => {
    setView(null);
    setError('');
  }, [host, agent, folder]);

  const ask = () => {
    setAsking(true);
    setError('');
    call('agents.pastSessions', { host, agent, folder }).then(
      (v) => {
        setView(v);
        setAsking(false);
      },
      (e) => {
        setError(errorText(e));
        setAsking(false);
      },
    );
  };

  if (!view) {
    return (
      <div class="past-sessions" data-testid="past-sessions">
        <button type="button" class="link" data-testid="past-sessions-show" disabled={asking} onClick={ask}>
          {asking ? `Asking ${agentName}…` : `Continue one of ${agentName}'s own sessions in this folder…`}
        </button>
        {error && (
          <p class="error small" role="alert">
            {error}
          </p>
        )}
      </div>
    );
  }
  return (
    <div class="past-sessions" data-testid="past-sessions">
      <h3 class="small">{agentName}'s own sessions in this folder</h3>
      {view.unavailable && (
        <p class="muted small" data-testid="past-sessions-unavailable">
          {view.unavailable}
        </p>
      )}
      {!view.unavailable && view.sessions.length === 0 && (
        <p class="muted small" data-testid="past-sessions-none">
          {agentName} has no earlier sessions in this folder.
        </p>
      )}
      {!view.unavailable && view.sessions.length > 0 && (
        <ul class="past-session-list">
          {view.sessions.map((s) => (
            <li data-testid="past-session" key={s.sessionId}>
              <span class="past-session-title">{s.title}</span>
              {s.updatedAt && <span class="muted small"> · {new Date(s.updatedAt).toLocaleString()}</span>}
              {s.opened ? (
                <button type="button" data-testid="past-session-open" onClick={() => onOpenExisting(s.opened ?? '')}>
                  Open in Hangar
                </button>
              ) : (
                <button
                  type="button"
                  data-testid="past-session-continue"
                  disabled={busy}
                  onClick={() => onContinue(s.sessionId, s.title ?? null)}
                >
                  Continue
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!view.unavailable && !view.replays && view.sessions.length > 0 && (
        <p class="muted small">
          {agentName} remembers the conversation, but does not send its earlier turns to show here.
        </p>
      )}
    </div>
  );
}
