import { describe, expect, it } from 'vitest';
import { rangeParams } from './usage-range';

const now = new Date('2026-03-10T23:30:00Z');
const range = (kind: '7' | '30' | '90' | 'all' | 'custom', from = '', to = '') => ({ kind, from, to });

describe('usage range', () => {
  it('asks for the last N UTC days, today included', () => {
    expect(rangeParams(range('7'), now)).toEqual({ from: '2026-03-04', to: '2026-03-10' });
    expect(rangeParams(range('30'), now)).toEqual({ from: '2026-02-09', to: '2026-03-10' });
    expect(rangeParams(range('90'), now)).toEqual({ from: '2025-12-11', to: '2026-03-10' });
  });
  it('all time is open at both ends', () => {
    expect(rangeParams(range('all'), now)).toEqual({ from: null, to: null });
  });
  it('a custom range is passed as it is, an empty end open', () => {
    expect(rangeParams(range('custom', '2026-01-01', '2026-01-31'), now)).toEqual({
      from: '2026-01-01',
      to: '2026-01-31',
    });
    expect(rangeParams(range('custom', '2026-01-01'), now)).toEqual({ from: '2026-01-01', to: null });
  });
  it('refuses a custom range that starts after it ends', () => {
    expect(rangeParams(range('custom', '2026-02-01', '2026-01-01'), now)).toEqual({
      error: 'The range starts (2026-02-01) after it ends (2026-01-01).',
    });
  });
});
