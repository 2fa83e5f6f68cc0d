// The search palette's logic (Ctrl+K, and the sidebar's search box): the
// snippet cut into text and marked matches, times in words, the lines for
// hosts that did not answer, the keyboard and the debounce. Pure: no DOM,
// testable in node.

import type { HostSearchStatus } from '../gen/HostSearchStatus';
import type { SearchHit } from '../gen/SearchHit';
import type { SearchResults } from '../gen/SearchResults';

export type { HostSearchStatus, SearchHit, SearchResults };

/** How long typing must pause before the query goes out. */
export const SEARCH_DEBOUNCE_MS = 150;

/** A piece of a snippet: plain text, or a matched word. */
export interface SnippetPart {
  text: string;
  mark: boolean;
}

/**
 * A host's snippet cut at its `«` and `»` marks. Only the pieces are
 * returned; the caller renders each as text (a snippet is peer content,
 * never HTML). An unclosed `«` marks to the end; a stray `»` is text.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let mark = false;
  let text = '';
  const flush = () => {
    if (text) parts.push({ text, mark });
    text = '';
  };
  for (const ch of snippet) {
    if (ch === '«' && !mark) {
      flush();
      mark = true;
    } else if (ch === '»' && mark) {
      flush();
      mark = false;
    } else text += ch;
  }
  flush();
  return parts;
}

/** The distinct words a snippet marks (what to highlight in the turn). */
export function markedWords(snippet: string): string[] {
  const words = snippetParts(snippet)
    .filter((p) => p.mark)
    .map((p) => p.text.trim())
    .filter((w) => w.length > 0);
  return [...new Set(words)];
}

/** `at` (RFC 3339) relative to `now` (ms), in words: "just now", "5 min ago", "yesterday", "3 Mar 2025". */
export function relativeTime(at: string, now: number): string {
  const t = Date.parse(at);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.floor(h / 24);
  if (d === 1) return 'yesterday';
  if (d < 7) return `${d} days ago`;
  const date = new Date(t);
  const month = date.toLocaleString('en', { month: 'short', timeZone: 'UTC' });
  const sameYear = new Date(now).getUTCFullYear() === date.getUTCFullYear();
  return `${date.getUTCDate()} ${month}${sameYear ? '' : ` ${date.getUTCFullYear()}`}`;
}

/** The hosts that did not answer, each as one line: "Build box did not answer: not reachable: …". */
export function silentHosts(hosts: HostSearchStatus[]): { host: string; text: string }[] {
  return hosts
    .filter((h) => h.state !== 'answered')
    .map((h) => {
      const why = h.detail ? `: ${h.detail}` : '';
      const verb = h.state === 'failed' ? 'could not search' : 'did not answer';
      return { host: h.host, text: `${h.label} ${verb}${why}` };
    });
}

/** The palette's line when nothing was found, saying what was searched. */
export function emptyText(query: string, hosts: HostSearchStatus[]): string {
  const asked = hosts.filter((h) => h.state === 'answered').length;
  if (asked === 0) return 'No host could be searched right now.';
  const where = asked === 1 ? 'the host that answered' : `the ${asked} hosts that answered`;
  return `Nothing matches “${query.trim()}” in ${where}. Every word must appear; try fewer or shorter words.`;
}

/** The next selected index after an arrow key (wrapping), or -1 with no results. */
export function moveSelection(index: number, delta: number, count: number): number {
  if (count === 0) return -1;
  return (((index + delta) % count) + count) % count;
}

/** Ctrl+K (Cmd+K on a Mac): open the search palette. */
export const isSearchKey = (e: {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}) => e.key.toLowerCase() === 'k' && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;

/** A stable key for a result (a session can match on several turns). */
export const hitKey = (h: SearchHit) => `${h.host} ${h.session} ${h.turnId ?? ''}`;

/** Results of a further page appended, without repeating one already listed. */
export function appendPage(shown: SearchHit[], page: SearchHit[]): SearchHit[] {
  const seen = new Set(shown.map(hitKey));
  return [...shown, ...page.filter((h) => !seen.has(hitKey(h)))];
}

/**
 * Where `words` occur in `text` (case ignored), as sorted, non-overlapping
 * [start, end) offsets: the matched words to highlight in the opened turn.
 */
export function matchRanges(text: string, words: string[]): [number, number][] {
  const lower = text.toLowerCase();
  // Lower-casing that changes the length (rare letters) would shift offsets: match case then.
  const hay = lower.length === text.length ? lower : text;
  const found: [number, number][] = [];
  for (const w of words) {
    const needle = hay === lower ? w.toLowerCase() : w;
    if (!needle) continue;
    for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) {
      found.push([i, i + needle.length]);
    }
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const r of found) {
    const prev = out.at(-1);
    if (prev && r[0] < prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else out.push([...r]);
  }
  return out;
}
