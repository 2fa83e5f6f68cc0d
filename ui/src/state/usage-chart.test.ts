import { describe, expect, it } from 'vitest';
import type { UsageDayView } from '../gen/UsageDayView';
import { bucketsBetween } from './usage-buckets';
import { chartOf, currencyOf, totalOf } from './usage-chart';

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
    expect(all.bars.map((b) => b.day)).toEqual(bucketsBetween('2026-02-27', '2026-03-04', 'day'));
    expect(all.bars).toHaveLength(6);
  });

  it('draws a range over ~3 months a bar a week, its days summed, an empty week a gap', () => {
    // 2026-01-07 is a Wednesday: the first bar is the week of Monday Jan 5.
    const days = [
      day('2026-01-07', 'claude', 5),
      day('2026-01-11', 'claude', 6), // Sunday: the same week
      day('2026-01-12', 'codex', 7), // Monday: the next
      day('2026-04-30', 'codex', 11),
    ];
    const c = chartOf(days, 'tokens', { from: '2026-01-07', to: '2026-04-30' }, '2026-05-01');
    expect(c.size).toBe('week');
    expect(c.bars[0]).toEqual({ day: '2026-01-05', total: 11, segments: [{ agent: 'claude', value: 11, base: 0 }] });
    expect(c.bars[1].day).toBe('2026-01-12');
    expect(c.bars[1].total).toBe(7);
    expect(c.bars[2]).toEqual({ day: '2026-01-19', total: 0, segments: [] });
    expect(c.bars[c.bars.length - 1].day).toBe('2026-04-27');
    expect(c.bars).toHaveLength(17);
    expect(c.bars.reduce((s, b) => s + b.total, 0)).toBe(totalOf(days, 'tokens'));
  });

  it('draws three years a bar a month, the sums kept, at most 37 bars', () => {
    const days = [
      day('2023-12-01', 'claude', 1),
      day('2024-02-29', 'claude', 2, 0.5), // a leap day
      day('2024-02-01', 'codex', 3, 0.25),
      day('2024-03-01', 'codex', 4),
      day('2026-11-28', 'claude', 5, 1),
    ];
    const span = { from: '2023-11-29', to: '2026-11-28' };
    const c = chartOf(days, 'tokens', span, '2026-11-28');
    expect(c.size).toBe('month');
    expect(c.bars).toHaveLength(37);
    expect(c.bars[0].day).toBe('2023-11-01');
    expect(c.bars.find((b) => b.day === '2024-02-01')?.segments).toEqual([
      { agent: 'claude', value: 2, base: 0 },
      { agent: 'codex', value: 3, base: 2 },
    ]);
    expect(c.bars.find((b) => b.day === '2024-03-01')?.total).toBe(4);
    expect(c.bars.reduce((s, b) => s + b.total, 0)).toBe(totalOf(days, 'tokens'));
    const cost = chartOf(days, 'cost', span, '2026-11-28');
    expect(cost.bars.reduce((s, b) => s + b.total, 0)).toBeCloseTo(totalOf(days, 'cost'));
    expect(totalOf(days, 'cost')).toBeCloseTo(1.75);
  });

  it('an empty range has no bars and a total of zero', () => {
    expect(chartOf([], 'tokens', { from: '2020-01-01', to: '2023-01-01' }, '2026-01-01')).toEqual({
      size: 'day',
      agents: [],
      bars: [],
      max: 0,
    });
    expect(totalOf([], 'tokens')).toBe(0);
  });
});
