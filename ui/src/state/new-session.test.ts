import { describe, expect, it } from 'vitest';
import { type AppState, emptyApp, type HostView } from './app-store';
import { dialogHost, hostWaiting, pickerFolders } from './new-session';

const agent = (provider: string) => ({ provider, displayName: provider, description: '', models: [] });
const host = (extra: Partial<HostView> = {}): HostView => ({
  id: 'local',
  label: 'This computer',
  state: 'Connected',
  connected: true,
  defaultDirectory: null,
  agents: [agent('fake'), agent('slow')],
  error: null,
  connection: { state: 'connected' },
  remote: null,
  back: null,
  ...extra,
});
const app = (hosts: HostView[]): AppState => ({ ...emptyApp(), hosts });

describe('new-session dialog host', () => {
  it('fills in as the host state arrives: nothing known, connecting, then ready', () => {
    const none = dialogHost(emptyApp(), '', '');
    expect(none).toMatchObject({ id: '', ready: false, agents: [], agent: '' });
    expect(hostWaiting(none)).toBe('Connecting to the host…');

    const connecting = dialogHost(app([host({ connected: false, state: 'Connecting', agents: [] })]), '', '');
    expect(connecting).toMatchObject({ id: 'local', ready: false, agents: [], agent: '' });
    expect(hostWaiting(connecting)).toBe('Connecting to This computer…');

    const ready = dialogHost(app([host()]), '', '');
    expect(ready).toMatchObject({ id: 'local', ready: true, agent: 'fake' });
    expect(ready.agents.map((a) => a.provider)).toEqual(['fake', 'slow']);
    expect(hostWaiting(ready)).toBe('');
  });

  it('keeps what the user picked while the host lists it', () => {
    const two = app([host({ id: 'a', connected: false }), host({ id: 'b' }), host({ id: 'c' })]);
    expect(dialogHost(two, '', '').id).toBe('b');
    expect(dialogHost(two, 'c', 'slow')).toMatchObject({ id: 'c', agent: 'slow' });
    expect(dialogHost(two, 'c', 'gone').agent).toBe('fake');
    expect(dialogHost(two, 'c', '').choices.map((h) => h.id)).toEqual(['b', 'c']);
    expect(dialogHost(two, 'a', '').choices.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(hostWaiting(dialogHost(app([host({ connected: false, error: 'refused' })]), '', ''))).toBe(
      'Connecting to This computer… (last attempt: refused)',
    );
  });
});

describe('folder picker list', () => {
  const e = (name: string, dir = true) => ({ name, dir, uri: `file:///h/${name}` });
  const entries = [e('.local'), e('notes.txt', false), e('Zed'), e('.cache'), e('app'), e('src10'), e('src9')];

  it('lists visible folders by name and hides dot-folders', () => {
    const { shown, hidden } = pickerFolders(entries, false);
    expect(shown.map((f) => f.name)).toEqual(['app', 'src9', 'src10', 'Zed']);
    expect(hidden).toBe(2);
  });

  it('shows hidden folders after the visible ones when asked', () => {
    expect(pickerFolders(entries, true).shown.map((f) => f.name)).toEqual([
      'app',
      'src9',
      'src10',
      'Zed',
      '.cache',
      '.local',
    ]);
  });
});
