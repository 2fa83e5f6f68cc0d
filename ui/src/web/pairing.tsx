// The gate in front of the app in a plain browser: inside the desktop app
// or the development bridge it shows the app at once; on a host serving
// `--web` it pairs with the code in `#pair=CODE` (removed from the address
// bar first), or shows only the pairing screen until the page has a device
// token, and again when the host signs the device out.

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { deviceToken, onSignedOut, pair, pairingCode, pairingRequired } from './device_token';

type Gate =
  | { kind: 'checking' }
  | { kind: 'app' }
  | { kind: 'pairing'; message: string | null; error: boolean }
  | { kind: 'pairing-in-progress' };

/** Decide at start: the app, or the pairing screen (with why). */
async function firstGate(): Promise<Gate> {
  const code = pairingCode(location.hash);
  if (code) {
    // The code leaves the address bar (and history) before anything else.
    history.replaceState(null, '', location.pathname + location.search);
    try {
      await pair(code);
      return { kind: 'app' };
    } catch (e) {
      return { kind: 'pairing', message: e instanceof Error ? e.message : String(e), error: true };
    }
  }
  if (deviceToken()) return { kind: 'app' };
  return (await pairingRequired()) ? { kind: 'pairing', message: null, error: false } : { kind: 'app' };
}

export function WebGate({ children, inApp }: { children: ComponentChildren; inApp: boolean }) {
  const [gate, setGate] = useState<Gate>(inApp ? { kind: 'app' } : { kind: 'checking' });
  useEffect(() => {
    if (inApp) return;
    firstGate().then(setGate);
    return onSignedOut(() => setGate({ kind: 'pairing', message: 'This device was signed out.', error: true }));
  }, []);
  if (gate.kind === 'app') return <>{children}</>;
  if (gate.kind !== 'pairing') return <div class="pairing" data-testid="pairing-wait" />;
  return (
    <div class="pairing empty" data-testid="pairing-screen">
      <h1>Hangar</h1>
      {gate.message && (
        <p class={gate.error ? 'notice error' : 'notice'} data-testid="pairing-message">
          {gate.message}
        </p>
      )}
      <p class="muted">
        Open the pairing link from <code>hangar token create NAME --pair</code> on your computer.
      </p>
    </div>
  );
}
