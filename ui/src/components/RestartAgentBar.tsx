// "Some changes take effect when the agent restarts": shown in the
// Customizations panel while an entry's change waits for the agent's next
// start, with a button that stops the agent now (`session.restartAgent`);
// its next message starts it afresh, resuming the agent's session where
// the agent supports that (ACP `session/load`).
import { useState } from 'preact/hooks';
import { call, errorText } from '../ipc';

export function RestartAgentBar({ host, session, agentLabel }: { host: string; session: string; agentLabel: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const restart = async () => {
    setBusy(true);
    setError('');
    try {
      await call('session.restartAgent', { host, session });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="cust-restart banner" role="status" data-testid="cust-restart">
      <span class="small">
        Some changes reach {agentLabel} only when it restarts. It starts again with your next message; the transcript
        stays, and an agent that can resume its session keeps its memory of it.
      </span>
      <button type="button" disabled={busy} data-testid="cust-restart-agent" onClick={restart}>
        {busy ? 'Restarting…' : 'Restart agent'}
      </button>
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
