// The browser's outbox: messages typed while the page's link to the core was
// down, kept in localStorage (one key per session, so a reload or a closed
// tab loses nothing) until the core acknowledges them (outbox-flush.ts sends
// them). The desktop app's own outbox (src-tauri/src/outbox.rs) keeps what
// waits for a *host*; this one keeps what waits for the *core*.
import { useEffect, useState } from 'preact/hooks';

/** One message waiting for the link. */
export type OutboxEntry = {
  /** Its id (never reused): what a delivery is recognised by in this store. */
  id: string;
  host: string;
  /** The session's URI. */
  session: string;
  text: string;
  /** Sent as a turn, or queued / steering behind the running one. */
  kind: 'send' | 'queued' | 'steering';
  /** The chat's last turn when it was typed: a delivery shows up after it. */
  afterTurn: string | null;
  /** Handed to the core once already, with no answer (the link dropped). */
  tried: boolean;
  /** The core refused it: why (it waits for Retry or Discard). */
  error?: string;
};

/** The storage the outbox lives in (localStorage; a Map-backed one in unit tests). */
export type KeyStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

const PREFIX = 'hangar.outbox:';
const keyOf = (host: string, session: string) => `${PREFIX}${host} ${session}`;

/** The entries of one session, oldest first (none if the stored value does not parse). */
export function readOutbox(store: KeyStore, host: string, session: string): OutboxEntry[] {
  try {
    const v = JSON.parse(store.getItem(keyOf(host, session)) ?? '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/** Every session with entries, as `[host, session]`. */
export function outboxSessions(store: KeyStore): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < store.length; i++) {
    const k = store.key(i);
    if (!k?.startsWith(PREFIX)) continue;
    const first = readOutbox(store, ...splitKey(k))[0];
    if (first) out.push([first.host, first.session]);
  }
  return out;
}

function splitKey(k: string): [string, string] {
  const rest = k.slice(PREFIX.length);
  const at = rest.indexOf(' ');
  return [rest.slice(0, at), rest.slice(at + 1)];
}

const listeners = new Set<() => void>();

function write(store: KeyStore, host: string, session: string, entries: OutboxEntry[]): void {
  if (entries.length === 0) store.removeItem(keyOf(host, session));
  else store.setItem(keyOf(host, session), JSON.stringify(entries));
  for (const l of listeners) l();
}

/** Keep `entry` at the end of its session's outbox. */
export function addToOutbox(store: KeyStore, entry: OutboxEntry): void {
  write(store, entry.host, entry.session, [...readOutbox(store, entry.host, entry.session), entry]);
}

/** Drop entry `id` (delivered or discarded). */
export function dropFromOutbox(store: KeyStore, host: string, session: string, id: string): void {
  write(
    store,
    host,
    session,
    readOutbox(store, host, session).filter((e) => e.id !== id),
  );
}

/** Change entry `id` (marked tried, refused, or cleared for a retry). */
export function updateInOutbox(
  store: KeyStore,
  host: string,
  session: string,
  id: string,
  change: Partial<OutboxEntry>,
): void {
  write(
    store,
    host,
    session,
    readOutbox(store, host, session).map((e) => (e.id === id ? { ...e, ...change } : e)),
  );
}

/**
 * Whether a chat already holds `entry` (so it must not be sent again): a turn
 * after the one it was typed after, or a queued message, with its text.
 */
export function alreadyDelivered(
  entry: OutboxEntry,
  turns: Array<{ id: string; message: { text: string } }>,
  queued: Array<{ text: string }>,
): boolean {
  const after = entry.afterTurn == null ? 0 : turns.findIndex((t) => t.id === entry.afterTurn) + 1;
  return turns.slice(after).some((t) => t.message.text === entry.text) || queued.some((q) => q.text === entry.text);
}

/** A fresh entry id. */
export const newEntryId = (): string =>
  globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`;

/** One session's entries in localStorage, re-rendering on every change. */
export function useOutbox(host: string, session: string): OutboxEntry[] {
  const [entries, setEntries] = useState(() => readOutbox(localStorage, host, session));
  useEffect(() => {
    const update = () => setEntries(readOutbox(localStorage, host, session));
    update();
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, [host, session]);
  return entries;
}
