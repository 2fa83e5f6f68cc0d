import { describe, expect, it } from 'vitest';
import { emptyGroupText, filterText, isFiltered, NO_FILTER, parseFilter } from './sidebar-filter';

describe('sidebar filter', () => {
  it('says what it filters, naming the host', () => {
    const label = (id: string) => (id === 'box' ? 'Build box' : undefined);
    expect(filterText({ state: 'needs-you', host: 'box' }, label)).toBe('Needs you · on Build box');
    expect(filterText({ state: 'all', host: 'gone' }, label)).toBe('on a removed host');
    expect(filterText(NO_FILTER, label)).toBe('');
    expect(isFiltered(NO_FILTER)).toBe(false);
    expect(isFiltered({ state: 'failed', host: null })).toBe(true);
  });
  it('an empty group says why under each state', () => {
    expect(emptyGroupText(NO_FILTER)).toBe('No sessions yet');
    expect(emptyGroupText({ state: 'running', host: null })).toBe('Nothing running here');
  });
  it('reads back only a filter it wrote', () => {
    expect(parseFilter(JSON.stringify({ state: 'failed', host: 'box' }))).toEqual({ state: 'failed', host: 'box' });
    expect(parseFilter('{"state": "exploded", "host": 3}')).toEqual(NO_FILTER);
    expect(parseFilter('not json')).toEqual(NO_FILTER);
    expect(parseFilter(null)).toEqual(NO_FILTER);
  });
});
