import { describe, expect, it } from 'vitest';
import {
  appendPage,
  emptyText,
  type HostSearchStatus,
  isSearchKey,
  markedWords,
  matchRanges,
  moveSelection,
  relativeTime,
  type SearchHit,
  silentHosts,
  snippetParts,
} from './search';

const status = (label: string, state: HostSearchStatus['state'], detail: string | null = null): HostSearchStatus => ({
  host: label.toLowerCase(),
  label,
  state,
  detail,
  count: 0,
});

const hit = (session: string, turnId: string | null): SearchHit => ({
  host: 'local',
  hostLabel: 'This computer',
  session,
  chat: `${session}/chat`,
  turnId,
  title: 'T',
  snippet: '',
  at: '2026-01-01T00:00:00Z',
  score: 1,
});

describe('snippetParts', () => {
  it('cuts at the marks and keeps markup as text', () => {
    expect(snippetParts('feed the «quokka» <b>now</b> «Quokka»s')).toEqual([
      { text: 'feed the ', mark: false },
      { text: 'quokka', mark: true },
      { text: ' <b>now</b> ', mark: false },
      { text: 'Quokka', mark: true },
      { text: 's', mark: false },
    ]);
  });
  it('an unclosed mark runs to the end and a stray close is text', () => {
    expect(snippetParts('a » b «c')).toEqual([
      { text: 'a » b ', mark: false },
      { text: 'c', mark: true },
    ]);
  });
  it('marked words are listed once', () => {
    expect(markedWords('«crème» and «crème» «brûlée»')).toEqual(['crème', 'brûlée']);
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  it('says it in words', () => {
    expect(relativeTime('2026-03-10T11:59:30Z', now)).toBe('just now');
    expect(relativeTime('2026-03-10T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-03-10T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-03-09T09:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2026-03-06T12:00:00Z', now)).toBe('4 days ago');
    expect(relativeTime('2026-01-02T12:00:00Z', now)).toBe('2 Jan');
    expect(relativeTime('2025-01-02T12:00:00Z', now)).toBe('2 Jan 2025');
    expect(relativeTime('garbage', now)).toBe('');
  });
});

describe('hosts that did not answer', () => {
  it('each says so, with why', () => {
    const hosts = [
      status('This computer', 'answered'),
      status('Build box', 'notConnected', 'not reachable: Connection refused'),
      status('Lab', 'timedOut', 'did not answer within 5 s'),
      status('Old', 'failed', 'this host cannot search'),
    ];
    expect(silentHosts(hosts).map((h) => h.text)).toEqual([
      'Build box did not answer: not reachable: Connection refused',
      'Lab did not answer: did not answer within 5 s',
      'Old could not search: this host cannot search',
    ]);
  });
  it('no results says what was searched', () => {
    expect(emptyText(' zebra ', [status('A', 'answered'), status('B', 'notConnected')])).toMatch(
      /Nothing matches “zebra” in the host that answered/,
    );
    expect(emptyText('x', [status('A', 'answered'), status('B', 'answered')])).toMatch(/the 2 hosts that answered/);
    expect(emptyText('x', [status('B', 'notConnected')])).toBe('No host could be searched right now.');
  });
});

describe('keys and paging', () => {
  it('arrows wrap, and nothing is selected with no results', () => {
    expect(moveSelection(0, 1, 3)).toBe(1);
    expect(moveSelection(2, 1, 3)).toBe(0);
    expect(moveSelection(0, -1, 3)).toBe(2);
    expect(moveSelection(0, 1, 0)).toBe(-1);
  });
  it('Ctrl+K and Cmd+K open the palette, not with Shift or Alt', () => {
    const k = { key: 'k', ctrlKey: true, metaKey: false, altKey: false, shiftKey: false };
    expect(isSearchKey(k)).toBe(true);
    expect(isSearchKey({ ...k, ctrlKey: false, metaKey: true })).toBe(true);
    expect(isSearchKey({ ...k, shiftKey: true })).toBe(false);
    expect(isSearchKey({ ...k, ctrlKey: false })).toBe(false);
  });
  it('a next page adds only what is not listed yet', () => {
    const shown = [hit('s1', 't1'), hit('s1', null)];
    expect(appendPage(shown, [hit('s1', 't1'), hit('s2', 't9')]).map((h) => `${h.session}/${h.turnId}`)).toEqual([
      's1/t1',
      's1/null',
      's2/t9',
    ]);
  });
});

describe('matchRanges', () => {
  it('finds every word, case ignored, merged where they overlap', () => {
    expect(matchRanges('Quokka quokkas and QUOK', ['quokka', 'quok'])).toEqual([
      [0, 6],
      [7, 13],
      [19, 23],
    ]);
    expect(matchRanges('nothing here', ['zebra', ''])).toEqual([]);
  });
});
