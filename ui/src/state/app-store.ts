// The app-level view (hosts, session rows, approval inbox) and how the
// core's app-stream ops update it. Pure: no DOM, testable in node.

export interface AgentInfo {
  provider: string;
  displayName: string;
  description: string;
  models: { id: string; name: string }[];
}
export interface HostView {
  id: string;
  label: string;
  state: string;
  connected: boolean;
  defaultDirectory?: string | null;
  agents: AgentInfo[];
  error?: string | null;
}
// `starting` / `failed`: the session's agent is starting or did not start.
export type SessionStatus = 'idle' | 'working' | 'needs-input' | 'error' | 'starting' | 'failed';
export interface SessionRow {
  host: string;
  hostLabel: string;
  uri: string;
  title: string;
  provider: string;
  status: SessionStatus;
  activity?: string | null;
  unread: boolean;
  archived: boolean;
  folder?: string | null;
  modifiedAt: string;
  defaultChat?: string | null;
}
export interface InboxItem {
  host: string;
  session: string;
  chat: string;
  chatTitle: string;
  turnId: string;
  toolCallId: string;
  title: string;
}
export interface AppState {
  hosts: HostView[];
  sessions: Record<string, SessionRow>;
  inbox: InboxItem[];
  notices: string[];
}

export const emptyApp = (): AppState => ({ hosts: [], sessions: {}, inbox: [], notices: [] });
export const rowKey = (host: string, uri: string) => `${host} ${uri}`;

function byKey(rows: SessionRow[]): Record<string, SessionRow> {
  const out: Record<string, SessionRow> = {};
  for (const r of rows) out[rowKey(r.host, r.uri)] = r;
  return out;
}

export function applyAppOp(s: AppState, op: any): AppState {
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
      return { ...s, notices: [...s.notices.slice(-4), `${op.action} was refused: ${op.reason}`] };
    default:
      return s;
  }
}

export interface HostGroup {
  host: HostView;
  rows: SessionRow[];
}

/** Sessions grouped by host, newest first; archived ones only when asked. */
export function groupSessions(s: AppState, showArchived: boolean): HostGroup[] {
  return s.hosts.map((host) => ({
    host,
    rows: Object.values(s.sessions)
      .filter((r) => r.host === host.id && r.archived === showArchived)
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
};

/** The last path segment of a file URI, for display. */
export function folderName(uri?: string | null): string {
  if (!uri) return '';
  const path = decodeURIComponent(uri.replace(/^file:\/\//, '')).replace(/\/+$/, '');
  return path.split('/').pop() || path || '/';
}
