// A host's connection in words for the sidebar (`HostConnection`, from the
// core): a word, what happened and what to do, the next attempt's time
// counting down, and whether "Retry now" is offered — never a bare spinner.
// And the "Add host" dialog's checks. Pure: no DOM, testable in node.
import type { BackReport } from '../gen/BackReport';
import type { HostConnection } from '../gen/HostConnection';
import type { SessionStatus } from '../gen/SessionStatus';

export type { HostConnection };

export interface ConnectionText {
  /** The state's tag (also the header's `data-state`). */
  state: HostConnection['state'];
  /** One or two words: "Connected", "Reconnecting", "Token refused"… */
  word: string;
  /** What happened and what to do; '' when connected. */
  detail: string;
  /** When the next attempt starts, in words (counting down); '' if none is scheduled. */
  next: string;
  /** Whether "Retry now" is offered. */
  retry: boolean;
  /** Whether the host is up (green), trying (amber) or stopped (red). */
  tone: 'up' | 'trying' | 'down';
}

/** `at` (ms since the epoch) as a local wall-clock time, and seconds from `now`. */
export function nextAttempt(at: number, now: number): string {
  const secs = Math.max(0, Math.ceil((at - now) / 1000));
  const clock = new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return secs === 0 ? `next attempt now (${clock})` : `next attempt in ${secs} s (${clock})`;
}

export function connectionText(c: HostConnection, now: number): ConnectionText {
  const base = { state: c.state, detail: '', next: '', retry: true };
  /** A state the core retries on its own: the next attempt, counting down. */
  const retrying = (word: string, detail: string): ConnectionText => {
    const at = 'nextAttemptAt' in c ? c.nextAttemptAt : null;
    return { ...base, word, detail, next: at != null ? nextAttempt(at, now) : 'attempt under way', tone: 'trying' };
  };
  switch (c.state) {
    case 'connecting':
      return { ...base, word: 'Connecting…', detail: 'Opening the connection.', retry: false, tone: 'trying' };
    case 'connected':
      return { ...base, word: 'Connected', retry: false, tone: 'up' };
    case 'reconnecting':
      return retrying('Reconnecting', c.reason ? `Connection lost. Last attempt: ${c.reason}` : 'Connection lost.');
    case 'unreachable':
      return retrying('Unreachable', c.reason);
    case 'tokenRefused':
      return {
        ...base,
        word: 'Token refused',
        detail: `${c.reason}. Then remove this host (its menu) and add it again with the new token.`,
        tone: 'down',
      };
    case 'certificateChanged':
      return {
        ...base,
        word: 'Certificate changed',
        detail:
          `The host presented another TLS certificate than the one pinned: pinned SHA-256 ${c.expected}, ` +
          `now ${c.found}. Someone may be intercepting the connection. If the host made a new certificate ` +
          'on purpose, remove this host and add it again to pin the new one.',
        tone: 'down',
      };
    case 'protocolUnsupported':
      return { ...base, word: 'Protocol version unsupported', detail: c.reason, tone: 'down' };
    case 'failed':
      return { ...base, word: 'Cannot connect', detail: c.reason, tone: 'down' };
  }
}

/** Whether `url` is a `ws://` URL to another machine (then nothing is encrypted). */
export function plainRemote(url: string): boolean {
  const m = /^ws:\/\/(\[[^\]]*\]|[^/:?#]*)/i.exec(url.trim());
  if (!m) return false;
  const host = m[1].toLowerCase();
  return !(host === 'localhost' || host.startsWith('127.') || host === '[::1]');
}

/** What keeps "Add host" from going on, '' when nothing does. */
export function addHostProblem(name: string, url: string, token: string): string {
  if (!name.trim()) return 'Give the host a name.';
  if (!/^wss?:\/\/[^/]/i.test(url.trim())) return 'The URL starts with ws:// or wss://, e.g. wss://box.lan:8765/';
  if (/[?&]tkn=/.test(url)) return 'Leave the token out of the URL: paste it in the token field.';
  if (!token.trim()) return 'Paste the token (`hangar token create NAME` on the host prints one).';
  return '';
}

/** Why a session in a host's return report needs the person, in words. */
const NEEDS: Partial<Record<SessionStatus, string>> = {
  'needs-input': 'waits for you',
  error: 'its last turn failed',
  failed: 'its agent did not start',
};

/** A host's return report as the header says it. */
export interface BackText {
  /** "Back at 10:42 · 3 sessions resumed". */
  summary: string;
  /** The sessions that need the person, each with why. */
  needYou: { uri: string; title: string; why: string }[];
}

export function backText(report: BackReport): BackText {
  const at = new Date(report.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const n = report.resumed.length;
  const resumed = n === 0 ? 'no session resumed' : n === 1 ? '1 session resumed' : `${n} sessions resumed`;
  return {
    summary: `Back at ${at} · ${resumed}`,
    needYou: report.needYou.map((s) => ({
      uri: s.uri,
      title: s.title || 'Untitled session',
      why: NEEDS[s.status] ?? 'needs a look',
    })),
  };
}
