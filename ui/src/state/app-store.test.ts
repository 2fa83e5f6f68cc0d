import { describe, expect, it } from 'vitest';
import {
  applyAppOp,
  dismissNotice,
  emptyApp,
  folderName,
  groupSessions,
  type HostView,
  rowKey,
  rowStatusText,
  type SessionRow,
} from './app-store';
import { NO_FILTER, type SidebarFilter } from './sidebar-filter';

const host: HostView = {
  id: 'local',
  label: 'This computer',
  state: 'Connected',
  connected: true,
  defaultDirectory: null,
  agents: [],
  error: null,
  connection: { state: 'connected' },
  remote: null,
  back: null,
};
const row = (uri: string, extra: Partial<SessionRow> = {}): SessionRow => ({
  host: 'local',
  hostLabel: 'This computer',
  uri,
  title: uri,
  provider: 'fake',
  status: 'idle',
  activity: null,
  unread: false,
  archived: false,
  folder: 'file:///h/demo',
  modifiedAt: '2026-01-01T00:00:00Z',
  defaultChat: null,
  changes: null,
  git: null,
  ...extra,
});

describe('app store', () => {
  it('applies a snapshot, upserts and removals', () => {
    let s = applyAppOp(emptyApp(), { op: 'snapshot', hosts: [host], sessions: [row('a')], inbox: [] });
    s = applyAppOp(s, { op: 'session', row: row('b', { status: 'working', modifiedAt: '2026-01-02T00:00:00Z' }) });
    s = applyAppOp(s, { op: 'session', row: row('a', { title: 'Renamed' }) });
    expect(Object.keys(s.sessions)).toHaveLength(2);
    expect(s.sessions[rowKey('local', 'a')].title).toBe('Renamed');
    const groups = groupSessions(s, NO_FILTER);
    expect(groups[0].rows.map((r) => r.uri)).toEqual(['b', 'a']);
    s = applyAppOp(s, {
      op: 'inbox',
      items: [
        {
          host: 'local',
          session: 'a',
          chat: 'c',
          chatTitle: '',
          turnId: 't',
          toolCallId: 'x',
          title: 'Edit',
          confirmation: true,
        },
      ],
    });
    s = applyAppOp(s, { op: 'sessionRemoved', host: 'local', uri: 'a' });
    expect(Object.keys(s.sessions)).toEqual([rowKey('local', 'b')]);
    expect(s.inbox).toEqual([]);
  });

  it('keeps archived sessions apart', () => {
    const s = applyAppOp(emptyApp(), {
      op: 'snapshot',
      hosts: [host],
      sessions: [row('a'), row('b', { archived: true })],
      inbox: [],
    });
    expect(groupSessions(s, NO_FILTER)[0].rows.map((r) => r.uri)).toEqual(['a']);
    expect(groupSessions(s, { state: 'archived', host: null })[0].rows.map((r) => r.uri)).toEqual(['b']);
  });

  it('filters by state and by host', () => {
    const box: HostView = { ...host, id: 'box', label: 'Build box' };
    const s = applyAppOp(emptyApp(), {
      op: 'snapshot',
      hosts: [host, box],
      sessions: [
        row('idle'),
        row('waits', { status: 'needs-input' }),
        row('signin', { status: 'sign-in' }),
        row('works', { status: 'working' }),
        row('starts', { status: 'starting' }),
        row('broke', { status: 'error' }),
        row('nostart', { status: 'failed' }),
        row('old', { archived: true, status: 'needs-input' }),
        row('remote', { host: 'box', status: 'needs-input' }),
      ],
      inbox: [],
    });
    const uris = (state: SidebarFilter['state'], h: string | null = null) =>
      groupSessions(s, { state, host: h }).map(
        (g) =>
          `${g.host.id}:${g.rows
            .map((r) => r.uri)
            .sort()
            .join(',')}`,
      );
    expect(uris('needs-you')).toEqual(['local:signin,waits', 'box:remote']);
    expect(uris('running')).toEqual(['local:starts,works', 'box:']);
    expect(uris('failed')).toEqual(['local:broke,nostart', 'box:']);
    expect(uris('archived')).toEqual(['local:old', 'box:']);
    expect(uris('needs-you', 'box')).toEqual(['box:remote']);
    expect(uris('all', 'local')).toHaveLength(1);
  });

  it('records refusals as notices', () => {
    const s = applyAppOp(emptyApp(), {
      op: 'rejected',
      host: 'local',
      channel: 'c',
      action: 'chat/turnStarted',
      reason: 'busy',
    });
    expect(s.notices[0].text).toContain('busy');
  });

  it('leaves a refused worktree removal to the dialog that asked for it', () => {
    const s = applyAppOp(emptyApp(), {
      op: 'rejected',
      host: 'local',
      channel: 's',
      action: 'session/isArchivedChanged',
      reason: 'hangar/worktree: branch b has 1 commit(s) not merged into main; pass "force": true',
    });
    expect(s.notices).toEqual([]);
  });

  it('keeps the five newest notices, each with its own id, and drops a dismissed one', () => {
    let s = emptyApp();
    for (let i = 0; i < 7; i++) {
      s = applyAppOp(s, { op: 'rejected', host: 'local', channel: 'c', action: 'a', reason: `r${i}` });
    }
    expect(s.notices.map((n) => n.id)).toEqual([3, 4, 5, 6, 7]);
    s = dismissNotice(s, 6);
    expect(s.notices.map((n) => n.text)).toEqual([
      'a was refused: r2',
      'a was refused: r3',
      'a was refused: r4',
      'a was refused: r6',
    ]);
  });

  it('names folders from file URIs', () => {
    expect(folderName('file:///home/u/my%20proj/')).toBe('my proj');
    expect(folderName(null)).toBe('');
  });
});

describe('row status text', () => {
  it('says what the agent does while it works or waits, else the status word', () => {
    expect(rowStatusText({ status: 'needs-input', activity: 'Waiting for approval: Edit hello.txt' })).toBe(
      'Waiting for approval: Edit hello.txt',
    );
    expect(rowStatusText({ status: 'working', activity: null })).toBe('Working');
    expect(rowStatusText({ status: 'idle', activity: 'Working' })).toBe('Idle');
  });
});
