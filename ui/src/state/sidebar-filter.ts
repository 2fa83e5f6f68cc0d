// The sidebar's filter: by state (needs you, running, failed, archived)
// and by host, what it says when set, and keeping it across restarts (the
// webview's localStorage: a view preference of this window, not a setting
// the core needs). Pure apart from `loadFilter` / `saveFilter`.

import type { SessionRow } from '../gen/SessionRow';
import type { SessionStatus } from '../gen/SessionStatus';

/** Which sessions the sidebar lists. `all` lists every unarchived one. */
export type StateFilter = 'all' | 'needs-you' | 'running' | 'failed' | 'archived';

export interface SidebarFilter {
  state: StateFilter;
  /** A host id, or null for every host. */
  host: string | null;
}

export const NO_FILTER: SidebarFilter = { state: 'all', host: null };

export const STATE_FILTERS: { value: StateFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'needs-you', label: 'Needs you' },
  { value: 'running', label: 'Running' },
  { value: 'failed', label: 'Failed' },
  { value: 'archived', label: 'Archived' },
];

const STATUSES: Record<Exclude<StateFilter, 'all' | 'archived'>, SessionStatus[]> = {
  'needs-you': ['needs-input', 'sign-in'],
  running: ['working', 'starting'],
  failed: ['error', 'failed'],
};

/** Whether `row` is listed under `filter`'s state (the host is checked per group). */
export function matchesState(row: Pick<SessionRow, 'status' | 'archived'>, state: StateFilter): boolean {
  if (state === 'archived') return row.archived;
  if (row.archived) return false;
  return state === 'all' || STATUSES[state].includes(row.status);
}

/** Whether a host's group is listed under `filter`. */
export const matchesHost = (host: string, filter: SidebarFilter) => filter.host == null || filter.host === host;

export const isFiltered = (f: SidebarFilter) => f.state !== 'all' || f.host != null;

/** The filter in words, e.g. "Needs you · on Build box", for the bar that clears it. */
export function filterText(f: SidebarFilter, hostLabel: (id: string) => string | undefined): string {
  const state = STATE_FILTERS.find((s) => s.value === f.state)?.label ?? 'All';
  const parts = f.state === 'all' ? [] : [state];
  if (f.host != null) parts.push(`on ${hostLabel(f.host) ?? 'a removed host'}`);
  return parts.join(' · ');
}

/** What an empty group says under `filter`. */
export function emptyGroupText(f: SidebarFilter): string {
  switch (f.state) {
    case 'all':
      return 'No sessions yet';
    case 'archived':
      return 'No archived sessions';
    case 'needs-you':
      return 'Nothing needs you here';
    case 'running':
      return 'Nothing running here';
    case 'failed':
      return 'Nothing failed here';
  }
}

const KEY = 'hangar.sidebarFilter';

/** A stored filter, if it is one; anything else is no filter. */
export function parseFilter(text: string | null): SidebarFilter {
  try {
    const v = JSON.parse(text ?? 'null');
    const state = STATE_FILTERS.some((s) => s.value === v?.state) ? (v.state as StateFilter) : 'all';
    const host = typeof v?.host === 'string' ? v.host : null;
    return { state, host };
  } catch {
    return NO_FILTER;
  }
}

export function loadFilter(): SidebarFilter {
  try {
    return parseFilter(globalThis.localStorage?.getItem(KEY) ?? null);
  } catch {
    return NO_FILTER;
  }
}

export function saveFilter(f: SidebarFilter) {
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify(f));
  } catch {
    // Storage refused (private mode): the filter lasts this launch.
  }
}
