// The gate in front of the app in a plain browser: inside the desktop app
// or the development bridge it shows the app at once; on a host serving
// `--web` it pairs with the code in `#pair=CODE` (removed from the address
// bar first), or shows only the pairing screen until the page has a device
// token, and again when the host signs the device out. The pairing screen
// takes a new link or code (pasted, or the link opened in this tab) and
// pairs again without a reload.

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { codeFromInput, deviceToken, onSignedOut, pair, pairingCode, pairingRequired } from './device_token';

type Gate =
  | { kind: 'checking' }
  | { kind: 'app' }
  | { kind: 'pairing'; message: string | null; error: boolean }
  | { kind: 'pairing-in-progress' };

/** Trade `code` for a token: the app, or the pairing screen with the refusal. */
async function pairWith(code: string): Promise<Gate> {
  try {
    await pair(code);
    return { kind: 'app' };
  } catch (e) {
    return { kind: 'pairing', message: e instanceof Error ? e.message : String(e), error: true };
  }
}

/** The code in the address's fragment, removed from the address bar (and history) first. */
function takeCodeFromAddress(): string | null {
  const code = pairingCode(location.hash);
  if (code) history.replaceState(null, '', location.pathname + location.search);
  return code;
}

/** Decide at start: the app, or the pairing screen (with why). */
async function firstGate(): Promise<Gate> {
  const code = takeCodeFromAddress();
  if (code) return pairWith(code);
  if (deviceToken()) return { kind: 'app' };
  return (await pairingRequired()) ? { kind: 'pairing', message: null, error: false } : { kind: 'app' };
}

export function WebGate({ children, inApp }: { children: ComponentChildren; inApp: boolean }) {
  const [gate, setGate] = useState<Gate>(inApp ? { kind: 'app' } : { kind: 'checking' });
  useEffect(() => {
    if (inApp) return;
    firstGate().then(setGate);
    // A new pairing link opened in this tab (only its fragment changes).
    const onHash = () => {
      const code = takeCodeFromAddress();
      if (code) pairWith(code).then(setGate);
    };
    window.addEventListener('hashchange', onHash);
    const unsubscribe = onSignedOut(() =>
      setGate({ kind: 'pairing', message: 'This device was signed out.', error: true }),
    );
    return () => {
      window.removeEventListener('hashchange', onHash);
      unsubscribe();
    };
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
      <RepairForm onGate={setGate} />
    </div>
  );
}

/** Paste a new pairing link (or its code) to pair this page again. */
function RepairForm({ onGate }: { onGate: (g: Gate) => void }) {
  const [text, setText] = useState('');
  const code = codeFromInput(text);
  return (
    <form
      class="pairing-form"
      data-testid="pairing-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (code) pairWith(code).then(onGate);
      }}
    >
      <label for="pairing-input">Or paste a new pairing link or code</label>
      <input
        id="pairing-input"
        type="text"
        autocomplete="off"
        autocapitalize="characters"
        value={text}
        data-testid="pairing-input"
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
      />
      <button type="submit" class="primary" disabled={!code} data-testid="pairing-submit">
        Pair
      </button>
    </form>
  );
}
