// The Usage page's stacked bars, as numbers: one bar for every bucket of
// the range asked for (a day, an ISO week or a month by the range's length,
// `usage-buckets.ts`; a bucket without usage is a bar of zero, so a gap
// reads as a gap), its figures the sums of its days, one segment per agent
// (tokens, input plus output, or cost), every agent in a fixed order and
// colour, the scale from the tallest bar. Plain SVG draws it
// (components/UsagePage.tsx); no chart library is needed for rectangles.

import type { UsageDayView } from '../gen/UsageDayView';
import { type BucketSize, bucketOf, bucketSizeOf, bucketsBetween } from './usage-buckets';

export type Measure = 'tokens' | 'cost';

export interface Segment {
  agent: string;
  value: number;
  /** Where the segment starts, from the bar's foot. */
  base: number;
}

export interface Bar {
  /** The bucket's first day (`YYYY-MM-DD`). */
  day: string;
  total: number;
  segments: Segment[];
}

export interface Chart {
  /** What one bar stands for. */
  size: BucketSize;
  agents: string[];
  bars: Bar[];
  max: number;
}

const value = (d: UsageDayView, m: Measure) =>
  m === 'tokens' ? d.inputTokens + d.outputTokens : (d.cost?.amount ?? 0);

/** The days a chart spans: `from` / `to` as asked (null: open). */
export interface Span {
  from: string | null;
  to: string | null;
}

/** The sum of `measure` over `days` (what the bars add up to). */
export function totalOf(days: UsageDayView[], measure: Measure): number {
  return days.reduce((sum, d) => sum + Math.max(0, value(d, measure)), 0);
}

/**
 * Bars for every bucket of `span` (an open start: the first day with
 * usage; an open end: `today`), the bucket's size by the span's length,
 * segments by agent (agents in name order). No bars at all when nothing
 * was reported in the span.
 */
export function chartOf(days: UsageDayView[], measure: Measure, span: Span, today: string): Chart {
  const agents = [...new Set(days.map((d) => d.agent))].sort();
  const reported = days
    .filter((d) => value(d, measure) > 0)
    .map((d) => d.day)
    .sort();
  if (reported.length === 0) return { size: 'day', agents, bars: [], max: 0 };
  const first = span.from ?? reported[0];
  const last = span.to ?? (today > reported[reported.length - 1] ? today : reported[reported.length - 1]);
  const size = bucketSizeOf(first, last);
  const byBucket = new Map<string, Map<string, number>>();
  for (const d of days) {
    const v = value(d, measure);
    if (v <= 0) continue;
    const key = bucketOf(d.day, size);
    const row = byBucket.get(key) ?? new Map<string, number>();
    row.set(d.agent, (row.get(d.agent) ?? 0) + v);
    byBucket.set(key, row);
  }
  const bars = bucketsBetween(first, last, size).map((day) => {
    const row = byBucket.get(day) ?? new Map<string, number>();
    let base = 0;
    const segments: Segment[] = [];
    for (const agent of agents) {
      const v = row.get(agent);
      if (!v) continue;
      segments.push({ agent, value: v, base });
      base += v;
    }
    return { day, total: base, segments };
  });
  return { size, agents, bars, max: Math.max(0, ...bars.map((b) => b.total)) };
}

/** The currency the costs are in, when they are all in one. */
export function currencyOf(days: UsageDayView[]): string | null {
  const all = new Set(days.flatMap((d) => (d.cost ? [d.cost.currency] : [])));
  return all.size === 1 ? [...all][0] : null;
}

/** An agent's colour (the same agent the same colour on every page). */
export function agentColor(agents: string[], agent: string): string {
  const palette = ['#2d6cdf', '#d97706', '#16a34a', '#9333ea', '#dc2626', '#0891b2', '#ca8a04', '#db2777'];
  return palette[agents.indexOf(agent) % palette.length];
}
