import { describe, expect, it } from 'vitest';
import type { UsageDayView } from '../gen/UsageDayView';
import { chartOf, currencyOf } from './usage-chart';

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
    const c = chartOf(days, 'cost');
    expect(c.bars[0].segments).toEqual([{ agent: 'claude', value: 0.5, base: 0 }]);
    expect(currencyOf(days)).toBe('USD');
    expect(chartOf([day('2026-03-01', 'codex', 10)], 'cost').bars).toEqual([]);
  });
});
