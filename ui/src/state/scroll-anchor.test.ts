import { describe, expect, it } from 'vitest';
import { restoredScrollTop } from './scroll-anchor';

describe('scroll anchor', () => {
  it('moves down by how far the anchored turn moved', () => {
    const a = { turn: 't30', offset: 12 };
    // 30 turns prepended pushed t30 from 12 px to 2,412 px below the top.
    expect(restoredScrollTop(a, 0, 't0', 2412)).toBe(2400);
    expect(restoredScrollTop(a, 20, 't0', 2412)).toBe(2420);
  });

  it('waits while the first turn shown is unchanged (the page has not arrived)', () => {
    expect(restoredScrollTop({ turn: 't30', offset: 0 }, 0, 't30', 0)).toBeNull();
  });

  it('gives up when the anchored turn is gone', () => {
    expect(restoredScrollTop({ turn: 't30', offset: 0 }, 0, 't0', null)).toBeNull();
  });
});
