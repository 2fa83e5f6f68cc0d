// Whether the page's link to the core (the bridge's `/ipc` socket) is up,
// for a plain browser: the transport reports it (ipc.ts), the views read
// it. `epoch` counts the times the link came back after it was lost: a view
// that streams from the core re-subscribes when it changes (keeping what it
// shows until the new snapshot arrives). Inside the Tauri app the link is
// always up.
import { useEffect, useState } from 'preact/hooks';

/** The link's state and how many times it came back. */
export type Link = { up: boolean; epoch: number };

let link: Link = { up: true, epoch: 0 };
const listeners = new Set<(l: Link) => void>();

/** The link now. */
export const currentLink = (): Link => link;

/** Called by the transport: the socket opened (`true`) or was lost (`false`). */
export function setLinkUp(up: boolean): void {
  if (up === link.up) return;
  link = { up, epoch: up ? link.epoch + 1 : link.epoch };
  for (const l of listeners) l(link);
}

/** Call `f` on every change of the link; returns the unsubscribe. */
export function onLink(f: (l: Link) => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** The link, re-rendering the component on every change. */
export function useLink(): Link {
  const [l, setL] = useState(link);
  useEffect(() => {
    setL(link);
    return onLink(setL);
  }, []);
  return l;
}
