// The ways to sign an agent in, when its host refused to start it for want
// of that (the start's `signIn`): a key field (kept in the host's keyring,
// never shown again), a login run in a terminal on the host (watched here,
// live, and answered by typing in it when it asks), or the agent's own
// sign-in. Once one works, `onSignedIn` starts
// the session again (as Zed's agent panel retries after authenticating).
import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import type { SignInMethodView } from '../gen/SignInMethodView';
import type { SignInView } from '../gen/SignInView';
import { call, errorText } from '../ipc';
import { inputQueue } from '../state/input-queue';
import type { TerminalStatus } from '../state/terminal';
import { LazyTerminal } from './LazyTerminal';

export function SignIn({
  host,
  session,
  hostName,
  signIn,
  onSignedIn,
}: {
  host: string;
  session: string;
  /** The host's name, as the sidebar shows it. */
  hostName: string;
  signIn: SignInView;
  onSignedIn: () => void;
}) {
  return (
    <ul class="sign-in-methods" data-testid="sign-in">
      {signIn.methods.map((m) => (
        <li key={m.id} data-testid={`sign-in-${m.kind}`}>
          <Method host={host} session={session} hostName={hostName} method={m} onSignedIn={onSignedIn} />
        </li>
      ))}
    </ul>
  );
}

function Method({
  host,
  session,
  hostName,
  method,
  onSignedIn,
}: {
  host: string;
  session: string;
  hostName: string;
  method: SignInMethodView;
  onSignedIn: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [key, setKey] = useState('');
  const [terminal, setTerminal] = useState<string | null>(null);
  const [loginFailed, setLoginFailed] = useState('');
  // Told once: a terminal's status may be reported again as this re-renders.
  const told = useRef(false);
  const signedIn = useCallback(() => {
    if (told.current) return;
    told.current = true;
    onSignedIn();
  }, [onSignedIn]);
  const read = useCallback((uri: string, from: number) => call('terminal.read', { host, uri, from }), [host]);
  // In order, one command at a time (state/input-queue.ts).
  const type = useMemo(
    () =>
      terminal
        ? inputQueue(
            (data) => call('terminal.input', { host, uri: terminal, data }),
            (e) => setError(errorText(e)),
          )
        : () => {},
    [host, terminal],
  );

  const signIn = async (withKey?: string) => {
    setBusy(true);
    setError('');
    setLoginFailed('');
    try {
      const done = await call('agent.signIn', { host, session, method: method.id, key: withKey ?? null });
      if (done.terminal) {
        setTerminal(done.terminal);
      } else {
        setKey('');
        signedIn();
      }
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  const loginStatus = useCallback(
    (s: TerminalStatus) => {
      if (s.kind !== 'ended') return;
      if (s.exitCode === 0) {
        signedIn();
      } else {
        setLoginFailed(
          s.exitCode === null ? 'The login was ended before it finished.' : `The login failed (exit ${s.exitCode}).`,
        );
        setBusy(false);
      }
    },
    [signedIn],
  );

  const about = method.description && method.description !== method.name && (
    <span class="small muted"> {method.description}</span>
  );
  if (method.kind === 'apiKey') {
    return (
      <form
        class="sign-in-key"
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) void signIn(key);
        }}
      >
        <label>
          <strong>{method.name}</strong>
          {about}
          <input
            type="password"
            autocomplete="off"
            spellcheck={false}
            placeholder={method.var ? `${method.var}` : 'API key'}
            value={key}
            disabled={busy}
            data-testid="sign-in-key"
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy || !key.trim()} data-testid="sign-in-save-key">
          Save key
        </button>
        <p class="small muted">
          Kept in {hostName}'s keyring and given to the agent as <code>{method.var}</code> when it starts.
        </p>
        {error && <p class="error small">{error}</p>}
      </form>
    );
  }
  return (
    <div class="sign-in-run">
      <div>
        <button
          type="button"
          class={method.kind === 'terminal' ? '' : 'primary'}
          disabled={busy}
          data-testid="sign-in-run"
          onClick={() => void signIn()}
        >
          {method.name}
        </button>
        {about}
      </div>
      {method.kind === 'terminal' && !terminal && method.title && (
        <p class="small muted">
          Runs <code>{method.title}</code> on {hostName}.
        </p>
      )}
      {method.kind === 'agent' && busy && (
        <p class="small muted" data-testid="sign-in-waiting">
          Waiting for the agent… finish signing in where it asked you to (a browser on {hostName}).
        </p>
      )}
      {terminal && (
        <LazyTerminal
          key={terminal}
          link={{
            uri: terminal,
            title: method.title ?? method.name,
            ended: false,
            exitCode: null,
            preview: null,
            truncated: false,
          }}
          read={read}
          onStatus={loginStatus}
          type={type}
        />
      )}
      {loginFailed && (
        <p class="error small" data-testid="sign-in-failed">
          {loginFailed} Read its output above, then try again.
        </p>
      )}
      {error && <p class="error small">{error}</p>}
    </div>
  );
}
