// The page's device token when Hangar is served by `hangar serve --web`:
// traded once for a pairing code (`POST /pair`), kept in localStorage, and
// presented to `/ipc` as a WebSocket subprotocol (never in a URL). The host
// closes `/ipc` with code 4401 when the device is revoked: the token is
// dropped and the page goes back to the pairing screen.

const KEY = 'hangar.deviceToken';
/** The close code of `/ipc` for a revoked device (src-tauri/src/web/ipc.rs). */
export const REVOKED_CLOSE_CODE = 4401;

export function deviceToken(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

let signedOut = false;

export function saveDeviceToken(token: string): void {
  localStorage.setItem(KEY, token);
  signedOut = false;
}

/**
 * Whether the host signed this page out and it has not been paired again:
 * then `/ipc` is not knocked on at all, as each try without a token would
 * count against this address's failed-token limit and lock out its next
 * pairing.
 */
export function isSignedOut(): boolean {
  return signedOut;
}

/** The subprotocols `/ipc` is opened with: the token, when there is one. */
export function ipcProtocols(): string[] {
  const token = deviceToken();
  return token ? ['hangar-ipc', `hangar-token.${token}`] : [];
}

const signedOutListeners = new Set<() => void>();

/** Call `f` when the host signs this device out; returns the unsubscriber. */
export function onSignedOut(f: () => void): () => void {
  signedOutListeners.add(f);
  return () => signedOutListeners.delete(f);
}

/** `/ipc` closed with `code`: a revoked device forgets its token (see `isSignedOut`). */
export function ipcClosed(code: number): void {
  if (code !== REVOKED_CLOSE_CODE) return;
  localStorage.removeItem(KEY);
  signedOut = true;
  for (const f of signedOutListeners) f();
}

/** The pairing code in the address's fragment (`#pair=CODE`), if any. */
export function pairingCode(hash: string): string | null {
  const m = /^#pair=([A-Za-z0-9]+)$/.exec(hash);
  return m ? m[1] : null;
}

/** The code in what was pasted on the pairing screen: a whole pairing link or the code alone. */
export function codeFromInput(text: string): string | null {
  const t = text.trim();
  const link = /#pair=([A-Za-z0-9]+)$/.exec(t);
  if (link) return link[1];
  return /^[A-Za-z0-9]{4,}$/.test(t) ? t : null;
}

/** Trade `code` for a device token; the host's refusal as an Error. */
export async function pair(code: string): Promise<string> {
  const resp = await fetch('/pair', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const body = (await resp.json().catch(() => ({}))) as { token?: string; device?: string; error?: string };
  if (!resp.ok || !body.token) throw new Error(body.error ?? `pairing refused (${resp.status})`);
  saveDeviceToken(body.token);
  return body.device ?? '';
}

/** Whether this page is served by a host that wants pairing (`GET /pair`). */
export async function pairingRequired(): Promise<boolean> {
  try {
    const resp = await fetch('/pair');
    if (!resp.ok) return false;
    const body = (await resp.json()) as { pairing?: boolean };
    return body.pairing === true;
  } catch {
    return false;
  }
}
