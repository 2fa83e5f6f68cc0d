// A session whose agent did not start: the host's reason (creationError),
// the messages that were held and not sent, and the ways out — start a new
// session with the same agent and folder (this one is disposed), or just
// dispose this one. An agent that wants the person to sign in first shows
// the ways it offers (`SignIn`); once one works the session starts again.
import { useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import type { AgentInfo, SessionRow } from '../state/app-store';
import type { StartView } from '../state/chat-store';
import { SignIn } from './SignIn';

export function StartFailed({
  row,
  agent,
  start,
  onClosed,
  onOpen,
}: {
  row: SessionRow;
  agent?: AgentInfo;
  start: StartView;
  onClosed: () => void;
  onOpen?: (host: string, uri: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const host = row.host;
  const name = agent?.displayName || start.provider || 'The agent';
  const act = async (again: boolean) => {
    setBusy(true);
    setError('');
    try {
      const created = again
        ? await call('session.create', { host, agent: row.provider || null, folder: row.folder ?? null })
        : null;
      await call('session.dispose', { host, session: row.uri });
      if (created && onOpen) onOpen(host, created.session);
      else onClosed();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  const held = start.held.length > 0 && (
    <p class="small">
      Not sent:{' '}
      {start.held.map((m) => (
        <q key={m.id}>{m.text}</q>
      ))}
    </p>
  );
  const where = row.hostLabel === 'This computer' ? 'this computer' : row.hostLabel;
  if (start.signIn) {
    return (
      <div class="start-failed sign-in" role="alert" data-testid="start-failed">
        <p>
          <strong>Sign in to {name}.</strong> It will not start a session until you do; choose one way.
        </p>
        {start.error && <p class="small muted">{start.error}</p>}
        <SignIn
          host={host}
          session={row.uri}
          hostName={where}
          signIn={start.signIn}
          onSignedIn={() => void act(true)}
        />
        {held}
        {error && <p class="error small">{error}</p>}
        <div class="start-actions">
          <button type="button" class="danger" data-testid="dispose-failed" disabled={busy} onClick={() => act(false)}>
            Dispose
          </button>
        </div>
      </div>
    );
  }
  return (
    <div class="start-failed" role="alert" data-testid="start-failed">
      <p>
        <strong>{name} did not start.</strong> The host could not open an agent session, so this chat takes no messages.
      </p>
      {start.error && (
        <pre class="start-error" data-testid="start-error">
          {start.error}
        </pre>
      )}
      {held}
      {error && <p class="error small">{error}</p>}
      <div class="start-actions">
        <button type="button" class="primary" data-testid="start-again" disabled={busy} onClick={() => act(true)}>
          Start again
        </button>
        <button type="button" class="danger" data-testid="dispose-failed" disabled={busy} onClick={() => act(false)}>
          Dispose
        </button>
      </div>
    </div>
  );
}
