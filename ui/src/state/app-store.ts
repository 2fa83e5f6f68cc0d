// The app-level view (hosts, session rows, approval inbox) and how the
// core's app-stream ops (`AppOp`, generated from Rust) update it. Pure: no
// DOM, testable in node.

import type { AgentView } from '../gen/AgentView';
import type { AppOp } from '../gen/AppOp';
import type { HostView } from '../gen/HostView';
import type { InboxItem } from '../gen/InboxItem';
import type { SessionRow } from '../gen/SessionRow';
import type { SessionStatus } from '../gen/SessionStatus';
import { matchesHost, matchesState, type SidebarFilter } from './sidebar-filter';

export type { AgentView as AgentInfo, HostView, InboxItem, SessionRow, SessionStatus };

/** A notice not about one item (a refused action): it goes away by itself or with a click. */
export interface Notice {
  id: number;
  text: string;
}

export interface AppState {
  hosts: HostView[];
  sessions: Record<string, SessionRow>;
  inbox: InboxItem[];
  /** The newest notices (at most five), oldest first. */
  notices: Notice[];
}

export const emptyApp = (): AppState => ({ hosts: [], sessions: {}, inbox: [], notices: [] });
export const rowKey = (host: string, uri: string) => `${host} ${uri}`;

function byKey(rows: SessionRow[]): Record<string, SessionRow> {
  const out: Record<string, SessionRow> = {};
  for (const r of rows) out[rowKey(r.host, r.uri)] = r;
  return out;
}

export function applyAppOp(s: AppState, op: AppOp): AppState {
  switch (op.op) {
    case 'snapshot':
      return { ...s, hosts: op.hosts, sessions: byKey(op.sessions), inbox: op.inbox };
    case 'hosts':
      return { ...s, hosts: op.hosts };
    case 'sessions':
      return { ...s, sessions: byKey(op.sessions) };
    case 'session':
      return { ...s, sessions: { ...s.sessions, [rowKey(op.row.host, op.row.uri)]: op.row } };
    case 'sessionRemoved': {
      const sessions = { ...s.sessions };
      delete sessions[rowKey(op.host, op.uri)];
      return { ...s, sessions, inbox: s.inbox.filter((i) => !(i.host === op.host && i.session === op.uri)) };
    }
    case 'inbox':
      return { ...s, inbox: op.items };
    case 'rejected':
      // A worktree the host would not remove is shown, in words, by the
      // archive / dispose dialog that asked (WorktreeCloseDialog).
      if (op.reason.startsWith('hangar/worktree:')) return s;
      return {
        ...s,
        notices: [
          ...s.notices.slice(-4),
          { id: (s.notices.at(-1)?.id ?? 0) + 1, text: `${op.action} was refused: ${op.reason}` },
        ],
      };
  }
}

/** The app view without notice `id` (closed, or its time is up). */
export function dismissNotice(s: AppState, id: number): AppState {
  return { ...s, notices: s.notices.filter((n) => n.id !== id) };
}

export interface HostGroup {
  host: HostView;
  rows: SessionRow[];
}

/**
 * Sessions grouped by host, newest first, as the sidebar's filter lists
 * them (archived ones only under "Archived"; one host's group only when
 * filtered by host).
 */
export function groupSessions(s: AppState, filter: SidebarFilter): HostGroup[] {
  return s.hosts
    .filter((host) => matchesHost(host.id, filter))
    .map((host) => ({
      host,
      rows: Object.values(s.sessions)
        .filter((r) => r.host === host.id && matchesState(r, filter.state))
        .sort((a, b) =>
          a.modifiedAt < b.modifiedAt ? 1 : a.modifiedAt > b.modifiedAt ? -1 : a.uri.localeCompare(b.uri),
        ),
    }));
}

export const statusLabel: Record<SessionStatus, string> = {
  idle: 'Idle',
  working: 'Working',
  'needs-input': 'Needs input',
  error: 'Error',
  starting: 'Starting',
  failed: 'Failed',
  'sign-in': 'Sign-in needed',
};

/** The last path segment of a file URI, for display. */
/**
 * The row's status in words: what the agent is doing (the host's activity,
 * e.g. "Waiting for approval: Edit hello.txt") while it works or waits,
 * else the status word.
 */
export function rowStatusText(r: Pick<SessionRow, 'status' | 'activity'>): string {
  const busy = r.status === 'working' || r.status === 'needs-input';
  return busy && r.activity ? r.activity : statusLabel[r.status];
}

/** A folder URI as a path. */
export function folderPath(uri?: string | null): string {
  return uri ? decodeURIComponent(uri.replace(/^file:\/\//, '')).replace(/\/+$/, '') || '/' : '';
}

export function folderName(uri?: string | null): string {
  const path = folderPath(uri);
  return path.split('/').pop() || path;
}
