import { describe, expect, it } from 'vitest';
import type { UsageDayView } from '../gen/UsageDayView';
import { chartOf, currencyOf, daysBetween } from './usage-chart';

const open = { from: null, to: null };

const day = (d: string, agent: string, tokens: number, cost?: number): UsageDayView => ({
  day: d,
  agent,
  inputTokens: tokens,
  outputTokens: 0,
  cost: cost === undefined ? null : { amount: cost, currency: 'USD' },
});

describe('usage chart', () => {
  it('stacks agents per day in name order and scales to the tallest day', () => {
    const c = chartOf(
      [day('2026-03-02', 'codex', 30), day('2026-03-01', 'codex', 10), day('2026-03-01', 'claude', 5)],
      'tokens',
      open,
      '2026-03-02',
    );
    expect(c.agents).toEqual(['claude', 'codex']);
    expect(c.bars.map((b) => b.day)).toEqual(['2026-03-01', '2026-03-02']);
    expect(c.bars[0].segments).toEqual([
      { agent: 'claude', value: 5, base: 0 },
      { agent: 'codex', value: 10, base: 5 },
    ]);
    expect(c.max).toBe(30);
  });

  it('plots cost only where reported', () => {
    const days = [day('2026-03-01', 'claude', 5, 0.5), day('2026-03-01', 'codex', 10)];
    const c = chartOf(days, 'cost', open, '2026-03-01');
    expect(c.bars[0].segments).toEqual([{ agent: 'claude', value: 0.5, base: 0 }]);
    expect(currencyOf(days)).toBe('USD');
    expect(chartOf([day('2026-03-01', 'codex', 10)], 'cost', open, '2026-03-01').bars).toEqual([]);
  });

  it('draws every day of the range, a day without usage as zero', () => {
    const days = [day('2026-02-27', 'claude', 5), day('2026-03-02', 'codex', 7)];
    const c = chartOf(days, 'tokens', { from: '2026-02-26', to: '2026-03-03' }, '2026-03-03');
    expect(c.bars.map((b) => [b.day, b.total])).toEqual([
      ['2026-02-26', 0],
      ['2026-02-27', 5],
      ['2026-02-28', 0],
      ['2026-03-01', 0],
      ['2026-03-02', 7],
      ['2026-03-03', 0],
    ]);
    expect(c.bars[2].segments).toEqual([]);
    // Open at both ends: from the first day reported to today.
    const all = chartOf(days, 'tokens', open, '2026-03-04');
    expect(all.bars.map((b) => b.day)).toEqual(daysBetween('2026-02-27', '2026-03-04'));
    expect(all.bars).toHaveLength(6);
  });

  it('counts days across a month and a year end', () => {
    expect(daysBetween('2025-12-30', '2026-01-02')).toEqual(['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02']);
    expect(daysBetween('2026-03-02', '2026-03-01')).toEqual([]);
  });
});
