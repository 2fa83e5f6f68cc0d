import { describe, expect, it } from 'vitest';
import { anchorOf, restoredScrollTop } from './scroll-anchor';

describe('scroll anchor', () => {
  it('moves down by the height of the prepended turns', () => {
    const a = anchorOf({ scrollTop: 20, scrollHeight: 3000 }, 't30');
    expect(restoredScrollTop(a, { scrollTop: 20, scrollHeight: 5400 }, 't0')).toBe(2420);
  });

  it('waits while the first turn shown is unchanged (the page has not arrived)', () => {
    const a = anchorOf({ scrollTop: 0, scrollHeight: 3000 }, 't30');
    expect(restoredScrollTop(a, { scrollTop: 0, scrollHeight: 3100 }, 't30')).toBeNull();
  });
});
