// "Add host": the same steps as `hangar remote add`. Name, URL and token;
// for a wss:// host the certificate's SHA-256 fingerprint is shown first,
// to compare with the one `hangar serve` printed, and trusted only on
// "Trust and add"; then the core proves the token with one connection and
// keeps it in the OS keyring (or, ticked, a 0600 file where there is none).
import { useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import { addHostProblem, plainRemote } from '../state/hosts';

export function AddHostDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (host: string) => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [insecureFile, setInsecureFile] = useState(false);
  /** The fingerprint to trust (wss://), once probed. */
  const [fingerprint, setFingerprint] = useState<string | null>(null);
  const [busy, setBusy] = useState('');
  const [error, setError] = useState('');
  const problem = addHostProblem(name, url, token);

  const attempt = async (what: string, job: () => Promise<void>) => {
    setBusy(what);
    setError('');
    try {
      await job();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy('');
    }
  };
  const add = (pin: string | null) =>
    attempt('Checking the token and saving the host…', async () => {
      const r = await call('host.add', {
        name: name.trim(),
        url: url.trim(),
        token: token.trim(),
        fingerprint: pin,
        insecureTokenFile: insecureFile,
      });
      onAdded(r.host);
    });
  const next = () =>
    attempt('Contacting the host…', async () => {
      const probe = await call('host.probe', { url: url.trim() });
      if (probe.secure && probe.fingerprint) setFingerprint(probe.fingerprint);
      else await add(null);
    });
  const edit = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value);
    setFingerprint(null);
  };

  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal add-host" role="dialog" aria-label="Add host" data-testid="add-host-dialog">
        <h2>Add host</h2>
        <p class="muted small">
          A machine running <code>hangar serve</code>. On it, <code>hangar token create NAME</code> prints a token for
          this device.
        </p>
        <div class="form-row">
          <label>
            Name
            <input type="text" data-testid="add-host-name" value={name} onInput={edit(setName)} />
          </label>
          <label>
            URL
            <input
              type="text"
              data-testid="add-host-url"
              placeholder="wss://box.lan:8765/"
              value={url}
              onInput={edit(setUrl)}
            />
          </label>
        </div>
        {plainRemote(url) && (
          <p class="notice small" data-testid="add-host-plain">
            ws:// is not encrypted: the token and your sessions cross the network in clear. Beyond this machine, serve
            wss:// (<code>hangar serve --tls-self-signed</code>).
          </p>
        )}
        <div class="form-row">
          <label>
            Token
            <input
              type="password"
              autocomplete="off"
              data-testid="add-host-token"
              value={token}
              onInput={edit(setToken)}
            />
          </label>
        </div>
        <label class="small add-host-insecure">
          <input
            onChange={(e) => setInsecureFile((e.target as HTMLInputElement).checked)}
            checked={insecureFile}
            type="checkbox"
            data-testid="add-host-insecure"
          />{' '}
          Keep the token in a plaintext file (mode 0600) instead of the OS keyring — only where no keyring exists
        </label>
        {fingerprint && (
          <div class="fingerprint" data-testid="add-host-fingerprint">
            <p>The host presents a TLS certificate with SHA-256 fingerprint</p>
            <code class="fingerprint-value" data-testid="add-host-fingerprint-value">
              {fingerprint}
            </code>
            <p class="small">
              Compare it with the one <code>hangar serve</code> printed on the host (
              <code>hangar: TLS certificate SHA-256 fingerprint: …</code>). Trust it only if they are the same: the app
              will then refuse any other certificate from this host.
            </p>
          </div>
        )}
        {busy && (
          <p class="muted small" role="status" data-testid="add-host-busy">
            {busy}
          </p>
        )}
        {error && (
          <p class="error" role="alert" data-testid="add-host-error">
            {error}
          </p>
        )}
        {!error && problem && (name || url || token) && <p class="muted small">{problem}</p>}
        <div class="modal-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          {fingerprint ? (
            <button
              type="button"
              class="primary"
              data-testid="add-host-trust"
              disabled={!!busy}
              onClick={() => add(fingerprint)}
            >
              Trust and add
            </button>
          ) : (
            <button
              type="button"
              class="primary"
              data-testid="add-host-next"
              disabled={!!problem || !!busy}
              onClick={next}
            >
              Add host
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
